"""Cassandra per configuration: cassandra-stress ops/s and latency percentiles, iostat queue size and write
merges, each as a mean over repeats with a 95 % t interval and its n; and every filesystem against xfs as a
ratio of geometric means (Welch t on logs), the commitlog study's comparison.

A configuration is (mode: write | mixed, commitlog: none | lz4, filesystem, load, cap, traced); repeats are the unit
(one number per run: cassandra-stress's Results of the run's last round, iostat's mean over the run's reports,
and the steadiness of its per-interval op/s).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from blkscope.analysis.stats.estimates import log_ratio
from blkscope.analysis.stats.uncertainty import mean_ci
from blkscope.analysis.summaries.run_groups import cassandra_mode, with_groups

STRESS = ["ops_s", "lat_mean_us", "lat_p50_us", "lat_p95_us", "lat_p99_us", "lat_p999_us", "lat_max_us", "errors"]
IOSTAT = ["aqu_sz", "wrqm_s", "w_s", "wkb_s", "w_await_ms", "util_pct", "util_pct_sat", "aqu_sz_sat", "sat_onset_s"]
CONFIG = ["mode", "commitlog", "filesystem", "load", "cap", "traced"]


def steadiness(run_id: str, intervals: pl.DataFrame) -> pl.DataFrame:
    """How steady a run's throughput was: the coefficient of variation of cassandra-stress's per-interval op/s
    (`total` rows of the last round; periodic commitlog syncs show as bursts), and the slowest interval relative to
    the mean. Long form: run_id, metric, value."""
    t = intervals.filter((pl.col("round") == pl.col("round").max()) & (pl.col("type") == "total"))
    x = t["op_s"].drop_nulls().to_numpy().astype(float)
    if x.size < 2 or x.mean() <= 0:
        return pl.DataFrame(schema={"run_id": pl.Utf8, "metric": pl.Utf8, "value": pl.Float64})
    return pl.DataFrame({"run_id": [run_id] * 2, "metric": ["ops_s_cv", "ops_s_min_rel"],
                         "value": [float(x.std(ddof=1) / x.mean()), float(x.min() / x.mean())]})


def _long(metrics: pl.DataFrame, iostat: pl.DataFrame, runs: pl.DataFrame,
          steady: pl.DataFrame | None = None) -> pl.DataFrame:
    """One value per (run, metric) of the host Cassandra runs, with the run's configuration."""
    cfg = (with_groups(runs).filter((pl.col("workload") == "cassandra") & (pl.col("testbed") == "loop"))
           .with_columns(mode=cassandra_mode()).filter(pl.col("mode") != "threads")  # the sweep is a calibration
           .select("run_id", *CONFIG))
    m = metrics.filter(pl.col("metric").is_in(STRESS)).select("run_id", "metric", "value", source=pl.lit("stress"))
    io = iostat.filter(pl.col("metric").is_in(IOSTAT)).group_by("run_id", "metric").agg(pl.col("mean").mean())
    io = io.select("run_id", "metric", value=pl.col("mean"), source=pl.lit("iostat"))
    parts = [m, io]
    if steady is not None and steady.height:
        parts.append(steady.select("run_id", "metric", "value", source=pl.lit("intervals")))
    # a join keeps no row order: sorted, so each configuration's repeats are summed in one order (last bits)
    return cfg.join(pl.concat(parts), on="run_id", how="inner").sort("run_id", "source", "metric")


def summary(metrics: pl.DataFrame, iostat: pl.DataFrame, runs: pl.DataFrame,
            steady: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per configuration and metric: n, mean, 95 % t interval over repeats, sd."""
    rows = []
    for key, g in _long(metrics, iostat, runs, steady).group_by([*CONFIG, "source", "metric"], maintain_order=True):
        x = g["value"].to_numpy().astype(float)
        m, lo, hi = mean_ci(x)
        rows.append(dict(zip([*CONFIG, "source", "metric"], key, strict=True)) | {
            "n": int(x.size), "mean": m, "lo": lo, "hi": hi, "sd": float(x.std(ddof=1)) if x.size > 1 else None})
    schema = {"mode": pl.Utf8, "commitlog": pl.Utf8, "filesystem": pl.Utf8, "load": pl.Utf8, "cap": pl.Utf8,
              "traced": pl.Boolean, "source": pl.Utf8, "metric": pl.Utf8, "n": pl.Int64, "mean": pl.Float64,
              "lo": pl.Float64, "hi": pl.Float64, "sd": pl.Float64}  # fmt: skip
    return pl.DataFrame(rows, schema=schema).sort(CONFIG + ["metric"]) if rows else pl.DataFrame(schema=schema)


def versus(metrics: pl.DataFrame, iostat: pl.DataFrame, runs: pl.DataFrame, base: str = "xfs") -> pl.DataFrame:
    """Each filesystem against `base` per (mode, commitlog, load, cap, traced, metric): ratio of geometric means, its
    95 % interval (Welch t on logs) and p; null where an arm has < 2 runs or a value <= 0."""
    long = _long(metrics, iostat, runs)
    rows = []
    keys = ["mode", "commitlog", "load", "cap", "traced", "metric"]
    for key, g in long.group_by(keys, maintain_order=True):
        b = g.filter(pl.col("filesystem") == base)["value"].to_numpy().astype(float)
        for fs in sorted(set(g["filesystem"]) - {base}):
            a = g.filter(pl.col("filesystem") == fs)["value"].to_numpy().astype(float)
            ok = a.size > 1 and b.size > 1 and a.min() > 0 and b.min() > 0
            e = log_ratio(a, b) if ok else None
            rows.append(dict(zip(keys, key, strict=True)) | {
                "filesystem": fs, "base": base, "n_fs": int(a.size), "n_base": int(b.size),
                "ratio": e.value if e else (a.mean() / b.mean() if a.size and b.size and b.mean() else np.nan),
                "lo": e.lo if e else None, "hi": e.hi if e else None, "p": e.p if e else None})  # fmt: skip
    if not rows:
        return pl.DataFrame(schema={k: pl.Utf8 for k in [*keys, "filesystem"]})
    return pl.DataFrame(rows).sort([*keys, "filesystem"])
