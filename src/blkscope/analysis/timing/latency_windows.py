"""Latency percentiles over time windows (issue N), merged from per-window histograms, never averaged.

A percentile of a window is not the mean of its sub-windows' percentiles (one slow second among nine fast ones
moves the p99 of the ten seconds, not a tenth of it). So each base window keeps a histogram of its latencies and
a coarser window, a class or op group, or the whole run, is the sum of their histograms, whose percentiles are
read then. The histogram is log_histogram's (buckets [g^k, g^(k+1)), g = 1.01; values <= 0 ns in bucket -1),
stored sparse, one row per non-empty (stage, op, class, window, bucket) with the bucket's count, sum, min and
max: merging is a group-by with sum/min/max, and a bucket's value is its geometric midpoint clipped to the min
and max of the values in it (within HALF_WIDTH = 0.5 % of the exact order statistic; the smallest and the
largest order statistic of a group are its exact min and max).

Stages, as blkscope.analysis.timing.latency matches them (blkscope-native replay, btt's rules): d2c (the device) and q2c
(the whole stack), each bio counted in the window of its completion (C), as iostat's await is. op: read / write
by the Q's RWBS (neither: only in all), class: meta (`M` in RWBS, REQ_META) or data; and all of each.
Memory: the replay's per-bio columns are read memory-mapped SLICE bios at a time; the tables hold the
non-empty buckets.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.stats import packed_sort
from blkscope.analysis.stats.log_histogram import GAMMA, bucket_of
from blkscope.analysis.timing import replay
from blkscope.schemas import LATENCY_HIST, LATENCY_WINDOWS

STAGES = {"d2c": ("c", "d"), "q2c": ("c", "q")}  # stage -> (later end, earlier end)
QUANTILES = (0.5, 0.9, 0.99, 0.999)
SLICE = 5_000_000
# at most this many windows: the sparse table holds ~100 buckets per window and group, so a long trace at a fixed
# width would grow with its duration (8,572 1-s windows of the 105 M-event bench set: 13 M rows, 5.8 GB peak)
MAX_WINDOWS = 1000
KEYS = ["stage", "op", "class", "window"]
OPS, CLASSES = ("read", "write", None), ("data", "meta")


def _codes(rw_names: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
    """Per RWBS code: index of its op in OPS (read, write, neither) and of its class in CLASSES (data, meta), as
    op_expr and the other views tell them."""
    op = [2 if v is None else 0 if "R" in v else 1 if "W" in v else 2 for v in rw_names]
    cls = [1 if v is not None and "M" in v else 0 for v in rw_names]
    return np.array(op, dtype=np.int8), np.array(cls, dtype=np.int8)


def _bucket(x: np.ndarray) -> np.ndarray:
    """log_histogram's bucket of each value (-1 for values <= 0)."""
    out = np.full(x.shape, -1, dtype=np.int64)
    pos = x > 0
    out[pos] = bucket_of(x[pos])
    return out


def _agg(df: pl.LazyFrame | pl.DataFrame, keys: list[str]) -> pl.LazyFrame:
    return df.lazy().group_by(keys).agg(pl.col("count").sum(), pl.col("sum_ns").sum(), pl.col("min_ns").min(),
                                        pl.col("max_ns").max())  # fmt: skip


def _slices(r: replay.Replay, dt: int) -> list[pl.DataFrame]:
    """Per slice of bios and stage, the non-empty (op, class, window, bucket) cells with count, sum, min, max."""
    op_of, cls_of = _codes(r.rw_names)
    cols = {k: r.column(k, mmap=True) for k in ("q", "d", "c", "rw")}
    n, out = cols["q"].shape[0], []
    for a in range(0, n, SLICE):
        b = min(a + SLICE, n)
        rw = np.asarray(cols["rw"][a:b])
        for st, (hi_k, lo_k) in STAGES.items():
            hi, lo = np.asarray(cols[hi_k][a:b]), np.asarray(cols[lo_k][a:b])
            ok = (hi != replay.NULL) & (lo != replay.NULL)
            x = hi[ok] - lo[ok]
            df = pl.DataFrame({"op": op_of[rw[ok]], "class": cls_of[rw[ok]], "window": hi[ok] // dt,
                               "bucket": _bucket(x), "x": x})  # fmt: skip
            out.append(
                df.group_by("op", "class", "window", "bucket")
                .agg(count=pl.len(), sum_ns=pl.col("x").cast(pl.Float64).sum(), min_ns=pl.col("x").min(),
                     max_ns=pl.col("x").max())
                .with_columns(stage=pl.lit(list(STAGES).index(st), dtype=pl.Int8))
            )  # fmt: skip
    return out


