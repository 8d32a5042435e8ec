"""Column names and dtypes of every table: the single source of truth.

Readers build frames with at least these columns and pass them through `conform`,
which adds missing contract columns as nulls, casts, and puts contract columns first.
Extra columns are allowed (never rename a contract column).
"""

from __future__ import annotations

import polars as pl

I64, I32, U32, U16, F64, STR, BOOL = pl.Int64, pl.Int32, pl.UInt32, pl.UInt16, pl.Float64, pl.Utf8, pl.Boolean
DT = pl.Datetime("us")

EVENTS: dict[str, pl.DataType] = {
    "dev_major": U32,
    "dev_minor": U32,
    "cpu": U32,
    "seq": I64,
    "time_ns": I64,
    "pid": U32,
    "action": STR,
    "rwbs": STR,
    "sector": I64,
    "nsectors": I64,
    "error": I32,
    "process": STR,
}

IOSTAT: dict[str, pl.DataType] = {
    "host": STR,
    "sample": I64,
    "timestamp": DT,
    "device": STR,
    "r_s": F64,
    "w_s": F64,
    "rkb_s": F64,
    "wkb_s": F64,
    "rrqm_s": F64,
    "wrqm_s": F64,
    "r_await_ms": F64,
    "w_await_ms": F64,
    "await_ms": F64,
    "aqu_sz": F64,
    "rareq_sz_kb": F64,
    "wareq_sz_kb": F64,
    "util_pct": F64,
    "tps": F64,
    "since_boot": BOOL,
}

IOSTAT_CPU: dict[str, pl.DataType] = {
    "host": STR,
    "sample": I64,
    "timestamp": DT,
    "user": F64,
    "nice": F64,
    "system": F64,
    "iowait": F64,
    "steal": F64,
    "idle": F64,
    "since_boot": BOOL,
}

YCSB_SUMMARY: dict[str, pl.DataType] = {"phase": STR, "section": STR, "metric": STR, "value": F64}
YCSB_SERIES: dict[str, pl.DataType] = {
    "elapsed_s": F64,
    "operations": I64,
    "ops_per_s": F64,
    "section": STR,
    "stat": STR,
    "value": F64,
}

CSTRESS_INTERVALS: dict[str, pl.DataType] = {
    "round": I64,
    "threads": I64,
    "type": STR,
    "total_ops": I64,
    "op_s": F64,
    "pk_s": F64,
    "row_s": F64,
    "mean_ms": F64,
    "med_ms": F64,
    "p95_ms": F64,
    "p99_ms": F64,
    "p999_ms": F64,
    "max_ms": F64,
    "time_s": F64,
    "errors": I64,
    "complete": BOOL,  # false: the round never printed its Results block (server died, log cut)
}
CSTRESS_SUMMARY: dict[str, pl.DataType] = {"round": I64, "threads": I64, "metric": STR, "value": F64, "unit": STR}

FIO_JOBS: dict[str, pl.DataType] = {
    "jobname": STR,
    "direction": STR,
    "rw": STR,
    "bs": STR,
    "iodepth": I64,
    "numjobs": I64,
    "iops": F64,
    "bw_kib_s": F64,
    "lat_mean_ns": F64,
    "clat_p50_ns": F64,
    "clat_p99_ns": F64,
    "clat_p9999_ns": F64,
    "runtime_ms": F64,
    "error": I64,
}

SYSBENCH_FILEIO: dict[str, pl.DataType] = {
    "version": STR,
    "test_mode": STR,
    "threads": I64,
    "reads_s": F64,
    "writes_s": F64,
    "fsyncs_s": F64,
    "read_mib_s": F64,
    "written_mib_s": F64,
    "total_time_s": F64,
    "total_events": I64,
    "lat_min_ms": F64,
    "lat_avg_ms": F64,
    "lat_max_ms": F64,
    "lat_p95_ms": F64,
}
# sysbench 1.0 --report-interval lines (beyond the contract)
SYSBENCH_INTERVALS: dict[str, pl.DataType] = {
    "run": I64,
    "time_s": F64,
    "reads_mib_s": F64,
    "writes_mib_s": F64,
    "fsyncs_s": F64,
    "lat_pct": I64,
    "lat_pct_ms": F64,
}

