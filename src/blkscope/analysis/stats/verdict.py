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

Repeats needed (`n_needed`): the number of repeats per arm at which the interval would decide (lie inside the
band, or wholly outside it) if the estimate and the per-repeat spread stayed as observed; none when the estimate
sits on a band edge (no n moves the interval off it). It tells which claims more repeats can settle.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from blkscope.analysis.stats.multiplicity import Decision, decision_p

LEVEL = 0.95
TOST_ALPHA = 0.05
N_CAP = 100_000  # repeats per arm beyond which n_needed reports "more than N_CAP"


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


def comparable_between(a: float, b: float, what: str = "") -> Size:
    """Two published ratios (e.g. two devices): the band from half the smaller effect to twice the larger."""
    lo, hi = comparable_ratio(min(a, b)).lo, comparable_ratio(max(a, b)).hi
    return Size("range", lo, hi, f"{what}{lo:.2f}-{hi:.2f}x (effect within 2x of {min(a, b):.2f}-{max(a, b):.2f}x)")


def more(what: str = "ratio") -> Size:
    return Size("range", 1.0, math.inf, f"{what} > 1 (direction)")


def less(what: str = "ratio") -> Size:
    return Size("range", 0.0, 1.0, f"{what} < 1 (direction)")


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
class Spread:
    """How an interval narrows with n repeats per arm: half-width(n) = t(level, dof(n)) * unit_sd / sqrt(n), on the
    scale the test works on (`log` for ratios of geometric means, `linear` otherwise)."""

    unit_sd: float  # the spread one repeat per arm contributes (Welch: sqrt(sd_a^2 + sd_b^2))
    dof: Callable[[int], float]
    scale: str = "linear"

    def half_width(self, n: int, level: float) -> float:
        return float(stats.t.ppf(0.5 + level / 2, self.dof(n)) * self.unit_sd / math.sqrt(n))


def spread_of(variances: list[float], scale: str = "linear") -> Spread:
    """The spread of an estimate that sums independent arms, each contributing `variance` / n at n repeats
    (already weighted: w^2 sd^2): its standard error and Welch-Satterthwaite degrees of freedom at n per arm."""
    v = [float(x) for x in variances]
    total, sq = sum(v), sum(x * x for x in v)
    dof = (lambda n: (n - 1) * total**2 / sq) if sq > 0 else (lambda n: math.inf)
    return Spread(math.sqrt(total), dof, scale)


def welch_spread(sd_a: float, sd_b: float, scale: str = "linear") -> Spread:
    """Two arms of n repeats each: Welch's standard error and its degrees of freedom."""
    return spread_of([sd_a**2, sd_b**2], scale)


def one_sample_spread(sd: float) -> Spread:
    return Spread(sd, lambda n: n - 1)


@dataclass(frozen=True)
class Estimate:
    value: float
    lo: float
    hi: float
    p: float  # two-sided p of no effect (ratio 1, difference 0); nan if not computed
    test: str
    p_tost: float = math.nan
    spread: Spread | None = None  # for n_needed; None: the test has no per-repeat spread (a rule over runs)
    se: float = math.nan  # standard error on `scale` (nan: derived from the interval, normal, by `decision`)
    dof: float = math.inf
    scale: str = "linear"  # "log": value, lo and hi are ratios, se is of their log

    def decision(self, size: Size) -> Decision:
        """The p of this estimate's verdict against `size` (blkscope.analysis.stats.multiplicity)."""
        se, dof = self.se, self.dof
        if not math.isfinite(se):  # a bootstrap or a rule: the interval's half-width over the normal quantile
            f = math.log if self.scale == "log" else float
            ok = all(math.isfinite(x) and (self.scale != "log" or x > 0) for x in (self.lo, self.hi))
            se = (f(self.hi) - f(self.lo)) / (2 * stats.norm.ppf(0.5 + size.level / 2)) if ok else math.nan
            dof = math.inf
        return decision_p(self.value, se, dof, (size.lo, size.hi), size.level, self.scale)


def _distance_to_band(value: float, size: Size, scale: str) -> float:
    """How far the estimate lies from the nearest finite band edge, on the test's scale: the half-width the
    interval must get below to decide (inside the band: to replicate; outside: to exclude it)."""
    f = math.log if scale == "log" else float
    edges = [f(e) for e in (size.lo, size.hi) if math.isfinite(e) and (scale != "log" or e > 0)]
    if not edges or (scale == "log" and value <= 0):
        return math.nan
    return min(abs(f(value) - e) for e in edges)


