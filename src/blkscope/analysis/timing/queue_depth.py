"""Requests in flight at the device, from D/C pairs, with iostat's aqu-sz and Little's law beside it.

A request is in flight from its D (issue) to the first later C of the same (device, sector, nsectors); a D
without a C is in flight until the end of the trace; a C without a D (issued before tracing began) is ignored.
The depth is a step function of time; its time-weighted mean over the trace is the device's mean queue depth.
Uncertainty: the trace is cut into bins of `bin_s` seconds and the bin means are treated as batch means
(a width-weighted t interval over them; n = number of bins; bursts make neighbouring bins correlated, which
this ignores). Little's law: mean depth = completions per second x mean D2C
holds exactly for pairs inside the window, so it is a consistency check of the pairing, not a second estimate.
iostat's aqu-sz (from /proc/diskstats time_in_queue) counts a request from its start in the block layer,
roughly from G/I rather than D, so it may exceed the D-to-C depth by the share of time requests wait above the
driver.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.stats.uncertainty import mean_ci, t_quantile


def dc_pairs(events: Sequence[Path] | pl.LazyFrame) -> tuple[pl.DataFrame, int, int]:
    """(pairs with dev, d_ns, c_ns, rw; trace start; trace end) -- c_ns null for a D still in flight at the end."""
    lf = events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events])
    dev = pl.col("dev_major").cast(pl.Int64) * (1 << 20) + pl.col("dev_minor").cast(pl.Int64)
    span = lf.select(t0=pl.col("time_ns").min(), t1=pl.col("time_ns").max()).collect().row(0)
    io = lf.filter(pl.col("action").is_in(["D", "C"]) & (pl.col("nsectors") > 0)).select(
        dev=dev, t=pl.col("time_ns"), a=pl.col("action"), s=pl.col("sector"), n=pl.col("nsectors"), rw=pl.col("rwbs")
    )
    d = io.filter(pl.col("a") == "D").sort("t")
    c = io.filter(pl.col("a") == "C").select("dev", "s", "n", c_ns=pl.col("t")).sort("c_ns")
    # both sides are sorted by time above; polars cannot verify that within `by` groups
    pairs = d.join_asof(
        c, left_on="t", right_on="c_ns", by=["dev", "s", "n"], strategy="forward", check_sortedness=False
    )
    out = pairs.select("dev", "rw", d_ns="t", c_ns="c_ns").collect(engine="streaming")
    return out, int(span[0] or 0), int(span[1] or 0)


def depth_steps(pairs: pl.DataFrame, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
    """Change points (ns) and the depth that holds from each one to the next (all devices together)."""
    start = pairs["d_ns"].to_numpy()
    end = pairs["c_ns"].fill_null(t1).to_numpy()
    t = np.concatenate([start, end, [t0, t1]])
    step = np.concatenate([np.ones(start.size), -np.ones(end.size), [0, 0]])
    order = np.argsort(t, kind="stable")
    t, step = t[order], step[order]
    depth = np.cumsum(step)
    return t, depth


def _area(t: np.ndarray, depth: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Integral of the depth step function from t[0] to each point of `at` (request-ns), vectorised."""
    cum = np.concatenate([[0.0], np.cumsum(np.diff(t) * depth[:-1])])
    k = np.clip(np.searchsorted(t, at, side="right") - 1, 0, t.size - 1)
    return cum[k] + depth[k] * (at - t[k])


def _time_weighted(t, depth, lo, hi) -> float:
    """Mean of the step function over [lo, hi)."""
    if hi <= lo:
        return float("nan")
    a = _area(t, depth, np.array([lo, hi], np.float64))
    return float((a[1] - a[0]) / (hi - lo))


