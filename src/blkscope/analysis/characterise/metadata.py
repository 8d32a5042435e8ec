"""Metadata against data in the page access frequency: requests the filesystem marks REQ_META (`M` in RWBS)
and the rest, counted as the access frequency counts (blkscope.analysis.popularity.frequency: C events by default, once
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

from blkscope.analysis.popularity.frequency import OPS, by_hotness, page_counts
from blkscope.schemas import METADATA_HOT, METADATA_RANK

TOP_FRACTION = 0.01


def counts(events: Sequence[Path] | pl.LazyFrame, action: str = "C", page_kib: int = 4,
           mode: str = "cover") -> pl.DataFrame:  # fmt: skip
    """op, meta, page, count: a page's metadata and data accesses apart, in no order (hot and rank sort them)."""
    return page_counts(events, page_kib=page_kib, action=action, mode=mode, by_meta=True, sort=False)


def hot(c: pl.DataFrame, action: str = "C") -> pl.DataFrame:
    """One row per op (METADATA_HOT); an op without accesses says why in `note`."""
    return _hot(_by_class(c), action)


def hot_and_rank(c: pl.DataFrame, action: str = "C", presorted: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """hot(c, action) and rank(c), each class ranked once for both; `presorted`: c is sorted by op, meta, count
    descending, page already (as blkscope-native pages writes it)."""
    by_class = _by_class(c, presorted)
    return _hot(by_class, action), _rank(by_class)


def _by_class(c: pl.DataFrame, presorted: bool = False) -> pl.DataFrame:
    """c sorted by op, meta, count descending, page, with rank 1.. within each (op, meta) class (numbered in numpy
    from where the class changes: cheaper than a window expression)."""
    df = c if presorted else by_hotness(c, ["op", "meta"])
    cls = df.select(pl.col("op").rank("dense") * 2 + pl.col("meta")).to_series().to_numpy()
    start = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
    rank = np.arange(1, cls.size + 1) - np.repeat(start, np.diff(np.r_[start, cls.size]))
    return df.with_columns(rank=pl.Series(rank, dtype=pl.Int64))


def _hot(by_class: pl.DataFrame, action: str) -> pl.DataFrame:
    """From the ranked classes, in numpy: a run has thousands of pages but few ops, and a polars query per figure
    cost more than the figures (the shares: the same divisions of the same integer sums as polars')."""
    count, page, rank = (by_class[k].to_numpy() for k in ("count", "page", "rank"))
    starts = np.flatnonzero(rank == 1)  # each (op, meta) class starts at rank 1
    bounds, heads = np.append(starts, rank.size), by_class[starts]
    cls = {(op, meta): (int(s), int(e))
           for op, meta, s, e in zip(heads["op"], heads["meta"], bounds[:-1], bounds[1:], strict=True)}  # fmt: skip
    what = {"all": "requests", "read": "reads", "write": "writes"}
    cols: dict[str, list] = {k: [] for k in METADATA_HOT}
    for op in OPS:
        data, meta = cls.get((op, False), (0, 0)), cls.get((op, True), (0, 0))
        row = _op_figures(count, page, data, meta)
        row.update(op=op, meta_top_share=_top_share(count, *meta), data_top_share=_top_share(count, *data))
        row.update(meta_share=_ratio(row["meta_accesses"], row["accesses"]),
                   hot_share=_ratio(row["hot_accesses"], row["accesses"]),
                   hot_meta_share=_ratio(row.pop("hot_meta"), row["hot_accesses"]))  # fmt: skip
        row["note"] = (f"no {action} {what[op]} with data (sector, nsectors > 0) in the trace" if not row["accesses"]
                       else None if row["meta_accesses"] else UNMARKED)  # fmt: skip
        for k in cols:
            cols[k].append(row[k])
    return pl.DataFrame(cols, schema=METADATA_HOT)


UNMARKED = "no request marked metadata (M in RWBS): the filesystem set no REQ_META here (M is a lower bound)"


def _ratio(a: int, b: int) -> float | None:
    """a / b as polars divides two integer sums (both as floats), None (null, not NaN) where b is 0."""
    return float(a) / float(b) if b > 0 else None


def _top_share(count: np.ndarray, s: int, e: int) -> float | None:
    """The class's first ceil(TOP_FRACTION * rows) rows' share of its accesses (rows sorted by count descending)."""
    if e == s:
        return None
    k = max(1, math.ceil((e - s) * TOP_FRACTION))
    with np.errstate(divide="ignore", invalid="ignore"):  # all-zero counts: NaN, as polars
        return float(np.float64(count[s : s + k].sum()) / np.float64(count[s:e].sum()))


def _op_figures(count: np.ndarray, page: np.ndarray, data: tuple[int, int], meta: tuple[int, int]) -> dict:
    """pages, accesses, meta_accesses, meta_pages and the hot pages' hot_pages, hot_accesses, hot_meta of one op
    from its data and metadata rows (row ranges, each sorted by count descending, then page)."""
    (ds, de), (ms, me) = data, meta
    n = np.concatenate([count[ds:de], count[ms:me]])
    if n.size == 0:
        return dict.fromkeys(("pages", "accesses", "meta_accesses", "meta_pages", "hot_pages", "hot_accesses",
                              "hot_meta"), 0)  # fmt: skip
    m = np.concatenate([np.zeros(de - ds, count.dtype), count[ms:me]])
    p = np.concatenate([page[ds:de], page[ms:me]])
    order = np.argsort(p, kind="stable")
    sorted_p = p[order]
    first = np.flatnonzero(np.r_[True, sorted_p[1:] != sorted_p[:-1]])
    k = max(1, math.ceil(first.size * TOP_FRACTION))
    if first.size < p.size:  # a page with both metadata and data accesses (rare): one row per page, all candidates
        p, n, m = sorted_p[first], np.add.reduceat(n[order], first), np.add.reduceat(m[order], first)
        cand = np.arange(n.size)
    else:  # a page of the op's first k is among the first k of its class: at most 2k candidates
        cand = np.r_[0 : min(k, de - ds), de - ds : de - ds + min(k, me - ms)]
    hot = cand[np.lexsort((p[cand], -n[cand]))[:k]]  # count descending, ties by page
    return {"pages": n.size, "accesses": int(n.sum()), "meta_accesses": int(m.sum()),
            "meta_pages": int((m > 0).sum()), "hot_pages": k, "hot_accesses": int(n[hot].sum()),
            "hot_meta": int(m[hot].sum())}  # fmt: skip


def rank(c: pl.DataFrame) -> pl.DataFrame:
    """Rank-frequency of metadata and data apart: op, class (meta / data), rank, count."""
    return _rank(_by_class(c))


def _rank(by_class: pl.DataFrame) -> pl.DataFrame:
    cls = pl.when(pl.col("meta")).then(pl.lit("meta")).otherwise(pl.lit("data"))
    return by_class.select("op", cls.alias("class"), "rank", "count").cast(METADATA_RANK)


def across_runs(files: Sequence[Path], runs: pl.DataFrame) -> pl.DataFrame:
    """The per-run tables (run id: the directory two levels up) with the run metadata the figures group by
    (blkscope.runs.META: filesystem, fs, workload, job, setup, testbed, ...), by filesystem then
    run, ops in the order read, write, all."""
    from blkscope.runs import META, run_id_of, run_meta

    parts = [pl.read_parquet(f).with_columns(run_id=pl.lit(run_id_of(f))) for f in files]
    df = run_meta(runs).join(pl.concat(parts), on="run_id", how="inner")
    order = pl.col("op").replace_strict(list(OPS), list(range(len(OPS))))
    return df.select(*META, *METADATA_HOT).sort("filesystem", "run_id", order)
