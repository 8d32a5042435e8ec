"""Where and how fast the trace does I/O: the I/O map (block address against time, as iowatcher and seekwatcher
draw it) as a 2-D histogram, and requests and bytes per second over time, from the trace itself.

The requests are the events of one action (D: issued to the device, by default) with data, reads and writes by
RWBS (as blkscope.analysis.frequency tells them), and class meta (`M` in RWBS, REQ_META) or data. Polars
streaming group-bys over every events file (a split trace's parts alike): memory holds the bins, not the trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from blkscope.analysis.frequency import class_expr, op_expr
from blkscope.schemas import IO_MAP, THROUGHPUT


def requests(events: Sequence[Path] | pl.LazyFrame, action: str = "D") -> pl.LazyFrame:
    """op, class, time_ns, sector, nsectors of the `action` requests with data (reads and writes)."""
    from blkscope.parts import events_files

    lf = events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events_files(events)])
    return (
        lf.filter((pl.col("action") == action) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null())
        .select(op=op_expr(), **{"class": class_expr()}, time_ns="time_ns", sector="sector", nsectors="nsectors")
        .filter(pl.col("op").is_not_null())
    )


def _span(lf: pl.LazyFrame) -> tuple[int, int]:
    """(last time_ns + 1, last sector end) of the requests, (1, 1) when there are none."""
    b = lf.select(t=pl.col("time_ns").max(), s=(pl.col("sector") + pl.col("nsectors")).max()).collect()
    return int(b["t"][0] or 0) + 1, max(int(b["s"][0] or 0), 1)


def io_map(events: Sequence[Path] | pl.LazyFrame, action: str = "D", time_bins: int = 200,
           sector_bins: int = 128) -> pl.DataFrame:  # fmt: skip
    """Requests and bytes per (op, class, time bin, sector bin): time_bins x sector_bins equal bins from 0 to the
    last request (a request counts in the bin of its start); only non-empty bins are listed."""
    lf = requests(events, action)
    t_end, s_end = _span(lf)
    dt, ds = -(-t_end // time_bins), -(-s_end // sector_bins)
    tb, sb = pl.col("time_ns") // dt, pl.col("sector") // ds
    out = (
        lf.group_by("op", "class", tb.alias("time_bin"), sb.alias("sector_bin"))
        .agg(requests=pl.len(), bytes=pl.col("nsectors").sum() * 512)
        .collect(engine="streaming")
        .with_columns(
            t_lo_s=pl.col("time_bin") * dt / 1e9, t_hi_s=(pl.col("time_bin") + 1) * dt / 1e9,
            sector_lo=pl.col("sector_bin") * ds, sector_hi=(pl.col("sector_bin") + 1) * ds,
        )  # fmt: skip
    )
    return out.select([pl.col(k).cast(t) for k, t in IO_MAP.items()]).sort("op", "class", "time_bin", "sector_bin")


def throughput(events: Sequence[Path] | pl.LazyFrame, action: str = "D", bin_s: float = 1.0) -> pl.DataFrame:
    """IOPS and bytes/s per (op, class) in bins of bin_s from time 0, every bin to the last request's (zeros
    included), with the mean request size of the bin."""
    lf = requests(events, action)
    t_end, _ = _span(lf)
    dt = max(int(round(bin_s * 1e9)), 1)
    got = lf.group_by("op", "class", (pl.col("time_ns") // dt).alias("bin")).agg(
        requests=pl.len(), bytes=pl.col("nsectors").sum() * 512
    ).collect(engine="streaming")  # fmt: skip
    if got.is_empty():
        return pl.DataFrame(schema=THROUGHPUT)
    keys = got.select("op", "class").unique()
    grid = keys.join(pl.DataFrame({"bin": pl.int_range(0, -(-t_end // dt), eager=True)}), how="cross")
    out = grid.join(got, on=["op", "class", "bin"], how="left").with_columns(
        pl.col("requests", "bytes").fill_null(0)
    ).with_columns(
        start_s=pl.col("bin") * dt / 1e9, iops=pl.col("requests") / (dt / 1e9),
        mib_s=pl.col("bytes") / (dt / 1e9) / 2**20,
        mean_kib=pl.when(pl.col("requests") > 0).then(pl.col("bytes") / pl.col("requests") / 1024),
    )  # fmt: skip
    return out.select([pl.col(k).cast(t) for k, t in THROUGHPUT.items()]).sort("op", "class", "bin")
