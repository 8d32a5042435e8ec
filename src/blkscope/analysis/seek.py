"""Seek distance and sequentiality of the request stream.

For consecutive events of one kind (D: as issued to the device; Q: as the filesystem queued them) on one device,
in time order, the seek distance is start - previous end (sectors; end = sector + nsectors): 0 is a sequential
continuation, negative a jump back. Sequentiality is the share of distance-0 steps (Wilson 95% interval); the
mean absolute distance carries a t interval, the median a distribution-free one. Reads and writes are also
taken separately (op = read / write, each stream on its own), and together (op = all).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.uncertainty import mean_ci, quantile_ci


def distances(events: Sequence[Path] | pl.LazyFrame, action: str = "D") -> pl.DataFrame:
    """Columns op (read/write/all), dev, time_ns, sector, distance (null for a stream's first request)."""
    from blkscope.parts import events_files

    lf = events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events_files(events)])
    rwbs = pl.col("rwbs")
    base = (
        lf.filter((pl.col("action") == action) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null())
        .select(
            dev=pl.col("dev_major").cast(pl.Int64) * (1 << 20) + pl.col("dev_minor").cast(pl.Int64),
            time_ns="time_ns",
            sector="sector",
            nsectors="nsectors",
            op=pl.when(rwbs.str.contains("R"))
            .then(pl.lit("read"))
            .when(rwbs.str.contains("W"))
            .then(pl.lit("write"))
            .otherwise(pl.lit(None, pl.Utf8)),
        )  # fmt: skip
        .with_row_index("order")
    )
    parts = [base.filter(pl.col("op").is_not_null()), base.with_columns(op=pl.lit("all"))]

    def dist(lf: pl.LazyFrame) -> pl.LazyFrame:
        lf = lf.sort("time_ns", "order")
        prev_end = (pl.col("sector") + pl.col("nsectors")).shift(1).over("op", "dev", order_by=["time_ns", "order"])
        return lf.with_columns(distance=pl.col("sector") - prev_end).select(
            "op", "dev", "time_ns", "sector", "distance"
        )

    return pl.concat([dist(p) for p in parts]).collect(engine="streaming")


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return float(c - h), float(c + h)


def summary(dist: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for (op,), g in dist.group_by("op", maintain_order=True):
        rows.append(_row(op, g["distance"].drop_nulls().to_numpy()))
    return pl.DataFrame(rows)


def summarise(events: Sequence[Path], action: str = "D", rows_per_window: int = 500_000):
    """(summary(distances(events)), histogram(distances(events))) without holding the distances table: the
    events are read in time windows (as blkscope.analysis.replay reads them), each stream's last end carried
    from window to window, and only the distances kept (8 bytes per request and stream)."""
    from blkscope.analysis.replay import _chunks

    cols = ["dev_major", "dev_minor", "action", "sector", "nsectors", "rwbs"]
    keep = (pl.col("action") == action) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null()
    _, _, chunks = _chunks(events, cols, rows_per_window, keep)
    select = dict(
        dev=pl.col("dev_major").cast(pl.Int64) * (1 << 20) + pl.col("dev_minor").cast(pl.Int64),
        time_ns="time_ns", sector="sector", end=pl.col("sector") + pl.col("nsectors"),
        op=pl.when(pl.col("rwbs").str.contains("R")).then(pl.lit("read"))
        .when(pl.col("rwbs").str.contains("W")).then(pl.lit("write")).otherwise(pl.lit(None, pl.Utf8)),
    )  # fmt: skip
    last: dict[tuple[str, int], int] = {}  # (op, dev) -> end of the stream's last request so far
    found: dict[str, list[np.ndarray]] = {}  # op -> distances, in the order ops first appear (as summary's)
    for chunk in chunks:  # time-ordered, ties in the files' order
        w = chunk.select(**select)
        for g in (w.filter(pl.col("op").is_not_null()), w.with_columns(op=pl.lit("all"))):
            carried = pl.DataFrame(
                [(o, d, e) for (o, d), e in last.items()], schema={"op": pl.Utf8, "dev": pl.Int64, "carried": pl.Int64},
                orient="row",
            )  # fmt: skip
            g = g.join(carried, on=["op", "dev"], how="left", maintain_order="left")
            prev = pl.col("end").shift(1).over("op", "dev")
            first = pl.int_range(pl.len()).over("op", "dev") == 0
            g = g.with_columns(distance=pl.col("sector") - pl.when(first).then(pl.col("carried")).otherwise(prev))
            for op in g["op"].unique(maintain_order=True).to_list():
                found.setdefault(op, [])
            for (op,), part in g.group_by("op", maintain_order=True):
                found[op].append(part["distance"].drop_nulls().to_numpy())
            for op, dev, end in g.group_by("op", "dev").agg(pl.col("end").last()).iter_rows():
                last[(op, dev)] = end
    ops = [o for o in found if o != "all"] + (["all"] if "all" in found else [])
    rows, hist = [], []
    for op in ops:
        d = np.concatenate(found.pop(op))
        rows.append(_row(op, d))
        nz = d[d != 0]
        b = np.sign(nz) * (np.floor(np.log2(np.abs(nz).astype(np.float64))).astype(np.int64) + 1)
        buckets, counts = np.unique(np.concatenate([b, np.zeros(d.size - nz.size, np.int64)]), return_counts=True)
        hist.append(pl.DataFrame(  # schema given: an op with no distances would make `op` a Null column
            {"op": [op] * buckets.size, "bucket": buckets.astype(np.int64), "count": counts.astype(np.int64)},
            schema={"op": pl.Utf8, "bucket": pl.Int64, "count": pl.Int64},
        ))
    hs = pl.concat(hist).sort("op", "bucket") if hist else pl.DataFrame(
        schema={"op": pl.Utf8, "bucket": pl.Int64, "count": pl.Int64})  # fmt: skip
    return pl.DataFrame(rows), hs


def _row(op: str, d: np.ndarray) -> dict:
    """One op's summary from its distances."""
    a = np.sort(np.abs(d)).astype(np.float64)
    k = int(np.sum(d == 0))
    m, lo, hi = mean_ci(a)
    med, mlo, mhi = quantile_ci(a, 0.5)
    slo, shi = _wilson(k, d.size)
    return {
        "op": op, "n": int(d.size), "sequential_share": k / d.size if d.size else None,
        "sequential_lo": slo, "sequential_hi": shi, "backward_share": float(np.mean(d < 0)) if d.size else None,
        "mean_abs_sectors": m, "mean_abs_lo": lo, "mean_abs_hi": hi,
        "median_abs_sectors": med, "median_abs_lo": mlo, "median_abs_hi": mhi,
    }  # fmt: skip


def histogram(dist: pl.DataFrame) -> pl.DataFrame:
    """Counts per signed log2 bucket of the distance: bucket = sign(d) * (floor(log2 |d|) + 1), 0 for d = 0;
    so +-1 holds |d| = 1, +-2 holds 2..3, +-3 holds 4..7, ..."""
    d = pl.col("distance")
    b = pl.when(d == 0).then(0).otherwise(d.sign() * (d.abs().cast(pl.Float64).log(2).floor().cast(pl.Int64) + 1))
    return (
        dist.filter(d.is_not_null())
        .group_by("op", bucket=b)
        .len(name="count")
        .sort("op", "bucket")
        .with_columns(pl.col("count").cast(pl.Int64))
    )
