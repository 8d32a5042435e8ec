"""Verdicts that compare our interval with the size a study claimed, not only with zero.

A claim states its quantity and size (`Size`): a range (Zipf rank exponent 0.7-1.3, tracing overhead 24-36 %),
a ratio with a comparable size (ext4 "about 4x" xfs: the effect, ratio - 1, within a factor of two of the
claimed effect), a direction only (ratio > 1), or "the same" (ratio within an equivalence margin).

  range / ratio / direction: `replicates` when our 95 % interval lies inside the claimed range; `does not` when
      it lies wholly outside it (it excludes the claimed size); `inconclusive` when it straddles an end.
  same: two one-sided tests (TOST, alpha 0.05) against the margin, i.e. our 90 % interval: `replicates` when it
      lies inside the margin (equivalence shown); `does not` when it lies wholly outside it (a difference
      larger than the margin shown); `inconclusive` otherwise.

Ratios of throughputs and queue sizes are ratios of geometric means over repeats: a Welch t interval of the
difference of mean logs, exponentiated (positive, skewed quantities; with 2-3 repeats a bootstrap interval would
be far too narrow).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

LEVEL = 0.95
TOST_ALPHA = 0.05


@dataclass(frozen=True)
class Size:
    """What a claim says, as an interval of the quantity; `same` claims are judged by TOST."""

    kind: str  # "range" | "same"
    lo: float
    hi: float
    text: str  # as the claims table prints it

    @property
    def level(self) -> float:
        """Confidence level of the interval the verdict reads: 90 % for TOST at alpha 0.05."""
        return 1 - 2 * TOST_ALPHA if self.kind == "same" else LEVEL


def within(lo: float, hi: float, text: str) -> Size:
    return Size("range", lo, hi, text)


def comparable_ratio(claimed: float, what: str = "") -> Size:
    """A claimed ratio r: the effect r - 1 within a factor of two (1 + (r-1)/2 .. 1 + 2(r-1))."""
    e = claimed - 1
    lo, hi = sorted((1 + e / 2, 1 + 2 * e))
    return Size("range", lo, hi, f"{what}{claimed:.2f}x (comparable: {lo:.2f}-{hi:.2f}x)")


def more(what: str = "ratio") -> Size:
    return Size("range", 1.0, math.inf, f"{what} > 1 (direction only)")


def same(margin: float) -> Size:
    """Equal within +-margin (relative): ratio in [1/(1+m), 1+m], symmetric on the log scale."""
    return Size("same", 1 / (1 + margin), 1 + margin, f"the same (ratio within +-{100 * margin:.0f} %, TOST)")


def verdict(lo: float, hi: float, size: Size) -> str:
    """Our interval [lo, hi] (at size.level) against the claimed size."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "inconclusive"
    if size.lo <= lo and hi <= size.hi:
        return "replicates"
    if hi < size.lo or lo > size.hi:
        return "does not"
    return "inconclusive"


@dataclass(frozen=True)
class Estimate:
    value: float
    lo: float
    hi: float
    p: float  # two-sided p of no effect (ratio 1, difference 0); nan if not computed
    test: str
    p_tost: float = math.nan


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Difference of means, its standard error and Welch-Satterthwaite degrees of freedom."""
    d = float(a.mean() - b.mean())
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)) if se > 0 else math.inf
    return d, se, dof


def welch_diff(a, b, level: float = LEVEL) -> Estimate:
    """mean(a) - mean(b) with its Welch t interval and p."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d, se, dof = _welch(a, b)
    if se == 0:
        return Estimate(d, d, d, 0.0 if d else 1.0, "Welch t")
    h = stats.t.ppf(0.5 + level / 2, dof) * se
    return Estimate(d, d - h, d + h, float(2 * stats.t.sf(abs(d) / se, dof)), "Welch t")


def log_ratio(a, b, level: float = LEVEL, margin: float | None = None) -> Estimate:
    """Ratio of geometric means a / b: Welch interval on log values, exponentiated. With `margin`, also the TOST
    p of equivalence (ratio within [1/(1+m), 1+m]): the larger of the two one-sided p-values."""
    a, b = np.log(np.asarray(a, float)), np.log(np.asarray(b, float))
    d, se, dof = _welch(a, b)
    p_tost = math.nan
    if se == 0:
        lo = hi = d
        p = 0.0 if d else 1.0
        if margin is not None:
            p_tost = 0.0 if abs(d) < math.log1p(margin) else 1.0
    else:
        h = stats.t.ppf(0.5 + level / 2, dof) * se
        lo, hi = d - h, d + h
        p = float(2 * stats.t.sf(abs(d) / se, dof))
        if margin is not None:
            L = math.log1p(margin)
            p_tost = float(max(stats.t.sf((d + L) / se, dof), stats.t.cdf((d - L) / se, dof)))
    test = "Welch t on log values (ratio of geometric means)" + (", TOST" if margin is not None else "")
    return Estimate(math.exp(d), math.exp(lo), math.exp(hi), p, test, p_tost)


def mean_interval(x, level: float = LEVEL) -> Estimate:
    """Mean over units (runs) with a Student t interval."""
    x = np.asarray(x, float)
    m = float(x.mean())
    if x.size < 2:
        return Estimate(m, math.nan, math.nan, math.nan, "t interval over runs")
    h = stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    return Estimate(m, m - h, m + h, math.nan, "t interval over runs")
