"""CSN's goodness-of-fit bootstrap with every replicate refitted at once.

A replicate is a histogram of a few hundred distinct values; refitting one at a time spent most of its time in
per-call numpy overhead. Here all replicates are drawn first (the same RNG stream, in the same order, as one at
a time), concatenated into flat arrays with segment offsets, and fitted together: the MLE of every candidate of
every replicate in one `mle_alpha` call, the KS lower bounds of all candidates at once, then the pruned exact
KS search of `select_xmin` run in lockstep across replicates. Every number is computed by the same elementwise
operations as the one-at-a-time fit, so each replicate's KS distance, and thus p, is bit-for-bit the same.
"""

from __future__ import annotations

import numpy as np
from scipy.special import zeta

from blkscope.analysis.popularity import discrete_powerlaw as dp

SHORT_TAIL = 32
RECHECK = 0.01  # relative margin around the observed KS distance within which `worse` refits again (the two
# refits' distances differ by at most 2.8e-4 of it on the main job: bench/RESULTS.md)


def draw(v, c, k, alpha, n_boot, rng) -> list[tuple[np.ndarray, np.ndarray]]:
    """The replicates as (values, counts): Binomial(n, n_tail/n) draws from the fitted tail, the rest from the
    empirical values below xmin. Replicates with fewer than two distinct values are left out (not fittable)."""
    n = int(c.sum())
    n_tail = int(c[k:].sum())
    body_v, body_p = v[:k], c[:k] / max(c[:k].sum(), 1)
    tail = dp.TailSampler(alpha, v[k], n_tail)
    draws = []
    for _ in range(n_boot):  # the random draws, in the order of one replicate at a time
        nt = int(rng.binomial(n, n_tail / n)) if k else n
        tv, tc, u = tail.draw_table(nt, rng)
        bc = rng.multinomial(n - nt, body_p).astype(np.float64) if k and n - nt else np.zeros(0)
        draws.append((tv, tc, u, bc))
    # the draws beyond the table, of all replicates in one inversion (~30 zeta calls each, whatever their number)
    lens = [u.size for _, _, u, _ in draws]
    far = np.split(dp.sample_inverse(alpha, v[k], np.concatenate([u for _, _, u, _ in draws])), np.cumsum(lens)[:-1])
    out = []
    for (tv, tc, u, bc), x in zip(draws, far, strict=True):
        tv, tc = tail.beyond(tv, tc, u, x)
        if bc.size:
            tv, tc = np.concatenate([body_v[bc > 0], tv]), np.concatenate([bc[bc > 0], tc])
        if tv.size >= 2:
            out.append((tv, tc))
    return out


def _ragged(starts, lens):
    """Flat indices starts[i] + (0 .. lens[i]-1) for every i, and where each i's run begins in them."""
    off = np.cumsum(lens) - lens
    return np.arange(int(lens.sum())) - np.repeat(off - starts, lens), off


def _tail_stats(v, c, starts, lens):
    """dp.tail_stats of every segment: the reversed cumulative sums run along the rows of a zero-padded matrix,
    so each segment's sums are added in the same order as on its own (x + 0.0 == x)."""
    rows = np.repeat(np.arange(lens.size), lens)
    cols = np.arange(v.size) - np.repeat(starts, lens)
    out = []
    for x in (c, c * np.log(v)):
        m = np.zeros((lens.size, int(lens.max())))
        m[rows, cols] = x
        out.append(np.cumsum(m[:, ::-1], axis=1)[:, ::-1][rows, cols])
    return out[0], out[1] / out[0]


def _ks_full(v, n_ge, alpha, g, end):
    """dp.ks_full for each candidate (flat position g, its segment ending before end)."""
    lens = end - g
    idx, off = _ragged(g, lens)
    s_emp = n_ge[idx] / np.repeat(n_ge[g], lens)
    z = zeta(np.repeat(alpha, lens), v[idx])
    s_mod = z / np.repeat(z[off], lens)  # z[off] = zeta(alpha, v[g]): each run starts at its candidate
    return np.maximum.reduceat(np.abs(s_emp - s_mod), off)


