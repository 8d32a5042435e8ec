"""Which configuration a run belongs to, read from the runs sheet: load level and Cassandra commitlog mode.

The runs sheet names these in columns when it has them (`load`: light | saturating; `commitlog_compression`: none |
LZ4); sheets without them read the load from the run's own rate setting, the job's definition
(blkscope.capture.workloads.rate: fio's job file, YCSB's target_ops_s, sysbench's and the journal writer's rate): a
job that fixes a rate is light, one that runs unthrottled (no rate, or 0) is saturating, memory-capped or not (a
capped node's unthrottled client keeps its device busy as an uncapped one keeps its CPU); `ceiling` is the
device-ceiling job, its own level. Only a job not defined here (a test's, an older sheet's) falls back to its names:
the capture batch (`batch` = saturate-N), the job (`...-sat`, `...-max` are saturating) and the workload
(cassandra-stress runs unthrottled). `...lz4...` in a job name is a compressed commitlog. A run with a device cap
(runs-sheet `device_cap`) is its own level, `capped`: the device, not the CPU, is the limit there
(capture/throttle.py); `cap` names the cap by its write bytes/s (`wbps=2M` -> `2M`; the whole setting where it has
none), so that runs under different caps are not pooled where absolute numbers are summarised (null for an uncapped
run).
"""

from __future__ import annotations

import polars as pl

LIGHT, SATURATING, CEILING, CAPPED = "light", "saturating", "ceiling", "capped"


def with_groups(runs: pl.DataFrame) -> pl.DataFrame:
    """The runs sheet with `load` and `commitlog` filled in (derived where the sheet lacks them)."""
    runs = runs.with_columns(*[pl.lit(None, pl.Utf8).alias(c) for c in ("job", "workload") if c not in runs.columns])
    job = pl.col("job").cast(pl.Utf8).fill_null("").str.to_lowercase()
    if "load" in runs.columns:
        load = pl.col("load").cast(pl.Utf8).fill_null("").str.to_lowercase()
        load = pl.when(load.str.starts_with("sat")).then(pl.lit(SATURATING)).otherwise(
            pl.when(load == "").then(pl.lit(LIGHT)).otherwise(load))
    else:
        # a job this code does not define: cassandra-stress runs unthrottled (threads only, no fixed rate)
        named = job.str.contains(r"(^|[-_])(sat|max)([-_]|$)") | (pl.col("workload") == "cassandra").fill_null(False)
        if "batch" in runs.columns:  # the saturating capture batch (`saturate-1`, ...)
            named = named | pl.col("batch").cast(pl.Utf8).fill_null("").str.starts_with("satur")
        rate = job_rates(runs)
        sat = pl.when(rate.is_not_null()).then(rate == 0).otherwise(named)
        load = pl.when(job == "ceiling").then(pl.lit(CEILING)).when(sat).then(pl.lit(SATURATING)).otherwise(
            pl.lit(LIGHT))
    cap = pl.lit(None, pl.Utf8)
    if "device_cap" in runs.columns:
        setting = pl.col("device_cap").cast(pl.Utf8).fill_null("").str.strip_chars()
        load = pl.when(setting != "").then(pl.lit(CAPPED)).otherwise(load)
        cap = pl.when(setting != "").then(pl.coalesce(setting.str.extract(r"wbps=(\S+)"), setting))
    if "commitlog_compression" in runs.columns:
        c = pl.col("commitlog_compression").cast(pl.Utf8).fill_null("none").str.to_lowercase()
        commitlog = pl.when(c.is_in(["", "none", "false", "off"])).then(pl.lit("none")).otherwise(c)
    else:
        commitlog = pl.when(job.str.contains("lz4")).then(pl.lit("lz4")).otherwise(pl.lit("none"))
    is_cass = pl.col("workload") == "cassandra"
    return runs.with_columns(load=load, cap=cap, commitlog=pl.when(is_cass).then(commitlog).otherwise(pl.lit(None)))


def job_rates(runs: pl.DataFrame) -> pl.Expr:
    """Each run's request rate as its job defines it (blkscope.capture.workloads.rate; 0: unthrottled), null for a
    job not defined there."""
    from blkscope.capture.workloads import rate

    pairs = runs.select(pl.col("workload").cast(pl.Utf8), pl.col("job").cast(pl.Utf8)).unique().drop_nulls()
    known = {f"{w}\t{j}": r for w, j in pairs.iter_rows() if (r := rate(w, j)) is not None}
    key = pl.concat_str(pl.col("workload").cast(pl.Utf8), pl.col("job").cast(pl.Utf8), separator="\t")
    return key.replace_strict(known, default=None, return_dtype=pl.Float64)


def cassandra_mode() -> pl.Expr:
    """write (the commitlog study's load), mixed (the SSD study's) or threads (the thread-count sweep that checks
    the write load saturates the node), from the job name."""
    job = pl.col("job").cast(pl.Utf8).fill_null("").str.to_lowercase()
    return (pl.when(job.str.contains("threads")).then(pl.lit("threads"))
            .when(job.str.contains("mixed|read")).then(pl.lit("mixed")).otherwise(pl.lit("write")))
