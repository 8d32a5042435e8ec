"""Holm on known p-values, Cochran's Q / I^2 / DerSimonian-Laird on a textbook data set, and the decision p that
the Holm family reads agreeing with the interval verdict."""

import math

import numpy as np
import pytest

from blkscope.paper import claim_multiplicity as mt
from blkscope.paper import claim_verdict as vd
from blkscope.paper.claim_heterogeneity import cochran_q, dersimonian_laird

# BCG vaccine trials (Colditz et al. 1994; metafor's dat.bcg): TB cases and non-cases, vaccinated and not
BCG = [(4, 119, 11, 128), (6, 300, 29, 274), (3, 228, 11, 209), (62, 13536, 248, 12619), (33, 5036, 47, 5761),
       (180, 1361, 372, 1079), (8, 2537, 10, 619), (505, 87886, 499, 87892), (29, 7470, 45, 7232),
       (17, 1699, 65, 1600), (186, 50448, 141, 27197), (5, 2493, 3, 2338), (27, 16886, 29, 17825)]


def _bcg():
    y = [math.log((a / (a + b)) / (c / (c + d))) for a, b, c, d in BCG]
    v = [1 / a - 1 / (a + b) + 1 / c - 1 / (c + d) for a, b, c, d in BCG]
    return y, v


def test_holm_on_known_p_values():
    # sorted 0.005, 0.01, 0.03, 0.04: x4, x3, x2, x1 = 0.02, 0.03, 0.06, 0.04 -> running max 0.02, 0.03, 0.06, 0.06
    adj = mt.holm([0.01, 0.04, 0.03, 0.005])
    assert adj == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # nan is outside the family: m counts only the others
    adj = mt.holm([0.02, math.nan, 0.01])
    assert adj[0] == pytest.approx(0.02) and math.isnan(adj[1]) and adj[2] == pytest.approx(0.02)
    assert mt.holm([0.6, 0.9]).max() == 1.0  # capped at 1


def test_adjusted_verdict_decides_only_below_alpha():
    assert mt.adjusted_verdict(0.01, "replicates", "replicates") == "replicates"
    assert mt.adjusted_verdict(0.2, "does not", "does not") == "inconclusive"
    assert mt.adjusted_verdict(math.nan, "", "not tested (no runs)") == "not tested (no runs)"


def test_cochran_q_i2_and_dersimonian_laird_on_the_bcg_trials():
    # metafor 4.x, rma(yi, vi, data=escalc("RR", ... dat.bcg), method="DL"): Q(df = 12) = 152.2330,
    # I^2 = 92.12 %, tau^2 = 0.3088, estimate -0.7141 (se 0.1787)
    y, v = _bcg()
    het = cochran_q(y, v)
    assert het.q == pytest.approx(152.233, abs=1e-3)
    assert het.i2 == pytest.approx(0.9212, abs=1e-4)
    assert het.p < 1e-20 and het.disagree
    re = dersimonian_laird(y, v)
    assert re.tau2 == pytest.approx(0.3088, abs=1e-4)
    assert re.value == pytest.approx(-0.7141, abs=1e-4)
    assert re.se == pytest.approx(0.1787, abs=1e-4)
    assert re.lo < -1.0 and re.hi < 0  # t on 12 df: a little wider than metafor's normal [-1.0644, -0.3638]


def test_strata_that_agree_are_not_flagged():
    het = cochran_q([0.10, 0.12, 0.11], [0.01, 0.01, 0.01])
    assert het.i2 == 0.0 and not het.disagree
    assert not cochran_q([0.5], [0.01]).disagree  # one stratum: nothing to compare


@pytest.mark.parametrize("size", [vd.more(), vd.less(), vd.comparable_ratio(3.18), vd.same(0.10)])
def test_decision_p_below_alpha_exactly_when_the_interval_decides(size):
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(300):
        a = rng.lognormal(rng.normal(0, 1.2), 0.3, rng.integers(2, 8))
        b = rng.lognormal(0.0, 0.3, rng.integers(2, 8))
        e = vd.log_ratio(a, b, size.level)
        v = vd.verdict(e.lo, e.hi, size)
        d = vd.decision(e, size)
        assert (d.p < mt.ALPHA) == (v != "inconclusive"), (e, v, d)
        if v != "inconclusive":
            assert d.kind == v
        seen.add(v)
    assert len(seen) >= 2  # the draws reach both sides of the rule