def n_needed(est: Estimate, size: Size, cap: int = N_CAP) -> float:
    """Repeats per arm at which `est`'s interval (at size.level) would decide at the observed spread: the smallest
    n >= 2 with half-width(n) < distance from the estimate to the nearest band edge. math.inf when no n decides
    (the estimate on an edge); cap + 1 when more than `cap` would be needed; nan without a spread."""
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
    z = stats.norm.ppf(0.5 + size.level / 2)
    n = max(2, math.ceil((z * est.spread.unit_sd / delta) ** 2))
    while n <= cap:
        if est.spread.half_width(n, size.level) < delta:
            return float(n)
        n = n + 1 if n < 1000 else math.ceil(n * 1.01)
    return float(cap + 1)


def n_needed_text(n: float, cap: int = N_CAP) -> str:
    """n_needed as the claims table prints it."""
    if math.isnan(n):
        return "--"
    if math.isinf(n):
        return "none (estimate on the band edge)"
    return f"> {cap:,}" if n > cap else f"{n:.0f}"


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
    spread = welch_spread(a.std(ddof=1), b.std(ddof=1))
    if se == 0:
        return Estimate(d, d, d, 0.0 if d else 1.0, "Welch t", spread=spread, se=0.0)
    h = stats.t.ppf(0.5 + level / 2, dof) * se
    return Estimate(d, d - h, d + h, float(2 * stats.t.sf(abs(d) / se, dof)), "Welch t", spread=spread, se=se,
                    dof=dof)


def log_ratio(a, b, level: float = LEVEL, margin: float | None = None) -> Estimate:
    """Ratio of geometric means a / b: Welch interval on log values, exponentiated. With `margin`, also the TOST
    p of equivalence (ratio within [1/(1+m), 1+m]): the larger of the two one-sided p-values."""
    est = log_contrast([a, b], [1, -1], level)
    p_tost = math.nan
    if margin is not None:
        d, se, dof = _welch(np.log(np.asarray(a, float)), np.log(np.asarray(b, float)))
        L = math.log1p(margin)
        if se == 0:
            p_tost = 0.0 if abs(d) < L else 1.0
        else:
            p_tost = float(max(stats.t.sf((d + L) / se, dof), stats.t.cdf((d - L) / se, dof)))
    test = "Welch t on log values (ratio of geometric means)" + (", TOST" if margin is not None else "")
    return replace(est, test=test, p_tost=p_tost)


def mean_interval(x, level: float = LEVEL) -> Estimate:
    """Mean over units (runs) with a Student t interval."""
    x = np.asarray(x, float)
    m = float(x.mean())
    if x.size < 2:
        return Estimate(m, math.nan, math.nan, math.nan, "t interval over runs")
    se = x.std(ddof=1) / math.sqrt(x.size)
    h = stats.t.ppf(0.5 + level / 2, x.size - 1) * se
    return Estimate(m, m - h, m + h, math.nan, "t interval over runs", spread=one_sample_spread(x.std(ddof=1)),
                    se=float(se), dof=x.size - 1)


def log_contrast(arms, weights, level: float = LEVEL, log: bool = True) -> Estimate:
    """exp(sum_i w_i mean(log arm_i)): a ratio of geometric means (weights +1, -1), a ratio of two such ratios
    (+1, -1, -1, +1: does an advantage grow?) or a mean over strata of ratios (+-1/k each). Welch t interval
    with Welch-Satterthwaite degrees of freedom; every arm needs 2 repeats. log=False: the same contrast of plain
    means (a mean over strata of differences)."""
    xs = [np.log(np.asarray(a, float)) if log else np.asarray(a, float) for a in arms]
    back, scale, test = (math.exp, "log", "Welch t on log values") if log else (float, "linear", "Welch t on values")
    d = float(sum(w * x.mean() for w, x in zip(weights, xs, strict=True)))
    parts = [w * w * x.var(ddof=1) for w, x in zip(weights, xs, strict=True)]
    per_n = [v / x.size for v, x in zip(parts, xs, strict=True)]
    se = math.sqrt(sum(per_n))
    spread = spread_of(parts, scale)
    if se == 0:
        return Estimate(back(d), back(d), back(d), 0.0 if d else 1.0, test, spread=spread, se=0.0, scale=scale)
    dof = sum(per_n) ** 2 / sum(v * v / (x.size - 1) for v, x in zip(per_n, xs, strict=True))
    h = stats.t.ppf(0.5 + level / 2, dof) * se
    p = float(2 * stats.t.sf(abs(d) / se, dof))
    return Estimate(back(d), back(d - h), back(d + h), p, test, spread=spread, se=se, dof=dof, scale=scale)
