"""The zipf job's fast paths against the computations they replace: analytic derivatives of log zeta against
mpmath and central differences, the float Nelder-Mead against scipy's, the bootstrap's analytic first pass and
its batched draws against the central-difference refit and one replicate at a time."""

import mpmath
import numpy as np
import pytest
from scipy import optimize
from test_zipf import _real_tables

from blkscope.analysis.popularity import discrete_powerlaw as dp
from blkscope.analysis.popularity import nelder_mead, zipf_alternatives, zipf_boot
from blkscope.analysis.popularity.fast_zeta import LogZetaJets
from blkscope.analysis.popularity.zipf import _point


@pytest.mark.parametrize("q", [1.0, 2.0, 3.0, 5.0, 17.0, 300.0, 1e4, 3e6])
def test_log_zeta_jets_match_mpmath_and_central_differences(q):
    mpmath.mp.dps = 60
    a = np.array([1 + 1e-6, 1.001, 1.3, 1.9, 2.5, 4.0, 8.0, 20.0, 40.0, 60.0, 200.0])
    d1, d2 = LogZetaJets(np.full(a.size, q))(a, np.arange(a.size))
    fd1, fd2 = dp._dlogz(a, np.full(a.size, q))
    for i, ai in enumerate(a):
        z, z1, z2 = (mpmath.zeta(ai, q, k) for k in range(3))
        if mpmath.log(z) < np.log(np.nextafter(0, 1)):  # scipy's zeta underflows to 0: nan, as its differences
            assert np.isnan(d1[i]) and np.isnan(d2[i]) and np.isnan(fd1[i]), (q, ai)
            continue
        r1, r2 = float(z1 / z), float(z2 / z - (z1 / z) ** 2)
        assert abs(d1[i] - r1) <= 1e-12 * abs(r1), (q, ai)
        assert abs(d2[i] - r2) <= 1e-8 * abs(r2), (q, ai)
        if 1.3 <= ai <= 8:  # where central differences are accurate (near the pole and for steep tails they are not)
            assert abs(d1[i] - fd1[i]) <= 1e-7 * abs(r1), (q, ai)


def test_analytic_mle_is_the_central_differences_root():
    for name, v, c in _real_tables():
        n_ge, mean_log = dp.tail_stats(v, c)
        fd = dp.mle_alpha(v[:-1], mean_log[:-1])
        an = dp.mle_alpha(v[:-1], mean_log[:-1], analytic=True)
        ok = fd < 8  # the steep candidates, where central differences lose digits, are the recheck's business
        np.testing.assert_allclose(an[ok], fd[ok], rtol=1e-8, err_msg=name)


def _lognormal_nll(v, c, xmin):
    logs = np.concatenate([np.log(v - 0.5), np.log(v + 0.5), [np.log(xmin - 0.5)]])

    def nll(p):
        t = zipf_alternatives._lognormal_terms(logs, p[0], np.exp(p[1]))
        return -float(np.sum(c * np.where(np.isfinite(t), t, -745.0)))

    return nll


def _same_as_scipy(fun, x0, **tol) -> int:
    r = optimize.minimize(fun, x0, method="Nelder-Mead", options=tol)
    x, f = nelder_mead.minimize(fun, x0, **tol)
    assert (x[0], x[1], f) == (r.x[0], r.x[1], r.fun) or np.isnan(f) and np.isnan(r.fun), (x0, x, f, r.x, r.fun)
    return r.nfev


