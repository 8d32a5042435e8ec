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
# # Access patterns per filesystem
# Explore the page-access analysis of the captured runs. Executed by papermill from the
# workflow (`notebooks/executed/access_patterns.ipynb`); run it yourself in JupyterLab with
# other parameters to look at your own runs.

# %% tags=["parameters"]
analysis_dir = "data/processed/analysis"
job = "randrw"
op = "all"

# %%
from pathlib import Path

import altair as alt
import polars as pl

from blkscope.figures.theme import filesystem_scale
from blkscope.io import read_noted

summary = read_noted(Path(analysis_dir) / "run_summary.parquet")
rank = read_noted(Path(analysis_dir) / "rank_frequency.parquet")
summary.select("run_id", "filesystem", "job", "repeat", "events", "completions", "pages_touched", "top1pct_share")

# %% [markdown]
# Share of accesses to the hottest 1 % of pages, per filesystem and job (mean over repeats).

# %%
summary.group_by("filesystem", "job").agg(
    pl.col("top1pct_share").mean().alias("top1pct_share_mean"),
    pl.col("top1pct_share").min().alias("min"),
    pl.col("top1pct_share").max().alias("max"),
    pl.len().alias("n"),
).sort("job", "filesystem")

# %%
sel = rank.filter((pl.col("job") == job) & (pl.col("op") == op))
fss = sorted(sel["filesystem"].unique().to_list())
alt.Chart(sel.to_pandas()).mark_line().encode(
    x=alt.X("rank:Q", scale=alt.Scale(type="log")),
    y=alt.Y("count:Q", scale=alt.Scale(type="log")),
    color=alt.Color("filesystem:N", scale=filesystem_scale(fss)),
    detail="run_id:N",
).properties(title=f"{job}, {op}: accesses per 4 KiB page by rank")
