"""The discrete power law p(x) = x^-alpha / zeta(alpha, xmin), x = xmin, xmin+1, ..., on sufficient statistics.

Every function takes the data as (v, c): sorted unique positive integers and their multiplicities, so cost
follows the number of distinct values, not the number of observations. Conventions follow the `powerlaw`
package (Alstott et al.) so that fits can be checked against it: candidate xmin values are the unique values
but the largest; the KS distance compares survival functions P(X >= v) at the unique values in the tail.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.special import zeta

from blkscope.analysis.popularity.fast_zeta import LogZetaJets

_H = 1e-5  # step of the central differences of log zeta in alpha
# the KS lower bounds look where the tail's empirical survival crosses these (where the largest gaps usually are)
KS_QUANTILES = (0.9, 0.7, 0.5, 0.35, 0.2, 0.1, 0.05, 0.02, 0.01, 1e-3)


def unique_counts(values, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique positive values and multiplicities (zeros and negatives dropped, as powerlaw does)."""
    x = np.asarray(values)
    if weights is None:
        if x.size and np.issubdtype(x.dtype, np.integer) and x.max() < 50 * x.size:
            try:
                c = np.bincount(x)  # dense and fast when the range is small
            except ValueError:  # negative values: drop them (and zeros below), as powerlaw does
                c = np.bincount(x[x > 0])
            c[:1] = 0
            v = np.flatnonzero(c)
            return v.astype(np.float64), c[v].astype(np.float64)
        x = x[x > 0]
        vc = pl.Series("v", x).value_counts(name="c").sort("v")  # hash-based: faster than a sort
        return vc["v"].to_numpy().astype(np.float64), vc["c"].to_numpy().astype(np.float64)
    w = np.asarray(weights, dtype=np.float64)
    keep = (x > 0) & (w > 0)
    v, inv = np.unique(x[keep], return_inverse=True)
    return v.astype(np.float64), np.bincount(inv, weights=w[keep])


def logzeta(a, q) -> np.ndarray:
    with np.errstate(divide="ignore"):  # zeta underflows to 0 for very steep tails: -inf, rejected later
        return np.log(zeta(a, q))


def _dlogz(a, q) -> tuple[np.ndarray, np.ndarray]:
    """First and second derivative of log zeta(a, q) in a (= -E[log X], Var[log X] of the tail model)."""
    lo, mid, hi = logzeta(a - _H, q), logzeta(a, q), logzeta(a + _H, q)
    with np.errstate(invalid="ignore"):
        return (hi - lo) / (2 * _H), (hi - 2 * mid + lo) / (_H * _H)


def mle_alpha(q: np.ndarray, mean_log: np.ndarray, iters: int = 60, tol: float = 1e-10, analytic: bool = False):
    """Exact discrete MLE of alpha for each (xmin=q, mean of log x over the tail), vectorised.

    Solves d/da log zeta(a, q) = -mean_log: the left side rises monotonically from -inf (a -> 1+) towards
    -log q, so each root is unique; safeguarded Newton inside a bracket that bisection keeps valid. analytic:
    the derivatives from LogZetaJets instead of central differences of scipy's zeta (a fraction of the cost; the
    root moves by the central differences' error, ~1e-11 relative, more for steep tails).
    """
    q = np.asarray(q, np.float64)
    target = -np.asarray(mean_log, np.float64)
    lo = np.ones(q.shape)
    hi = np.full(q.shape, np.inf)
    # CSN eq. 3.7 as the starting point: Newton then converges in a few steps.
    with np.errstate(divide="ignore"):
        a = 1 + 1 / np.maximum(-target - np.log(np.maximum(q - 0.5, 0.5)), 1e-12)
    a = np.clip(a, 1 + 1e-6, 1e4)
    act = np.arange(q.size)  # Newton steps only for the candidates not yet converged
    jets = LogZetaJets(q) if analytic else None
    for _ in range(iters):
        qa, aa, la, ha = q[act], a[act], lo[act], hi[act]
        d1, d2 = jets(aa, act) if analytic else _dlogz(aa, qa)
        f = d1 - target[act]  # increasing in a
        la = np.where(f < 0, aa, la)
        ha = np.where(f > 0, aa, ha)
        with np.errstate(divide="ignore", invalid="ignore"):
            nxt = aa - f / d2
        inside = np.isfinite(nxt) & (nxt > la) & (nxt < ha)
        nxt = np.where(inside, nxt, np.where(np.isfinite(ha), 0.5 * (la + ha), 2 * aa))
        a[act], lo[act], hi[act] = nxt, la, ha
        act = act[np.abs(nxt - aa) >= tol]
        if not act.size:
            break
    return a


def survival(a: float, xmin: float, x: np.ndarray) -> np.ndarray:
    """P(X >= x) of the discrete power law with exponent a above xmin."""
    return zeta(a, x) / zeta(a, xmin)


