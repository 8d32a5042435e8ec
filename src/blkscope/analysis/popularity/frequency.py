"""How often each page of the device is accessed.

Two counting rules (mode):
- "cover" (default): a request of `nsectors` 512-byte sectors starting at `sector` touches every page from
  floor(sector*512/P) to floor(((sector+nsectors)*512-1)/P); each touched page counts one access.
- "ssd-study": as the SSD workload study counted (C events only): a request counts ceil(nsectors/S) hits,
  S = P/512 sectors per page, at pages floor((sector + i*S)/S) = floor(sector/S) + i for i = 0..ceil(nsectors/S)-1,
  i.e. one hit per S-sector step from the request's first sector. For page-aligned requests both rules agree;
  an unaligned request that crosses a page boundary it does not fill (e.g. sector 7, 2 sectors) touches pages 0
  and 1 under "cover" but counts only page 0 under "ssd-study"; one of 9 sectors at sector 0 counts pages 0, 1 in
  both; one of 9 sectors at sector 4 touches pages 0 and 1 under both, and one of 16 at sector 4 touches 0, 1, 2
  under "cover" but 0, 1 under "ssd-study".
Reads and writes are told apart by the R/W letter of RWBS; requests with no data (flushes, zero-length
completions) touch nothing. `action` picks the events that count (C completions by default, or D issues).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.stats import packed_sort

OPS = ("read", "write", "all")
CLASSES = ("data", "meta", "all")  # class_expr's classes and their sum


def op_expr() -> pl.Expr:
    rwbs = pl.col("rwbs")
    return (
        pl.when(rwbs.str.contains("R"))
        .then(pl.lit("read"))
        .when(rwbs.str.contains("W"))
        .then(pl.lit("write"))
        .otherwise(pl.lit(None, dtype=pl.Utf8))
    )


def class_expr() -> pl.Expr:
    """meta where the request carries REQ_META (`M` in RWBS), data otherwise (no RWBS: data): the class every
    characterisation view splits by."""
    return pl.when(pl.col("rwbs").str.contains("M")).then(pl.lit("meta")).otherwise(pl.lit("data"))


MODES = ("cover", "ssd-study")


def page_counts(
    events: Sequence[Path] | pl.LazyFrame, page_kib: int = 4, action: str = "C", mode: str = "cover",
    by_meta: bool = False, sort: bool = True,
) -> pl.DataFrame:
    """Per-page access counts with columns op (read/write/all), page, count (rules: module docstring); with
    `by_meta` also meta (the request's RWBS has M, REQ_META): a page's metadata and data accesses apart. Sorted by
    op (meta), count descending, page; `sort=False`: in no order (for a caller that sorts them its own way)."""
    _check_mode(mode, action)
    if not isinstance(events, pl.LazyFrame):
        from blkscope.parts import events_files

        events = events_files(events)
        native = native_page_counts(events, page_kib, action, [(mode, by_meta)])
        if native is not None:
            return native[0]  # sorted as by_hotness sorts
    keys = ["op", "meta"] if by_meta else ["op"]
    page_sectors = page_kib * 1024 // 512
    first = pl.col("sector") // page_sectors
    if mode == "cover":
        last = (pl.col("sector") + pl.col("nsectors") - 1) // page_sectors
    else:  # ceil(nsectors / S) hits from the first page
        last = first + (pl.col("nsectors") + page_sectors - 1) // page_sectors - 1

    def partial(lf: pl.LazyFrame) -> pl.LazyFrame:
        """Map: the accesses per (op, page) of one part of the trace."""
        touched = (
            lf.filter((pl.col("action") == action) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null())
            .with_columns(op=op_expr(), meta=pl.col("rwbs").str.contains("M"))
            .filter(pl.col("op").is_not_null())
            .select(*keys, first=first, last=last)
            .select(*keys, page=pl.int_ranges("first", pl.col("last") + 1))
            .explode("page")
        )
        return touched.group_by(*keys, "page").agg(count=pl.len().cast(pl.Int64))

    # a trace split into parts (blkscope.parts) is counted part by part and the partial counts summed
    lfs = [events] if isinstance(events, pl.LazyFrame) else [pl.scan_parquet(str(p)) for p in events]
    by_op = pl.concat([partial(lf) for lf in lfs]).group_by(*keys, "page").agg(pl.col("count").sum())
    both = by_op.group_by(*keys[1:], "page").agg(pl.col("count").sum()).with_columns(op=pl.lit("all"))
    out = pl.concat([by_op, both.select(*keys, "page", "count")]).collect(engine="streaming")
    out = out.with_columns(pl.col("count").cast(pl.Int64))
    return by_hotness(out, keys) if sort else out


NATIVE_REFUSED = 3  # blkscope-native pages: a file or request it does not count as polars does (native/src/pages.rs)


def native_page_counts(files: Sequence[Path], page_kib: int, action: str,
                       counts: Sequence[tuple[str, bool]]) -> list[pl.DataFrame] | None:  # fmt: skip
    """page_counts(files, page_kib, action, mode, by_meta) for each (mode, by_meta) of `counts`, from one read of
    the files by `blkscope-native pages`, sorted as by_hotness sorts them; None when it does not take a file
    (not its own Parquet) or a request (then page_counts counts in polars). Its explode and group-by of every
    page access cost most of the access-frequency job (bench/RESULTS.md, 2026-11-29 (4))."""
    import subprocess
    import tempfile

    from blkscope import native

    for mode, _ in counts:
        _check_mode(mode, action)
    if not files:
        return None
    with tempfile.NamedTemporaryFile(prefix="blkscope-pages-") as out:
        cmd = [str(native.program()), "pages", "--out", out.name, "--page-sectors", str(page_kib * 1024 // 512),
               "--action", action, *(a for m, c in counts for a in ("--count", f"{m}:class" if c else m)),
               *(a for f in files for a in ("--events", str(f)))]  # fmt: skip
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if proc.returncode == NATIVE_REFUSED:
            return None
        if proc.returncode != 0:
            raise RuntimeError(f"blkscope-native pages failed (exit {proc.returncode}): {proc.stderr.decode().strip()}")
        buf = Path(out.name).read_bytes()
    tables, at = [], 0
    for _, by_meta in counts:
        n = int(np.frombuffer(buf, "<u8", 1, at)[0])
        op, meta = (np.frombuffer(buf, np.uint8, n, at + 8 + k * n) for k in range(2))
        page, count = (np.frombuffer(buf, "<i8", n, at + 8 + 2 * n + k * 8 * n) for k in range(2))
        at += 8 + 18 * n
        cols = {"op": pl.Series("op", sorted(OPS)).gather(op), "meta": pl.Series(meta.astype(bool))}
        cols.update(page=pl.Series(page), count=pl.Series(count))
        tables.append(pl.DataFrame(cols).select("op", "meta", "page", "count") if by_meta else
                      pl.DataFrame(cols).select("op", "page", "count"))  # fmt: skip
    return tables


def _check_mode(mode: str, action: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "ssd-study" and action != "C":
        raise ValueError("the ssd-study mode counts completions only (action C)")


def summed_over_class(by_meta: pl.DataFrame, sort: bool = True) -> pl.DataFrame:
    """page_counts(..., by_meta=False) from page_counts(..., by_meta=True) of the same events: a page's metadata and
    data accesses summed (one count of the trace gives both tables; the same integers as counting again)."""
    out = by_meta.select("op", "page", "count")
    # a page counted in both classes (rare) is the only one to sum: found by one integer key, (op, page), as a
    # group-by of every row by (op, page) cost as much as counting the events again (bench/RESULTS.md, 2026-11-29)
    page = out["page"]
    if out.height and page.min() >= 0 and page.max() < 1 << 60:
        code = pl.col("op").replace_strict(OPS, list(range(len(OPS))), return_dtype=pl.Int64)
        both = out.select((pl.col("page") * 4 + code).is_duplicated()).to_series()
    else:
        both = out.select(pl.struct("op", "page").is_duplicated()).to_series()
    if both.any():
        summed = out.filter(both).group_by("op", "page").agg(pl.col("count").sum().cast(pl.Int64))
        out = pl.concat([out.filter(~both), summed])
    return by_hotness(out) if sort else out


def by_hotness(df: pl.DataFrame, groups: Sequence[str] = ("op",)) -> pl.DataFrame:
    """df sorted by `groups` ascending, then count descending, then page (one packed key: packed_sort)."""
    cols = [*groups, "count", "page"]
    return packed_sort.sort(df, cols, [c == "count" for c in cols])


def noted_page_counts(events: Sequence[Path], **how) -> tuple[pl.DataFrame, str | None]:
    """page_counts of events.parquet files or a parts.json, and why there are none (None when there are)."""
    from blkscope.parts import events_files

    files = events_files(events)
    counts = page_counts(files, **how)
    return counts, None if counts.height else why_no_pages(files, how.get("action", "C"))


def why_no_pages(events: Sequence[Path], action: str = "C") -> str:
    """Why page_counts found no page: what the trace holds instead, and what to do about it."""
    acts = (pl.concat([pl.scan_parquet(str(p)).select("action") for p in events]).group_by("action").len()
            .sort("action").collect())  # fmt: skip
    held = ", ".join(f"{a} {n}" for a, n in acts.iter_rows())
    if acts.is_empty():
        return "the trace holds no events"
    if action not in acts["action"]:
        hint = " A trace without completions: count issues instead with --action D." if "D" in acts["action"] else ""
        return f"no {action} events among the trace's {acts['len'].sum()} events ({held}).{hint}"
    return f"the trace's {action} events carry no read or write data (flushes or zero-length; events: {held})"


def rank_frequency(counts: pl.DataFrame, presorted: bool = False) -> pl.DataFrame:
    """Counts sorted in decreasing order per op, with rank 1..n (ties broken by page: which page of a tie takes
    which rank does not show in the table, so the sort leaves the page out); `presorted`: counts are sorted by op
    and count descending already (by_hotness, blkscope-native pages)."""
    c = counts.select("op", "count")
    return (
        (c if presorted else c.sort("op", "count", descending=[False, True]))  # polars' own sort beat a packed key
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over("op").cast(pl.Int64))
        .select("op", "rank", "count")
    )


def thin_ranks(rank: pl.DataFrame, points: int = 200) -> pl.DataFrame:
    """Keep log-spaced ranks (and the last) per op: enough to draw a log-log curve."""
    parts = []
    for _, g in rank.group_by("op", maintain_order=True):
        n = g.height
        keep = np.unique(np.round(np.logspace(0, np.log10(max(n, 1)), points)).astype(np.int64))
        keep = np.union1d(keep, [n])
        parts.append(g.filter(pl.col("rank").is_in(keep.tolist())))
    return pl.concat(parts) if parts else rank.clear()


def hot_share(counts: pl.DataFrame, top_fraction: float = 0.01) -> pl.DataFrame:
    """Share of all accesses that go to the hottest `top_fraction` of touched pages, per op."""
    rows = []
    for (op,), g in counts.group_by("op", maintain_order=True):
        c = np.sort(g["count"].to_numpy())[::-1]
        k = max(1, int(np.ceil(top_fraction * c.size)))
        rows.append({"op": op, "pages": c.size, "accesses": int(c.sum()), "top_share": float(c[:k].sum() / c.sum())})
    return pl.DataFrame(rows, schema={"op": pl.Utf8, "pages": pl.Int64, "accesses": pl.Int64, "top_share": pl.Float64})


def frequency_of_frequency(counts: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Per op: how many pages were accessed exactly `count` times (columns op, count, pages), ascending count.

    This is the sufficient statistic of a power-law fit of the counts (blkscope.analysis.popularity.zipf)."""
    lf = counts.lazy() if isinstance(counts, pl.DataFrame) else counts
    out = lf.group_by("op", "count").agg(pages=pl.len().cast(pl.Int64)).sort("op", "count")
    return out.collect(engine="streaming")
