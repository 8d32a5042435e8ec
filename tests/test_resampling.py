"""The batched resamplers draw exactly what their one-call-per-replicate forms drew (same seed, same numbers)."""

import numpy as np
import pytest
from scipy import stats

from blkscope.analysis.stats.uncertainty import _resample_indices, bootstrap_ci, permutation_p


def _one_by_one(seed, sizes, n_boot):
    rng = np.random.default_rng(seed)
    rows = [[rng.integers(0, s, s) for s in sizes] for _ in range(n_boot)]
    return [np.array([r[k] for r in rows]).reshape(n_boot, s) for k, s in enumerate(sizes)]


@pytest.mark.parametrize("sizes", [[3, 3], [1, 3], [3, 1], [1, 1], [6, 3], [12, 12], [2, 9, 5], [20]])
@pytest.mark.parametrize("seed", [0, 7])
def test_resample_indices_are_the_one_by_one_draws(sizes, seed):
    got = _resample_indices(seed, sizes, 2000)
    assert all(np.array_equal(a, b) for a, b in zip(got, _one_by_one(seed, sizes, 2000), strict=True))


def test_a_redrawn_word_falls_back_to_one_by_one():
    # seed 14229 was found by searching: within 4,000 rounds of two 12-value samples one 32-bit word has its low
    # half below (2**32 - 12) % 12 = 4, so numpy redraws it and every later index shifts
    seed, bounds = 14229, np.full(24, 12, np.uint64)
    m = np.random.default_rng(seed).integers(0, 1 << 32, (4000, 24), dtype=np.uint64) * bounds
    assert ((m & 0xFFFFFFFF) < (2**32 - bounds) % bounds).any()
    got = _resample_indices(seed, [12, 12], 4000)
    assert all(np.array_equal(a, b) for a, b in zip(got, _one_by_one(seed, [12, 12], 4000), strict=True))


def test_bootstrap_ci_equals_the_replicate_loop():
    rng = np.random.default_rng(3)
    t, u = rng.normal(100, 5, 5), rng.normal(110, 5, 3)
    ratio = lambda a, b: 1 - a.mean(axis=-1) / b.mean(axis=-1)  # noqa: E731
    draws = np.random.default_rng(0)
    reps = [ratio(t[draws.integers(0, 5, 5)], u[draws.integers(0, 3, 3)]) for _ in range(4000)]
    a = (1 - 0.95) / 2  # as the code computes it: 0.025000000000000022
    expect = (ratio(t, u), np.nanquantile(reps, a), np.nanquantile(reps, 1 - a))
    assert bootstrap_ci(ratio, [t, u], n_boot=4000, seed=0) == expect


@pytest.mark.parametrize("na, nb", [(3, 3), (6, 3), (12, 12)])  # exact over all splits, and sampled splits
def test_permutation_p_equals_a_per_resample_statistic(na, nb):
    rng = np.random.default_rng(na * nb)
    a, b = rng.normal(0, 1, na), rng.normal(0.8, 1, nb)
    r = stats.permutation_test((a, b), lambda x, y: np.mean(x) - np.mean(y), n_resamples=10000,
                               rng=np.random.default_rng(0))  # fmt: skip
    assert permutation_p(a, b) == r.pvalue