def _ks_window(v, n_ge, alpha, g, seg, end, seg_of, width, quantiles=dp.KS_QUANTILES, first=1, zk=None):
    """dp.ks_window over the candidates of all segments. Its searchsorted within a segment becomes one over the
    whole flat array with keys seg * big - n_ge (increasing; counts are integers, so n_ge[j] <= q * n_ge[i]
    is n_ge[j] <= floor(q * n_ge[i]), exact in int64)."""
    zk = zeta(alpha, v[g]) if zk is None else zk
    last = end - 1
    js = [np.minimum(g + off, last) for off in range(first, width)]
    big = int(n_ge.max()) + 2
    key = seg_of * big - n_ge.astype(np.int64)
    for q in quantiles:
        t = seg * big - np.floor(-(-q * n_ge[g])).astype(np.int64)
        js.append(np.minimum(np.searchsorted(key, t, side="left"), last))
    lb = np.zeros(g.size)
    for j in js:
        lb = np.maximum(lb, np.abs(n_ge[j] / n_ge[g] - zeta(alpha, v[j]) / zk))
    return np.where(np.isnan(lb), np.inf, lb)


def worse(reps, ks: float, xmin=None, max_alpha=None) -> np.ndarray:
    """Whether each replicate's refit KS distance is at least ks (nan, not fittable: not worse), as the refit with
    central differences (the point fit's) decides. A first pass refits with analytic derivatives (fast) and only
    decides where the distance is clearly above or below ks: outside ks (1 -+ RECHECK), which it shows from a
    few points of the KS curve where it can, without the exact distance; the rest (and where a candidate's
    validity could differ) are refitted with central differences. On the main job's 64,800 replicates the two
    refits' distances differ by at most 2.8e-4 ks (bench/RESULTS.md), so outside the margin they agree."""
    flat = _flat(reps)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if xmin is None:
            status = _decide(*flat, ks, max_alpha)
        else:
            d = _fixed(*flat, xmin, analytic=True)
            status = np.where(np.abs(d - ks) > RECHECK * ks, d >= ks, np.nan)
    near = np.flatnonzero(np.isnan(status))
    if near.size:
        status[near] = replicate_ks([reps[i] for i in near], xmin, max_alpha) >= ks
    return status == 1


def replicate_ks(reps, xmin=None, max_alpha=None, width: int = 6, analytic: bool = False) -> np.ndarray:
    """KS distance of each replicate's refit (xmin fixed or re-selected as select_xmin does); nan where the
    replicate cannot be fitted (no valid candidate, or no value at or above a fixed xmin). analytic: see
    dp.mle_alpha."""
    if not reps:
        return np.zeros(0)
    v, n_ge, mean_log, starts, lens = _flat(reps)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if xmin is not None:
            return _fixed(v, n_ge, mean_log, starts, lens, xmin, analytic)
        return _select(v, n_ge, mean_log, starts, lens, max_alpha, width, analytic)


def _flat(reps):
    """The replicates as one flat array of values with their tail statistics, and the segments (starts, lens)."""
    lens = np.array([tv.size for tv, _ in reps], dtype=np.int64)
    v = np.concatenate([tv for tv, _ in reps]) if reps else np.zeros(0)
    c = np.concatenate([tc for _, tc in reps]) if reps else np.zeros(0)
    starts = np.cumsum(lens) - lens
    with np.errstate(divide="ignore", invalid="ignore"):
        n_ge, mean_log = _tail_stats(v, c, starts, lens) if reps else (v, v)
    return v, n_ge, mean_log, starts, lens


def _fixed(v, n_ge, mean_log, starts, lens, xmin, analytic):
    kf = np.add.reduceat((v < xmin).astype(np.int64), starts) if lens.size else lens  # = searchsorted: sorted
    ok = kf < lens
    g = (starts + kf)[ok]
    a = dp.mle_alpha(np.full(g.size, float(xmin)), mean_log[g], analytic=analytic)
    out = np.full(lens.size, np.nan)
    out[ok] = _ks_full(v, n_ge, a, g, (starts + lens)[ok])
    return out


def _candidates(v, mean_log, starts, lens, max_alpha, analytic):
    """The xmin candidates of every segment (all but its largest value), flat: their positions g, where each
    segment's run of them begins, their segment and its end, their MLE alphas, which are valid (alpha finite and
    below max_alpha) and which segments have a valid one (fits)."""
    m = lens - 1
    g, cstart = _ragged(starts, m)
    seg = np.repeat(np.arange(lens.size), m)
    end = (starts + lens)[seg]
    alphas = dp.mle_alpha(v[g], mean_log[g], analytic=analytic)
    valid = np.isfinite(alphas)
    if max_alpha is not None:
        valid &= alphas < max_alpha
    fits = np.bincount(seg, weights=valid, minlength=lens.size) > 0
    return g, cstart, seg, end, alphas, valid, fits


