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
# # The commitlog study, re-tested on Cassandra
# ext4 against xfs for Cassandra commitlogs: the study read about 4x the ops/s on ext4 with uncompressed
# (memory-mapped) segments, the same with LZ4 compression, and a deeper device queue on ext4 (avgqu-sz 1.43 vs
# 0.45). Here: our cassandra-stress runs per configuration (mean over repeats with 95 % t intervals), each
# filesystem against xfs, iostat's queue size and write merges, the cost of tracing Cassandra, and the claims
# table's verdicts. Executed by papermill (parameter `analysis_dir`); the tables come from
# `blkscope cassandra-summary`, `overhead` and `claims`.

# %% tags=["parameters"]
analysis_dir = "data/processed/analysis"

# %%
from pathlib import Path

import polars as pl

A = Path(analysis_dir)
summary = pl.read_parquet(A / "cassandra_summary.parquet")
versus = pl.read_parquet(A / "cassandra_versus.parquet")
print(f"{summary.filter(pl.col('metric') == 'ops_s')['n'].sum() if summary.height else 0} Cassandra runs in "
      f"{summary.filter(pl.col('metric') == 'ops_s').height} configurations")

# %% [markdown]
# ## Claims
# The claimed size beside our estimate; `replicates` needs our interval inside the claimed size, `does not` an
# interval wholly outside it (TOST with a +-10 % margin for "the same").

# %%
claims = pl.read_parquet(A / "claims.parquet").filter(
    (pl.col("study") == "commitlog study") | pl.col("claim_id").str.starts_with("S1-trace-cass")
)
claims.select("claim_id", "claim", "band", "ours", "n", "n_needed", "load", "verdict")

# %% [markdown]
# ## Throughput and latency per configuration (untraced runs: the study did not trace)
# `ops_s_cv`: how much the per-second op/s of cassandra-stress's intervals varied within a run (sd / mean).

# %%
STRESS = ["ops_s", "lat_mean_us", "lat_p95_us", "lat_p99_us", "lat_p999_us", "ops_s_cv"]
if summary.height:
    table = (
        summary.filter(~pl.col("traced") & pl.col("metric").is_in(STRESS))
        .with_columns(value=pl.format("{} [{}, {}]", pl.col("mean").round(1), pl.col("lo").round(1),
                                      pl.col("hi").round(1)))
        .pivot(on="metric", index=["mode", "commitlog", "load", "cap", "filesystem", "n"], values="value")
        .sort("mode", "commitlog", "load", "cap", "filesystem")
    )
else:
    table = pl.DataFrame({"note": ["no Cassandra runs in this dataset"]})
table  # noqa: B018 (the notebook shows it)

# %% [markdown]
# ## Each filesystem against xfs: ratio of geometric means over repeats (95 % Welch interval on logs)

# %%
(
    versus.filter(pl.col("metric").is_in(["ops_s", "lat_p99_us", "aqu_sz", "wrqm_s"]))
    .sort("mode", "commitlog", "load", "cap", "traced", "metric", "filesystem")
    if versus.height
    else versus
)

# %% [markdown]
# ## Device queue and write merges (iostat -x, mean over each run's reports, then over repeats)

# %%
(
    summary.filter(pl.col("metric").is_in(["aqu_sz", "wrqm_s", "w_s", "wkb_s", "util_pct"]))
    .select("mode", "commitlog", "load", "cap", "traced", "filesystem", "metric", "n", "mean", "lo", "hi")
    .sort("mode", "commitlog", "load", "cap", "traced", "metric", "filesystem")
    if summary.height
    else summary
)

# %% [markdown]
# ## What tracing costs Cassandra (1 - traced/untraced ops/s within a capture batch, bootstrap interval over repeats)

# %%
ov = pl.read_parquet(A / "overhead.parquet")
(
    ov.filter(pl.col("workload") == "cassandra").select(
        "job", "commitlog", "load", "cap", "filesystem", "batch", "arms", "n_traced", "n_untraced", "overhead",
        "overhead_lo", "overhead_hi",
    )
    if ov.height and "workload" in ov.columns and "arms" in ov.columns
    else pl.DataFrame({"note": ["no paired traced/untraced Cassandra runs"]})
)
