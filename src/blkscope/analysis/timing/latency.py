"""Latency stages of every queued bio, matched the way btt (blktrace 1.2, btt 2.09) matches them.

Per device, each Q (with data) is tracked by its start sector until a C covers it:
- G, I, M/F: the tracked Q whose range contains the event's sector gets its G/I/M time
  (Q2G = G - Q; G2I = I - G when a G was seen; Q2M = M - Q);
- D: every tracked Q inside [D.sector, D.sector + D.nsectors) gets its D time (I2D from I, else M2D from M;
  Q2D = D - Q);
- C: every tracked Q inside the C's range completes: Q2C = C - Q, and D2C = C - D when it was issued; then it is
  no longer tracked.
As in btt: events of a device before its first Q are ignored; a Q whose start sector is already tracked is not
tracked; events without data (flushes) are ignored; a stage is defined only when both ends were seen. So a
merged request's D2C counts once per bio in it, which is what btt's D2C average is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.stats.log_histogram import HALF_WIDTH, LogHistogram
from blkscope.analysis.stats.uncertainty import LEVEL, Sorted
from blkscope.analysis.timing import replay

STAGES = ("q2g", "g2i", "q2m", "i2d", "m2d", "q2d", "d2c", "q2c")
QUANTILES = (0.5, 0.9, 0.99, 0.999, 0.9999)


# stage -> (later end, earlier end, condition column that must be present / absent)
_STAGE_ENDS = {
    "q2g": ("g", "q", None), "g2i": ("i", "g", None), "q2m": ("m", "q", None), "i2d": ("d", "i", None),
    "m2d": ("d", "m", "no_i"), "q2d": ("d", "q", None), "d2c": ("c", "d", None), "q2c": ("c", "q", None),
}  # fmt: skip


def per_bio(events: Sequence[Path] | pl.LazyFrame) -> pl.DataFrame:
    """One row per tracked Q: dev, rw, sector, nsectors, q_ns and every stage in ns (null where not seen).
    Matched by blkscope-native replay in one time-ordered pass (blkscope.analysis.timing.replay); a trace's parts
    (or a parts.json) in order give the same rows as the whole."""
    r = replay.run(events)
    try:
        df = replay.bios_frame(r)
    finally:
        r.close()
    return df.select(
        "dev", "rw", "sector", "nsectors", "q_ns",
        q2g=pl.col("g_ns") - pl.col("q_ns"),
        g2i=pl.col("i_ns") - pl.col("g_ns"),
        q2m=pl.col("m_ns") - pl.col("q_ns"),
        i2d=pl.when(pl.col("i_ns").is_not_null()).then(pl.col("d_ns") - pl.col("i_ns")),
        m2d=pl.when(pl.col("i_ns").is_null()).then(pl.col("d_ns") - pl.col("m_ns")),
        q2d=pl.col("d_ns") - pl.col("q_ns"),
        d2c=pl.col("c_ns") - pl.col("d_ns"),
        q2c=pl.col("c_ns") - pl.col("q_ns"),
    )  # fmt: skip


# above this many bios, a stage's quantiles come from a log histogram (log_histogram.py, within 0.5 %) read slice
# by slice, not from its sorted values (8 bytes per bio in memory at once)
EXACT_MAX = 50_000_000
SLICE = 5_000_000


def stages(events: Sequence[Path] | pl.LazyFrame, by_rw: bool = False, exact_max: int = EXACT_MAX) -> pl.DataFrame:
    """stage_summary of per_bio(events) (and by R/W when by_rw, with a column rw: all, R, W) without building
    the per-bio table: one stage's values at a time from the replay's columns (8 bytes per bio); a trace of more
    than `exact_max` bios in bounded memory (column `quantiles` says which)."""
    r = replay.run(events)
    try:
        return stages_of(r, by_rw, exact_max)
    finally:
        r.close()


def stages_of(r: replay.Replay, by_rw: bool = False, exact_max: int = EXACT_MAX) -> pl.DataFrame:
    """stages() of a replay (one replay also gives latency_windows.histograms_of: `blkscope latency` reads a
    trace once for both)."""
    is_read = np.array([v is not None and "R" in v for v in r.rw_names], dtype=bool)
    n_bios = r.column("q", mmap=True).shape[0]
    if n_bios > exact_max:
        out = _stages_streamed(r, is_read if by_rw and r.rw_names else None)
        return _order(out, by_rw)
    rw = is_read[r.column("rw")] if by_rw and r.rw_names else None
    present = set() if rw is None else {k for k, m in (("R", rw), ("W", ~rw)) if m.any()}

    def values(st: str) -> tuple[np.ndarray, np.ndarray | None]:
        """The stage's values in us (in place where numpy allows: 8 bytes per bio at a time, ~3 at once)."""
        hi_k, lo_k, cond = _STAGE_ENDS[st]
        hi = r.column(hi_k)
        ok = hi != replay.NULL
        lo = r.column(lo_k)
        ok &= lo != replay.NULL
        if cond == "no_i":
            ok &= r.column("i") == replay.NULL
        x = hi[ok]
        del hi
        x -= lo[ok]
        del lo
        x = x.astype(np.float64)
        x /= 1e3
        return x, (rw[ok] if rw is not None else None)

    rows = []
    for st in STAGES:
        x, g = values(st)
        split = []  # (R or W, its sorted values; None: all of the stage's values, whose row is the `all` row)
        if g is not None:
            for name, sel in (("R", g), ("W", ~g)):
                if name in present:
                    split.append((name, None if sel.all() else np.sort(x[sel])))
            del g
        x.sort()
        every = _row(st, Sorted(x, boot=True))
        rows += [{"rw": k} | (every if v is None else _row(st, Sorted(v, boot=True))) for k, v in split]
        rows.append({"rw": "all"} | every)
    return _order(pl.DataFrame(rows), by_rw)


