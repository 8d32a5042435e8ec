"""Verdicts that compare our interval with the size a study claimed, not only with zero.

A claim states its quantity and size (`Size`): a range (Zipf rank exponent 0.7-1.3, tracing overhead 24-36 %),
a ratio with a comparable size (ext4 "about 4x" xfs: the effect, ratio - 1, within a factor of two of the
claimed effect), a direction only (ratio > 1), or "the same" (ratio within an equivalence margin).

  range / ratio / direction: `replicates` when our 95 % interval lies inside the claimed range; `does not` when
      it lies wholly outside it (it excludes the claimed size); `inconclusive` when it straddles an end.
  same: two one-sided tests (TOST, alpha 0.05) against the margin, i.e. our 90 % interval: `replicates` when it
      lies inside the margin (equivalence shown); `does not` when it lies wholly outside it (a difference
      larger than the margin shown); `inconclusive` otherwise.

The estimates and their intervals are blkscope.analysis.stats.estimates'; the p of a verdict and Holm's adjustment
across claims blkscope.paper.claim_multiplicity's.

Repeats needed (`n_needed`): the number of repeats per arm at which the interval would decide (lie inside the
band, or wholly outside it) if the estimate and the per-repeat spread stayed as observed; none when the estimate
sits on a band edge (no n moves the interval off it). It tells which claims more repeats can settle. The claims
table asks it at the level of the family-wise correction (claim_multiplicity.family_level), so that the n it prints
decides the adjusted verdict, not only the row's own interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

# the estimates the claims judge come from the statistics the analyses share; the claims' modules read them here
# (vd.log_ratio, ...): one module for the claims' statistics, and an estimator's source, its fingerprint in the
# claims plan (blkscope.paper.claims_plan), does not move when a module is renamed
from blkscope.analysis.stats.estimates import (  # noqa: F401
    LEVEL,
    Estimate,
    Spread,
    log_contrast,
    log_ratio,
    mean_interval,
    one_sample_spread,
    spread_of,
    welch_diff,
    welch_spread,
)
from blkscope.paper.claim_multiplicity import Decision, both_p, decision_p, strata_decision

TOST_ALPHA = 0.05
N_CAP = 100_000  # repeats per arm beyond which n_needed reports "more than N_CAP"


@dataclass(frozen=True)
class Size:
    """What a claim says, as an interval of the quantity; `same` claims are judged by TOST."""

    kind: str  # "range" | "same"
    lo: float
    hi: float
    text: str  # as the claims table prints it: the words, then a note in parentheses where there is one
    words: str = ""  # the size in words without the note ("1.07x", "xfs/ext4 > 1", "the same"); "": the text

    @property
    def claimed_words(self) -> str:
        """The size as a sentence names it: "the claimed 1.07x" (claims.csv band_words)."""
        return self.words or self.text

    @property
    def level(self) -> float:
        """Confidence level of the interval the verdict reads: 90 % for TOST at alpha 0.05."""
        return 1 - 2 * TOST_ALPHA if self.kind == "same" else LEVEL


def _noted(words: str, note: str) -> str:
    return f"{words} ({note})" if note else words


def within(lo: float, hi: float, words: str, note: str = "") -> Size:
    return Size("range", lo, hi, _noted(words, note), words)


def comparable_ratio(claimed: float, what: str = "") -> Size:
    """A claimed ratio r: the effect r - 1 within a factor of two (1 + (r-1)/2 .. 1 + 2(r-1))."""
    e = claimed - 1
    lo, hi = sorted((1 + e / 2, 1 + 2 * e))
    words = f"{what}{claimed:.2f}x"
    return Size("range", lo, hi, _noted(words, f"comparable: {lo:.2f}-{hi:.2f}x"), words)


def comparable_between(a: float, b: float, what: str = "") -> Size:
    """Two published ratios (e.g. two devices): the band from half the smaller effect to twice the larger."""
    lo, hi = comparable_ratio(min(a, b)).lo, comparable_ratio(max(a, b)).hi
    words = f"{what}{lo:.2f}-{hi:.2f}x"
    return Size("range", lo, hi, _noted(words, f"effect within 2x of {min(a, b):.2f}-{max(a, b):.2f}x"), words)


def more(what: str = "ratio") -> Size:
    return Size("range", 1.0, math.inf, _noted(f"{what} > 1", "direction"), f"{what} > 1")


def less(what: str = "ratio") -> Size:
    return Size("range", 0.0, 1.0, _noted(f"{what} < 1", "direction"), f"{what} < 1")


def same(margin: float) -> Size:
    """Equal within +-margin (relative): ratio in [1/(1+m), 1+m], symmetric on the log scale."""
    return Size("same", 1 / (1 + margin), 1 + margin, _noted("the same", f"ratio within +-{100 * margin:.0f} %, TOST"),
                "the same")


def verdict(lo: float, hi: float, size: Size) -> str:
    """Our interval [lo, hi] (at size.level) against the claimed size."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "inconclusive"
    if size.lo <= lo and hi <= size.hi:
        return "replicates"
    if hi < size.lo or lo > size.hi:
        return "does not"
    return "inconclusive"


