"""Discrete power-law fits: agreement with the reference fitter, recovery of known parameters, sampler exactness."""

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy.special import zeta
from scipy.stats import chisquare

from blkscope.analysis.popularity import discrete_powerlaw as dp
from blkscope.analysis.popularity import zipf_alternatives, zipf_boot
from blkscope.analysis.popularity.zipf import _point, fit_discrete, gof_pvalue


def _sample(alpha, xmin, n, seed, body=0):
    rng = np.random.default_rng(seed)
    x = dp.sample_inverse(alpha, xmin, rng.uniform(size=n)).astype(np.int64)
    if body:  # a non-power-law head below xmin, so xmin has to be found
        x = np.concatenate([x, rng.integers(1, xmin, body)])
    return x


@pytest.mark.parametrize(
    "alpha,xmin,n,body,seed", [(2.5, 1, 3000, 0, 1), (2.2, 8, 3000, 1500, 2), (1.8, 4, 2000, 800, 3)]
)
def test_same_answer_as_powerlaw(alpha, xmin, n, body, seed):
    import powerlaw  # requirements.lock pins it
    x = _sample(alpha, xmin, n, seed, body)
    mine = fit_discrete(x, max_alpha=2.99, compare=False)  # powerlaw drops alpha >= 2.99 (edge of its range)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = powerlaw.Fit(x, discrete=True, estimate_discrete=False, verbose=0)
    assert mine.xmin == ref.xmin
    assert mine.alpha == pytest.approx(ref.alpha, abs=1e-3)
    assert mine.ks == pytest.approx(ref.D, abs=1e-3)
    assert mine.n_tail == ref.n_tail
    assert mine.sigma_csn == pytest.approx(ref.power_law.standard_err, abs=1e-4)


