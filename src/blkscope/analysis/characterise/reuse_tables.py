"""The tables of a reuse profile (blkscope.analysis.characterise.reuse), one set of rows per stream (op, class): summary
with each sampled curve's error against the exact one and the profile of record, the miss-ratio curve on a grid of cache
sizes, the reuse-distance histogram, the working set.

Error of a sampled MRC: the mean and the largest absolute difference from the exact MRC over every cache size
1..D pages (D = the exact profile's distinct pages; above 10 M sizes, 10 M evenly spaced ones), the MAE of
SHARDS (FAST'15) over the whole curve. Beyond D every curve is flat at its cold-miss ratio.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from blkscope.analysis.characterise.reuse import MIB_PAGES, Profile, Result
from blkscope.schemas import MRC, REUSE_DISTANCE, REUSE_SUMMARY, WORKING_SET

ERROR_SIZES_MAX = 10_000_000
GRID_LOG, GRID_LIN = 96, 64  # MRC points: log-spaced (small caches) and evenly spaced (the linear plot)

def error_sizes(d: int) -> np.ndarray:
    """The cache sizes the error is taken over: 1..d, or ERROR_SIZES_MAX of them evenly spaced."""
    if d <= ERROR_SIZES_MAX:
        return np.arange(1, d + 1, dtype=np.float64)
    return np.unique(np.round(np.linspace(1, d, ERROR_SIZES_MAX)))


def error(sampled: Profile, exact: Profile) -> tuple[float, float]:
    """(mean, max) absolute difference of the two MRCs over error_sizes(exact distinct pages)."""
    c = error_sizes(int(exact.distinct_pages))
    if c.size == 0:
        return float("nan"), float("nan")
    diff = np.abs(sampled.miss_ratio(c) - exact.miss_ratio(c))
    return float(diff.mean()), float(diff.max())


def _note(p: Profile, action: str) -> str | None:
    if p.accesses:
        return None
    what = {"read": "reads", "write": "writes"}.get(p.op, "requests")
    what += {"meta": " marked metadata (M in RWBS)", "data": " without the metadata mark"}.get(p.cls, "")
    return f"no {action} {what} with data (sector, nsectors > 0) in the trace"


def of_record(profiles: list[Profile]) -> Profile | None:
    """The profile a stream's numbers and figures take: the exact one where it ran, else the fixed-size SHARDS
    one of the most sampled pages, else the fixed-rate one of the highest rate."""
    rank = {"exact": 0, "shards-size": 1}
    return min(profiles, key=lambda p: (rank.get(p.method, 2), -p.size_limit, -p.rate), default=None)


def summary(r: Result) -> pl.DataFrame:
    """One row per stream (op, class) and profile; of_record marks the profile that stands for its stream, and
    exact_max_accesses holds the limit of `auto` (null without it: the exact profile ran where it was asked)."""
    rows = []
    for p in r.profiles:
        same = [q for q in r.profiles if (q.op, q.cls) == (p.op, p.cls)]
        exact = next((q for q in same if q.method == "exact"), None)
        mae, mx = error(p, exact) if exact is not None and p is not exact and exact.accesses else (None, None)
        rows.append({
            "op": p.op, "class": p.cls, "method": p.method, "rate": p.rate, "size_limit": p.size_limit,
            "requests": p.requests, "accesses": p.accesses, "sampled_accesses": p.sampled_accesses,
            "sampled_pages": p.sampled_pages, "distinct_pages": p.distinct_pages, "mae": mae, "max_abs_error": mx,
            "note": _note(p, r.action), "of_record": p is of_record(same),
            "exact_max_accesses": r.exact_max_accesses,
        })  # fmt: skip
    return pl.DataFrame(rows, schema=REUSE_SUMMARY)


def grid(d: float) -> np.ndarray:
    """Cache sizes (pages) 1..d+1: log-spaced and evenly spaced points, integers, ascending."""
    top = max(int(np.ceil(d)) + 1, 2)
    g = np.concatenate([np.logspace(0, np.log10(top), GRID_LOG), np.linspace(1, top, GRID_LIN)])
    return np.unique(np.round(g)).astype(np.int64)


def mrc(r: Result) -> pl.DataFrame:
    """Every profile's miss ratio on one grid per stream (up to the largest distinct-page estimate)."""
    parts = []
    for key in dict.fromkeys((p.op, p.cls) for p in r.profiles):
        ps = [p for p in r.profiles if (p.op, p.cls) == key and p.accesses]
        if not ps:
            continue
        c = grid(max(p.distinct_pages for p in ps))
        for p in ps:
            parts.append(pl.DataFrame({
                "op": p.op, "class": p.cls, "method": p.method, "rate": p.rate, "size_limit": p.size_limit,
                "cache_pages": c, "cache_mib": c / MIB_PAGES, "miss_ratio": p.miss_ratio(c),
            }, schema=MRC))  # fmt: skip
    return pl.concat(parts) if parts else pl.DataFrame(schema=MRC)


def distance_histogram(r: Result) -> pl.DataFrame:
    """Reuse distances in power-of-two buckets [lo, hi): [0, 1), [1, 2), [2, 4), ... (a page's first access has
    none: distinct_pages in the summary)."""
    parts = []
    for p in r.profiles:
        if not p.mass.size:
            continue
        k = np.where(p.distance < 1, 0, np.floor(np.log2(np.maximum(p.distance, 1))).astype(np.int64) + 1)
        ks = np.unique(k)  # summed in one order (a polars group_by's threads changed the last digit run to run)
        df = pl.DataFrame({"k": ks, "mass": np.bincount(k, weights=p.mass)[ks]})
        lo = pl.when(pl.col("k") == 0).then(0).otherwise(pl.lit(2, pl.Int64).pow(pl.col("k") - 1))
        parts.append(df.select(op=pl.lit(p.op), **{"class": pl.lit(p.cls)}, method=pl.lit(p.method),
                               lo=lo.cast(pl.Int64), hi=pl.lit(2, pl.Int64).pow(pl.col("k")).cast(pl.Int64),
                               mass="mass"))  # fmt: skip
    return pl.concat(parts).cast(REUSE_DISTANCE) if parts else pl.DataFrame(schema=REUSE_DISTANCE)


def wss(r: Result) -> pl.DataFrame:
    return r.wss.cast(WORKING_SET).select(list(WORKING_SET))
