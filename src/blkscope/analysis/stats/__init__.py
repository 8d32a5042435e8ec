"""The statistics shared by every analysis and the claims: intervals and bootstrap means, estimates of differences
and ratios with their intervals, mergeable histograms, a packed sort. The claims' own statistics (verdicts against
a claimed size, multiplicity, heterogeneity) are blkscope.paper's claim_* modules."""