def test_decision_p_of_a_difference_against_a_one_sided_band():
    e = vd.welch_diff([140.0, 141.0, 142.0], [0.0, 0.5, 1.0])
    d = vd.decision(e, vd.within(0.0, math.inf, "> 0"))
    assert d.kind == "replicates" and d.p < 1e-4


def _stratum(ratio: float, rel: float, n: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Two arms of n runs whose geometric means differ by `ratio`, each run within +-rel of its arm's level."""
    wobble = 1 + rel * np.linspace(-1, 1, n)
    return 100 * ratio * wobble, 100 * wobble[::-1]


def test_strata_that_disagree_are_judged_each_on_its_own_interval():
    """Intersection-union over strata that disagree: the row replicates only if every stratum's own Welch interval
    (as the fixed estimate gives for that stratum alone) replicates, does not only if every one does not, else the
    strata disagree; its decision p is the largest of the strata's for that verdict, so it is below alpha exactly
    when every stratum decides."""
    band = vd.more("a/b")  # ratio > 1
    own = lambda r, rel: vd.log_contrast(list(_stratum(r, rel)), [1, -1])  # noqa: E731
    both_above = [own(1.5, 0.01), own(4.0, 0.01)]
    v, d = vd.strata_verdict(both_above, band)
    assert v == "replicates" and d.kind == "replicates"
    assert d.p == pytest.approx(max(vd.decision(e, band).p for e in both_above)) and d.p < mt.ALPHA
    # one above, one below: each decides, but not the same way
    split = [own(1.5, 0.01), own(0.5, 0.01)]
    assert [vd.decision(e, band).kind for e in split] == ["replicates", "does not"]
    v, d = vd.strata_verdict(split, band)
    assert v == vd.STRATA_DISAGREE and v.startswith("inconclusive") and d.p >= mt.ALPHA
    # a stratum whose interval straddles the band's end: the row cannot replicate, whatever the others
    v, d = vd.strata_verdict([own(4.0, 0.01), own(1.02, 0.2)], band)
    assert v == vd.STRATA_DISAGREE and d.kind == "replicates" and d.p >= mt.ALPHA
    both_below = [own(0.5, 0.01), own(0.8, 0.01)]
    v, d = vd.strata_verdict(both_below, band)
    assert v == "does not" and d.p == pytest.approx(max(vd.decision(e, band).p for e in both_below))
    # Holm keeps an undecided row's own words, and makes a decided one it does not keep inconclusive
    assert mt.adjusted_verdict(0.5, d.kind, vd.STRATA_DISAGREE) == vd.STRATA_DISAGREE
    assert mt.adjusted_verdict(0.5, "replicates", "replicates") == "inconclusive"


def test_strata_that_agree_pool_fixed_and_those_that_disagree_print_no_pooled_interval():
    """claim_runs.strata_ratio: strata that agree give the fixed pooled estimate (the mean over strata of the log
    ratio, Welch) as before; strata that disagree keep each one's own estimate for the verdict."""
    from blkscope.paper.claim_runs import strata_ratio
    from blkscope.paper.claims import disagrees, ours_of

    band = vd.more("a/b")
    agree = [("s1", *_stratum(2.0, 0.05)), ("s2", *_stratum(2.1, 0.05))]
    r = strata_ratio(agree, ("a", "b"), band)
    fixed = vd.log_contrast([x for _, a, b in agree for x in (a, b)], [0.5, -0.5, 0.5, -0.5])
    assert not r.het.disagree and not disagrees(r)
    assert (r.estimate.value, r.estimate.lo, r.estimate.hi) == pytest.approx((fixed.value, fixed.lo, fixed.hi))
    assert ours_of(r, "ratio").startswith(f"{fixed.value:.2f}x [")
    differ = [("s1", *_stratum(1.5, 0.01)), ("s2", *_stratum(4.0, 0.01))]
    r = strata_ratio(differ, ("a", "b"), band)
    assert r.het.disagree and disagrees(r) and len(r.strata) == 2
    assert ours_of(r, "ratio") == "per stratum 1.50x to 4.00x, 2 strata disagree"
    # review: the random-effects p is not printed as the row's own
    assert f", random-effects p={r.estimate.p:.2g} (not the row's)" in r.measurement
    assert r.measurement.count(", p=") == 1 and "df, p=" in r.measurement  # the Q test's p alone
    assert ", p=" in strata_ratio(agree, ("a", "b"), band).measurement