# blkscope journal writer (tools/journal): latency histogram buckets [lo, hi) and per-operation summaries
JOURNAL_LATENCY: dict[str, pl.DataType] = {
    "mode": STR,
    "reader": BOOL,
    "op": STR,
    "bucket_lo_ns": I64,
    "bucket_hi_ns": I64,
    "count": I64,
}
JOURNAL_SUMMARY: dict[str, pl.DataType] = {
    "mode": STR,
    "reader": BOOL,
    "op": STR,
    "count": I64,
    "mean_ns": F64,
    "min_ns": I64,
    "p50_ns": I64,
    "p99_ns": I64,
    "p9999_ns": I64,
    "max_ns": I64,
    "elapsed_s": F64,
    "late_writes": I64,
    "rate": F64,
    "record": I64,
    "sync_every": I64,
    "read_rate": F64,
    "version": STR,
}

# e2fsprogs `filefrag -v` (FIEMAP) at the end of a run: one row per file, paths relative to the mountpoint
EXTENTS: dict[str, pl.DataType] = {
    "path": STR,
    "dir": STR,  # the path's first component: commitlog, data, ...
    "bytes": I64,
    "block_size": I64,
    "extents": I64,  # filefrag's count ("N extents found": physically contiguous pieces counted once)
    "extent_records": I64,  # the FIEMAP records it listed
    "fs_magic": STR,  # "Filesystem type is: ef53" (ext4), 58465342 (xfs), 9123683e (btrfs)
}

# Analysis outputs
PAGE_FREQUENCY: dict[str, pl.DataType] = {"op": STR, "page": I64, "count": I64}
RANK_FREQUENCY: dict[str, pl.DataType] = {"op": STR, "rank": I64, "count": I64}

# reuse distance and LRU miss-ratio curves of 4 KiB pages (blkscope.analysis.characterise.reuse, `blkscope reuse`): per
# stream of requests (op: all, read, write; class: all, data, meta (M in RWBS)) and method (exact, shards-adj,
# shards, shards-size); distinct_pages is exact, or SHARDS' estimate; mae / max_abs_error: a sampled curve against
# the exact one; of_record: the profile that stands for its stream (exact where it ran, else SHARDS), and
# exact_max_accesses the limit of `--auto` (null: exact wherever asked)
REUSE_SUMMARY: dict[str, pl.DataType] = {
    "op": STR, "class": STR, "method": STR, "rate": F64, "size_limit": I64, "requests": I64, "accesses": I64,
    "sampled_accesses": I64, "sampled_pages": I64, "distinct_pages": F64, "mae": F64, "max_abs_error": F64,
    "note": STR, "of_record": BOOL, "exact_max_accesses": I64,
}  # fmt: skip
MRC: dict[str, pl.DataType] = {
    "op": STR, "class": STR, "method": STR, "rate": F64, "size_limit": I64, "cache_pages": I64, "cache_mib": F64,
    "miss_ratio": F64,
}  # fmt: skip
REUSE_DISTANCE: dict[str, pl.DataType] = {"op": STR, "class": STR, "method": STR, "lo": I64, "hi": I64, "mass": F64}
WORKING_SET: dict[str, pl.DataType] = {"op": STR, "class": STR, "window": I64, "start_s": F64, "pages": I64}

# metadata (M in RWBS) against data in the page access frequency (blkscope.analysis.characterise.metadata): hot = the
# top 1 % of an op's touched pages by accesses; per run one row per op (read, write, all)
METADATA_HOT: dict[str, pl.DataType] = {
    "op": STR, "pages": I64, "accesses": I64, "meta_accesses": I64, "meta_share": F64, "meta_pages": I64,
    "hot_pages": I64, "hot_accesses": I64, "hot_share": F64, "hot_meta_share": F64, "meta_top_share": F64,
    "data_top_share": F64, "note": STR,
}  # fmt: skip
METADATA_RANK: dict[str, pl.DataType] = {"op": STR, "class": STR, "rank": I64, "count": I64}

