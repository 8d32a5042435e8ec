"""Small uncertainty helpers shared by the analyses: every statistic leaves with an interval and its n."""

from __future__ import annotations

import warnings

import numpy as np

from blkscope.analysis.stats.boot_means import boot_means

LEVEL = 0.95


def t_quantile(p, dof):
    """Student t's p-quantile (0 < p < 1): scipy.special.stdtrit, which stats.t.ppf calls. Importing scipy.stats
    costs ~1.1 CPU-s a process, and most verbs need no more of it than this (functions below import it inside)."""
    from scipy.special import stdtrit

    return stdtrit(dof, p)


def mean_ci(x, level: float = LEVEL) -> tuple[float, float, float]:
    """Mean and its Student-t interval (the CLT carries it for the large n of traces)."""
    x = np.asarray(x, np.float64)
    n = x.size
    if n == 0:
        return np.nan, np.nan, np.nan
    m = float(x.mean())
    return t_interval(m, float(x.var(ddof=1)) if n > 1 else np.nan, n, level)


def t_interval(m: float, var: float, n: int, level: float = LEVEL) -> tuple[float, float, float]:
    """Mean and its Student-t interval from the sample variance (ddof 1) and n."""
    if n < 2:
        return m, np.nan, np.nan
    h = t_quantile(0.5 + level / 2, n - 1) * np.sqrt(var) / np.sqrt(n)
    return m, m - h, m + h


class Sorted:
    """A sorted sample behind the interface of log_histogram.LogHistogram (n, min, max, mean_ci, quantile_ci[s]), so a
    summary row is written once for exact values and for a histogram of too many of them."""

    def __init__(self, x: np.ndarray, boot: bool = False) -> None:
        self.x, self.boot, self.n = x, boot, int(x.size)
        self.min = float(x[0]) if x.size else None
        self.max = float(x[-1]) if x.size else None

    def mean_ci(self, level: float = LEVEL) -> tuple[float, float, float]:
        return (mean_ci_boot if self.boot else mean_ci)(self.x, level)

    def quantile_ci(self, q: float, level: float = LEVEL) -> tuple[float, float, float]:
        return quantile_ci(self.x, q, level)

    def quantile_cis(self, qs, level: float = LEVEL) -> list[tuple[float, float, float]]:
        return quantile_cis(self.x, qs, level)


def mean_ci_boot(x, level: float = LEVEL, n_boot: int = 1000, seed: int = 0, t_above: int = 20_000):
    """Mean with a percentile-bootstrap interval: latencies are skewed and positive, where a t interval can run
    below zero; above `t_above` values the t interval is used (the CLT holds there, and resampling costs n per
    replicate: at 100,000 values this bootstrap was most of the main job's CPU time, bench/RESULTS.md)."""
    x = np.asarray(x, np.float64)
    n = x.size
    if n < 2 or n > t_above:
        return mean_ci(x, level)
    means = boot_means(x, n_boot, seed)
    a = (1 - level) / 2
    return float(x.mean()), float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


