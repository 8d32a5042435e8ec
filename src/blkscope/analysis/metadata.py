"""Metadata against data in the page access frequency: requests the filesystem marks REQ_META (`M` in RWBS)
and the rest, counted as the access frequency counts (blkscope.analysis.frequency: C events by default, once
per 4 KiB page a request covers; reads and writes by RWBS).

Hot pages are the hottest 1 % of a stream's touched pages by accesses (ceil(1 % of pages), at least one; ties
broken by page number), as frequency.hot_share takes them. Per op (read, write, all):
- hot_share: the hot pages' share of all accesses (= frequency.hot_share's top_share);
- hot_meta_share: the share of the hot pages' accesses that are metadata accesses;
- meta_share: metadata accesses / all accesses; meta_top_share, data_top_share: the top-1 % share within the
  metadata accesses alone and within the data accesses alone (each class ranked on its own).
`M` is a lower bound on metadata: ext4 marks inode-table and bitmap reads, btrfs its metadata, f2fs node and
meta pages; jbd2's journal and xfs do not mark everything (DESIGN.md, Round 3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.frequency import OPS, by_hotness, page_counts
from blkscope.schemas import METADATA_HOT, METADATA_RANK

TOP_FRACTION = 0.01


def counts(events: Sequence[Path] | pl.LazyFrame, action: str = "C", page_kib: int = 4,
           mode: str = "cover") -> pl.DataFrame:  # fmt: skip
    """op, meta, page, count: a page's metadata and data accesses apart, in no order (hot and rank sort them)."""
    return page_counts(events, page_kib=page_kib, action=action, mode=mode, by_meta=True, sort=False)


def _top(k_of: pl.Expr, over: list[str]) -> pl.Expr:
    """Rows (sorted by count, descending) within the first ceil(TOP_FRACTION * rows), at least one, per `over`."""
    n = pl.len().over(over)
    k = pl.max_horizontal(pl.lit(1), (n * TOP_FRACTION).ceil().cast(pl.Int64))
    return k_of <= k


def _ranked(df: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return by_hotness(df, by).with_columns(
        rank=pl.int_range(1, pl.len() + 1).over(by).cast(pl.Int64)
    )


def _ratio(a: str, b: str) -> pl.Expr:
    """a / b, null (not NaN) where b is 0: no accesses, nothing to share."""
    return pl.when(pl.col(b) > 0).then(pl.col(a) / pl.col(b))


def hot(c: pl.DataFrame, action: str = "C") -> pl.DataFrame:
    """One row per op (METADATA_HOT); an op without accesses says why in `note`."""
    return _hot(c, _by_class(c), action)


def hot_and_rank(c: pl.DataFrame, action: str = "C") -> tuple[pl.DataFrame, pl.DataFrame]:
    """hot(c, action) and rank(c), each class ranked once for both."""
    by_class = _by_class(c)
    return _hot(c, by_class, action), _rank(by_class)


def _by_class(c: pl.DataFrame) -> pl.DataFrame:
    return _ranked(c, ["op", "meta"])


def _hot(c: pl.DataFrame, by_class: pl.DataFrame, action: str) -> pl.DataFrame:
    meta = pl.col("count").filter(pl.col("meta")).sum()
    per_page = c.group_by("op", "page").agg(pl.col("count").sum(), meta=meta)
    rows = per_page.group_by("op").agg(
        pages=pl.len(), accesses=pl.col("count").sum(), meta_accesses=pl.col("meta").sum(),
        meta_pages=(pl.col("meta") > 0).sum(),
    ).join(_hot_pages(per_page), on="op")  # fmt: skip
    by_class = by_class.with_columns(top=_top(pl.col("rank"), ["op", "meta"]))
    cls = by_class.group_by("op", "meta").agg(share=pl.col("count").filter("top").sum() / pl.col("count").sum())
    out = (
        pl.DataFrame({"op": list(OPS)})
        .join(rows, on="op", how="left")
        .join(cls.filter("meta").select("op", meta_top_share="share"), on="op", how="left")
        .join(cls.filter(~pl.col("meta")).select("op", data_top_share="share"), on="op", how="left")
    )
    what = pl.col("op").replace({"all": "requests", "read": "reads", "write": "writes"})
    none = pl.format("no {} {} with data (sector, nsectors > 0) in the trace", pl.lit(action), what)
    unmarked = "no request marked metadata (M in RWBS): the filesystem set no REQ_META here (M is a lower bound)"
    out = out.with_columns(pl.col("pages", "accesses", "meta_accesses", "meta_pages", "hot_pages", "hot_accesses",
                                  "hot_meta").fill_null(0)).with_columns(  # fmt: skip
        meta_share=_ratio("meta_accesses", "accesses"),
        hot_share=_ratio("hot_accesses", "accesses"),
        hot_meta_share=_ratio("hot_meta", "hot_accesses"),
        note=pl.when(pl.col("accesses") == 0).then(none).when(pl.col("meta_accesses") == 0).then(pl.lit(unmarked)),
    )
    return out.select([pl.col(k).cast(t) for k, t in METADATA_HOT.items()])


def _hot_pages(per_page: pl.DataFrame) -> pl.DataFrame:
    """Per op: hot_pages, hot_accesses, hot_meta of the op's hot pages (by count descending, ties by page, the first
    max(1, ceil(TOP_FRACTION * pages))): pages above the k-th count, then the lowest pages at it (no sort)."""
    rows = []
    for (op,), g in per_page.group_by("op"):
        n, page, meta = (g[k].to_numpy() for k in ("count", "page", "meta"))
        k = max(1, math.ceil(n.size * TOP_FRACTION))
        at = np.partition(n, n.size - k)[n.size - k]  # the k-th largest count
        above, tie = n > at, n == at
        need = k - int(above.sum())  # >= 1: pages at that count, the lowest first
        hot = above | (tie & (page <= np.partition(page[tie], need - 1)[need - 1]))
        rows.append({"op": op, "hot_pages": k, "hot_accesses": int(n[hot].sum()), "hot_meta": int(meta[hot].sum())})
    return pl.DataFrame(rows, schema={"op": pl.Utf8, "hot_pages": pl.Int64, "hot_accesses": pl.Int64,
                                      "hot_meta": pl.Int64})  # fmt: skip


def rank(c: pl.DataFrame) -> pl.DataFrame:
    """Rank-frequency of metadata and data apart: op, class (meta / data), rank, count."""
    return _rank(_by_class(c))


def _rank(by_class: pl.DataFrame) -> pl.DataFrame:
    cls = pl.when(pl.col("meta")).then(pl.lit("meta")).otherwise(pl.lit("data"))
    return by_class.select("op", cls.alias("class"), "rank", "count").cast(METADATA_RANK)


def across_runs(files: Sequence[Path], runs: pl.DataFrame) -> pl.DataFrame:
    """The per-run tables (run id: the directory two levels up) with the run metadata the figures group by
    (blkscope.analysis.figure_data.META: filesystem, fs, workload, job, setup, testbed, ...), by filesystem then
    run, ops in the order read, write, all."""
    from blkscope.analysis.figure_data import META, run_meta
    from blkscope.runs import run_id_of

    parts = [pl.read_parquet(f).with_columns(run_id=pl.lit(run_id_of(f))) for f in files]
    df = run_meta(runs).join(pl.concat(parts), on="run_id", how="inner")
    order = pl.col("op").replace_strict(list(OPS), list(range(len(OPS))))
    return df.select(*META, *METADATA_HOT).sort("filesystem", "run_id", order)
