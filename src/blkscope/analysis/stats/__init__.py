"""The statistics shared by every analysis and the claims: intervals and bootstrap means, mergeable histograms, a
packed sort, verdicts against a claimed size, multiplicity and heterogeneity."""
