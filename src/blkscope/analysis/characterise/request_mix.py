"""Request sizes, merges and who queues the I/O (blkiomon's size histograms, btt's #Q/#D and per-process view).

- Sizes: requests per size (KiB) of the Q (as the filesystem queued them) and D (as issued) events with data,
  per op (read/write by RWBS) and class (meta: `M` in RWBS; data).
- Merge ratio: queued (Q) / issued (D) requests per op, as btt's #Q/#D; back (M) and front (F) merges counted.
- Per process: Q events by pid, with the process name; a pid without a name in its own rows (a split trace's
  part misses the notify records of other parts) takes the name its other rows carry (the most frequent one).
  merge_ratio = Q / (Q - M - F) of that pid (its queued requests over those not merged into another), which is
  btt's #Q/#D when every request not merged is issued once.
Merges and the per-process view are split by op (read, write, all) and class (meta, data, all) as the sizes are:
each event by its own RWBS, so a Q, M or F counts in the class of its bio and a D in that of its request (where
the block layer merges a metadata bio into a data request, it is queued as meta and issued as data, and a class's
#Q/#D holds that too); the `all` rows are btt's.
Polars streaming group-bys over every events file: memory holds the groups, not the trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from blkscope.analysis.popularity.frequency import CLASSES, OPS, class_expr, op_expr
from blkscope.schemas import MERGES, PROCESSES, REQUEST_SIZES


def _scan(events: Sequence[Path] | pl.LazyFrame) -> pl.LazyFrame:
    from blkscope.parts import events_files

    return events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events_files(events)])


def sizes(events: Sequence[Path] | pl.LazyFrame) -> pl.DataFrame:
    out = (
        _scan(events)
        .filter(pl.col("action").is_in(["Q", "D"]) & (pl.col("nsectors") > 0))
        .select("action", op=op_expr(), **{"class": class_expr()}, size_kib=pl.col("nsectors") / 2)
        .filter(pl.col("op").is_not_null())
        .group_by("action", "op", "class", "size_kib")
        .agg(requests=pl.len())
        .collect(engine="streaming")
    )
    return out.select([pl.col(k).cast(t) for k, t in REQUEST_SIZES.items()]).sort("action", "op", "class", "size_kib")


def event_counts(events: Sequence[Path] | pl.LazyFrame) -> pl.DataFrame:
    """Events and sectors per (pid, process, action, op, class) of the Q, D, M, F events (op null kept:
    flushes). An event with no sectors (a preflush, RWBS "FWS") is a flush, op null, whatever its RWBS's W: the
    merge ratio then counts the requests the sizes count (sizes: nsectors > 0), one selection for both (issue Q
    review: btrfs's data writes gave #Q/#D 0.71 from its 54 empty flushes beside 53 queued writes, where their mean
    sizes queued and issued gave 0.31)."""
    op = pl.when(pl.col("nsectors").fill_null(0) > 0).then(op_expr())
    return (
        _scan(events)
        .filter(pl.col("action").is_in(["Q", "D", "M", "F"]))
        .group_by("pid", "process", "action", op.alias("op"), class_expr().alias("class"))
        .agg(n=pl.len(), sectors=pl.col("nsectors").fill_null(0).sum())
        .collect(engine="streaming")
    )


def _with_all(c: pl.DataFrame) -> pl.DataFrame:
    """The counts of reads and writes, each row also under op all, class all and both (flushes, op null, out)."""
    c = c.filter(pl.col("op").is_not_null())
    c = pl.concat([c, c.with_columns(op=pl.lit("all"))])
    return pl.concat([c, c.with_columns(**{"class": pl.lit("all")})])


def merges(events: Sequence[Path] | pl.LazyFrame, counts: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per op (read, write, all) and class (data, meta, all), every pair listed: queued, issued, back and front
    merges, merge_ratio = queued / issued."""
    c = _with_all(event_counts(events) if counts is None else counts)
    n = {a: pl.col("n").filter(pl.col("action") == a).sum() for a in "QDMF"}
    out = c.group_by("op", "class").agg(queued=n["Q"], issued=n["D"], back_merges=n["M"], front_merges=n["F"])
    grid = pl.DataFrame({"op": [o for o in OPS for _ in CLASSES], "class": [k for _ in OPS for k in CLASSES]})
    out = grid.join(out, on=["op", "class"], how="left", maintain_order="left").fill_null(0)
    out = out.with_columns(merge_ratio=pl.when(pl.col("issued") > 0).then(pl.col("queued") / pl.col("issued")))
    return out.select([pl.col(k).cast(t) for k, t in MERGES.items()])


def processes(events: Sequence[Path] | pl.LazyFrame, counts: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per (pid, op, class) with queued requests: the process name (resolved across the trace), queued requests
    and KiB, merges."""
    c = event_counts(events) if counts is None else counts
    names = (
        c.filter(pl.col("process").is_not_null())
        .group_by("pid", "process").agg(pl.col("n").sum())
        .sort("pid", "n", "process", descending=[False, True, False])
        .group_by("pid", maintain_order=True).first()
        .select("pid", name="process")
    )  # fmt: skip
    c = _with_all(c).join(names, on="pid", how="left")
    n = {a: pl.col("n").filter(pl.col("action") == a).sum() for a in "QMF"}
    out = c.group_by("pid", "op", "class").agg(
        process=pl.col("name").first(), queued=n["Q"],
        queued_kib=pl.col("sectors").filter(pl.col("action") == "Q").sum() / 2, back_merges=n["M"],
        front_merges=n["F"],
    ).filter(pl.col("queued") > 0)  # fmt: skip
    kept = pl.col("queued") - pl.col("back_merges") - pl.col("front_merges")
    out = out.with_columns(merge_ratio=pl.when(kept > 0).then(pl.col("queued") / kept))
    out = out.select([pl.col(k).cast(t) for k, t in PROCESSES.items()])
    return out.sort(["op", "class", "queued", "pid"], descending=[False, False, True, False])
