"""Throughput and latency over time: iostat writes/s and write await (w_await) per 1 s sample over the run's
elapsed seconds, one line per host run (dashed: untraced), rows are setups; below, for YCSB runs, the run
phase's ops/s and per-operation 99th percentile latency from YCSB's own status lines. Caption and label:
CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import (
    SI_LABELS,
    TEXT_WIDTH_PT,
    Y_AXIS_PT,
    complete_cells,
    corner_label,
    fs_color,
    no_data,
    own_scales,
)

CAPTION = (
    r"Throughput and latency over time on the host loop devices: iostat writes per second and write await "
    r"(\texttt{w\_await}, ms) per 1\,s report over the elapsed time of each run (solid: traced, dashed: untraced), "
    r"one row per setup with its own scales (time in seconds; every setup in the "
    r"\texttt{all\_setups} notebook of the artifact, Appendix~\ref{app:data}). Bottom: the YCSB run phase, "
    r"overall operations per second and the "
    r"99th percentile latency of each operation type as YCSB reports them every second."
)
LABEL = "fig:io-over-time"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
IOSTAT_METRICS = ["writes/s", "write await (ms)"]


def _dash() -> alt.StrokeDash:
    return alt.StrokeDash(
        "traced:N", scale=alt.Scale(domain=[True, False], range=[[1, 0], [3, 2]]),
        legend=alt.Legend(orient="top", title="traced"),
    )  # fmt: skip


def _host(series: pl.DataFrame) -> pl.DataFrame:
    """The iostat series on real time: not the emulated guest's (an imported run's machine is real; the paper's
    figure draws the embedded host runs alone, select.representative)."""
    return series.filter((pl.col("source") == "iostat") & (pl.col("testbed") != "guest")) if series.height else series


def _setups(series: pl.DataFrame) -> list[str]:
    return select.representative(_host(series))


def caption(series: pl.DataFrame) -> str:
    """CAPTION and the setups drawn (select.shown)."""
    host = _host(series)
    return f"{CAPTION} {select.shown(_setups(series) if not host.is_empty() else [], host)}".rstrip()


def chart(series: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`series` is the figdata-series table: META columns, source (iostat / ycsb), metric, elapsed_s, value.
    `setups`: the iostat rows to draw (default: one per workload, select.representative)."""
    io = _host(series)
    if io.is_empty():
        return no_data("no host runs: no iostat series")
    setups = _setups(series) if setups is None else setups
    io = select.keep(io, setups)
    ycsb = series.filter((pl.col("source") == "ycsb") & ~pl.col("metric").str.starts_with("cleanup"))
    # the YCSB series of the setups drawn above (runs of one length: one shared time axis), else every one
    shown = select.keep(ycsb, setups)
    ycsb = shown if shown.height else ycsb
    # the legend lists the filesystems drawn, not every one of the table (Q review: "ext4 wb" with no line)
    color = fs_color(pl.concat([io["fs"], ycsb["fs"]]))
    cols = ["run_id", "fs", "setup", "traced", "metric", "elapsed_s", "value"]
    panel_w = (WIDTH - 2 * Y_AXIS_PT - 20 - 8) / 2
    base = alt.Chart(complete_cells(io.select(cols), "setup", "metric"), width=panel_w, height=36)
    # runs of a few seconds beside runs of minutes: each setup its own time axis (labelled in every row)
    own_x = own_scales(io, "setup", "elapsed_s")
    x = alt.X("elapsed_s:Q", title=None if own_x else "elapsed (s)", axis=alt.Axis(tickCount=4))
    lines = base.mark_line(strokeWidth=0.8, opacity=0.8).encode(
        x=x, y=alt.Y("value:Q", title=None, axis=alt.Axis(tickCount=3, format="~s", labelExpr=SI_LABELS)), color=color,
        strokeDash=_dash(), detail="run_id:N",
    )  # fmt: skip
    first = f"datum.metric == '{IOSTAT_METRICS[0]}'"
    label = corner_label(base, "setup", panel_w, ["setup", "metric"], first, above=True)
    grid = (
        alt.layer(lines, label)
        .facet(
            row=alt.Row("setup:N", sort=setups, title=None, header=alt.Header(labels=False)),
            column=alt.Column("metric:N", sort=IOSTAT_METRICS, title=None),
            # the setup's label above each row (its lines reach every corner), below the row above's time axis
            spacing={"row": 22 if own_x else 12, "column": 8},
        )
        .resolve_scale(y="independent", x="independent" if own_x else "shared")
    )
    if ycsb.is_empty():
        return grid
    metrics = ["ops/s"] + sorted(m for m in ycsb["metric"].unique().to_list() if m != "ops/s")
    n = len(metrics)
    w = (WIDTH - n * Y_AXIS_PT - 36 - (n - 1) * 8) / n
    yb = alt.Chart(ycsb.select(cols), width=w, height=40)
    yx = alt.X("elapsed_s:Q", title="elapsed (s)", axis=alt.Axis(tickCount=4))
    ylines = yb.mark_line(strokeWidth=0.8).encode(
        x=yx, y=alt.Y("value:Q", title=None, axis=alt.Axis(tickCount=3, format="~s", labelExpr=SI_LABELS)), color=color,
        strokeDash=_dash(), detail="run_id:N",
    )  # fmt: skip
    bottom = ylines.facet(
        column=alt.Column("metric:N", sort=metrics, title=None, header=alt.Header(labelFontSize=7)),
        spacing=8,
        title=alt.TitleParams("YCSB run phase", anchor="start", fontSize=7, fontWeight="normal"),
    ).resolve_scale(y="independent")
    return alt.vconcat(grid, bottom, spacing=8)