def test_likelihood_ratios_against_powerlaw():
    import powerlaw  # requirements.lock pins it
    x = _sample(2.3, 1, 4000, 5)
    mine = fit_discrete(x, xmin=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = powerlaw.Fit(x, discrete=True, xmin=1, estimate_discrete=False, verbose=0)
        R, p = ref.distribution_compare("power_law", "lognormal")
        lam_ref = ref.exponential.Lambda
    cmp = mine.comparisons["lognormal"]
    assert abs(cmp.R - R) < 2e-2 * abs(R) and (cmp.p < 0.05) == (p < 0.05)
    # powerlaw floors each likelihood at 1e-307, which rewards a steep exponential on a heavy tail; under the
    # exact likelihood our closed-form lambda must beat its Nelder-Mead lambda.
    t = x.astype(float) - 1
    lam = mine.comparisons["exponential"].params["lambda"]

    def ll(la):
        return t.size * np.log1p(-np.exp(-la)) - la * t.sum()

    assert ll(lam) >= ll(lam_ref) and ll(lam) > ll(lam * 1.001) and ll(lam) > ll(lam / 1.001)


@pytest.mark.parametrize("alpha,seed", [(1.6, 11), (2.0, 12), (2.7, 13)])
def test_recovers_known_alpha_within_ci(alpha, seed):
    f = fit_discrete(_sample(alpha, 1, 20000, seed), xmin=1, compare=False)
    assert f.alpha_ci[0] < alpha < f.alpha_ci[1]
    assert abs(f.alpha - alpha) < 3 * f.sigma
    assert f.s_ci[0] < 1 / (alpha - 1) < f.s_ci[1]


def test_finds_xmin_above_a_uniform_head():
    x = _sample(2.4, 20, 20000, 7, body=30000)
    f = fit_discrete(x, compare=False)
    assert 18 <= f.xmin <= 60  # the uniform head (1..19) is left out; KS tends to pick a little high
    assert abs(f.alpha - 2.4) < 3 * f.sigma


@pytest.mark.parametrize("seed", range(6))
def test_pruned_xmin_search_equals_a_full_scan(seed):
    rng = np.random.default_rng(seed)
    alpha, xmin = rng.uniform(1.5, 3.2), int(rng.integers(2, 40))
    v, c = dp.unique_counts(_sample(alpha, xmin, 5000, seed, body=int(rng.integers(1, 5000))))
    k, a, d, n_ge, alphas = dp.select_xmin(v, c)
    full = [dp.ks_full(v, n_ge, alphas[j], j) for j in range(v.size - 1)]
    assert k == int(np.argmin(full)) and d == min(full)


def test_sigma_is_the_spread_of_the_estimate():
    est, sig = [], []
    for seed in range(60):
        f = fit_discrete(_sample(2.2, 2, 3000, 100 + seed), xmin=2, compare=False)
        est.append(f.alpha)
        sig.append(f.sigma)
    assert np.std(est, ddof=1) == pytest.approx(np.mean(sig), rel=0.25)
    assert abs(np.mean(est) - 2.2) < 3 * np.mean(sig) / np.sqrt(60)


def test_weights_are_the_same_as_repeated_values():
    x = _sample(2.1, 1, 5000, 9, 0)
    v, c = np.unique(x, return_counts=True)
    a, b = fit_discrete(x, compare=False), fit_discrete(v, c, compare=False)
    assert (a.alpha, a.xmin, a.ks, a.n_tail) == (b.alpha, b.xmin, b.ks, b.n_tail)


def test_mle_maximises_the_exact_likelihood():
    x = _sample(2.6, 3, 4000, 21)
    f = fit_discrete(x, xmin=3, compare=False)
    t = x[x >= 3].astype(float)

    def ll(a):
        return -a * np.log(t).sum() - t.size * np.log(zeta(a, 3))

    assert ll(f.alpha) > ll(f.alpha + 1e-4) and ll(f.alpha) > ll(f.alpha - 1e-4)


def test_sampler_matches_the_pmf():
    rng = np.random.default_rng(4)
    v, c = dp.sample_hist(2.0, 3, 200000, rng, table=1000)
    assert c.sum() == 200000 and v.max() > 1003  # some draws came from beyond the table
    pmf = np.arange(3, 13, dtype=float) ** -2.0 / zeta(2.0, 3)
    obs = np.array([c[v == k].sum() for k in range(3, 13)])
    exp = np.append(pmf * 200000, 200000 * (1 - pmf.sum()))
    assert chisquare(np.append(obs, 200000 - obs.sum()), exp).pvalue > 1e-3
    u = np.array([0.999, 0.5, 0.1, 1e-3, 1e-6])
    got = dp.sample_inverse(2.0, 3, u)
    for ui, g in zip(u, got, strict=True):
        assert zeta(2.0, g) / zeta(2.0, 3) >= ui > zeta(2.0, g + 1) / zeta(2.0, 3)


def test_goodness_of_fit_accepts_a_power_law_and_rejects_a_lognormal():
    good = fit_discrete(_sample(2.3, 1, 3000, 31), n_boot=60, seed=1, compare=False)
    assert good.p_gof > 0.1
    rng = np.random.default_rng(32)
    logn = np.ceil(rng.lognormal(2.0, 0.7, 20000)).astype(np.int64)
    bad = fit_discrete(logn, xmin=1, n_boot=60, seed=1)  # from xmin = 1 the curvature is plain to see
    assert bad.p_gof < 0.05
    assert bad.comparisons["lognormal"].R < 0 and bad.comparisons["lognormal"].p < 0.01


def test_exponential_data_prefers_exponential():
    rng = np.random.default_rng(41)
    x = rng.geometric(0.05, 20000)
    f = fit_discrete(x, xmin=5)
    cmp = f.comparisons["exponential"]
    assert cmp.R < 0 and cmp.p < 0.01


def test_rank_frequency_exponent_of_zipf_counts():
    # Page counts falling as rank^-1 (Zipf, s = 1): the count distribution's tail has alpha = 2.
    ranks = np.arange(1, 200001)
    counts = np.floor(1e6 / ranks).astype(np.int64)
    f = fit_discrete(counts, compare=False)
    assert f.s == pytest.approx(1.0, abs=0.05)


def test_too_few_distinct_values_is_an_error():
    with pytest.raises(ValueError):
        fit_discrete([3, 3, 3])


# Real frequency-of-frequency tables (cover mode) of four runs of the main job: 5-243 distinct counts per op.
FOF = Path(__file__).parent / "fixtures" / "zipf" / "fof.cover.csv"


def _real_tables():
    fof = pl.read_csv(FOF)
    for (run, op), g in fof.group_by("run_id", "op", maintain_order=True):
        if g.height >= 5:
            yield f"{run}/{op}", *dp.unique_counts(g["count"].to_numpy(), g["pages"].to_numpy())


def _one_at_a_time(reps, xmin, max_alpha, analytic=False):
    """Each replicate refitted alone, as the bootstrap did before batching (KS distance, or nan if not fittable)."""
    out = []
    for tv, tc in reps:
        try:
            out.append(_point(tv, tc, xmin, max_alpha, analytic)[2])
        except ValueError:
            out.append(np.nan)
    return np.array(out)


@pytest.mark.parametrize("analytic", [False, True])
@pytest.mark.parametrize("case", ["free", "max_alpha", "fixed_xmin"])
def test_batched_bootstrap_equals_one_replicate_at_a_time(case, analytic):
    unfit = 0
    for name, v, c in _real_tables():
        k, a, d, _ = _point(v, c, None, None)
        fixed, max_alpha = case == "fixed_xmin", None
        if case == "max_alpha":  # just above the fit: some replicates keep no candidate (they count as not worse)
            max_alpha = a * 1.02
        if fixed:
            k = v.size // 3
            _, a, d, _ = _point(v, c, v[k], None)
        reps = zipf_boot.draw(v, c, k, a, 40, np.random.default_rng(3))
        ref = _one_at_a_time(reps, v[k] if fixed else None, max_alpha, analytic)
        got = zipf_boot.replicate_ks(reps, v[k] if fixed else None, max_alpha, analytic=analytic)
        np.testing.assert_array_equal(got, ref, err_msg=name)  # bit for bit, nan where not fittable
        # p as the central differences' refits decide, whichever way the replicates were first refitted
        p = gof_pvalue(v, c, k, a, d, 40, 3, fixed_xmin=fixed, max_alpha=max_alpha)
        assert p == np.count_nonzero(_one_at_a_time(reps, v[k] if fixed else None, max_alpha) >= d) / 40, name
        unfit += int(np.isnan(got).sum())
    assert (unfit > 0) == (case == "max_alpha")  # the degenerate rule is exercised where it should be


def _tpl_lognorm_mpmath(a, lam, xmin):
    """The truncated power law's normaliser as it was, always with mpmath's incomplete gamma for the tail."""
    import mpmath

    y, logy = zipf_alternatives._tpl_head(xmin)
    lt = -a * logy - lam * y
    top = lt.max()
    head = np.sum(np.exp(lt - top))
    m = xmin + y.size
    integral = float(mpmath.gammainc(1 - a, lam * m) * mpmath.power(lam, a - 1)) if lam > 0 else m ** (1 - a) / (a - 1)
    fm = m**-a * np.exp(-lam * m)
    tail = integral + fm / 2 - fm * (-a / m - lam) / 12
    with np.errstate(over="ignore", invalid="ignore"):  # where it overflowed to nan (the test says so)
        return float(top + np.log(head + tail * np.exp(-top)))


def test_tpl_normaliser_skips_only_a_tail_that_cannot_count(monkeypatch):
    """Where the incomplete gamma is skipped (tail bound < e^-40 of the head) the normaliser is bit for bit the
    one with it (and finite where that one overflowed to nan); the grid covers both branches, a < 1 and a > 1,
    lambda tiny to large, small and large xmin."""
    import mpmath

    calls = []
    gammainc = mpmath.gammainc
    monkeypatch.setattr(mpmath, "gammainc", lambda *x: calls.append(x) or gammainc(*x))
    n = 0
    for a in (1e-3, 0.5, 0.999, 1.0, 1.7, 2.03, 3.5, 5.0, 9.5, 13.0, 20.0):
        for lam in (1e-12, 1e-6, 1e-4, 2e-3, 9e-3, 0.05, 1.0, 30.0):
            for xmin in (1.0, 6.0, 17.0, 300.0):
                before = len(calls)
                got = zipf_alternatives._tpl_lognorm(a, lam, xmin, zipf_alternatives._tpl_head(xmin))
                n += len(calls) == before
                ref = _tpl_lognorm_mpmath(a, lam, xmin)
                # ref is nan where e^-top overflows (top < -709: lam * xmin large) and the tail is 0 or inf
                assert got == ref or (not np.isfinite(ref) and np.isfinite(got)), (a, lam, xmin)
    assert 50 < n < 11 * 8 * 4 - 50  # both branches well exercised