def _order(out: pl.DataFrame, by_rw: bool) -> pl.DataFrame:
    if not by_rw:
        return out.filter(pl.col("rw") == "all").drop("rw")
    order = {"all": 0, "R": 1, "W": 2}
    return out.sort(pl.col("rw").replace_strict(order), maintain_order=True)


def _stages_streamed(r: replay.Replay, is_read: np.ndarray | None) -> pl.DataFrame:
    """The stages of a replay too large to sort, from memory-mapped columns SLICE bios at a time."""
    cols = {k: r.column(k, mmap=True) for k in ("q", "g", "i", "m", "d", "c")}
    rw_col = r.column("rw", mmap=True) if is_read is not None else None
    groups = ("all", "R", "W") if is_read is not None else ("all",)
    hists = {(st, g): LogHistogram() for st in STAGES for g in groups}
    n = cols["q"].shape[0]
    present = {"all"}  # R and W rows where the trace has such bios at all, as the exact path
    for a in range(0, n, SLICE):
        b = min(a + SLICE, n)
        reads = is_read[np.asarray(rw_col[a:b])] if rw_col is not None else None
        if reads is not None:
            present |= {k for k, m in (("R", reads), ("W", ~reads)) if m.any()}
        for st in STAGES:
            hi_k, lo_k, cond = _STAGE_ENDS[st]
            hi, lo = np.asarray(cols[hi_k][a:b]), np.asarray(cols[lo_k][a:b])
            ok = (hi != replay.NULL) & (lo != replay.NULL)
            if cond == "no_i":
                ok &= np.asarray(cols["i"][a:b]) == replay.NULL
            x = hi[ok] - lo[ok]
            hists[(st, "all")].add(x)
            if reads is not None:
                g = reads[ok]
                hists[(st, "R")].add(x[g])
                hists[(st, "W")].add(x[~g])
    how = f"log histogram ({HALF_WIDTH:.1%}), t interval for the mean"
    rows = [{"rw": g} | _row(st, hists[(st, g)], 1e3, how) for st in STAGES for g in groups if g in present]
    return pl.DataFrame(rows)


def _row(st: str, s: Sorted | LogHistogram, scale: float = 1.0, how: str = "exact") -> dict:
    """Summary of one stage in microseconds from its sorted values (in us) or a log histogram (in ns, scale 1e3)."""
    m, lo, hi = (v / scale for v in s.mean_ci(LEVEL))
    row = {
        "stage": st, "n": s.n, "mean_us": m, "mean_lo_us": lo, "mean_hi_us": hi,
        "min_us": s.min / scale if s.n else None, "max_us": s.max / scale if s.n else None,
    }  # fmt: skip
    for q, cis in zip(QUANTILES, s.quantile_cis(QUANTILES, LEVEL), strict=True):
        name = f"p{q * 100:g}".replace(".", "_")
        v, qlo, qhi = (x / scale for x in cis)
        row |= {f"{name}_us": v, f"{name}_lo_us": qlo, f"{name}_hi_us": qhi}
    return row | {"quantiles": how}


def stage_summary(bios: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Per stage (and group): n, mean with 95% CI (bootstrap up to 1e5 values, t above), min, max and
    quantiles p50..p99.99 with distribution-free 95% CIs, all in microseconds. Stages only count bios where
    both ends were seen (as btt)."""
    rows = []
    groups = bios.group_by(list(by), maintain_order=True) if by else [((), bios)]
    for key, g in groups:
        for st in STAGES:
            x = np.sort(g[st].drop_nulls().to_numpy().astype(np.float64)) / 1e3
            rows.append(dict(zip(by, key, strict=True)) | _row(st, Sorted(x, boot=True)))
    return pl.DataFrame(rows)
