"""scipy.optimize.minimize(method="Nelder-Mead") for two parameters, step for step, without its per-step overhead.

The lognormal fit runs ~300 likelihood evaluations per start, three starts per fit, and scipy's loop (numpy calls
on a 3x2 simplex, a wrapper copying each point) cost about as much as the likelihood. This is the same algorithm
(scipy 1.17's _minimize_neldermead, non-adaptive, no bounds, maxiter = maxfev = 400) on Python floats: the same
arithmetic on the same doubles, the same np.argsort of the three values (ties ordered as scipy orders them), the
same evaluation budget, so it returns the same point and value, bit for bit (tests/test_zipf_fast.py checks this).
Its steps follow SciPy's implementation (scipy/optimize/_optimize.py, BSD-3-Clause, (c) SciPy Developers).
"""

from __future__ import annotations

import numpy as np

RHO, CHI, PSI, SIGMA = 1, 2, 0.5, 0.5  # scipy's non-adaptive coefficients
NONZDELT, ZDELT = 0.05, 0.00025
MAXFEV = 400  # scipy's default for two parameters: 200 * N, for iterations and evaluations


class _Budget(Exception):
    pass


def minimize(fun, x0, xatol: float = 1e-4, fatol: float = 1e-4) -> tuple[tuple[float, float], float]:
    """(x, fun(x)) at the minimum Nelder-Mead finds from x0 (two numbers); fun takes a float64 array of two."""
    calls = 0

    def f(x0_, x1_):
        nonlocal calls
        if calls >= MAXFEV:
            raise _Budget
        calls += 1
        return float(fun(np.array([x0_, x1_])))

    x = [float(v) for v in x0]
    sim = [list(x)]
    for k in range(2):
        y = list(x)
        y[k] = (1 + NONZDELT) * y[k] if y[k] != 0 else ZDELT
        sim.append(y)
    fs = [np.inf] * 3
    try:
        for k in range(3):
            fs[k] = f(*sim[k])
    except _Budget:
        pass
    sim, fs = _sorted(*_sorted(sim, fs))  # scipy sorts twice here (ties could move twice)
    iterations = 1
    while calls < MAXFEV and iterations < MAXFEV:
        try:
            (a0, a1), (b0, b1), (c0, c1) = sim
            # scipy's max(...) <= tol, nan (inf - inf) included: False
            if all(d <= xatol for d in (abs(b0 - a0), abs(b1 - a1), abs(c0 - a0), abs(c1 - a1))) and all(
                d <= fatol for d in (abs(fs[0] - fs[1]), abs(fs[0] - fs[2]))
            ):
                break
            m0, m1 = (a0 + b0) / 2, (a1 + b1) / 2  # centroid of the two best
            r = ((1 + RHO) * m0 - RHO * c0, (1 + RHO) * m1 - RHO * c1)
            fr = f(*r)
            if fr < fs[0]:
                e = ((1 + RHO * CHI) * m0 - RHO * CHI * c0, (1 + RHO * CHI) * m1 - RHO * CHI * c1)
                fe = f(*e)
                sim[2], fs[2] = (list(e), fe) if fe < fr else (list(r), fr)
            elif fr < fs[1]:
                sim[2], fs[2] = list(r), fr
            else:
                if fr < fs[2]:  # outside contraction
                    cpt = ((1 + PSI * RHO) * m0 - PSI * RHO * c0, (1 + PSI * RHO) * m1 - PSI * RHO * c1)
                    fc = f(*cpt)
                    shrink = not fc <= fr
                else:  # inside contraction
                    cpt = ((1 - PSI) * m0 + PSI * c0, (1 - PSI) * m1 + PSI * c1)
                    fc = f(*cpt)
                    shrink = not fc < fs[2]
                if not shrink:
                    sim[2], fs[2] = list(cpt), fc
                else:
                    for j in (1, 2):
                        sim[j] = [a0 + SIGMA * (sim[j][0] - a0), a1 + SIGMA * (sim[j][1] - a1)]
                        fs[j] = f(*sim[j])
            iterations += 1
        except _Budget:
            pass
        sim, fs = _sorted(sim, fs)
    return (sim[0][0], sim[0][1]), float(np.min(fs))


def _sorted(sim, fs):
    order = np.argsort(np.array(fs))  # scipy's sort, so ties (and infinities) fall as there
    return [sim[i] for i in order], [fs[i] for i in order]
