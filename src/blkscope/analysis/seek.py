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
        d = g["distance"].drop_nulls().to_numpy()
        a = np.sort(np.abs(d)).astype(np.float64)
        k = int(np.sum(d == 0))
        m, lo, hi = mean_ci(a)
        med, mlo, mhi = quantile_ci(a, 0.5)
        slo, shi = _wilson(k, d.size)
        rows.append({
            "op": op, "n": int(d.size), "sequential_share": k / d.size if d.size else None,
            "sequential_lo": slo, "sequential_hi": shi, "backward_share": float(np.mean(d < 0)) if d.size else None,
            "mean_abs_sectors": m, "mean_abs_lo": lo, "mean_abs_hi": hi,
            "median_abs_sectors": med, "median_abs_lo": mlo, "median_abs_hi": mhi,
        })  # fmt: skip
    return pl.DataFrame(rows)


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
