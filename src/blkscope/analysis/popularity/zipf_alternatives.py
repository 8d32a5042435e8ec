"""Discrete alternatives to the power law on the same tail (x >= xmin), fitted by maximum likelihood on
sufficient statistics (v, c), and Vuong's likelihood-ratio test against each.

The discrete forms are those of the `powerlaw` package (CSN 2009, table 2.1): exponential
p(x) = (1 - e^-l) e^-l(x - xmin); lognormal discretised by rounding, p(x) = P(x - 1/2 < Y < x + 1/2) / P(Y > xmin - 1/2)
with log Y normal; truncated power law p(x) = x^-a e^-lx / sum_{y >= xmin} y^-a e^-ly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from scipy import optimize
from scipy.special import chdtrc, erfc, log_ndtr  # chdtrc: chi2.sf without importing scipy.stats (0.3 s)

from blkscope.analysis.popularity import nelder_mead


@dataclass(frozen=True)
class Comparison:
    """Power law vs `name`: R > 0 favours the power law; p is the significance of R's sign."""

    name: str
    R: float  # log-likelihood ratio, power law minus alternative
    R_norm: float  # R / sqrt(n var): Vuong's statistic
    p: float
    nested: bool
    params: dict[str, float]


def exponential(v, c, xmin: float) -> tuple[np.ndarray, dict]:
    m = float(np.sum(c * (v - xmin)) / np.sum(c))
    lam = np.log1p(1 / m) if m > 0 else 50.0  # closed-form MLE of the shifted geometric
    return np.log1p(-np.exp(-lam)) - lam * (v - xmin), {"lambda": float(lam)}


def _lognormal_terms(logs, mu, sigma):
    # log[Phi(-(ln(x-.5)-mu)/s) - Phi(-(ln(x+.5)-mu)/s)] - log Phi(-(ln(xmin-.5)-mu)/s), kept in log space;
    # logs = [ln(x-.5)..., ln(x+.5)..., ln(xmin-.5)], taken once per fit and standardised in one pass (the same
    # numbers as three: elementwise), not per likelihood evaluation
    z = log_ndtr(-(logs - mu) / sigma)
    n = z.size // 2
    a, b = z[:n], z[n:-1]
    diff = a + np.log(-np.expm1(b - a))  # -inf where the two round to the same: callers ignore divide
    return diff - z[-1]


def lognormal(v, c, xmin: float) -> tuple[np.ndarray, dict]:
    lv = np.log(v)
    w = c / c.sum()
    mu0 = float(np.sum(w * lv))
    s0 = float(np.sqrt(max(np.sum(w * (lv - mu0) ** 2), 1e-4)))
    logs = np.concatenate([np.log(v - 0.5), np.log(v + 0.5), [np.log(xmin - 0.5)]])

    def nll(p):
        t = _lognormal_terms(logs, p[0], np.exp(p[1]))
        return -float(np.sum(c * np.where(np.isfinite(t), t, -745.0)))

    best = None
    with np.errstate(divide="ignore"):  # once here, not in each of the ~1000 likelihood evaluations
        for start in ([mu0, np.log(s0)], [np.log(xmin), np.log(2 * s0)], [mu0 - 3 * s0, np.log(2 * s0)]):
            r = nelder_mead.minimize(nll, start, xatol=1e-8, fatol=1e-10)  # = scipy's Nelder-Mead, bit for bit
            if best is None or r[1] < best[1]:
                best = r
        mu, sig = float(best[0][0]), float(np.exp(best[0][1]))
        return _lognormal_terms(logs, mu, sig), {"mu": mu, "sigma": sig}


