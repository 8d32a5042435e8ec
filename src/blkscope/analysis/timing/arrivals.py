"""When requests arrive and when the device rests: Q2Q inter-arrival times (btt's Q2Q), idle periods and
burstiness, per op (read / write by RWBS, and all).

- Q2Q: the time between consecutive Q events with data of the op, in time order (ties in the files' order); per
  class too: metadata (`M` in RWBS) Qs among themselves, data Qs among themselves, and all.
- Idle periods: the device has nothing in flight from a C that leaves no request issued and not completed until
  the next D. In flight = D events minus C events so far (data or not; a C never takes it below zero: requests
  issued before the trace began), over all ops; an idle period is only counted once it has ended (by a D).
- Burstiness: the coefficient of variation (std / mean) of the Q2Q times (1 for a Poisson arrival process,
  above 1 bursty), and the index of dispersion of counts IDC(w) = variance / mean of the number of Q events in
  windows of w (1 for Poisson; growing with w for long-range bursts), at w = 1 ms, 10 ms, 100 ms and 1 s over
  the windows from time 0 to the last Q, per op and class (meta, data, all) as the Q2Q times: a class's windows
  run to its own last Q.
The events are read window by window in time order (blkscope.analysis.timing.windows), the last Q time and the
in-flight count carried across windows (and across a split trace's parts); durations go to mergeable log
histograms (blkscope.analysis.stats.log_histogram): memory holds one window, not the trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.popularity.frequency import CLASSES, OPS, class_expr, op_expr
from blkscope.analysis.stats.log_histogram import LogHistogram
from blkscope.analysis.timing.windows import ROWS_PER_WINDOW, time_ordered
from blkscope.schemas import ARRIVALS, DISPERSION

IDC_WINDOWS_S = (0.001, 0.01, 0.1, 1.0)
QUANTILES = (0.5, 0.9, 0.99)


class _Idle:
    """In-flight count (D - C, floored at zero) carried across chunks; idle periods as they end."""

    def __init__(self) -> None:
        self.depth = 0
        self.since: int | None = None  # start of the open idle period (a C that left nothing in flight)
        self.hist = LogHistogram()

    def add(self, t: np.ndarray, is_d: np.ndarray) -> None:
        if t.size == 0:
            return
        step = np.where(is_d, 1, -1)
        s = self.depth + np.cumsum(step)
        # floor at zero as the walk goes (Skorokhod reflection): subtract the running minimum below zero
        depth = s - np.minimum(np.minimum.accumulate(s), 0)
        prev = np.concatenate([[self.depth], depth[:-1]])
        starts = np.flatnonzero(~is_d & (depth == 0) & (prev > 0))  # a C empties the device
        ends = np.flatnonzero(is_d & (prev == 0))  # a D on an empty device
        out = []
        if self.since is not None and ends.size:  # the first D ends the period open since an earlier chunk
            out.append(t[ends[0]] - self.since)
            self.since = None
        # pair each start with the first end after it
        if starts.size:
            j = np.searchsorted(ends, starts, side="right")
            ok = j < ends.size
            out.extend((t[ends[j[ok]]] - t[starts[ok]]).tolist())
            if not ok[-1]:
                self.since = int(t[starts[-1]])
        self.hist.add(np.asarray(out, dtype=np.int64))
        self.depth = int(depth[-1])


def _row(op: str, cls: str, what: str, h: LogHistogram) -> dict:
    mean = h.sum / h.n if h.n else None
    var = max(h.sumsq / h.n - mean * mean, 0.0) if h.n else None
    qs = h.at_ranks([int(np.floor(q * (h.n - 1))) for q in QUANTILES]) if h.n else [None] * len(QUANTILES)
    return {"op": op, "class": cls, "what": what, "n": h.n, "mean_us": mean / 1e3 if h.n else None,
            "cv": (var**0.5 / mean) if h.n and mean else None, "p50_us": qs[0] and qs[0] / 1e3,
            "p90_us": qs[1] and qs[1] / 1e3, "p99_us": qs[2] and qs[2] / 1e3,
            "max_us": h.max / 1e3 if h.n else None, "total_s": h.sum / 1e9}  # fmt: skip


class _Counts:
    """Q counts per window of one width, from Q times in time order: their sum, sum of squares and last
    window; the open window's count carried across chunks."""

    def __init__(self, dt: int) -> None:
        self.dt, self.s, self.ss = dt, 0, 0
        self.last: int | None = None  # the open window and its count so far
        self.open = 0

    def add(self, t: np.ndarray) -> None:
        if t.size == 0:
            return
        w = t // self.dt
        first = np.flatnonzero(np.concatenate([[True], w[1:] != w[:-1]]))
        n = np.diff(np.concatenate([first, [w.size]]))
        if self.last is not None and w[0] == self.last:
            n[0] += self.open
        else:
            self.ss += self.open * self.open
        self.ss += int((n[:-1] * n[:-1]).sum())
        self.s += int(t.size)
        self.last, self.open = int(w[-1]), int(n[-1])

    def row(self, op: str, cls: str, window_s: float) -> dict:
        k = self.last + 1  # windows 0..last, the empty ones count as zeros
        ss = self.ss + self.open * self.open
        mean = self.s / k
        var = (ss - k * mean * mean) / (k - 1) if k > 1 else None
        idc = var / mean if var is not None and mean else None
        return {"op": op, "class": cls, "window_s": window_s, "windows": k, "mean": mean, "idc": idc}


