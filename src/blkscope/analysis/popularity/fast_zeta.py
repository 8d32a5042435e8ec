"""First and second derivatives of log zeta(a, q) in a, analytic, for the bootstrap's many MLE refits.

`discrete_powerlaw._dlogz` takes central differences of three scipy zetas per Newton step (~300 ns each); here
one pass gives both derivatives from a direct sum of the first N terms plus Euler-Maclaurin for the rest, each
term with its a-derivatives, and the logs of the direct terms are taken once per candidate (its q is fixed while
Newton moves a). Everything is scaled by q^-a, so steep tails do not underflow; where the unscaled zeta would
(scipy returns 0, log -inf, the central differences nan), nan is returned as there, so a refit rejects the same
candidates. The derivatives are exact up to rounding (~1e-14), the central differences' error is ~1e-11.
"""

from __future__ import annotations

import numpy as np

N = 10  # direct terms: from w = q + N >= 11 the j-th Euler-Maclaurin term falls as (a / 2 pi w)^2j, and where that
# ratio is not small (steep tails) the remainder is below e^-60 of zeta: five terms are exact to rounding
_C = 1 / np.array([12.0, -720.0, 30240.0, -1209600.0, 47900160.0])  # B_2j / (2j)!: cephes zeta's 1 / A[j]
_LOG_TINY = np.log(np.nextafter(0, 1))  # log of the smallest subnormal: below it scipy's zeta is 0


class LogZetaJets:
    """d/da and d2/da2 of log zeta(a, q) for fixed q (one per candidate) at any a (> 1)."""

    def __init__(self, q: np.ndarray):
        q = np.asarray(q, np.float64)
        self.logq = np.log(q)
        self.w = q + N
        # lg_k = log((q + k) / q): the direct terms are q^-a e^(-a l_k); the last column is log(w / q)
        self.lg = np.log1p(np.arange(N + 1) / q[:, None])

    def __call__(self, a: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(d1, d2) at a for the candidates idx."""
        whole = idx.size == self.lg.shape[0]  # the first Newton steps: every candidate, no gather
        lg, w, logq = (self.lg, self.w, self.logq) if whole else (self.lg[idx], self.w[idx], self.logq[idx])
        e = np.exp(-a[:, None] * lg)
        ld, ed = lg[:, :N], e[:, :N]
        z0, z1, z2 = ed.sum(1), -(ld * ed).sum(1), (ld * ld * ed).sum(1)
        big_l, ew = lg[:, N], e[:, N]  # the remainder is w^-a G(a) = q^-a e^(-a log(w/q)) G(a)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # G overflows where a is huge, ew 0
            g0, g1, g2 = self._em(a, w)
            r0, r1, r2 = ew * g0, ew * (g1 - big_l * g0), ew * (g2 - 2 * big_l * g1 + big_l * big_l * g0)
            z0, z1, z2 = (np.where(ew > 0, z + r, z) for z, r in ((z0, r0), (z1, r1), (z2, r2)))
            d1 = z1 / z0
            d2 = z2 / z0 - d1 * d1
            under = np.log(z0) - a * logq < _LOG_TINY
        return np.where(under, np.nan, d1 - logq), np.where(under, np.nan, d2)

    @staticmethod
    def _em(a, w):
        """G(a) = w/(a-1) + 1/2 + sum_j c_j a(a+1)...(a+2j-2) w^(1-2j) and its first two a-derivatives."""
        inv = 1 / (a - 1)
        g0, g1, g2 = w * inv + 0.5, -w * inv * inv, 2 * w * inv * inv * inv
        p0, p1, p2 = a, np.ones_like(a), np.zeros_like(a)  # the rising factorial and its derivatives
        iw = 1 / w
        iw2, cw = iw * iw, iw  # w^(1-2j)
        for j, c in enumerate(_C):
            t = c * cw
            g0, g1, g2 = g0 + t * p0, g1 + t * p1, g2 + t * p2
            for m in (2 * j + 1, 2 * j + 2):  # times (a + m): product rule on the jet
                am = a + m
                p0, p1, p2 = p0 * am, p1 * am + p0, p2 * am + 2 * p1
            cw = cw * iw2
        return g0, g1, g2
