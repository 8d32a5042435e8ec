"""Where and how fast the trace does I/O: the I/O map (block address against time, as iowatcher and seekwatcher
draw it) as a 2-D histogram, and requests, bytes per second and request sizes over time, from the trace itself.

The requests are the events of one action (D: issued to the device, by default; the throughput table holds Q,
as the filesystem queued them, and D side by side) with data, reads and writes by RWBS (as
blkscope.analysis.popularity.frequency tells them), and class meta (`M` in RWBS, REQ_META) or data. Polars streaming
group-bys over every events file (a split trace's parts alike): memory holds the bins (the throughput table:
each bin's request sizes, at most bins x distinct sizes), not the trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from blkscope.analysis.popularity.frequency import class_expr, op_expr
from blkscope.schemas import IO_MAP, THROUGHPUT


def requests(events: Sequence[Path] | pl.LazyFrame, action: str | Sequence[str] = "D") -> pl.LazyFrame:
    """action, op, class, time_ns, sector, nsectors of the requests with data (reads and writes) of the action
    (or of each action of a sequence)."""
    from blkscope.parts import events_files

    lf = events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events_files(events)])
    which = pl.col("action") == action if isinstance(action, str) else pl.col("action").is_in(list(action))
    return (
        lf.filter(which & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null())
        .select(pl.col("action").cast(pl.Utf8), op=op_expr(), **{"class": class_expr()}, time_ns="time_ns",
                sector="sector", nsectors="nsectors")  # fmt: skip
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


def throughput(events: Sequence[Path] | pl.LazyFrame, actions: str | Sequence[str] = ("Q", "D"),
               bin_s: float = 1.0) -> pl.DataFrame:  # fmt: skip
    """Per action (Q: as queued; D: as issued; or any other given), op and class, in bins of bin_s from time 0,
    every bin to the last request's (of any of the actions; zeros included): requests, bytes, IOPS, MiB/s, and
    the mean and median request size of the bin. The median is exact: read from the bin's histogram of request
    sizes (requests per nsectors, one streaming group-by), the mean of the two middle requests when their
    number is even."""
    actions = [actions] if isinstance(actions, str) else list(dict.fromkeys(actions))
    lf = requests(events, actions)
    t_end, _ = _span(lf)
    dt = max(int(round(bin_s * 1e9)), 1)
    keys = ["action", "op", "class", "bin"]
    hist = lf.group_by(*keys[:3], (pl.col("time_ns") // dt).alias("bin"), "nsectors").agg(
        n=pl.len().cast(pl.Int64)
    ).collect(engine="streaming")  # fmt: skip
    if hist.is_empty():
        return pl.DataFrame(schema=THROUGHPUT)
    n, cum, size = pl.col("n"), pl.col("n").cum_sum(), pl.col("nsectors")
    got = hist.sort(*keys, "nsectors").group_by(keys, maintain_order=True).agg(
        requests=n.sum(), bytes=(size * n).sum() * 512,
        # the sizes of the requests of rank ceil(N/2) and floor(N/2) + 1 (1-based) in ascending size
        lo=size.filter(cum >= (n.sum() + 1) // 2).first(), hi=size.filter(cum >= n.sum() // 2 + 1).first(),
    )  # fmt: skip
    grid = got.select(keys[:3]).unique().join(
        pl.DataFrame({"bin": pl.int_range(0, -(-t_end // dt), eager=True)}), how="cross"
    )  # fmt: skip
    out = grid.join(got, on=keys, how="left").with_columns(
        pl.col("requests", "bytes").fill_null(0)
    ).with_columns(
        start_s=pl.col("bin") * dt / 1e9, iops=pl.col("requests") / (dt / 1e9),
        mib_s=pl.col("bytes") / (dt / 1e9) / 2**20,
        mean_kib=pl.when(pl.col("requests") > 0).then(pl.col("bytes") / pl.col("requests") / 1024),
        median_kib=(pl.col("lo") + pl.col("hi")) / 4,  # sectors: (lo + hi) / 2 / 2
    )  # fmt: skip
    return out.select([pl.col(k).cast(t) for k, t in THROUGHPUT.items()]).sort("action", "op", "class", "bin")
