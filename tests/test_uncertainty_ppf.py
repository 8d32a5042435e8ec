"""binom_ppf (blkscope.analysis.stats.uncertainty) gives scipy.stats.binom.ppf's values without importing
scipy.stats, so the quantile intervals of latency, seek and the log histograms keep their ranks."""

import numpy as np
import pytest
from scipy import stats

from blkscope.analysis.stats.uncertainty import LEVEL, binom_ppf, quantile_ranks

QS = np.array([0.5, 0.9, 0.99, 0.999, 0.9999])


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 19, 20, 99, 100, 101, 1000, 4096, 20_000, 123_457, 10**7])
def test_binom_ppf_equals_scipy_stats(n):
    for level in (LEVEL, 0.9, 0.99):
        q = np.r_[np.full(QS.size, (1 - level) / 2), np.full(QS.size, 0.5 + level / 2)]
        p = np.r_[QS, QS]
        want = stats.binom.ppf(q, n, p)
        got = binom_ppf(q, n, p)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_binom_ppf_outside_the_fast_path_is_scipy_stats():
    # q of 0 and 1, p at the edges, and a fractional n: binom.ppf's own conventions (a - 1, b, nan)
    q = np.array([0.0, 1.0, 0.5, 0.5, 0.3])
    p = np.array([0.5, 0.5, 0.0, 1.0, 0.7])
    for n in (5, 5.5):
        assert np.array_equal(binom_ppf(q, n, p), stats.binom.ppf(q, n, p), equal_nan=True)


def test_quantile_ranks_match_scipy_on_random_sizes():
    rng = np.random.default_rng(7)
    for n in rng.integers(1, 10**6, 200):
        k, lo, hi = quantile_ranks(int(n), QS)
        ends = stats.binom.ppf(np.r_[np.full(QS.size, (1 - LEVEL) / 2), np.full(QS.size, 0.5 + LEVEL / 2)], n,
                               np.r_[QS, QS]).astype(np.int64)  # fmt: skip
        assert np.array_equal(lo, ends[: QS.size] - 1) and np.array_equal(hi, ends[QS.size :])
