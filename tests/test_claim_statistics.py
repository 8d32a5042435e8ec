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