def _decide(v, n_ge, mean_log, starts, lens, ks, max_alpha):
    """Per replicate: 1 if its refit distance (analytic derivatives) is at least ks (1 + RECHECK), 0 if below
    ks (1 - RECHECK), nan if neither is shown. Every candidate's KS distance is at least its value at a few
    points (ks_window's first offsets and middle quantiles); only the candidates whose bound is below the upper
    threshold get the full window's bound, and those still below it their full distance."""
    if not lens.size:
        return np.zeros(0)
    lo, hi = ks * (1 - RECHECK), ks * (1 + RECHECK)
    g, _, seg, end, alphas, valid, fits = _candidates(v, mean_log, starts, lens, max_alpha, analytic=True)
    seg_of = np.repeat(np.arange(lens.size), lens)
    unsure = np.zeros(lens.size, bool)
    if max_alpha is not None:  # a candidate this close to the edge could be in or out with central differences
        unsure[seg[np.isfinite(alphas) & (np.abs(alphas - max_alpha) <= 1e-6 * max_alpha)]] = True
    lb = np.zeros(g.size)  # no bound yet
    zk = np.full(g.size, np.nan)
    w = np.flatnonzero(valid)
    zk[w] = zeta(alphas[w], v[g[w]])
    cheap = (0.5, 0.2, 0.05)  # a cheap bound first; where it is below hi, the rest of the window's points
    for first, width, quantiles in ((1, 3, cheap), (3, 6, [q for q in dp.KS_QUANTILES if q not in cheap])):
        w = np.flatnonzero(valid & (lb < hi))
        b = _ks_window(v, n_ge, alphas[w], g[w], seg[w], end[w], seg_of, width, quantiles, first, zk[w])
        lb[w] = np.maximum(lb[w], b)
    w = np.flatnonzero(valid & (lb < hi))
    d = np.full(g.size, np.inf)
    d[w] = _ks_full(v, n_ge, alphas[w], g[w], end[w])
    d = np.where(np.isnan(d), np.inf, d)  # nan: never the minimum, as in _select
    best = np.full(lens.size, np.inf)
    np.minimum.at(best, seg, d)
    status = np.where(best >= hi, 1.0, np.where(best < lo, 0.0, np.nan))
    return np.where(fits & ~unsure, status, np.nan)  # not fittable: refitted with central differences too


def _select(v, n_ge, mean_log, starts, lens, max_alpha, width, analytic):
    g, cstart, seg, end, alphas, valid, fits = _candidates(v, mean_log, starts, lens, max_alpha, analytic)
    # a tail of at most SHORT_TAIL values costs about as much in full as its lower bound (16 zetas, 15 passes) and
    # the search below need not redo it: its bound is its KS distance (still the smallest distance, ties by xmin)
    short = valid & (end - g <= SHORT_TAIL)
    d_short = _ks_full(v, n_ge, alphas[short], g[short], end[short])
    lb = np.full(g.size, np.inf)
    lb[short] = np.where(np.isnan(d_short), np.inf, d_short)
    w = valid & ~short
    lb[w] = _ks_window(v, n_ge, alphas[w], g[w], seg[w], end[w], np.repeat(np.arange(lens.size), lens), width)
    exact = np.full(g.size, np.nan)
    exact[short] = d_short
    order = np.lexsort((g, lb, seg))  # per segment by bound, ties by xmin: select_xmin's stable argsort
    best, best_g = np.full(lens.size, np.inf), np.full(lens.size, -1)
    live = fits.copy()
    m = lens - 1  # candidates per segment (once: the loop below runs up to max(m) steps)
    t = 0
    while True:  # select_xmin's loop, step t of every segment at once
        r = np.flatnonzero(live & (t < m))
        if not r.size:
            break
        cand = order[cstart[r] + t]
        go = np.isfinite(lb[cand]) & (lb[cand] <= best[r])
        live[r[~go]] = False
        r, cand = r[go], cand[go]
        d = exact[cand]
        todo = ~short[cand]
        d[todo] = _ks_full(v, n_ge, alphas[cand[todo]], g[cand[todo]], end[cand[todo]])
        better = (d < best[r]) | ((d == best[r]) & (g[cand] < best_g[r]))
        best[r[better]], best_g[r[better]] = d[better], g[cand][better]
        t += 1
    return np.where(fits, best, np.nan)