# characterisation views (blkscope.analysis.characterise.io_map, request_mix, timing.arrivals): op read/write, class
# meta (`M` in RWBS)/data; the views that sum over requests (merges, processes, Q2Q, dispersion, latency) add class and
# op all
IO_MAP: dict[str, pl.DataType] = {
    "op": STR, "class": STR, "time_bin": I64, "t_lo_s": F64, "t_hi_s": F64, "sector_bin": I64, "sector_lo": I64,
    "sector_hi": I64, "requests": I64, "bytes": I64,
}  # fmt: skip
THROUGHPUT: dict[str, pl.DataType] = {
    "action": STR, "op": STR, "class": STR, "bin": I64, "start_s": F64, "requests": I64, "bytes": I64, "iops": F64,
    "mib_s": F64, "mean_kib": F64, "median_kib": F64,
}  # fmt: skip
REQUEST_SIZES: dict[str, pl.DataType] = {"action": STR, "op": STR, "class": STR, "size_kib": F64, "requests": I64}
MERGES: dict[str, pl.DataType] = {
    "op": STR, "class": STR, "queued": I64, "issued": I64, "back_merges": I64, "front_merges": I64,
    "merge_ratio": F64,
}  # fmt: skip
ARRIVALS: dict[str, pl.DataType] = {
    "op": STR, "class": STR, "what": STR, "n": I64, "mean_us": F64, "cv": F64, "p50_us": F64, "p90_us": F64,
    "p99_us": F64, "max_us": F64, "total_s": F64,
}  # fmt: skip
DISPERSION: dict[str, pl.DataType] = {
    "op": STR, "class": STR, "window_s": F64, "windows": I64, "mean": F64, "idc": F64,
}  # fmt: skip
LATENCY_HIST: dict[str, pl.DataType] = {
    "stage": STR, "op": STR, "class": STR, "window": I64, "start_s": F64, "window_s": F64, "bucket": I64,
    "count": I64, "sum_ns": F64, "min_ns": I64, "max_ns": I64,
}  # fmt: skip
LATENCY_WINDOWS: dict[str, pl.DataType] = {
    "stage": STR, "op": STR, "class": STR, "window": I64, "start_s": F64, "window_s": F64, "n": I64, "mean_us": F64,
    "p50_us": F64, "p90_us": F64, "p99_us": F64, "p99_9_us": F64, "max_us": F64,
}  # fmt: skip
PROCESSES: dict[str, pl.DataType] = {
    "pid": I64, "process": STR, "op": STR, "class": STR, "queued": I64, "queued_kib": F64, "back_merges": I64,
    "front_merges": I64, "merge_ratio": F64,
}  # fmt: skip

TABLES: dict[str, dict[str, pl.DataType]] = {
    "events": EVENTS,
    "iostat": IOSTAT,
    "iostat_cpu": IOSTAT_CPU,
    "ycsb_summary": YCSB_SUMMARY,
    "ycsb_series": YCSB_SERIES,
    "cstress_intervals": CSTRESS_INTERVALS,
    "cstress_summary": CSTRESS_SUMMARY,
    "fio_jobs": FIO_JOBS,
    "sysbench_fileio": SYSBENCH_FILEIO,
    "sysbench_intervals": SYSBENCH_INTERVALS,
    "journal_latency": JOURNAL_LATENCY,
    "journal_summary": JOURNAL_SUMMARY,
    "extents": EXTENTS,
}


def conform(df: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Add missing contract columns as nulls, cast contract columns, contract columns first."""
    exprs = []
    for name, dtype in schema.items():
        if name in df.columns:
            exprs.append(pl.col(name).cast(dtype, strict=True))
        else:
            exprs.append(pl.lit(None, dtype=dtype).alias(name))
    extra = [c for c in df.columns if c not in schema]
    return df.select(*exprs, *extra)


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)