def _width(r: replay.Replay, dt: int, max_windows: int) -> int:
    """dt, or the smallest multiple of it that covers the completions' span in max_windows windows."""
    c = r.column("c", mmap=True)
    lo, hi = None, None
    for a in range(0, c.shape[0], SLICE):
        x = np.asarray(c[a : a + SLICE])
        x = x[x != replay.NULL]
        if x.size:
            lo = int(x.min()) if lo is None else min(lo, int(x.min()))
            hi = int(x.max()) if hi is None else max(hi, int(x.max()))
    if lo is None:
        return dt
    return dt * max(1, -(-(hi - lo + 1) // (dt * max_windows)))


def _check(window_s: float, max_windows: int) -> None:
    if window_s <= 0 or max_windows < 1:
        raise ValueError("the latency window must be positive, and at least one window allowed")


def histograms(events: Sequence[Path] | pl.LazyFrame, window_s: float = 1.0,
               max_windows: int = MAX_WINDOWS) -> pl.DataFrame:  # fmt: skip
    """Sparse per-window histograms: stage, op, class, window (completion time // width), start_s, window_s (the
    width: window_s, or a multiple of it when the trace would need more than max_windows), bucket, count, sum_ns,
    min_ns, max_ns; op and class include `all` (the sum of the others' histograms)."""
    _check(window_s, max_windows)
    r = replay.run(events)
    try:
        return histograms_of(r, window_s, max_windows)
    finally:
        r.close()


def histograms_of(r: replay.Replay, window_s: float = 1.0, max_windows: int = MAX_WINDOWS) -> pl.DataFrame:
    """histograms() of a replay (one replay also gives latency.stages_of: `blkscope latency` reads a trace once
    for both)."""
    _check(window_s, max_windows)
    dt = _width(r, max(int(round(window_s * 1e9)), 1), max_windows)
    parts = _slices(r, dt)
    if not parts:
        return pl.DataFrame(schema=LATENCY_HIST)
    # op, class and stage stay codes (their order in _order) until the rows are sorted: sorting on the names'
    # ranks cost more than the aggregation
    keys, all_op, all_cls = [*KEYS, "bucket"], len(OPS) - 1, len(CLASSES)
    base = _agg(pl.concat(parts), keys)
    ops = pl.concat([base.filter(pl.col("op") != all_op), _agg(base.with_columns(op=pl.lit(all_op, pl.Int8)), keys)])
    out = pl.concat([ops, _agg(ops.with_columns(**{"class": pl.lit(all_cls, pl.Int8)}), keys)])
    out = packed_sort.sort(out.with_columns(window_s=pl.lit(dt / 1e9)).collect(), keys)
    names = {"stage": list(STAGES), "op": ["read", "write", "all"], "class": [*CLASSES, "all"]}
    out = out.with_columns(
        **{k: pl.col(k).replace_strict(list(range(len(v))), v, return_dtype=pl.Utf8) for k, v in names.items()},
    )  # fmt: skip
    # start_s divided by numpy, exactly: polars divides by a scalar as a product with its reciprocal, except in a
    # piece of the frame with one row, so the last bit of a window's start changed with the plan's pieces
    out = out.with_columns(start_s=pl.Series(out["window"].to_numpy().astype(np.int64) * dt / 1e9))
    return out.select([pl.col(k).cast(t) for k, t in LATENCY_HIST.items()])


def write(hist: pl.DataFrame, hist_out: Path | None, windows_out: Path | None) -> None:
    """A run's histograms and their percentiles, each written where asked (None: not asked); `characterise` and
    `latency` write them alike."""
    from blkscope.io import write_table

    write_table(hist, hist_out)
    if windows_out:
        write_table(percentiles(hist), windows_out)


def _order(df: pl.DataFrame) -> pl.DataFrame:
    rank = {"stage": list(STAGES), "op": ["read", "write", "all"], "class": ["data", "meta", "all"]}
    return df.sort([pl.col(k).replace_strict(v, list(range(len(v)))) for k, v in rank.items()]
                   + [pl.col(c) for c in ("window", "bucket") if c in df.columns])  # fmt: skip


def merge(hist: pl.DataFrame, windows: int) -> pl.DataFrame:
    """The histograms of `windows` consecutive base windows summed into one; windows = 0: the whole run as one
    window (from the first base window with a completion to the last)."""
    if windows < 0:
        raise ValueError("windows must be >= 0")
    if hist.is_empty():
        return hist
    base = float(hist["window_s"][0])
    lo, hi = int(hist["window"].min()), int(hist["window"].max())
    w = pl.col("window") // windows if windows else pl.lit(0, dtype=pl.Int64)
    out = _agg(hist.with_columns(window=w), [*KEYS, "bucket"]).with_columns(
        start_s=pl.col("window") * windows * base if windows else pl.lit(lo * base),
        window_s=pl.lit(base * windows if windows else (hi - lo + 1) * base),
    ).collect()  # fmt: skip
    return _order(out.select([pl.col(k).cast(t) for k, t in LATENCY_HIST.items()]))


def percentiles(hist: pl.DataFrame, quantiles: Sequence[float] = QUANTILES) -> pl.DataFrame:
    """Per (stage, op, class, window): n, mean, the quantiles (the ceil(q n)-th smallest, as latency.stages) and
    max, in microseconds, read from the window's histogram."""
    # in output order, each window's buckets together and ascending: a quantile's bucket is found by a binary
    # search of the running count (one pass for every window, not a join per quantile)
    g = _order(hist)
    mid = (GAMMA ** (pl.col("bucket").cast(pl.Float64) + 0.5)).clip(pl.col("min_ns"), pl.col("max_ns"))
    value = g.select(pl.when(pl.col("bucket") < 0).then(pl.col("max_ns").cast(pl.Float64)).otherwise(mid))
    value = value.to_series().to_numpy()
    tot = g.group_by(KEYS, maintain_order=True).agg(
        pl.col("start_s", "window_s").first(), n=pl.col("count").sum(), sum_ns=pl.col("sum_ns").sum(),
        min_ns=pl.col("min_ns").min(), max_ns=pl.col("max_ns").max(),
    )  # fmt: skip
    cum = np.cumsum(g["count"].to_numpy())
    n, lo, hi = (tot[c].to_numpy() for c in ("n", "min_ns", "max_ns"))
    before = np.cumsum(n) - n  # the running count where each window starts
    cols = {}
    for q in quantiles:
        rank = np.maximum(np.ceil(n * q).astype(np.int64), 1) - 1  # 0-based
        at = np.searchsorted(cum, before + rank, side="right")  # the first bucket whose running count passes it
        v = np.where(rank == 0, lo, np.where(rank == n - 1, hi, value[at]))
        cols[f"p{q * 100:g}_us".replace(".", "_")] = v / 1e3
    # every quotient by numpy, exactly, as start_s in histograms(): polars' division by a scalar changes its last
    # bit with the frame's pieces
    sum_ns = tot["sum_ns"].to_numpy()
    out = tot.with_columns(**{c: pl.Series(v) for c, v in cols.items()}, mean_us=pl.Series(sum_ns / n / 1e3),
                           max_us=pl.Series(hi / 1e3))  # fmt: skip
    order = [*KEYS, "start_s", "window_s", "n", "mean_us", *cols, "max_us"]
    return out.select([pl.col(c).cast(LATENCY_WINDOWS.get(c, pl.Float64)) for c in order])
