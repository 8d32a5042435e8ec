"""A mergeable summary of a large sample of integer durations (ns): exact n, sum, sum of squares, min and max, and a
log-spaced histogram whose quantiles are within HALF_WIDTH relative error of the exact order statistics.

Why: a 200 GB trace has billions of bios; sorting one latency stage of them needs 8 bytes per bio in memory at
once. This summary takes the values slice by slice (a memory-mapped column) in bounded memory. Values <= 0 ns (a
G at the Q's timestamp) are counted exactly by value; positive values go to buckets [g^k, g^(k+1)) and a bucket
stands for its geometric midpoint, clipped to the exact min and max."""

from __future__ import annotations

import numpy as np

from blkscope.analysis.stats.uncertainty import quantile_ranks, t_interval

GAMMA = 1.01  # bucket ratio: quantiles within sqrt(1.01) - 1 = 0.5 % of the exact value
HALF_WIDTH = float(np.sqrt(GAMMA) - 1)
_LOG_G = float(np.log(GAMMA))
BUCKETS = int(np.log(2.0**63) / _LOG_G) + 2


def bucket_of(x: np.ndarray) -> np.ndarray:
    """The bucket k of each positive value: g^k <= x < g^(k+1)."""
    return (np.log(x.astype(np.float64)) / _LOG_G).astype(np.int64)


class LogHistogram:
    def __init__(self) -> None:
        self.n = 0
        self.sum = 0.0
        self.sumsq = 0.0
        self.min: int | None = None
        self.max: int | None = None
        self.pos = np.zeros(BUCKETS, dtype=np.int64)
        self.small: dict[int, int] = {}  # exact counts of values <= 0

    def add(self, x_ns: np.ndarray) -> None:
        if x_ns.size == 0:
            return
        self.n += int(x_ns.size)
        xf = x_ns.astype(np.float64)
        self.sum += float(xf.sum())
        # numpy's pairwise sum, not np.dot: BLAS's dot splits the sum by its thread count (OPENBLAS_NUM_THREADS,
        # the job's threads under Snakemake), so its last bits moved with the job's threads and the machine's kernel
        self.sumsq += float(np.square(xf).sum())
        lo, hi = int(x_ns.min()), int(x_ns.max())
        self.min = lo if self.min is None else min(self.min, lo)
        self.max = hi if self.max is None else max(self.max, hi)
        pos = x_ns > 0
        k = bucket_of(xf[pos])
        self.pos += np.bincount(k, minlength=BUCKETS)[:BUCKETS]
        if not pos.all():
            v, c = np.unique(x_ns[~pos], return_counts=True)
            for a, b in zip(v.tolist(), c.tolist(), strict=True):
                self.small[a] = self.small.get(a, 0) + b

    def _table(self) -> tuple[np.ndarray, np.ndarray]:
        """(value in ns, count) in ascending order: the exact small values, then the non-empty buckets."""
        ks = np.flatnonzero(self.pos)
        mid = GAMMA ** (ks + 0.5)
        mid = np.clip(mid, self.min if self.min is not None else 0, self.max if self.max is not None else np.inf)
        small = sorted(self.small)
        vals = np.concatenate([np.array(small, dtype=np.float64), mid])
        counts = np.concatenate([np.array([self.small[v] for v in small], dtype=np.int64), self.pos[ks]])
        return vals, np.cumsum(counts)

    def at_ranks(self, ranks: list[int]) -> list[float]:
        """The values of the given 0-based order statistics (nan outside 0..n-1)."""
        vals, cum = self._table()
        out = []
        for r in ranks:
            if r < 0 or r >= self.n:
                out.append(np.nan)
                continue
            v = float(vals[int(np.searchsorted(cum, r, side="right"))])
            out.append(float(self.max) if r == self.n - 1 else float(self.min) if r == 0 else v)
        return out

    def mean_ci(self, level: float) -> tuple[float, float, float]:
        """Mean and its Student-t interval, in ns (the CLT carries it at the sizes this summary is for)."""
        if self.n == 0:
            return np.nan, np.nan, np.nan
        m = self.sum / self.n
        var = max(self.sumsq - self.n * m * m, 0.0) / (self.n - 1) if self.n > 1 else np.nan
        return t_interval(m, var, self.n, level)

    def quantile_cis(self, qs, level: float) -> list[tuple[float, float, float]]:
        """As uncertainty.quantile_cis (the same ranks: quantile_ranks), each value read from the histogram."""
        if self.n == 0:
            return [(np.nan, np.nan, np.nan)] * len(qs)
        k, lo, hi = quantile_ranks(self.n, qs, level)
        v = self.at_ranks([*k.tolist(), *lo.tolist(), *hi.tolist()])
        m = len(qs)
        return list(zip(v[:m], v[m : 2 * m], v[2 * m :], strict=True))

    def quantile_ci(self, q: float, level: float) -> tuple[float, float, float]:
        return self.quantile_cis([q], level)[0]
