"""Many claims, one error rate: the p of each claim's verdict, and Holm's step-down adjustment across claims.

A verdict compares an interval with a band (blkscope.paper.claim_verdict): `replicates` when the interval lies inside
the band, `does not` when it lies wholly outside. Each is a test. `replicates` rejects "the quantity lies outside
the band" (intersection-union: both one-sided tests against the edges; TOST for `the same`), `does not` rejects
"the quantity lies inside the band" (one-sided against the nearest edge). At level L the interval decides exactly
when the smaller of the two one-sided p-values is below (1 - L) / 2; `decision_p` scales it so that p < ALPHA is
that event at every level (x2 at 95 %, x1 at the 90 % of TOST), which lets one family mix both kinds.

Holm-Bonferroni (family-wise, ALPHA) over the claims whose verdict comes from an interval: the adjusted p of the
i-th smallest of m is max over j <= i of min(1, (m - j + 1) p_(j)); an adjusted verdict decides when it is below
ALPHA, else it is `inconclusive`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

ALPHA = 0.05


@dataclass(frozen=True)
class Decision:
    p: float  # decision_p: below ALPHA exactly when the interval decides
    kind: str  # "replicates" | "does not": the test with the smaller p


def decision_p(value: float, se: float, dof: float, band: tuple[float, float], level: float,
               scale: str = "linear") -> Decision:
    """The p of a verdict for an estimate `value` with standard error `se` (on `scale`: "log" for ratios, whose
    value, band and se are then log-scaled here from the ratio and the log-scale se) and t degrees of freedom
    `dof` (inf: normal), against band (lo, hi) read at `level`."""
    p_rep, p_not = both_p(value, se, dof, band, level, scale)
    if math.isnan(p_rep):
        return Decision(math.nan, "")
    return _picked(p_rep, p_not)


def _picked(p_rep: float, p_not: float) -> Decision:
    """The test with the smaller p, its p capped at 1."""
    return Decision(min(1.0, p_rep), "replicates") if p_rep <= p_not else Decision(min(1.0, p_not), "does not")


def both_p(value: float, se: float, dof: float, band: tuple[float, float], level: float,
           scale: str = "linear") -> tuple[float, float]:
    """decision_p's two tests, each scaled as it scales them (not capped at 1): (p of `replicates`, p of `does not`);
    nan, nan where the estimate has no finite value or standard error. An intersection-union over strata
    (strata_decision) needs both: a stratum whose smaller p is of one kind still has a p of the other."""
    f = (lambda x: math.log(x) if x > 0 else -math.inf) if scale == "log" else float
    x = f(value)
    lo, hi = (f(e) if math.isfinite(e) else e for e in band)
    if not math.isfinite(x) or not (se >= 0):
        return math.nan, math.nan
    t = stats.t if math.isfinite(dof) else stats.norm
    args = (dof,) if math.isfinite(dof) else ()

    def above(edge: float) -> float:  # one-sided p that the quantity exceeds `edge` (H0: at or below it)
        if edge == -math.inf:
            return 0.0
        if edge == math.inf:
            return 1.0
        if se == 0:
            return 0.0 if x > edge else 1.0
        return float(t.sf((x - edge) / se, *args))

    def below(edge: float) -> float:
        if edge == math.inf:
            return 0.0
        if edge == -math.inf:
            return 1.0
        if se == 0:
            return 0.0 if x < edge else 1.0
        return float(t.cdf((x - edge) / se, *args))

    scale_p = ALPHA / ((1 - level) / 2)
    return max(above(lo), below(hi)) * scale_p, min(above(hi), below(lo)) * scale_p


def strata_decision(each: list[tuple[float, float]]) -> Decision:
    """Strata that disagree, each judged on its own ((p of `replicates`, p of `does not`) per stratum, both_p): an
    intersection-union test. The row replicates only if every stratum does, so its p of `replicates` is the largest
    of the strata's, and likewise for `does not` (valid with no adjustment across the strata: each is tested at the
    row's level); the kind with the smaller of the two. It is below ALPHA exactly when every stratum's own interval
    decides that kind; else the strata disagree and no verdict follows."""
    if not each or any(math.isnan(r) or math.isnan(n) for r, n in each):
        return Decision(math.nan, "")
    return _picked(max(r for r, _ in each), max(n for _, n in each))


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the input's order; nan stays nan and is not counted in m."""
    p = np.asarray(p, float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    adj = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(adj)
    return out


def family_level(level: float, m: int) -> float:
    """The interval level at which a row of a family of `m` decides under Holm whatever the other rows do: Holm's
    strictest step, Bonferroni's (1 - level) / m on each side's share. A row whose interval decides at it has p
    below ALPHA / m, so every row before it in Holm's order does too and none stops the step-down before it."""
    return 1 - (1 - level) / max(m, 1)


def adjusted_verdict(p_adj: float, kind: str, unadjusted: str) -> str:
    """The verdict after adjustment: the unadjusted one where the adjusted p still decides, else inconclusive;
    verdicts outside the family (not tested, a rule over runs) unchanged."""
    if math.isnan(p_adj):
        return unadjusted
    # an undecided row keeps its own words (strata that disagree say so); a decided one Holm does not keep is
    # inconclusive
    return kind if p_adj < ALPHA else unadjusted if unadjusted.startswith("inconclusive") else "inconclusive"
