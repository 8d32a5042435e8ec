"""Queue depth from D/C pairs: requests in flight over time (mean per 1 s bin, one line per run) and the share
of time spent at each depth (log axis), per job (rows) and coloured by filesystem. Caption and label: CAPTION,
LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, corner_label, fs_color, no_data, own_scales, small_title

CAPTION = (
    r"Device queue depth: requests issued and not yet completed (from D and C events), as the time-weighted mean "
    r"per 1\,s bin over the run (left) and the share of time spent at each depth (right, log scale), per job "
    r"(rows), one line per traced run."
)
LABEL = "fig:queue-depth"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)


def chart(qd: pl.DataFrame) -> alt.TopLevelMixin:
    """`qd` is the figdata-queue-depth table: META columns, kind (series / dist), x, y; the embedded dataset's
    setups (select.ours)."""
    qd = select.ours(qd)
    if qd.is_empty():
        return no_data("no traced runs: no queue depth")
    setups = sorted(qd["setup"].unique().to_list())
    color = fs_color(qd["fs"])
    cols = ["run_id", "fs", "setup", "kind", "x", "y"]
    w_series = (WIDTH - 2 * Y_AXIS_PT - 56) * 0.6
    w_dist = WIDTH - 2 * Y_AXIS_PT - 56 - w_series
    h = 40
    s = qd.filter(pl.col("kind") == "series").select(cols)
    d = qd.filter((pl.col("kind") == "dist") & (pl.col("y") > 0)).select(cols)
    # per setup its own scales where setups differ tenfold (3-s saturating runs beside 20-s light ones; depths
    # of 0.1 beside 11): a shared axis would leave the small ones slivers
    own_t, own_q, own_d = own_scales(s, "setup", "x"), own_scales(s, "setup", "y"), own_scales(d, "setup", "x")
    sb = alt.Chart(s, width=w_series, height=h)
    series = alt.layer(
        sb.mark_line(strokeWidth=0.8, opacity=0.85).encode(
            x=alt.X("x:Q", title=None if own_t else "elapsed (s)", axis=alt.Axis(tickCount=4)),
            y=alt.Y("y:Q", title=None, axis=alt.Axis(tickCount=3)),
            color=color,
            detail="run_id:N",
        ),  # fmt: skip
        corner_label(sb, "setup", w_series, ["setup"], above=True),  # above: the lines reach every corner
    ).facet(row=alt.Row("setup:N", sort=setups, title=None, header=alt.Header(labels=False)),
            spacing=24 if own_t else 14)
    series = series.resolve_scale(x="independent" if own_t else "shared", y="independent" if own_q else "shared")
    title = "requests in flight, mean per 1 s" + (", over elapsed seconds" if own_t else "")
    series = series.properties(title=small_title(title))
    db = alt.Chart(d, width=w_dist, height=h)
    dist = db.mark_line(strokeWidth=0.8, point=alt.OverlayMarkDef(size=6, filled=True), opacity=0.85).encode(
        x=alt.X("x:Q", title=None if own_d else "depth", axis=alt.Axis(tickMinStep=1, format="d", tickCount=4)),
        y=alt.Y("y:Q", scale=alt.Scale(type="log"), title=None, axis=alt.Axis(format="~g", tickCount=3)),
        color=color, detail="run_id:N",
    ).facet(row=alt.Row("setup:N", sort=setups, title=None, header=alt.Header(labels=False)),
            spacing=24 if own_t else 14)  # fmt: skip: both columns' rows at one pitch
    dist = dist.resolve_scale(x="independent" if own_d else "shared")
    dist = dist.properties(title=small_title("share of time at each depth" + (" (x: depth)" if own_d else "")))
    return alt.hconcat(series, dist, spacing=12)