def series(pairs: pl.DataFrame, t0: int, t1: int, bin_s: float = 1.0) -> pl.DataFrame:
    """Time-weighted mean depth per bin: bin (0, 1, ...), start_s, width_s (the last bin may be partial), mean_depth."""
    t, depth = depth_steps(pairs, t0, t1)
    w = int(bin_s * 1e9)
    lo = np.arange(t0, t1, w) if t1 > t0 else np.array([t0])
    hi = np.minimum(lo + w, t1)
    a_lo, a_hi = _area(t, depth, lo.astype(np.float64)), _area(t, depth, hi.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = (a_hi - a_lo) / (hi - lo)
    return pl.DataFrame(
        {"bin": np.arange(lo.size), "start_s": (lo - t0) / 1e9, "width_s": (hi - lo) / 1e9, "mean_depth": vals}
    )


def batch_ci(ser: pl.DataFrame, level: float = 0.95) -> tuple[float, float, float]:
    """Width-weighted mean of the bin means (= the time-weighted mean over the trace) and its t interval,
    treating bins as independent batches (batch means); n = number of bins."""
    x, wt = ser["mean_depth"].to_numpy(), ser["width_s"].to_numpy()
    ok = np.isfinite(x) & (wt > 0)
    x, wt = x[ok], wt[ok]
    if x.size < 2:
        return (float(x[0]) if x.size else float("nan")), float("nan"), float("nan")
    m = float(np.sum(wt * x) / wt.sum())
    se = float(np.sqrt(np.sum(wt**2 * (x - m) ** 2) / wt.sum() ** 2 * x.size / (x.size - 1)))
    h = float(t_quantile(0.5 + level / 2, x.size - 1)) * se
    return m, m - h, m + h


def distribution(pairs: pl.DataFrame, t0: int, t1: int) -> pl.DataFrame:
    """Share of the trace's time spent at each depth."""
    t, depth = depth_steps(pairs, t0, t1)
    dur = np.diff(t)
    df = pl.DataFrame({"depth": depth[:-1].astype(np.int64), "ns": dur})
    out = df.group_by("depth").agg(pl.col("ns").sum()).sort("depth")
    return out.with_columns(time_share=pl.col("ns") / max(t1 - t0, 1))


def summary(pairs: pl.DataFrame, t0: int, t1: int, iostat: pl.DataFrame | None = None, bin_s: float = 1.0) -> dict:
    """One row: time-weighted mean depth (batch-means CI), max, Little's-law check, iostat aqu-sz."""
    t, depth = depth_steps(pairs, t0, t1)
    done = pairs.filter(pl.col("c_ns").is_not_null())
    dur_s = (t1 - t0) / 1e9
    ser = series(pairs, t0, t1, bin_s)
    _, lo, hi = batch_ci(ser)
    d2c_s = (done["c_ns"] - done["d_ns"]).mean() / 1e9 if done.height else float("nan")
    row = {
        "requests": pairs.height, "completed": done.height, "duration_s": dur_s,
        "mean_depth": _time_weighted(t, depth, t0, t1), "mean_depth_lo": lo, "mean_depth_hi": hi, "bins": ser.height,
        "max_depth": int(depth.max()) if depth.size else 0,
        "iops": done.height / dur_s if dur_s else float("nan"), "mean_d2c_ms": d2c_s * 1e3,
    }  # fmt: skip
    row["little_depth"] = row["iops"] * d2c_s  # throughput x mean latency
    row |= _iostat(iostat)
    return row


def _iostat(iostat: pl.DataFrame | None) -> dict:
    if iostat is None or iostat.is_empty():
        return {"iostat_aqu_sz": None, "iostat_aqu_sz_lo": None, "iostat_aqu_sz_hi": None, "iostat_samples": 0}
    if "since_boot" in iostat.columns:
        iostat = iostat.filter(~pl.col("since_boot").fill_null(False))
    x = iostat["aqu_sz"].drop_nulls().to_numpy()
    m, lo, hi = (float(v) for v in mean_ci(x))
    return {"iostat_aqu_sz": m, "iostat_aqu_sz_lo": lo, "iostat_aqu_sz_hi": hi, "iostat_samples": int(x.size)}


def from_events(events: Sequence[Path] | pl.LazyFrame, iostat: pl.DataFrame | None = None, bin_s: float = 1.0):
    """(summary row, distribution, series) as summary/distribution/series give them from dc_pairs, computed in
    one bounded-memory pass by blkscope-native replay (blkscope.analysis.timing.replay): the depth is integrated per
    bin and per depth as the events go by, so neither the pairs nor the step function are held. Parts of a
    trace (or a parts.json), in order, give the same answer as the whole."""
    from blkscope.analysis.timing import replay

    r = replay.run(events, bin_s=bin_s, actions=("D", "C"))
    try:
        q = r.depth
    finally:
        r.close()
    t0, t1, w = q["t0"], q["t1"], q["bin_ns"]
    lo = np.arange(t0, t1, w) if t1 > t0 else np.array([t0])
    hi = np.minimum(lo + w, t1)
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.asarray(q["bin_area"], np.float64) / (hi - lo)
    ser = pl.DataFrame({"bin": np.arange(lo.size), "start_s": (lo - t0) / 1e9, "width_s": (hi - lo) / 1e9,
                        "mean_depth": vals})  # fmt: skip
    ns = np.asarray(q["depth_ns"], np.float64).astype(np.int64)
    dist = pl.DataFrame({"depth": np.asarray(q["depths"], np.int64), "ns": ns}).with_columns(
        time_share=pl.col("ns") / max(t1 - t0, 1)
    )
    dur_s = (t1 - t0) / 1e9
    _, m_lo, m_hi = batch_ci(ser)
    d2c_s = q["d2c_ns_sum"] / q["completed"] / 1e9 if q["completed"] else float("nan")
    row = {
        "requests": q["requests"], "completed": q["completed"], "duration_s": dur_s,
        "mean_depth": float(sum(q["bin_area"]) / (t1 - t0)) if t1 > t0 else float("nan"),
        "mean_depth_lo": m_lo, "mean_depth_hi": m_hi, "bins": ser.height, "max_depth": int(q["max_depth"]),
        "iops": q["completed"] / dur_s if dur_s else float("nan"), "mean_d2c_ms": d2c_s * 1e3,
    }  # fmt: skip
    row["little_depth"] = row["iops"] * d2c_s
    row |= _iostat(iostat)
    return row, dist, ser
