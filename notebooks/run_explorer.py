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
# # Run explorer
# One run, all its tables: what was captured (run.yaml), what the ingest saw (ingest.json), the block
# events, iostat and the workload's own report. Executed by papermill for the runs listed in the config
# (`explore_runs`); open it in JupyterLab and set `run_id` to look at any other run.

# %% tags=["parameters"]
run_id = "host-ext4-fio-randrw-r1"
raw_dir = "data/raw"
processed_dir = "data/processed"

# %%
import json
from pathlib import Path

import polars as pl
import yaml

from blkscope.io import read_noted

raw = Path(raw_dir) / run_id
proc = Path(processed_dir) / run_id
meta = yaml.safe_load((raw / "run.yaml").read_text())
# a captured run: where and when; an imported one: its provenance (`blkscope import`)
{k: meta.get(k) for k in ("run_id", "kernel", "start_utc", "end_utc", "teardown", "run", "imported") if k in meta}

# %% [markdown]
# What each ingest reported: rows per table, warnings, and anything it did not know.

# %%
for report in sorted(proc.glob("*/ingest.json")):
    r = json.loads(report.read_text())
    print(report.parent.name, r["format"], r["rows"], "warnings:", len(r["warnings"]), "unknown:", r["unknown"])

# %% [markdown]
# Block events by action (if the run was traced).

# %%
events = proc / "trace" / "events.parquet"
if events.exists():
    ev = pl.scan_parquet(events)
    display(ev.group_by("action").agg(pl.len().alias("events"), pl.col("nsectors").sum()).sort("events", descending=True).collect())  # noqa: F821,E501
else:
    print("untraced run: no block events")

# %% [markdown]
# iostat over the run (since-boot report dropped).

# %%
if (proc / "iostat" / "iostat.parquet").exists():
    io = pl.read_parquet(proc / "iostat" / "iostat.parquet").filter(~pl.col("since_boot").fill_null(False))
    display(io.select("sample", "device", "r_s", "w_s", "wkb_s", "aqu_sz", "w_await_ms", "util_pct"))  # noqa: F821
else:
    print("no iostat log with this run")

# %% [markdown]
# The workload's own report.

# %%
# only the ingested tables (a folder with an ingest report), which the job reads: the analyses' tables beside them
# are written by other jobs, so listing them made the page depend on which ran first
for report in sorted(proc.glob("*/ingest.json")):
    for table in sorted(report.parent.glob("*.parquet")):
        if table.parent.name not in ("trace", "iostat"):
            print(table.relative_to(proc))
            display(read_noted(table).head(10))  # noqa: F821