def quantile_ranks(n: int, qs, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """0-based ranks of each quantile q in qs of n values (inverted CDF: the ceil(q n)-th smallest) and of its
    distribution-free interval's ends from the binomial distribution of order statistics (outside 0..n-1: too
    few values to bound it). One binom.ppf call for every end: scipy's per-call overhead was ~10 s of `latency`."""
    qs = np.asarray(qs, np.float64)
    k = np.maximum(np.ceil(qs * n).astype(np.int64) - 1, 0)
    ends = binom_ppf(np.r_[np.full(qs.size, (1 - level) / 2), np.full(qs.size, 0.5 + level / 2)], n,
                     np.r_[qs, qs]).astype(np.int64)  # fmt: skip
    return k, ends[: qs.size] - 1, ends[qs.size :]


def binom_ppf(q: np.ndarray, n: int, p: np.ndarray) -> np.ndarray:
    """scipy.stats.binom.ppf(q, n, p), without importing scipy.stats (~1.3 CPU-s a process, paid by every `-j`
    worker of latency and seek for this one call). Where every q is inside (0, 1), n a whole number >= 0 and
    every p in [0, 1], binom.ppf returns its `_ppf`, scipy.special's `_binom_ppf` ufunc (plus a location of 0),
    which is called here; anything else goes to binom.ppf itself. tests/test_uncertainty_ppf.py compares both."""
    q, p = np.asarray(q, np.float64), np.asarray(p, np.float64)
    whole = float(n) == int(n) and n >= 0
    if whole and np.all((q > 0) & (q < 1)) and np.all((p >= 0) & (p <= 1)):
        from scipy.special import _ufuncs

        return np.asarray(_ufuncs._binom_ppf(q, n, p) + 0.0, np.float64)
    from scipy import stats

    return np.asarray(stats.binom.ppf(q, n, p), np.float64)


def quantile_cis(sorted_x: np.ndarray, qs, level: float = LEVEL) -> list[tuple[float, float, float]]:
    """(quantile, lower, upper) for each q in qs of a sorted sample (quantile_ranks); an end beyond the sample is
    nan."""
    n = sorted_x.size
    if n == 0:
        return [(np.nan, np.nan, np.nan)] * len(qs)
    at = lambda r: float(sorted_x[r]) if 0 <= r < n else np.nan  # noqa: E731
    return [(at(k), at(lo), at(hi)) for k, lo, hi in zip(*quantile_ranks(n, qs, level), strict=True)]


def quantile_ci(sorted_x: np.ndarray, q: float, level: float = LEVEL) -> tuple[float, float, float]:
    """quantile_cis of one quantile."""
    return quantile_cis(sorted_x, [q], level)[0]


def bootstrap_ci(stat, samples: list[np.ndarray], n_boot: int = 2000, seed: int = 0, level: float = LEVEL):
    """Percentile bootstrap of stat(*samples), each sample resampled independently. stat reduces along the last
    axis (called once with every replicate as a row); the replicates are those of drawing
    `s[rng.integers(0, s.size, s.size)]` for each sample in turn, replicate after replicate."""
    reps = stat(*[s[i] for s, i in zip(samples, _resample_indices(seed, [s.size for s in samples], n_boot),
                                          strict=True)])  # fmt: skip
    a = (1 - level) / 2
    return float(stat(*samples)), float(np.nanquantile(reps, a)), float(np.nanquantile(reps, 1 - a))


def _resample_indices(seed: int, sizes: list[int], n_boot: int) -> list[np.ndarray]:
    """For each size s, an (n_boot, s) array of the indices that n_boot rounds of `rng.integers(0, s, s)` for
    each size in turn draw from default_rng(seed); at once, not in 2 x n_boot small calls (their overhead was
    most of `overhead`'s ~10 CPU-s). numpy draws each such index from one 32-bit word by Lemire's method
    (high half of word * s), redrawing when the low half falls below (2**32 - s) % s (p < s / 2**32): then the
    stream shifts and the calls are made one by one. A size-1 sample draws no word. The test compares both."""
    rng = np.random.default_rng(seed)
    drawn = [s for s in sizes if s > 1]
    bounds = np.concatenate([np.full(s, s, np.uint64) for s in drawn]) if drawn else np.zeros(0, np.uint64)
    m = rng.integers(0, 1 << 32, (n_boot, bounds.size), dtype=np.uint64) * bounds
    if not ((m & 0xFFFFFFFF) < (2**32 - bounds) % np.maximum(bounds, 1)).any():
        cols = np.cumsum([0, *drawn])
        it = iter(np.split((m >> 32).astype(np.int64), cols[1:-1], axis=1))
        return [next(it) if s > 1 else np.zeros((n_boot, s), np.int64) for s in sizes]
    rng = np.random.default_rng(seed)
    rows = [[rng.integers(0, s, s) for s in sizes] for _ in range(n_boot)]
    return [np.array([r[k] for r in rows]).reshape(n_boot, s) for k, s in enumerate(sizes)]


def welch(a, b) -> tuple[float, float]:
    """Welch's unequal-variance t test: (t, two-sided p)."""
    from scipy import stats

    with warnings.catch_warnings():  # near-identical samples (rate-limited jobs) warn of precision loss
        warnings.simplefilter("ignore", RuntimeWarning)
        r = stats.ttest_ind(np.asarray(a, float), np.asarray(b, float), equal_var=False)
    return float(r.statistic), float(r.pvalue)


def permutation_p(a, b, n_perm: int = 10000, seed: int = 0) -> float:
    """Two-sided permutation test of equal means; exact over all splits when there are few."""
    from scipy import stats

    a, b = np.asarray(a, float), np.asarray(b, float)
    # vectorized: scipy passes whole batches of resamples (the same ones, in the same order); a per-resample
    # statistic was called 400,000 times by `compare` (~8 CPU-s of the main job)
    r = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis), vectorized=True,
        n_resamples=n_perm, rng=np.random.default_rng(seed),
    )  # fmt: skip
    return float(r.pvalue)