def arrivals_dispersion(events: Sequence[Path] | pl.LazyFrame, windows_s: Sequence[float] = IDC_WINDOWS_S,
                        rows_per_window: int = ROWS_PER_WINDOW) -> tuple[pl.DataFrame, pl.DataFrame]:  # fmt: skip
    """Both tables from one time-ordered pass: arrivals and dispersion (windows_s)."""
    keep = pl.col("action").is_in(["Q", "D", "C"])
    _, _, chunks = time_ordered(events, ["action", "rwbs", "nsectors"], rows_per_window, keep)
    keys = [(op, c) for op in OPS for c in CLASSES]
    q2q = {k: LogHistogram() for k in keys}
    last: dict[tuple[str, str], int | None] = dict.fromkeys(keys)
    counts = {k: [_Counts(max(int(round(w * 1e9)), 1)) for w in windows_s] for k in keys}
    idle = _Idle()
    is_q = (pl.col("action") == "Q") & (pl.col("nsectors") > 0) & op_expr().is_not_null()
    # one query per chunk: the masks of every (op, class) as numpy arrays (a polars filter each costs ~1 ms)
    masks = {"q": is_q, "d": pl.col("action") == "D", "dc": pl.col("action") != "Q",
             **{v: e == v for e, vs in ((op_expr(), OPS[:-1]), (class_expr(), CLASSES[:-1])) for v in vs}}  # fmt: skip
    masks = {k: e.fill_null(False) for k, e in masks.items()}  # as a filter drops nulls
    for w in chunks:
        m = w.select("time_ns", **masks)
        t_all = m["time_ns"].to_numpy()
        b = {k: m[k].to_numpy() for k in masks}
        for op, c in keys:
            sel = b["q"] if op == "all" else b["q"] & b[op]
            t = t_all[sel if c == "all" else sel & b[c]]
            if t.size:
                prev = last[op, c]
                q2q[op, c].add(np.diff(t if prev is None else np.concatenate([[prev], t])).astype(np.int64))
                last[op, c] = int(t[-1])
                for n in counts[op, c]:
                    n.add(t)
        idle.add(t_all[b["dc"]], b["d"][b["dc"]])
    rows = [_row(op, c, "q2q", q2q[op, c]) for op, c in keys] + [_row("all", "all", "idle", idle.hist)]
    # an (op, class) without Qs has no dispersion rows
    disp = [n.row(op, c, ws) for op, c in keys for n, ws in zip(counts[op, c], windows_s, strict=True) if n.s]
    out = pl.DataFrame(disp, schema=DISPERSION)
    order = [pl.col(c).replace_strict(list(v), list(range(len(v)))) for c, v in (("op", OPS), ("class", CLASSES))]
    return pl.DataFrame(rows, schema=ARRIVALS), out.sort(*order, "window_s")


def arrivals(events: Sequence[Path] | pl.LazyFrame, rows_per_window: int = ROWS_PER_WINDOW) -> pl.DataFrame:
    """One row per (op, class, what): what = q2q or idle (idle: op and class all only); n, mean, cv, quantiles
    (within 0.5 %)."""
    return arrivals_dispersion(events, (), rows_per_window)[0]


def dispersion(events: Sequence[Path] | pl.LazyFrame, windows_s: Sequence[float] = IDC_WINDOWS_S,
               rows_per_window: int = ROWS_PER_WINDOW) -> pl.DataFrame:  # fmt: skip
    """IDC(w) per op and class: variance / mean of Q counts per window of w, windows from 0 to the last Q of the
    (op, class) (empty ones in); an (op, class) without Qs has no rows."""
    return arrivals_dispersion(events, windows_s, rows_per_window)[1]
