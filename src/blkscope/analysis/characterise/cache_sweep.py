"""Block skew against the cache-to-data ratio and the key count (issue P item 3): per traced YCSB run, what its
block accesses look like and how much cache stood in front of how much data.

Per run (one row):
- the cache and the data: `cache_bytes` is the cache the block trace sits under (`cache_kind` says which): the
  memory cap where the run had one (run.yaml `memory_cap.limit_bytes`: the group holds the page cache, the JVM's
  heap and RocksDB's block cache together), else RocksDB's block cache where RocksDB read with O_DIRECT (the page
  cache bypassed), else the memory of the machine the run ran on (run.yaml `guest.mem_kb` in the emulated guest,
  `host.mem_mb` on the host: nothing capped the page cache). `data_bytes`
  is records x record size (YCSB's recordcount x fieldcount x fieldlength, blkscope.analysis.popularity.skew.requested);
  the loaded image's allocated bytes (run.yaml `image.allocated_bytes`) beside it where the run started from one.
  `cache_to_data` = cache_bytes / data_bytes; `data_pages` = data_bytes / 4 KiB. Under a memory cap the JVM and
  RocksDB hold part of the cap (~160-210 MiB in round4-rocksdb-capped-2): `page_cache_bytes` and `rss_bytes` are
  the group's page cache and anonymous memory at the trace window's start (run.yaml `memory_cap: snapshots:
  trace_window_start`), `page_cache_to_data` the page cache over the data: the cache the buffered reads met.
- the trace: `window_s`, the kept window's length (run.yaml `tracer: window`; null: the whole run was kept), and
  `events`, the block events kept (run.yaml `tracer: events`). The counts below grow with both, so points of
  different windows are not alike. `ops_s`: YCSB's overall throughput (run.yaml `<workload>: overall_throughput`),
  what drove those events. `kernel`: the kernel release it ran on (run.yaml `kernel`; runs of two builds, i.e. two
  boots of the machine, differ in more than their configuration).
- the skew: the fitted rank exponent `s` (with its interval and goodness-of-fit p) of all accesses (zipf table,
  op all); the hottest 1 % of touched pages' share of read and of write accesses (`hot1_read`, `hot1_write`) and
  the metadata (REQ_META) share of all accesses (`meta_share`) and of the hot pages' accesses (`hot_meta_share`);
  null where the op touched fewer than MIN_HOT_PAGES pages (its "hottest 1 %" would be one page holding more than
  1 % of them: 25 % of the reads over 8 pages says nothing of skew),
  from the metadata-vs-data table; the LRU miss ratio of all accesses (the profile of record: exact or SHARDS) at
  caches of 1 % and 10 % of the pages the run touched (`miss_1pct`, `miss_10pct`), with `touched_pages`.
The zipf and metadata tables count pages as `cover` does (every 4 KiB page a completion covers).

A run of a `planned` batch (the sweep's, config/claims_plan.yaml `descriptive`) that has no raw data yet is a row
with `captured` false and null facts, so the table and its figure say which points are missing instead of leaving
them out silently.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from blkscope import yamlio
from blkscope.analysis.characterise.metadata import TOP_FRACTION
from blkscope.analysis.popularity.skew import requested

PAGE = 4096
MIB = 1 << 20
RUN_COLUMNS = ["run_id", "database", "workload", "job", "filesystem", "testbed", "repeat", "batch", "memory_cap"]
SCHEMA = {
    "captured": pl.Boolean, "window_s": pl.Float64, "events": pl.Int64, "ops_s": pl.Float64,
    "page_cache_bytes": pl.Float64, "rss_bytes": pl.Float64,
    "page_cache_to_data": pl.Float64, "memory_cap_bytes": pl.Int64, "memory_peak_bytes": pl.Int64,
    "blockcache_mb": pl.Float64,
    "directreads": pl.Boolean, "recordcount": pl.Int64, "record_bytes": pl.Float64, "data_bytes": pl.Float64,
    "image_bytes": pl.Int64, "cache_kind": pl.Utf8, "cache_bytes": pl.Float64, "cache_to_data": pl.Float64,
    "data_pages": pl.Float64, "touched_pages": pl.Float64, "s": pl.Float64, "s_lo": pl.Float64, "s_hi": pl.Float64,
    "p_gof": pl.Float64, "hot1_read": pl.Float64, "hot1_write": pl.Float64, "meta_share": pl.Float64,
    "hot_meta_share": pl.Float64, "miss_1pct": pl.Float64, "miss_10pct": pl.Float64, "kernel": pl.Utf8,
}  # fmt: skip
# a configuration of the sweep: which cache stood in front of the data, how large, over how many records (its
# repeats share all three)
CONFIGURATION = ["cache_kind", "cache_bytes", "recordcount"]
MIN_HOT_PAGES = round(1 / TOP_FRACTION)  # pages an op must touch for its hottest 1 % to be 1 % of them
MISS_FRACTIONS = (0.01, 0.10)  # the caches (of the touched pages) miss_<pct>pct reads the miss ratio at
# drawn in the paper's figure when the dataset has no sweep: no internal word (an issue letter, a batch name)
EMPTY_NOTE = ("no sweep runs in the dataset yet: no traced YCSB run has a memory cap (runs-sheet memory_cap; the "
              "cache sweep is not captured)")  # fmt: skip


def cache_facts(run_yaml: Path) -> dict:
    """The cache and the data of a run, from its run.yaml (the module's docstring)."""
    meta = yamlio.load(Path(run_yaml).read_text()) or {}
    req = requested(run_yaml)
    opts = (meta.get("workload") or {}).get("options") or {}
    cap = meta.get("memory_cap") or {}
    direct = opts.get("rocksdb.directreads")
    cap_bytes, block = cap.get("limit_bytes"), req.get("blockcache_mb")
    records, size = req.get("recordcount"), req.get("record_bytes")
    data = float(records) * size if records and size else None
    if cap_bytes:
        kind, cache = "memory cap", float(cap_bytes)
    elif direct and block:
        kind, cache = "RocksDB block cache (O_DIRECT reads)", block * MIB
    elif (guest := meta.get("guest") or {}).get("mem_kb"):  # the emulated guest's RAM is its page cache's bound
        kind, cache = "guest memory (no cap)", float(guest["mem_kb"]) * 1024
    else:
        kind, cache = "host memory (no cap)", float((meta.get("host") or {}).get("mem_mb") or math.nan) * MIB
    at = ((cap.get("snapshots") or {}).get("trace_window_start") or {}).get("stat") or {}
    page_cache = float(at["total_cache"]) if at.get("total_cache") is not None else None
    tracer = meta.get("tracer") or {}
    window = (tracer.get("window") or {}).get("length_s")
    summary = meta.get((meta.get("run") or {}).get("workload")) or {}
    return {"captured": True, "window_s": None if window is None else float(window), "events": tracer.get("events"),
            "ops_s": summary.get("overall_throughput"), "page_cache_bytes": page_cache,
            "rss_bytes": float(at["total_rss"]) if at.get("total_rss") is not None else None,
            "page_cache_to_data": page_cache / data if page_cache is not None and data else None,
            "memory_cap_bytes": cap_bytes, "memory_peak_bytes": cap.get("max_usage_bytes"), "blockcache_mb": block,
            "directreads": None if direct is None else bool(direct), "recordcount": records, "record_bytes": size,
            "data_bytes": data, "image_bytes": (meta.get("image") or {}).get("allocated_bytes"), "cache_kind": kind,
            "cache_bytes": cache, "cache_to_data": cache / data if data else None,
            "data_pages": data / PAGE if data else None, "kernel": meta.get("kernel")}  # fmt: skip


def miss_at(mrc: pl.DataFrame, reuse: pl.DataFrame, fractions=MISS_FRACTIONS) -> dict:
    """The profile of record's LRU miss ratio (op all, class all) at caches of `fractions` of the touched pages
    (the largest computed cache size at or below each), and the touched pages."""
    rec = reuse.filter((pl.col("op") == "all") & (pl.col("class") == "all") & pl.col("of_record"))
    if rec.is_empty():
        return {"touched_pages": None, **{f"miss_{round(f * 100)}pct": None for f in fractions}}
    method, pages = rec["method"][0], float(rec["distinct_pages"][0])
    curve = mrc.filter((pl.col("op") == "all") & (pl.col("class") == "all") & (pl.col("method") == method))
    out = {"touched_pages": pages}
    for f in fractions:
        below = curve.filter(pl.col("cache_pages") <= f * pages).sort("cache_pages")
        out[f"miss_{round(f * 100)}pct"] = float(below["miss_ratio"][-1]) if below.height else None
    return out


def _skew(zipf: pl.DataFrame, meta: pl.DataFrame, run_id: str) -> dict:
    z = zipf.filter((pl.col("run_id") == run_id) & (pl.col("op") == "all"))
    out = {k: (float(z[k][0]) if z.height and z[k][0] is not None else None) for k in ("s", "s_lo", "s_hi", "p_gof")}
    m = meta.filter(pl.col("run_id") == run_id)

    def one(op: str, col: str) -> float | None:
        r = m.filter(pl.col("op") == op)
        if col.startswith("hot") and r.height and r["pages"][0] < MIN_HOT_PAGES:
            return None
        return float(r[col][0]) if r.height and r[col][0] is not None else None

    return out | {"hot1_read": one("read", "hot_share"), "hot1_write": one("write", "hot_share"),
                  "meta_share": one("all", "meta_share"), "hot_meta_share": one("all", "hot_meta_share")}


def listed(runs: pl.DataFrame, run_ids: list[str]) -> pl.DataFrame:
    """The runs sheet's rows of `run_ids`, in the sheet's order; a run the sheet lacks stops the verb."""
    sheet = runs.filter(pl.col("run_id").is_in(run_ids))
    missing = sorted(set(run_ids) - set(sheet["run_id"]))
    if missing:
        raise ValueError(f"run(s) not in the runs sheet: {', '.join(missing[:5])}")
    return sheet


def cache_sweep(runs: pl.DataFrame, run_ids: list[str], raw: Path, processed: Path, zipf: pl.DataFrame,
                metadata: pl.DataFrame, planned: tuple[str, ...] = ()) -> pl.DataFrame:
    """One row per listed run (runs-sheet columns, then SCHEMA's), in the sheet's order; then a row (`captured`
    false) for each run of the `planned` batches that is not listed and has no raw data."""
    sheet = listed(runs, run_ids)
    rows = []
    for run_id in sheet["run_id"]:
        char = Path(processed, run_id, "characterise")
        mrc = miss_at(pl.read_parquet(char / "mrc.parquet"), pl.read_parquet(char / "reuse.parquet"))
        rows.append(cache_facts(Path(raw, run_id, "run.yaml")) | _skew(zipf, metadata, run_id) | mrc)
    missing = missing_runs(runs, run_ids, raw, planned)
    rows += [{"captured": False}] * missing.height
    cols = [c for c in RUN_COLUMNS if c in sheet.columns]
    return pl.concat([pl.concat([sheet, missing]).select(cols), pl.DataFrame(rows, schema=SCHEMA, orient="row")],
                     how="horizontal")  # fmt: skip


def missing_runs(runs: pl.DataFrame, run_ids: list[str], raw: Path, planned: tuple[str, ...]) -> pl.DataFrame:
    """The runs-sheet rows of the `planned` batches that are not in `run_ids` and have no raw data yet."""
    if not planned or "batch" not in runs.columns:
        return runs.clear()
    rows = runs.filter(pl.col("batch").is_in(list(planned)) & ~pl.col("run_id").is_in(run_ids))
    return rows.filter(pl.col("run_id").is_in([r for r in rows["run_id"] if not Path(raw, r, "run.yaml").exists()]))


def configurations(table: pl.DataFrame) -> pl.DataFrame:
    """The captured runs' configurations (CONFIGURATION), each with its runs (`runs`), in the table's order."""
    done = table.filter(pl.col("captured")) if "captured" in table.columns else table
    return done.group_by(CONFIGURATION, maintain_order=True).agg(runs=pl.len())
