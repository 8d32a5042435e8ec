"""Filesystems compared over repeats: per (workload, job, metric) every filesystem's mean with a t interval
over its repeats, and every pair of filesystems tested two ways -- Welch's t test (normal repeats, unequal
variances) and an exact permutation test of equal means (no distributional assumption; with n repeats per arm
its smallest attainable two-sided p is 2 / C(2n, n), e.g. 1/3 for n = 2 -- so tiny samples cannot reach 0.05; the table
says so through n and p_min). Metrics come in long form: run_id, metric, value.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import polars as pl

from blkscope.analysis.stats.uncertainty import mean_ci, permutation_p, welch

KEYS = ("workload", "job")


def fio_metrics(run_id: str, fio_jobs: pl.DataFrame) -> pl.DataFrame:
    """Long metrics of one run from its fio_jobs table: ops/s and mean / p99 completion latency per direction."""
    rows = []
    for r in fio_jobs.iter_rows(named=True):
        d = r["direction"]
        if d not in ("read", "write") or not r.get("iops"):
            continue
        rows += [
            (f"fio_{d}_iops", r["iops"]),
            (f"fio_{d}_lat_mean_us", (r.get("lat_mean_ns") or np.nan) / 1e3),
            (f"fio_{d}_clat_p99_us", (r.get("clat_p99_ns") or np.nan) / 1e3),
        ]
    df = pl.DataFrame(rows, schema={"metric": pl.Utf8, "value": pl.Float64}, orient="row")
    return df.group_by("metric", maintain_order=True).agg(pl.col("value").sum()).with_columns(run_id=pl.lit(run_id))


def per_filesystem(metrics: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """Mean of each metric per filesystem over repeats, with its 95% t interval and n."""
    df = metrics.join(runs.select("run_id", *KEYS, "filesystem"), on="run_id", maintain_order="left")
    rows = []
    for key, g in df.group_by([*KEYS, "metric", "filesystem"], maintain_order=True):
        m, lo, hi = mean_ci(g["value"].to_numpy())
        rows.append(dict(zip([*KEYS, "metric", "filesystem"], key, strict=True)) | {
            "n": g.height, "mean": m, "lo": lo, "hi": hi, "sd": float(g["value"].std()) if g.height > 1 else None,
        })  # fmt: skip
    return pl.DataFrame(rows).sort([*KEYS, "metric", "filesystem"])


def pairwise(metrics: pl.DataFrame, runs: pl.DataFrame, seed: int = 0) -> pl.DataFrame:
    """Every pair of filesystems per (workload, job, metric): difference of means, Welch t and permutation p."""
    df = metrics.join(runs.select("run_id", *KEYS, "filesystem"), on="run_id", maintain_order="left")
    rows = []
    for key, g in df.group_by([*KEYS, "metric"], maintain_order=True):
        fs = sorted(g["filesystem"].unique().to_list())
        for a, b in itertools.combinations(fs, 2):
            x = g.filter(pl.col("filesystem") == a)["value"].to_numpy()
            y = g.filter(pl.col("filesystem") == b)["value"].to_numpy()
            ok = x.size > 1 and y.size > 1
            t, p = welch(x, y) if ok else (np.nan, np.nan)
            rows.append(dict(zip([*KEYS, "metric"], key, strict=True)) | {
                "fs_a": a, "fs_b": b, "n_a": int(x.size), "n_b": int(y.size),
                "mean_a": float(x.mean()), "mean_b": float(y.mean()), "diff": float(x.mean() - y.mean()),
                "rel_diff": float(x.mean() / y.mean() - 1) if y.mean() else np.nan,
                "welch_t": t, "welch_p": p, "perm_p": permutation_p(x, y, seed=seed) if ok else np.nan,
                "perm_p_min": 2 / comb(x.size + y.size, x.size) if x.size and y.size else np.nan,
            })  # fmt: skip
    return pl.DataFrame(rows)
