"""Estimates of a quantity from repeated runs, with their intervals: a difference of means (Welch), a ratio of
geometric means (Welch on log values, optionally with TOST against an equivalence margin), a mean over runs (t),
and contrasts of several arms; each with the spread one repeat contributes, so that a caller can ask how the
interval narrows with more repeats (blkscope.paper.claim_verdict's n_needed). Shared by the analyses (the
Cassandra comparison) and the claims, which judge these intervals against a claimed size.

Ratios of throughputs and queue sizes are ratios of geometric means over repeats: a Welch t interval of the
difference of mean logs, exponentiated (positive, skewed quantities; with 2-3 repeats a bootstrap interval would
be far too narrow).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

LEVEL = 0.95


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
    se: float = math.nan  # standard error on `scale` (nan: from the interval, normal: claim_verdict.decision)
    dof: float = math.inf
    scale: str = "linear"  # "log": value, lo and hi are ratios, se is of their log


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
