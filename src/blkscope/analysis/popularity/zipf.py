"""Power-law (Zipf) fits of access frequencies, done as Clauset, Shalizi and Newman (2009, "CSN") prescribe.

`fit_discrete(values)` fits p(x) = x^-alpha / zeta(alpha, xmin) for x >= xmin: the exact discrete MLE of alpha
for every candidate xmin (vectorised over candidates), xmin chosen by the smallest KS distance, on sufficient
statistics (unique values and multiplicities), so a table of 1e8 page counts costs what its few thousand distinct
counts cost. Uncertainty: `sigma` is the standard error of alpha from the Fisher information of the discrete
model at fixed xmin, 1/sqrt(n_tail * Var[log X]); `sigma_csn` is CSN's asymptotic (alpha - 1)/sqrt(n_tail) (what
`powerlaw` reports). Goodness of fit: CSN's semi-parametric bootstrap p-value (xmin re-selected in each replicate).
Alternatives: Vuong likelihood-ratio tests against lognormal, exponential (non-nested, normal approximation) and
truncated power law (nested, chi^2_1), all discrete. Rank-frequency exponent: if the number of pages with count
>= x falls as x^-(alpha-1), the count of the page of rank r falls as r^-s with s = 1/(alpha - 1); its CI maps the
CI of alpha through that monotone function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl
from scipy.special import ndtri  # norm.ppf without importing scipy.stats (0.3 s)

from blkscope.analysis.popularity import discrete_powerlaw as dp
from blkscope.analysis.popularity import zipf_boot
from blkscope.analysis.popularity.frequency import OPS, frequency_of_frequency
from blkscope.analysis.popularity.zipf_alternatives import Comparison, compare_all


@dataclass(frozen=True)
class PowerLawFit:
    alpha: float
    xmin: int
    ks: float  # KS distance of the tail
    n_tail: int  # observations >= xmin
    n: int  # all positive observations
    sigma: float  # SE of alpha, observed Fisher information (fixed xmin)
    sigma_csn: float  # (alpha - 1) / sqrt(n_tail)
    alpha_ci: tuple[float, float]
    s: float  # rank-frequency exponent 1 / (alpha - 1)
    s_ci: tuple[float, float]
    distinct: int  # distinct values: what the cost follows
    p_gof: float | None = None  # bootstrap goodness of fit (None: not run)
    n_boot: int = 0
    p_gof_se: float | None = None  # Monte Carlo SE of p_gof
    comparisons: dict[str, Comparison] = field(default_factory=dict)

    def row(self) -> dict:
        """One flat row (for a Parquet table)."""
        r = {
            "n": self.n, "distinct": self.distinct, "n_tail": self.n_tail, "xmin": self.xmin,
            "alpha": self.alpha, "sigma": self.sigma, "sigma_csn": self.sigma_csn,
            "alpha_lo": self.alpha_ci[0], "alpha_hi": self.alpha_ci[1], "ks": self.ks,
            "p_gof": self.p_gof, "p_gof_se": self.p_gof_se, "n_boot": self.n_boot,
            "s": self.s, "s_lo": self.s_ci[0], "s_hi": self.s_ci[1],
        }  # fmt: skip
        for name in ("lognormal", "exponential", "truncated_power_law"):
            cmp = self.comparisons.get(name)
            r[f"R_{name}"] = cmp.R if cmp else None
            r[f"Rnorm_{name}"] = cmp.R_norm if cmp else None
            r[f"p_{name}"] = cmp.p if cmp else None
        return r


def _point(v, c, xmin, max_alpha, analytic=False):
    """(k, alpha, ks, n_ge) for a fixed or KS-selected xmin (analytic: see dp.mle_alpha)."""
    if xmin is None:
        k, a, d, n_ge, _ = dp.select_xmin(v, c, max_alpha=max_alpha, analytic=analytic)
        return k, a, d, n_ge
    k = int(np.searchsorted(v, xmin))
    n_ge, mean_log = dp.tail_stats(v, c)
    a = float(dp.mle_alpha(np.array([float(xmin)]), mean_log[k : k + 1], analytic=analytic)[0])
    return k, a, dp.ks_full(v, n_ge, a, k), n_ge


def fit_discrete(
    values,
    weights=None,
    *,
    xmin: int | None = None,
    max_alpha: float | None = None,
    n_boot: int = 0,
    seed: int = 0,
    compare: bool = True,
    level: float = 0.95,
) -> PowerLawFit:
    """Fit a discrete power law to positive integers `values` (with optional multiplicities `weights`).

    xmin: fix it instead of choosing it by KS. max_alpha: exclude candidates whose alpha is not below it
    (`powerlaw` excludes alpha >= 2.99, the edge of its default range (0, 3)). n_boot: bootstrap replicates
    for the goodness-of-fit p-value (CSN suggest 2500 for +-0.01). compare: run the likelihood-ratio tests.
    """
    v, c = dp.unique_counts(values, weights)
    k, a, d, n_ge = _point(v, c, xmin, max_alpha)
    n_tail = float(n_ge[k])
    sig = dp.fisher_sigma(a, v[k], n_tail)
    zq = 1.959963984540054 if level == 0.95 else float(ndtri(0.5 + level / 2))
    lo, hi = max(a - zq * sig, 1.0), a + zq * sig
    cmps = {}
    if compare:
        tv, tc = v[k:], c[k:]
        cmps = compare_all(tv, tc, v[k], a, dp.loglik_terms(a, v[k], tv))
    p = p_se = None
    if n_boot:
        p = gof_pvalue(v, c, k, a, d, n_boot, seed, fixed_xmin=xmin is not None, max_alpha=max_alpha)
        p_se = float(np.sqrt(p * (1 - p) / n_boot))
    return PowerLawFit(
        alpha=a, xmin=int(v[k]), ks=d, n_tail=int(n_tail), n=int(c.sum()), sigma=sig,
        sigma_csn=(a - 1) / np.sqrt(n_tail), alpha_ci=(lo, hi), s=1 / (a - 1),
        s_ci=(1 / (hi - 1), 1 / (lo - 1) if lo > 1 else float("inf")), distinct=int(v.size),
        p_gof=p, n_boot=n_boot, p_gof_se=p_se, comparisons=cmps,
    )  # fmt: skip


def gof_pvalue(v, c, k, alpha, ks, n_boot, seed, fixed_xmin=False, max_alpha=None) -> float:
    """CSN's semi-parametric bootstrap: each replicate draws Binomial(n, n_tail/n) values from the fitted power law
    and the rest from the empirical values below xmin, is refitted the same way (xmin re-selected), and p is the
    share of replicates whose KS distance is at least the observed one."""
    reps = zipf_boot.draw(v, c, k, alpha, n_boot, np.random.default_rng(seed))
    return int(np.count_nonzero(zipf_boot.worse(reps, ks, v[k] if fixed_xmin else None, max_alpha))) / n_boot


counts_of_counts = frequency_of_frequency  # the name the benchmarks use


def fit_table(
    fof: pl.DataFrame,
    n_boot: int = 0,
    seed: int = 0,
    max_alpha: float | None = None,
    min_distinct: int = 5,
    why_empty: str | None = None,
) -> pl.DataFrame:
    """One fit per op from a frequency-of-frequency table; an op that cannot be fitted gets a row with n, distinct
    and a note saying why instead (fewer than `min_distinct` distinct counts: a "power law" through 2-4 points says
    nothing). An empty table gives a noted row per op (`why_empty`: the reason its writer gave), so the fits table
    says why a run has no fit rather than leaving it out."""
    if fof.is_empty():
        why = f"no page counts ({why_empty})" if why_empty else "no page counts"
        return pl.DataFrame([{"op": op, "n": 0, "distinct": 0, "note": why} for op in OPS], schema=FIT_SCHEMA)
    rows = []
    for (op,), g in fof.group_by("op", maintain_order=True):
        if g.height < min_distinct:  # e.g. every page touched once or twice: no tail to fit
            rows.append({"op": op, "n": int(g["pages"].sum()), "distinct": g.height,
                         "note": f"too few distinct counts ({g.height} < {min_distinct}): pages must be "
                                 "revisited for a tail (a longer run or a smaller working set)"})  # fmt: skip
            continue
        try:
            f = fit_discrete(g["count"].to_numpy(), g["pages"].to_numpy(), n_boot=n_boot, seed=seed,
                             max_alpha=max_alpha)  # fmt: skip
        except ValueError as e:  # no xmin candidate left (e.g. every alpha above max_alpha)
            rows.append({"op": op, "n": int(g["pages"].sum()), "distinct": g.height, "note": f"no fit: {e}"})
            continue
        rows.append({"op": op, **f.row(), "note": None})
    return pl.DataFrame(rows, schema=FIT_SCHEMA)


_FLOAT = ["alpha", "sigma", "sigma_csn", "alpha_lo", "alpha_hi", "ks", "p_gof", "p_gof_se", "s", "s_lo", "s_hi"]
_LR = [f"{k}_{d}" for d in ("lognormal", "exponential", "truncated_power_law") for k in ("R", "Rnorm", "p")]
FIT_SCHEMA = (
    {"op": pl.Utf8, "n": pl.Int64, "distinct": pl.Int64, "n_tail": pl.Int64, "xmin": pl.Int64}
    | {c: pl.Float64 for c in _FLOAT[:8]}
    | {"n_boot": pl.Int64}
    | {c: pl.Float64 for c in _FLOAT[8:] + _LR}
    | {"note": pl.Utf8}
)
