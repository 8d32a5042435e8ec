"""Trace size and duration: bytes of raw trace per event and per second of trace (as stored, zstd, and
uncompressed), per setup and filesystem, one point per run; the testbed is part of the setup name. Caption and
label: CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures.theme import COLUMN_WIDTH_PT, fitted_axis, fs_color, log_axis, no_data

CAPTION = (
    r"What a block trace costs to keep: bytes of trace per event (left) and per second of tracing (right), as "
    r"captured text (circles) and as stored with zstd (triangles), per setup and filesystem, one point per run, on log "
    r"axes. Duration is the span between the first and last event of the trace."
)
LABEL = "fig:trace-cost"
WIDTH = COLUMN_WIDTH_PT  # the space the figure is printed in (theme)
LABEL_PT = 70
FORMS = {"raw_bytes": "uncompressed", "stored_bytes": "zstd"}


def chart(cost: pl.DataFrame) -> alt.TopLevelMixin:
    """`cost` is the trace_cost table joined with the run metadata (figdata-join)."""
    if cost.is_empty() or "events" not in cost.columns:
        return no_data("no traced runs: no trace sizes")
    df = cost.filter(pl.col("events") > 0)
    dur = pl.col("duration_s")
    long = pl.concat([
        df.select("run_id", "fs", "setup", "events", "duration_s", form=pl.lit(name),
                  per_event=pl.col(col) / pl.col("events"), per_s=pl.col(col) / dur / 1024)
        for col, name in FORMS.items()
    ])  # fmt: skip
    setups = sorted(long["setup"].unique().to_list())
    color = fs_color(long["fs"])
    panel_w = (WIDTH - LABEL_PT - 30) / 2
    base = alt.Chart(long, width=panel_w, height=14 * len(setups))
    y = alt.Y(
        "setup:N", sort=setups, title=None, axis=fitted_axis(setups, LABEL_PT, minExtent=LABEL_PT, maxExtent=LABEL_PT)
    )
    shapes = alt.Scale(domain=list(FORMS.values()), range=["circle", "triangle-down"])
    # the forms legend below: beside the colours on top it widened the figure past a column
    shape = alt.Shape("form:N", title=None, scale=shapes, legend=alt.Legend(orient="bottom"))
    tip = ["run_id:N", "events:Q", "duration_s:Q", "per_event:Q", "per_s:Q"]

    def panel(field: str, title: str, axis_y: bool) -> alt.Chart:
        yy = y if axis_y else alt.Y("setup:N", sort=setups, axis=None)
        return base.mark_point(size=14, filled=True, opacity=0.85).encode(
            x=alt.X(f"{field}:Q", scale=alt.Scale(type="log"),
                    axis=log_axis(float(long[field].max()), title, panel_w, min_gap=18)),
            y=yy, yOffset="fs:N", color=color, shape=shape, tooltip=tip,
        )  # fmt: skip

    left = panel("per_event", "bytes per event", True)
    right = panel("per_s", "KiB per second", False)
    return alt.hconcat(left, right, spacing=10).resolve_scale(y="shared")