def _se_dof(est: Estimate, size: Size) -> tuple[float, float]:
    """`est`'s standard error and degrees of freedom; for a bootstrap or a rule, the interval's half-width over the
    normal quantile."""
    if math.isfinite(est.se):
        return est.se, est.dof
    f = math.log if est.scale == "log" else float
    ok = all(math.isfinite(x) and (est.scale != "log" or x > 0) for x in (est.lo, est.hi))
    return (f(est.hi) - f(est.lo)) / (2 * stats.norm.ppf(0.5 + size.level / 2)) if ok else math.nan, math.inf


def decision(est: Estimate, size: Size) -> Decision:
    """The p of `est`'s verdict against `size` (blkscope.paper.claim_multiplicity)."""
    return decision_p(est.value, *_se_dof(est, size), (size.lo, size.hi), size.level, est.scale)


STRATA_DISAGREE = "inconclusive: strata disagree"  # counted with the inconclusive ones: it starts with the word
# the condition rule's label (blkscope.paper.claims.by_condition): the row's runs are outside the condition its
# study states, named after a colon; not `not testable here`, which is a condition this machine cannot make
OUTSIDE = "outside the study's condition"


def strata_verdict(each: list[Estimate], size: Size) -> tuple[str, Decision]:
    """The verdict of strata that disagree (claim_heterogeneity), each stratum's own interval against the band: an
    intersection-union test (claim_multiplicity.strata_decision), `replicates` where every stratum's interval
    replicates, `does not` where every one does not, else STRATA_DISAGREE; and its decision p for Holm."""
    own = [verdict(e.lo, e.hi, size) for e in each]
    d = strata_decision([both_p(e.value, *_se_dof(e, size), (size.lo, size.hi), size.level, e.scale) for e in each])
    v = own[0] if own and own[0] in ("replicates", "does not") and len(set(own)) == 1 else STRATA_DISAGREE
    return v, d


def _distance_to_band(value: float, size: Size, scale: str) -> float:
    """How far the estimate lies from the nearest finite band edge, on the test's scale: the half-width the
    interval must get below to decide (inside the band: to replicate; outside: to exclude it)."""
    f = math.log if scale == "log" else float
    edges = [f(e) for e in (size.lo, size.hi) if math.isfinite(e) and (scale != "log" or e > 0)]
    if not edges or (scale == "log" and value <= 0):
        return math.nan
    return min(abs(f(value) - e) for e in edges)


def n_needed(est: Estimate, size: Size, level: float | None = None, cap: int = N_CAP) -> float:
    """Repeats per arm at which `est`'s interval (at `level`, by default size.level) would decide at the observed
    spread: the smallest n >= 2 with half-width(n) < distance from the estimate to the nearest band edge. math.inf
    when no n decides (the estimate on an edge); cap + 1 when more than `cap` would be needed; nan without a
    spread."""
    if est.spread is None or not math.isfinite(est.value):
        return math.nan
    delta = _distance_to_band(est.value, size, est.spread.scale)
    if not math.isfinite(delta):
        return math.nan
    if delta == 0:
        return math.inf
    if est.spread.unit_sd == 0:
        return 2.0
    # the normal approximation is a lower bound on n (t > z); step up from it with the t quantile
    level = size.level if level is None else level
    z = stats.norm.ppf(0.5 + level / 2)
    n = max(2, math.ceil((z * est.spread.unit_sd / delta) ** 2))
    while n <= cap:
        if est.spread.half_width(n, level) < delta:
            return float(n)
        n = n + 1 if n < 1000 else math.ceil(n * 1.01)
    return float(cap + 1)


def n_needed_text(n: float, cap: int = N_CAP) -> str:
    """n_needed as the claims table prints it."""
    if math.isnan(n):
        return "--"
    if math.isinf(n):  # an estimate at the band's end: no practical number of repeats decides
        return "--"
    return f"> {cap:,}" if n > cap else f"{n:.0f}"
