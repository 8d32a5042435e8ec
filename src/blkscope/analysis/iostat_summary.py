"""Per-run device statistics from iostat: mean over the run's interval reports, with a CI.

The since-boot report (flagged by the reader) is an average over the machine's uptime, not
over the run, so it is dropped. Consecutive 1 s samples are autocorrelated, so the t interval
over samples is optimistic; comparisons across filesystems use repeats as the unit (compare.py).

A run whose device becomes the limit (a device cap) starts with a warm-up in which the page cache absorbs the
writes and the device idles between commitlog syncs, with bursts (the preparation's writeback, a sync) that
saturate it for a few seconds; `*_sat` metrics average %util and aqu-sz from the first report of the first
SUSTAIN consecutive saturated (>= SATURATED % busy) reports on, and `sat_onset_s` records the reports dropped
before it (none of the three where the device never stays saturated that long).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.uncertainty import t_quantile

METRICS = ["r_s", "w_s", "rkb_s", "wkb_s", "rrqm_s", "wrqm_s", "r_await_ms", "w_await_ms", "aqu_sz", "util_pct"]
SATURATED = 90.0  # %util at which a report counts as the device being the limit
# reports in a row that make the onset: half the commitlog's 10-s sync period, longer than a warm-up burst (a trial
# at a 2 MiB/s cap saturated 3 s on the preparation's writeback, then idled 7 s before the load held it busy)
SUSTAIN = 5


def _saturated(df: pl.DataFrame) -> pl.DataFrame:
    """Per device, the reports from the first of SUSTAIN saturated ones in a row on, as long rows (device, metric,
    value), with the number of reports before it as metric `sat_onset_s` (1-s reports)."""
    if "util_pct" not in df.columns or "aqu_sz" not in df.columns:
        return pl.DataFrame(schema={"device": pl.Utf8, "metric": pl.Utf8, "value": pl.Float64})
    df = (df.sort("sample", maintain_order=True) if "sample" in df.columns else df).with_columns(
        k=pl.int_range(pl.len()).over("device"))
    # a report opens a stretch when it and the SUSTAIN - 1 after it are all saturated
    sat = (pl.col("util_pct") >= SATURATED).cast(pl.Int32)
    stretch = sat.rolling_sum(SUSTAIN).shift(-(SUSTAIN - 1)).over("device") == SUSTAIN
    onset = df.filter(stretch).group_by("device").agg(onset=pl.col("k").min())
    after = df.join(onset, on="device").filter(pl.col("k") >= pl.col("onset"))
    long = after.select("device", util_pct_sat="util_pct", aqu_sz_sat="aqu_sz").unpivot(
        index="device", variable_name="metric")
    first = onset.select("device", metric=pl.lit("sat_onset_s"), value=pl.col("onset").cast(pl.Float64))
    return pl.concat([long.with_columns(pl.col("value").cast(pl.Float64)), first])


def summarize(iostat: pl.DataFrame, level: float = 0.95) -> pl.DataFrame:
    """Long table: device, metric, mean, sd, n, ci_lo, ci_hi, dropped_since_boot."""
    has_flag = "since_boot" in iostat.columns
    boot = iostat.filter(pl.col("since_boot").fill_null(False)) if has_flag else iostat.clear()
    dropped = boot["sample"].n_unique()  # reports, not rows: a report holds one row per device
    df = iostat.filter(~pl.col("since_boot").fill_null(False)) if has_flag else iostat
    present = [m for m in METRICS if m in df.columns]
    long = df.unpivot(index="device", on=present, variable_name="metric").drop_nulls("value")
    long = pl.concat([long.with_columns(pl.col("value").cast(pl.Float64)), _saturated(df)]).drop_nulls("value")
    out = long.group_by("device", "metric").agg(
        mean=pl.col("value").mean(), sd=pl.col("value").std(), n=pl.len().cast(pl.Int64)
    )
    t = t_quantile(0.5 + level / 2, np.maximum(out["n"].to_numpy() - 1, 1))
    half = pl.Series(t) * out["sd"].fill_null(0.0) / out["n"].cast(pl.Float64).sqrt()
    return out.with_columns(
        ci_lo=pl.col("mean") - half, ci_hi=pl.col("mean") + half, dropped_since_boot=pl.lit(dropped, pl.Int64)
    ).sort("device", "metric")


def iostat_summary(files: list[Path], runs: pl.DataFrame, run_id_of) -> pl.DataFrame:
    parts = [summarize(pl.read_parquet(f)).with_columns(run_id=pl.lit(run_id_of(f))) for f in files]
    # mount options tell ext4 data=writeback apart from ext4 (figures give it its own colour)
    cols = ["run_id", "filesystem", "workload", "job", "testbed", "traced", "repeat", "mount_options"]
    meta = runs.select([c for c in cols if c in runs.columns])
    # a join keeps no row order: every row's place fixed, so a run's devices come (and are summed) in one order
    order = ["workload", "job", "filesystem", "repeat", "run_id", "device", "metric"]
    return meta.join(pl.concat(parts), on="run_id", how="inner").sort(order)
