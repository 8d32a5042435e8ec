"""Which configuration a run belongs to, read from the runs sheet: load level and Cassandra commitlog mode.

The runs sheet names these in columns when it has them (`load`: light | saturating; `commitlog_compression`:
none | LZ4); sheets without them fall back to the capture batch (`batch` = saturate-N) and the job name
(`randrw-sat`, `workloada-zipfian-sat`, `rndrw-max` are saturating; `ceiling` is the device-ceiling job, its
own level; cassandra-stress runs are unthrottled, so saturating; `...lz4...` is a compressed commitlog), so the
light dataset reads as light and uncompressed. A run with a device cap (runs-sheet `device_cap`) is its own level,
`capped`: the device, not the CPU, is the limit there (capture/throttle.py); `cap` names the cap by its write
bytes/s (`wbps=2M` -> `2M`; the whole setting where it has none), so that runs under different caps are not pooled
where absolute numbers are summarised (null for an uncapped run).
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
        # cassandra-stress runs unthrottled (threads only, no fixed rate): the node is saturated
        sat = job.str.contains(r"(^|[-_])(sat|max)([-_]|$)") | (pl.col("workload") == "cassandra").fill_null(False)
        if "batch" in runs.columns:  # the saturating capture batch (`saturate-1`, ...)
            sat = sat | pl.col("batch").cast(pl.Utf8).fill_null("").str.starts_with("satur")
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


def cassandra_mode() -> pl.Expr:
    """write (the commitlog study's load), mixed (the SSD study's) or threads (the thread-count sweep that checks
    the write load saturates the node), from the job name."""
    job = pl.col("job").cast(pl.Utf8).fill_null("").str.to_lowercase()
    return (pl.when(job.str.contains("threads")).then(pl.lit("threads"))
            .when(job.str.contains("mixed|read")).then(pl.lit("mixed")).otherwise(pl.lit("write")))
