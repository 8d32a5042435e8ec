"""Latency stages as the journalling study shows them: for each stage of a request's life (Q2G, G2I, I2D, D2C,
Q2C, btt's names) its mean, 99.99th percentile and maximum per filesystem, one point per run, on a log axis;
columns are workloads. Host runs only (guest timings are emulated). Caption and label: CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures.names import WORKLOADS
from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, complete_cells, fs_color, log_axis, no_data, small_title

CAPTION = (
    r"Block-layer latency by stage, as the journalling study reports it: mean, 99.99th percentile and maximum of "
    r"Q2G (queued to request allocated), G2I (to inserted), I2D (to issued to the device), D2C (device service) "
    r"and Q2C (whole life), per filesystem, one point per traced host run, all requests; columns are workloads. "
    r"Guest runs are left out: their timings are emulated."
)
LABEL = "fig:latency-stages"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
STAGES = ["q2g", "g2i", "i2d", "d2c", "q2c"]
STATS = {"mean_us": "mean", "p99_99_us": "99.99th", "max_us": "max"}


def chart(latency: pl.DataFrame) -> alt.TopLevelMixin:
    """`latency` is the latency table joined with the run metadata (figdata-join)."""
    if latency.is_empty() or "stage" not in latency.columns:
        return no_data("no traced runs: no latency stages")
    df = latency.filter(pl.col("stage").is_in(STAGES) & (pl.col("testbed") == "loop") & (pl.col("n") > 0))
    if "rw" in df.columns:
        df = df.filter(pl.col("rw") == "all")
    if df.is_empty():
        return no_data("no traced host runs: no latency stages")
    long = df.unpivot(index=["run_id", "fs", "workload", "stage", "n"], on=list(STATS), variable_name="stat")
    # columns headed by the workload's plain name (names.WORKLOADS: RocksDB, Cassandra YCSB), not its id
    long = long.with_columns(pl.col("stat").replace(STATS), pl.col("stage").str.to_uppercase(),
                             pl.col("workload").replace(WORKLOADS)).filter(pl.col("value") > 0)
    workloads = sorted(long["workload"].unique().to_list())
    ncol = len(workloads)
    panel_w = (WIDTH - Y_AXIS_PT - 24 - 10 - (ncol - 1) * 6) / ncol
    base = alt.Chart(complete_cells(long, "stat", "workload"), width=panel_w, height=46)
    pts = base.mark_point(size=7, filled=True, opacity=0.8).encode(
        x=alt.X(
            "stage:N", sort=[s.upper() for s in STAGES], title=None, axis=alt.Axis(labelAngle=-90, labelFontSize=6)
        ),
        xOffset=alt.XOffset("fs:N"),
        y=alt.Y("value:Q", scale=alt.Scale(type="log"), axis=log_axis(long["value"].max(), None, 46)),
        color=fs_color(long["fs"]),
        tooltip=["run_id:N", "stage:N", "stat:N", "value:Q", "n:Q"],
    )
    return pts.facet(
        row=alt.Row("stat:N", sort=list(STATS.values()), title=None, header=alt.Header(labelPadding=2)),
        column=alt.Column("workload:N", sort=workloads, title=None),
        spacing={"row": 4, "column": 6},
    ).properties(title=small_title("latency (µs)"))
