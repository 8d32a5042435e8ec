"""Do strata agree before they are pooled? Cochran's Q, I^2 and a DerSimonian-Laird random-effects estimate.

Each stratum (a capture batch, a workload, a filesystem...) gives an effect y_i (a log ratio or a difference)
with its variance v_i. Q = sum w_i (y_i - y_w)^2 with w_i = 1/v_i and y_w their weighted mean, chi-square on k - 1
degrees of freedom when the strata share one effect; I^2 = max(0, (Q - (k - 1)) / Q), the share of the spread
between strata that chance does not explain (Higgins & Thompson 2002). The strata DISAGREE when I^2 > I2_MAX or
p_Q < P_Q_MIN (Q has little power with few strata, hence the lenient 0.10): then one pooled interval would
hide the disagreement, and the claim reads a DerSimonian-Laird estimate: tau^2 = max(0, (Q - (k - 1)) /
(sum w - sum w^2 / sum w)), weights 1 / (v_i + tau^2), with a t interval on k - 1 degrees of freedom (the normal
one is too narrow with a handful of strata).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

I2_MAX = 0.50
P_Q_MIN = 0.10
V_FLOOR = 1e-12  # a stratum whose repeats are identical: a tiny variance, not an infinite weight


@dataclass(frozen=True)
class Heterogeneity:
    k: int
    q: float
    p: float
    i2: float
    span: tuple[float, float] | None = None  # the smallest and largest stratum's effect, on the estimate's scale

    @property
    def disagree(self) -> bool:
        return self.k >= 2 and (self.i2 > I2_MAX or self.p < P_Q_MIN)

    def text(self) -> str:
        return f"Q={self.q:.3g} on {self.k - 1} df, p={self.p:.2g}, I^2={i2_text(self.i2)} %"


def i2_text(i2: float) -> str:
    """I squared (a share) in per cent: a value that rounds to 100 but is not 100 is "over 99" (review: 99.99996 %
    printed as "100"), here and in every sentence that quotes it."""
    pct = 100 * i2
    return "over 99" if 99 < pct < 100 and round(pct) == 100 else f"{pct:.0f}"


def cochran_q(y, v) -> Heterogeneity:
    y, w = np.asarray(y, float), 1 / np.maximum(np.asarray(v, float), V_FLOOR)
    k = y.size
    if k < 2:
        return Heterogeneity(k, 0.0, 1.0, 0.0)
    mean = float((w * y).sum() / w.sum())
    q = float((w * (y - mean) ** 2).sum())
    i2 = max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0
    return Heterogeneity(k, q, float(stats.chi2.sf(q, k - 1)), i2)


@dataclass(frozen=True)
class RandomEffects:
    value: float
    lo: float
    hi: float
    se: float
    dof: float
    tau2: float
    p: float  # two-sided, of no effect (0)


def dersimonian_laird(y, v, level: float = 0.95) -> RandomEffects:
    y, v = np.asarray(y, float), np.maximum(np.asarray(v, float), V_FLOOR)
    k = y.size
    w = 1 / v
    q = cochran_q(y, v).q
    c = w.sum() - (w * w).sum() / w.sum()
    tau2 = max(0.0, (q - (k - 1)) / c) if c > 0 else 0.0
    ws = 1 / (v + tau2)
    mu = float((ws * y).sum() / ws.sum())
    se = math.sqrt(1 / ws.sum())
    dof = max(k - 1, 1)
    h = float(stats.t.ppf(0.5 + level / 2, dof)) * se
    p = float(2 * stats.t.sf(abs(mu) / se, dof)) if se > 0 else (0.0 if mu else 1.0)
    return RandomEffects(mu, mu - h, mu + h, se, dof, tau2, p)
