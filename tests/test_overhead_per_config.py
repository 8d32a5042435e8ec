"""One configuration's tracing overhead judged on its own (claim_measures.overhead_of, where the configurations
disagree): 1 - mean(traced)/mean(untraced) with a delta-method Welch t interval. Its coverage is simulated at the
runs per arm the claims read (3), so an interval that is too narrow or too wide fails here."""

from __future__ import annotations

import numpy as np

from blkscope.paper.claim_measures import overhead_of


def test_the_interval_covers_the_true_overhead_about_as_often_as_its_level_says():
    rng = np.random.default_rng(20261130)
    for cv in (0.02, 0.10):  # the spread between repeats the host runs show, and five times it
        hits = 0
        for _ in range(2000):
            e = overhead_of(rng.normal(90, 90 * cv, 3), rng.normal(100, 100 * cv, 3), 0.95)
            hits += e.lo <= 0.10 <= e.hi
        assert 0.93 <= hits / 2000 <= 0.99, (cv, hits / 2000)


def test_the_estimate_is_the_overhead_and_repeats_without_spread_are_exact():
    e = overhead_of(np.array([90.0, 92.0, 94.0]), np.array([99.0, 100.0, 101.0]), 0.95)
    assert abs(e.value - 0.08) < 1e-12 and e.lo < 0.08 < e.hi and 0 < e.p < 1 and e.dof > 2
    same = overhead_of(np.array([90.0, 90.0]), np.array([100.0, 100.0]), 0.95)
    assert same.lo == same.value == same.hi and same.se == 0.0 and abs(same.value - 0.10) < 1e-12
    # a faster traced arm is a negative overhead
    assert overhead_of(np.array([110.0, 111.0, 109.0]), np.array([100.0, 101.0, 99.0]), 0.95).value < 0