def tail_stats(v: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every k: n_tail = sum c[k:], mean of log v over the tail."""
    n_ge = np.cumsum(c[::-1])[::-1]
    lsum = np.cumsum((c * np.log(v))[::-1])[::-1]
    return n_ge, lsum / n_ge


def ks_window(v, n_ge, alpha, width: int) -> np.ndarray:
    """Lower bounds of every candidate k's KS distance: the max over the next `width` values and over the values
    where the tail's empirical survival crosses 0.9, 0.7, ..., 1e-3 (where the largest gaps usually are)."""
    m = alpha.size
    idx = np.arange(m)
    zk = zeta(alpha, v[:m])
    js = [np.minimum(idx + off, v.size - 1) for off in range(1, width)]
    neg = -n_ge  # increasing, for searchsorted
    for q in KS_QUANTILES:
        js.append(np.minimum(np.searchsorted(neg, -q * n_ge[:m], side="left"), v.size - 1))
    lb = np.zeros(m)
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 where zeta underflows: nan, never the minimum
        for j in js:
            lb = np.maximum(lb, np.abs(n_ge[j] / n_ge[idx] - zeta(alpha, v[j]) / zk))
    return np.where(np.isnan(lb), np.inf, lb)


def ks_full(v, n_ge, alpha: float, k: int) -> float:
    """KS distance of candidate k: max over the unique tail values of |empirical - model| survival."""
    s_emp = n_ge[k:] / n_ge[k]
    s_mod = zeta(alpha, v[k:]) / zeta(alpha, v[k])
    return float(np.max(np.abs(s_emp - s_mod)))


def select_xmin(v, c, max_alpha: float | None = None, width: int = 6, analytic: bool = False):
    """Every candidate's MLE, then the candidate with the smallest KS distance (exact, pruned by lower bounds).

    Returns (k, alpha[k], ks, n_ge, alphas). The full KS distance is computed only for candidates whose
    lower bound is below the best full distance found so far, so the answer equals a full scan's.
    """
    n_ge, mean_log = tail_stats(v, c)
    m = v.size - 1  # the largest value is never a candidate
    if m < 1:
        raise ValueError("need at least two distinct positive values to fit a power law")
    alphas = mle_alpha(v[:m], mean_log[:m], analytic=analytic)
    valid = np.isfinite(alphas)
    if max_alpha is not None:
        valid &= alphas < max_alpha
    if not valid.any():
        raise ValueError("no candidate xmin gives a valid power-law exponent")
    lb = ks_window(v, n_ge, alphas, width)
    lb = np.where(valid, lb, np.inf)
    order = np.argsort(lb, kind="stable")
    best_k, best_d = -1, np.inf
    for k in order:
        if lb[k] > best_d or not np.isfinite(lb[k]):
            break
        d = ks_full(v, n_ge, alphas[k], int(k))
        if d < best_d or (d == best_d and k < best_k):  # ties: the smallest xmin, as powerlaw
            best_k, best_d = int(k), d
    return best_k, float(alphas[best_k]), best_d, n_ge, alphas


def loglik_terms(a: float, xmin: float, v: np.ndarray) -> np.ndarray:
    """log p(v) for each tail value v."""
    return -a * np.log(v) - logzeta(a, xmin)


def fisher_sigma(a: float, xmin: float, n: float) -> float:
    """Standard error of alpha from the observed (= expected: one-parameter exponential family) information."""
    _, d2 = _dlogz(np.array([a]), np.array([xmin], np.float64))
    return float(1 / np.sqrt(n * d2[0]))


class TailSampler:
    """Draws from the discrete power law as a histogram (values, counts): a multinomial over a table of the first
    `table` values, exact inverse-CDF bisection for the few draws beyond it. The table is sized so that about
    100 of `n_hint` draws fall beyond it; cost follows the table, not the number of draws."""

    def __init__(self, a: float, xmin: float, n_hint: int = 10**6, table: int | None = None):
        if table is None:  # P(X >= x) ~ (x / xmin)^(1 - a): solve n_hint * P = 100
            guess = xmin * max(n_hint / 100, 1.0) ** (1 / max(a - 1, 1e-3))
            table = int(np.clip(guess - xmin, 1024, 1 << 17))
        self.a, self.xmin = a, xmin
        self.x = xmin + np.arange(table + 1, dtype=np.float64)
        s = survival(a, xmin, self.x)
        self.s_end = s[-1]
        p = np.clip(np.append(-np.diff(s), s[-1]), 0, None)  # last cell: X >= xmin + table
        self.p = p / p.sum()

    def draw(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self.beyond(*self.draw_table(n, rng))

    def draw_table(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The random part of `draw`: the table's (values, counts) and the survival levels u of the draws beyond
        it, to be inverted by `beyond` (later, and many draws' at once: sample_inverse is elementwise)."""
        cnt = rng.multinomial(n, self.p)
        beyond = int(cnt[-1])
        keep = cnt[:-1] > 0
        u = rng.uniform(0, self.s_end, beyond) if beyond else np.zeros(0)
        return self.x[:-1][keep], cnt[:-1][keep].astype(np.float64), u

    def beyond(self, vals, counts, u, far=None) -> tuple[np.ndarray, np.ndarray]:
        """(vals, counts) with the draws at survival levels u (far: their values, if inverted already) added."""
        if not u.size:
            return vals, counts
        fv, fc = np.unique(sample_inverse(self.a, self.xmin, u) if far is None else far, return_counts=True)
        return np.concatenate([vals, fv]), np.concatenate([counts, fc.astype(np.float64)])


def sample_hist(a: float, xmin: float, n: int, rng: np.random.Generator, table: int | None = None):
    """n draws from the discrete power law as (values, counts); see TailSampler."""
    return TailSampler(a, xmin, n, table).draw(n, rng)


def sample_inverse(a: float, xmin: float, u: np.ndarray) -> np.ndarray:
    """Exact inverse CDF: the largest integer x >= xmin with P(X >= x) >= u, by vectorised bisection."""
    z0 = zeta(a, xmin)
    lo = np.full(u.shape, float(xmin))
    hi = np.full(u.shape, float(xmin) * 2 + 1)
    while True:  # double hi until P(X >= hi) < u
        grow = zeta(a, hi) / z0 >= u
        if not grow.any():
            break
        hi = np.where(grow, hi * 2, hi)
    while True:
        todo = hi - lo > 1
        if not todo.any():
            return lo
        mid = np.floor((lo + hi) / 2)
        ge = zeta(a, mid) / z0 >= u
        lo = np.where(todo & ge, mid, lo)
        hi = np.where(todo & ~ge, mid, hi)
