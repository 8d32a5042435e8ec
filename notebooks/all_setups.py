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
# Executed by papermill from the workflow (`notebooks/executed/all_setups.ipynb`), and once per run a user imported
# on that run's own tables (`notebooks/executed/imported_<run_id>.ipynb`: its page; a view its logs cannot give,
# e.g. an untraced run's access frequency, says so).

# %% tags=["parameters"]
figures_dir = "data/processed/figures"

# %%
from pathlib import Path

import polars as pl
from IPython.display import display

from blkscope.figures import (
    frequency_of_frequency,
    io_over_time,
    metadata_vs_data,
    miss_ratio_by_class,
    miss_ratio_curve,
    rank_frequency,
    request_size_over_time,
    seek_distance,
    zipf_ccdf,
)
from blkscope.io import read_noted


def table(name: str) -> pl.DataFrame:
    """The figure's table; runs it lacks (e.g. a trace without completions) and why are printed above it."""
    return read_noted(Path(figures_dir) / f"{name}.parquet")


def every(df: pl.DataFrame) -> list[str]:
    return sorted(df["setup"].unique().to_list()) if df.height else []


def made(name: str) -> pl.DataFrame | None:
    """The figure's table (table()), or None, said, where the workflow has not made it (a run without a trace or
    an iostat log has no view of them)."""
    if (Path(figures_dir) / f"{name}.parquet").exists():
        return table(name)
    print(f"no {name} table beside the figures in {figures_dir}")
    return None


# %% [markdown]
# Rank-frequency of page accesses (paper: Figure "rank"), every traced setup.

# %%
if (rank := made("rank_frequency")) is not None:
    display(rank_frequency.chart(rank, every(rank)))

# %% [markdown]
# Frequency of frequency (pages accessed exactly k times), every traced setup.

# %%
if (fof := made("frequency_of_frequency")) is not None:
    display(frequency_of_frequency.chart(fof, every(fof)))

# %% [markdown]
# CCDF of accesses per page with the fitted power-law tails, every traced setup.

# %%
if (ccdf := made("zipf_ccdf")) is not None:
    display(zipf_ccdf.chart(ccdf, every(ccdf)))

# %% [markdown]
# iostat over time, every host setup.

# %%
if (series := made("io_over_time")) is not None:
    display(io_over_time.chart(series, every(series.filter(pl.col("source") == "iostat"))))

# %% [markdown]
# Seek distances, every traced setup.

# %%
if (seek := made("seek_distance")) is not None:
    display(seek_distance.chart(seek, every(seek)))

# %% [markdown]
# LRU miss-ratio curves of 4 KiB pages (exact solid, fixed-size SHARDS dashed), every traced setup; the line above
# the chart says which is each run's profile of record (the reuse summary's: SHARDS where the trace was too large
# for the exact profile).

# %%
if (mrc := made("miss_ratio_curve")) is not None:
    print(miss_ratio_curve.record(mrc, every(mrc)))
    display(miss_ratio_curve.chart(mrc, every(mrc)))  # a chart inside `if` is shown only by display()

# %% [markdown]
# Metadata against data: the metadata share of all accesses and of the hot pages' accesses, every traced setup
# (the analysis table beside the figure tables: data/processed/analysis/metadata_vs_data.parquet).

# %%
meta_path = Path(figures_dir).parent / "analysis" / "metadata_vs_data.parquet"
if meta_path.exists():
    meta = pl.read_parquet(meta_path)
    display(metadata_vs_data.chart(meta, every(meta)))
else:
    print(f"no {meta_path} (an untraced run has no metadata view)")

# %% [markdown]
# I/O maps (block address against time, requests issued per cell): the first repeat of every setup, one panel
# per filesystem.

# %%
from blkscope.figures import io_map  # noqa: E402

if (maps := made("io_map")) is not None:
    for s in every(maps):
        display(io_map.chart(maps, s))

# %% [markdown]
# Request sizes (issued, per power-of-two class), the D2C p99 per 100 ms (host setups), Q2Q and idle periods,
# every traced setup.

# %%
from blkscope.figures import arrivals, latency_windows, request_sizes  # noqa: E402

for name, module in (("request_sizes", request_sizes), ("latency_windows", latency_windows), ("arrivals", arrivals)):
    if (t := made(name)) is not None:
        display(module.chart(t, every(t)))

# %% [markdown]
# Request sizes over time: the median size of each second's requests as the filesystem queued them (Q, dashed) and
# as they were issued (D, solid), reads and writes apart, every host setup; first the data requests (the paper's
# figure), then the metadata requests (`M` in RWBS; a setup whose filesystem marked none says so).

# %%
if (over_time := made("request_size_over_time")) is not None:
    for cls in ("data", "meta"):
        print(f"{cls} requests")
        display(request_size_over_time.chart(over_time, every(over_time), cls=cls))

# %% [markdown]
# LRU miss-ratio curves by class (all requests, data, metadata: each its own page sequence), each stream's
# profile of record, every host setup; the line above the chart says which profile that is.

# %%
if (by_class := made("miss_ratio_by_class")) is not None:
    print(miss_ratio_by_class.record(by_class, every(by_class)))
    display(miss_ratio_by_class.chart(by_class, every(by_class)))

# %% [markdown]
# The characterisation per setup (median over repeats; the paper's Characterisation section quotes the host
# rows): request sizes, merge ratio, metadata shares, burstiness, idle share, reuse and the D2C tail per second
# (data/processed/analysis/characterisation.parquet; the columns are described in
# blkscope.analysis.characterise.characterise_summary).

# %%
char_path = Path(figures_dir).parent / "analysis" / "characterisation.parquet"
if char_path.exists():
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=250):
        display(pl.read_parquet(char_path).with_columns(pl.col(pl.Float64).round(3)))
else:
    print(f"no {char_path} (the study's alone: an imported run's page goes without)")
