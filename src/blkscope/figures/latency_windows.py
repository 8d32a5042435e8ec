"""The device's tail over time: the D2C 99th percentile of every window (blkscope characterise --latency-windows,
100 ms in the workflow: read from the window's histogram, all requests), a line per host run coloured by
filesystem, one panel per representative setup (blkscope.figures.select), log axis. Caption and label: CAPTION,
LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, facet_header, fs_color, log_axis, no_data

CAPTION = (
    r"D2C (device service time) 99th percentile per 100\,ms of the run, read from that window's latency "
    r"histogram (all requests completed in it; windows with fewer than 100 completions left out); one line per "
    r"traced host run, coloured by filesystem, one panel per workload. Percentiles of longer windows are read "
    r"from the summed histograms, not averaged. Every setup is in the \texttt{all\_setups} notebook of the "
    r"artifact (Appendix~\ref{app:data})."
)
LABEL = "fig:latency-windows"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
MIN_N = 100  # a window's p99 from fewer completions is its maximum or close to it


def chart(table: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`table` is the figdata-latency-windows table (META, stage, op, class, window, start_s, n, p99_us, ...)."""
    if table.is_empty() or "stage" not in table.columns:
        return no_data("no traced runs: no latency per second")
    df = table.filter((pl.col("stage") == "d2c") & (pl.col("n") >= MIN_N) & (pl.col("testbed") == "loop"))
    setups = select.representative(df) if setups is None else setups
    df = select.keep(df, setups)
    if df.is_empty():
        return no_data(f"no window with {MIN_N} or more completions in the chosen setups")
    ncol = 2
    w = (WIDTH - ncol * (Y_AXIS_PT + 25)) / ncol  # each panel has its own y axis
    data = df.select("run_id", "fs", "setup", "start_s", "p99_us")
    return (
        alt.Chart(data, width=w, height=70)
        .mark_line(strokeWidth=0.8, opacity=0.8, point=alt.OverlayMarkDef(size=4))
        .encode(
            x=alt.X("start_s:Q", title="time (s)", axis=alt.Axis(tickCount=4)),
            y=alt.Y("p99_us:Q", scale=alt.Scale(type="log"),
                    axis=log_axis(df["p99_us"].max(), "D2C p99 (µs)", 70, min_gap=10)),
            color=fs_color(df["fs"]), detail="run_id:N",
        )
        .facet(facet=alt.Facet("setup:N", sort=setups, title=None, header=facet_header()),
               columns=ncol, spacing=8)
        .resolve_scale(x="independent", y="independent")
    )  # fmt: skip