def _tpl_head(xmin: float, span: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    y = xmin + np.arange(span, dtype=np.float64)
    return y, np.log(y)


def _tpl_lognorm(a: float, lam: float, xmin: float, head_y=None) -> float:
    """log sum_{y >= xmin} y^-a e^-lam y: a direct sum over the first terms (head_y: _tpl_head(xmin), computed
    once per fit), then Euler-Maclaurin for the rest."""
    y, logy = head_y or _tpl_head(xmin)
    span = y.size
    lt = -a * logy - lam * y
    top = lt.max()
    head = np.sum(np.exp(lt - top))
    m = xmin + span
    if lam > 0 and a > 0 and _tail_log_bound(a, lam, m) - top < math.log(head) - 40:
        # the tail (< e^-40 head) cannot change head + tail in float64 (it would need 2^-53 head): the same
        # number without mpmath's incomplete gamma, the fit's main cost
        return float(top + np.log(head))
    integral = float(mpmath.gammainc(1 - a, lam * m) * mpmath.power(lam, a - 1)) if lam > 0 else m ** (1 - a) / (a - 1)
    fm = m**-a * np.exp(-lam * m)
    dfm = fm * (-a / m - lam)
    tail = integral + fm / 2 - dfm / 12
    return float(top + np.log(head + tail * np.exp(-top)))


def _tail_log_bound(a: float, lam: float, m: float) -> float:
    """Upper bound of log(Euler-Maclaurin tail) for a, lam > 0: the integral from m is at most
    m^-a e^-lam m / lam, and for a > 1 at most m^(1-a) e^-lam m / (a - 1)."""
    b = min(1 / lam, m / (a - 1)) if a > 1 else 1 / lam
    return -a * math.log(m) - lam * m + math.log(b + 0.5 + (a / m + lam) / 12)


def truncated_power_law(v, c, xmin: float, alpha0: float) -> tuple[np.ndarray, dict]:
    n = c.sum()
    slog, sv = float(np.sum(c * np.log(v))), float(np.sum(c * v))
    scale = float(np.sum(c * v) / n)  # optimise lambda * mean: keeps both coordinates of order one
    head = _tpl_head(xmin)

    def nll(p):
        a, lam = p[0], p[1] / scale
        if lam <= 0 and a <= 1:
            return 1e300
        return a * slog + lam * sv + n * _tpl_lognorm(a, lam, xmin, head)

    best = None
    for start in ([alpha0, 1e-3], [max(alpha0 - 0.5, 0.1), 0.1], [max(alpha0 - 1, 0.05), 1.0]):
        r = optimize.minimize(nll, start, method="L-BFGS-B", bounds=[(1e-3, 20), (0, None)])
        if best is None or r.fun < best.fun:
            best = r
    a, lam = float(best.x[0]), float(best.x[1] / scale)
    return -a * np.log(v) - lam * v - _tpl_lognorm(a, lam, xmin, head), {"alpha": a, "lambda": lam}


def vuong(name: str, ll_pl, ll_alt, c, nested: bool, params: dict) -> Comparison:
    """Log-likelihood ratio test (CSN 2009 sec. 5; nested: chi^2 with one degree of freedom, as powerlaw)."""
    d = ll_pl - ll_alt
    n = c.sum()
    R = float(np.sum(c * d))
    var = float(np.sum(c * (d - R / n) ** 2) / n)
    sd = np.sqrt(n * var)
    p = float(chdtrc(1, abs(2 * R))) if nested else float(erfc(abs(R) / (np.sqrt(2) * sd))) if sd > 0 else 1.0
    return Comparison(name, R, R / sd if sd > 0 else 0.0, p, nested, params)


def compare_all(v, c, xmin: float, alpha: float, ll_pl: np.ndarray) -> dict[str, Comparison]:
    """Tail (v >= xmin) of the data against the three alternatives."""
    out = {}
    ll, par = lognormal(v, c, xmin)
    out["lognormal"] = vuong("lognormal", ll_pl, ll, c, False, par)
    ll, par = exponential(v, c, xmin)
    out["exponential"] = vuong("exponential", ll_pl, ll, c, False, par)
    ll, par = truncated_power_law(v, c, xmin, alpha)
    out["truncated_power_law"] = vuong("truncated_power_law", ll_pl, ll, c, True, par)
    return out
