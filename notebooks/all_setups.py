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
# # Every setup, every figure
# The paper's figures show the few setups that carry its argument (`blkscope.figures.select`: the skewed ones,
# one per workload). This notebook draws the same figures, with the same code, for every setup of the dataset.
# Executed by papermill from the workflow (`notebooks/executed/all_setups.ipynb`).

# %% tags=["parameters"]
figures_dir = "data/processed/figures"

# %%
from pathlib import Path

import polars as pl

from blkscope.figures import (
    frequency_of_frequency,
    io_over_time,
    metadata_vs_data,
    miss_ratio_curve,
    rank_frequency,
    seek_distance,
    zipf_ccdf,
)
from blkscope.io import read_noted


def table(name: str) -> pl.DataFrame:
    """The figure's table; runs it lacks (e.g. a trace without completions) and why are printed above it."""
    return read_noted(Path(figures_dir) / f"{name}.parquet")


def every(df: pl.DataFrame) -> list[str]:
    return sorted(df["setup"].unique().to_list()) if df.height else []


# %% [markdown]
# Rank-frequency of page accesses (paper: Figure "rank"), every traced setup.

# %%
rank = table("rank_frequency")
rank_frequency.chart(rank, every(rank))

# %% [markdown]
# Frequency of frequency (pages accessed exactly k times), every traced setup.

# %%
fof = table("frequency_of_frequency")
frequency_of_frequency.chart(fof, every(fof))

# %% [markdown]
# CCDF of accesses per page with the fitted power-law tails, every traced setup.

# %%
ccdf = table("zipf_ccdf")
zipf_ccdf.chart(ccdf, every(ccdf))

# %% [markdown]
# iostat over time, every host setup.

# %%
series = table("io_over_time")
io_over_time.chart(series, every(series.filter(pl.col("source") == "iostat")))

# %% [markdown]
# Seek distances, every traced setup.

# %%
seek = table("seek_distance")
seek_distance.chart(seek, every(seek))

# %% [markdown]
# LRU miss-ratio curves of 4 KiB pages (exact, and fixed-size SHARDS dashed), every traced setup.

# %%
if (Path(figures_dir) / "miss_ratio_curve.parquet").exists():
    mrc = table("miss_ratio_curve")
    miss_ratio_curve.chart(mrc, every(mrc))
else:
    print("no miss_ratio_curve table beside the figures (the characterisation rules have not run)")

# %% [markdown]
# Metadata against data: the metadata share of all accesses and of the hot pages' accesses, every traced setup
# (the analysis table beside the figure tables: data/processed/analysis/metadata_vs_data.parquet).

# %%
meta_path = Path(figures_dir).parent / "analysis" / "metadata_vs_data.parquet"
if meta_path.exists():
    meta = pl.read_parquet(meta_path)
    metadata_vs_data.chart(meta, every(meta))
else:
    print(f"no {meta_path} (the metadata_vs_data rule has not run)")

# %% [markdown]
# I/O maps (block address against time, requests issued per cell): the first repeat of every setup, one panel
# per filesystem.

# %%
from IPython.display import display  # noqa: E402

from blkscope.figures import io_map  # noqa: E402

if (Path(figures_dir) / "io_map.parquet").exists():
    maps = table("io_map")
    for s in every(maps):
        display(io_map.chart(maps, s))
else:
    print("no io_map table beside the figures (the characterisation rules have not run)")

# %% [markdown]
# Request sizes (issued, per power-of-two class), the D2C p99 per 100 ms (host setups), Q2Q and idle periods,
# every traced setup.

# %%
from blkscope.figures import arrivals, latency_windows, request_sizes  # noqa: E402

for name, module in (("request_sizes", request_sizes), ("latency_windows", latency_windows), ("arrivals", arrivals)):
    if (Path(figures_dir) / f"{name}.parquet").exists():
        t = table(name)
        display(module.chart(t, every(t)))
    else:
        print(f"no {name} table beside the figures (the characterisation rules have not run)")

# %% [markdown]
# The characterisation per setup (median over repeats; the paper's Characterisation section quotes the host
# rows): request sizes, merge ratio, metadata shares, burstiness, idle share, reuse and the D2C tail per second
# (data/processed/analysis/characterisation.parquet; the columns are described in
# blkscope.analysis.characterise_summary).

# %%
char_path = Path(figures_dir).parent / "analysis" / "characterisation.parquet"
if char_path.exists():
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=250):
        display(pl.read_parquet(char_path).with_columns(pl.col(pl.Float64).round(3)))
else:
    print(f"no {char_path} (the characterise_numbers rule has not run)")
