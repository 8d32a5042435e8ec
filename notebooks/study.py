# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # One study we build on, re-tested
# Executed by papermill once per study (parameter `study`): the study's claims as the pipeline judged
# them, and the runs and metrics behind them.

# %% tags=["parameters"]
study = "journal study"
analysis_dir = "data/processed/analysis"

# %%
from pathlib import Path

import polars as pl

A = Path(analysis_dir)
claims = pl.read_parquet(A / "claims.parquet").filter(pl.col("study") == study)
claims.select("claim_id", "claim", "band", "ours", "n", "n_needed", "load", "verdict", "reason", "measurement", "test")

# %% [markdown]
# Workloads behind the study's claims, mean over repeats per configuration and load level (light: rate-limited;
# saturating: no limit, the studies' condition).

# %%
WORKLOADS = {"SSD study": ["ycsb", "fio", "cassandra"], "commitlog study": ["cassandra", "fio", "journal"],
             "journal study": ["journal"], "MySQL study": ["sysbench"],
             "Cassandra guide": ["fio", "sysbench", "journal"]}
metrics = pl.read_parquet(A / "workload_metrics.parquet").filter(pl.col("workload").is_in(WORKLOADS.get(study, [])))
(
    metrics.group_by("workload", "job", "load", "filesystem", "testbed", "traced", "metric")
    .agg(pl.col("value").mean().alias("mean"), pl.col("value").std().alias("sd"), pl.len().alias("n"))
    .sort("workload", "job", "metric", "filesystem", "load", "testbed", "traced")  # every key: one order each run
)

# %% [markdown]
# iostat per configuration: mean queue size and write merges (the commitlog study's evidence).

# %%
io = pl.read_parquet(A / "iostat_summary.parquet").filter(
    pl.col("workload").is_in(WORKLOADS.get(study, [])) & pl.col("metric").is_in(["aqu_sz", "wrqm_s", "w_await_ms"])
)
io.group_by("workload", "job", "filesystem", "metric").agg(pl.col("mean").mean(), pl.len().alias("n")).sort(
    "workload", "job", "metric", "filesystem"
)