def test_nelder_mead_is_scipys_step_for_step():
    exhausted = 0
    with np.errstate(all="ignore"):
        for _, v, c in _real_tables():
            k = _point(v, c, None, None)[0]
            nll = _lognormal_nll(v[k:], c[k:], v[k])
            for start in ([1.0, 0.0], [np.log(v[k]), 0.5], [-3.0, 1.0], [5.0, -2.0]):
                exhausted += _same_as_scipy(nll, start, xatol=1e-8, fatol=1e-10) >= nelder_mead.MAXFEV
        funs = [  # plateaus (ties), infinities, nan, a narrow valley
            lambda p: float(np.floor(4 * ((p[0] - 1) ** 2 + (p[1] + 2) ** 2))),
            lambda p: float(np.inf if p[0] > 1.2 else (p[0] - 0.3) ** 2 + abs(p[1])),
            lambda p: float(np.nan if p[1] > 3 else np.sin(3 * p[0]) + np.cos(5 * p[1]) + 0.01 * p[0] ** 2),
            lambda p: float(100 * (p[1] - p[0] ** 2) ** 2 + (1 - p[0]) ** 2),
        ]
        rng = np.random.default_rng(0)
        for i in range(120):
            x0 = rng.normal(size=2) * 3 * (i % 3 != 0)  # a third start at 0 (scipy's zero-delta simplex)
            exhausted += _same_as_scipy(funs[i % 4], x0, xatol=1e-12, fatol=1e-14) >= nelder_mead.MAXFEV
    assert exhausted > 10  # the evaluation budget's exit is exercised


@pytest.mark.parametrize("case", ["free", "max_alpha", "fixed_xmin", "median"])
def test_worse_is_what_the_central_differences_decide(case):
    """`worse` (analytic first pass, recheck near ks) equals comparing the central-difference refits' distances
    with ks, also where ks sits among the replicates' distances (median: half of them near the margin), and the
    two refits' distances differ by far less than the recheck margin."""
    for name, v, c in _real_tables():
        k, a, d, _ = _point(v, c, None, None)
        xmin, max_alpha = None, None
        if case == "max_alpha":
            max_alpha = a * 1.02
        if case == "fixed_xmin":
            k = v.size // 3
            xmin = v[k]
            _, a, d, _ = _point(v, c, xmin, None)
        reps = zipf_boot.draw(v, c, k, a, 40, np.random.default_rng(5))
        ref = zipf_boot.replicate_ks(reps, xmin, max_alpha)
        fast = zipf_boot.replicate_ks(reps, xmin, max_alpha, analytic=True)
        if case == "median":
            d = float(np.nanmedian(ref))
        np.testing.assert_array_equal(zipf_boot.worse(reps, d, xmin, max_alpha), ref >= d, err_msg=name)
        both = np.isfinite(ref) & np.isfinite(fast)
        assert np.all(np.abs(fast - ref)[both] <= zipf_boot.RECHECK * d / 10), name


def test_batched_draws_are_one_replicate_at_a_time():
    """zipf_boot.draw inverts the draws beyond the table for all replicates at once: the same replicates as
    drawing each in full (TailSampler.draw) in turn, from the same generator."""

    def one_at_a_time(v, c, k, alpha, n_boot, rng):
        n, n_tail = int(c.sum()), int(c[k:].sum())
        tail, out = dp.TailSampler(alpha, v[k], n_tail), []
        for _ in range(n_boot):
            nt = int(rng.binomial(n, n_tail / n)) if k else n
            tv, tc = tail.draw(nt, rng)
            if k and n - nt:
                bc = rng.multinomial(n - nt, c[:k] / c[:k].sum()).astype(np.float64)
                tv, tc = np.concatenate([v[:k][bc > 0], tv]), np.concatenate([bc[bc > 0], tc])
            if tv.size >= 2:
                out.append((tv, tc))
        return out

    beyond = 0
    for name, v, c in _real_tables():
        k, a, _, _ = _point(v, c, None, None)
        for kk, aa in ((k, a), (0, a), (k, 0.8 * a)):
            got = zipf_boot.draw(v, c, kk, aa, 30, np.random.default_rng(7))
            ref = one_at_a_time(v, c, kk, aa, 30, np.random.default_rng(7))
            assert len(got) == len(ref), name
            for (gv, gc), (rv, rc) in zip(got, ref, strict=True):
                np.testing.assert_array_equal(gv, rv, err_msg=name)
                np.testing.assert_array_equal(gc, rc, err_msg=name)
            table_end = dp.TailSampler(aa, v[kk], int(c[kk:].sum())).x[-1]
            beyond += sum(int((gv >= table_end).sum()) for gv, _ in got)
    assert beyond > 0  # draws beyond the table happened

