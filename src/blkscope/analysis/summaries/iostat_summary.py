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

from blkscope.analysis.stats.uncertainty import t_quantile

METRICS = ["r_s", "w_s", "rkb_s", "wkb_s", "rrqm_s", "wrqm_s", "r_await_ms", "w_await_ms", "aqu_sz", "util_pct"]
SATURATED = 90.0  # %util at which a report counts as the device being the limit
# reports in a row that make the onset: half the commitlog's 10-s sync period, longer than a warm-up burst (a trial
# at a 2 MiB/s cap saturated 3 s on the preparation's writeback, then idled 7 s before the load held it busy)
SUSTAIN = 5


RUN = "_run"  # a run's place in the batch: every statistic is per run, device and metric
_SAT = "_sat"  # the run's table has both util_pct and aqu_sz (a diagonal concat fills a missing one with nulls)


def _saturated(df: pl.DataFrame) -> pl.DataFrame:
    """Per run and device, the reports from the first of SUSTAIN saturated ones in a row on, as long rows (run,
    device, metric, value), with the number of reports before it as metric `sat_onset_s` (1-s reports)."""
    keys = [RUN, "device"]
    if "util_pct" not in df.columns or "aqu_sz" not in df.columns:
        return pl.DataFrame(schema={RUN: pl.Int64, "device": pl.Utf8, "metric": pl.Utf8, "value": pl.Float64})
    df = df.filter(pl.col(_SAT)) if _SAT in df.columns else df
    df = (df.sort(RUN, "sample", maintain_order=True) if "sample" in df.columns else df).with_columns(
        k=pl.int_range(pl.len()).over(keys))
    # a report opens a stretch when it and the SUSTAIN - 1 after it are all saturated
    sat = (pl.col("util_pct") >= SATURATED).cast(pl.Int32)
    stretch = sat.rolling_sum(SUSTAIN).shift(-(SUSTAIN - 1)).over(keys) == SUSTAIN
    onset = df.filter(stretch).group_by(keys).agg(onset=pl.col("k").min())
    # left order: a group's values are summed in report order
    after = df.join(onset, on=keys, maintain_order="left").filter(pl.col("k") >= pl.col("onset"))
    long = after.select(*keys, util_pct_sat="util_pct", aqu_sz_sat="aqu_sz").unpivot(index=keys, variable_name="metric")
    first = onset.select(*keys, metric=pl.lit("sat_onset_s"), value=pl.col("onset").cast(pl.Float64))
    return pl.concat([long.with_columns(pl.col("value").cast(pl.Float64)), first])


def _summaries(iostat: pl.DataFrame, level: float) -> pl.DataFrame:
    """summarize for every run of a batch at once (column RUN tells them apart); rows in no particular order."""
    has_flag = "since_boot" in iostat.columns
    boot = pl.col("since_boot").fill_null(False) if has_flag else pl.lit(False)
    # reports, not rows: a report holds one row per device
    dropped = iostat.filter(boot).group_by(RUN).agg(dropped_since_boot=pl.col("sample").n_unique().cast(pl.Int64))
    df = iostat.filter(~boot)
    present = [m for m in METRICS if m in df.columns]
    long = df.unpivot(index=[RUN, "device"], on=present, variable_name="metric").drop_nulls("value")
    long = pl.concat([long.with_columns(pl.col("value").cast(pl.Float64)), _saturated(df)]).drop_nulls("value")
    # every group's values come in the order a per-run pass gives them (unpivot, concat, a stable sort and a
    # left-ordered join keep rows in place), and polars sums a group in that order: a batch of runs gives the same
    # bits as one run at a time (tests/test_iostat_summary.py; the main job's 903 runs checked byte for byte)
    out = long.group_by(RUN, "device", "metric").agg(
        mean=pl.col("value").mean(), sd=pl.col("value").std(), n=pl.len().cast(pl.Int64)
    )
    t = t_quantile(0.5 + level / 2, np.maximum(out["n"].to_numpy() - 1, 1))
    half = pl.Series(t) * out["sd"].fill_null(0.0) / out["n"].cast(pl.Float64).sqrt()
    return out.with_columns(ci_lo=pl.col("mean") - half, ci_hi=pl.col("mean") + half).join(
        dropped, on=RUN, how="left").with_columns(pl.col("dropped_since_boot").fill_null(0))


def summarize(iostat: pl.DataFrame, level: float = 0.95) -> pl.DataFrame:
    """Long table: device, metric, mean, sd, n, ci_lo, ci_hi, dropped_since_boot."""
    return _summaries(iostat.with_columns(pl.lit(0, pl.Int64).alias(RUN)), level).drop(RUN).sort("device", "metric")


def _read(files: list[Path]) -> pl.DataFrame:
    """The runs' reports in one table, RUN the file's place in files. One read per set of columns (runs recorded
    by different iostat versions differ); a file listed twice goes to a second read, so it stays two runs."""
    want = ["sample", "device", "since_boot", *METRICS]
    groups: dict[tuple, list[int]] = {}
    seen: dict[str, int] = {}
    for i, f in enumerate(files):
        cols = pl.read_parquet_schema(f)
        seen[str(f)] = seen.get(str(f), -1) + 1
        groups.setdefault((seen[str(f)], *(c for c in want if c in cols)), []).append(i)
    parts = []
    for (_, *cols), idx in groups.items():
        df = pl.read_parquet([files[i] for i in idx], columns=[*cols, RUN], include_file_paths=RUN, glob=False,
                             hive_partitioning=False)
        parts.append(df.with_columns(pl.col(RUN).replace_strict([str(files[i]) for i in idx], idx,
                                                                 return_dtype=pl.Int64),
                                     pl.lit("util_pct" in cols and "aqu_sz" in cols).alias(_SAT)))
    return pl.concat(parts, how="diagonal_relaxed")


def iostat_summary(files: list[Path], runs: pl.DataFrame, run_id_of) -> pl.DataFrame:
    ids = pl.DataFrame({RUN: range(len(files)), "run_id": [run_id_of(f) for f in files]},
                       schema={RUN: pl.Int64, "run_id": pl.Utf8})
    # one batched pass over all runs: ~23 small polars queries a run cost more CPU than the data (28k rows, 903 runs)
    parts = _summaries(_read(files), 0.95).join(ids, on=RUN).drop(RUN)
    # mount options tell ext4 data=writeback apart from ext4 (figures give it its own colour)
    cols = ["run_id", "filesystem", "workload", "job", "testbed", "traced", "repeat", "mount_options"]
    meta = runs.select([c for c in cols if c in runs.columns])
    # a join keeps no row order: every row's place fixed, so a run's devices come (and are summed) in one order
    order = ["workload", "job", "filesystem", "repeat", "run_id", "device", "metric"]
    return meta.join(parts, on="run_id", how="inner").sort(order)
