"""Request sizes over time, as the filesystem queued them (Q) and as the block layer issued them (D): the median
size of each second's data requests (blkscope characterise --throughput: exact, from the second's sizes), reads
and writes apart, a line per traced host run coloured by filesystem, one row per representative setup
(blkscope.figures.select). A D line above its Q line: requests were merged; below: split. Caption and label:
CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import HEADER_PT, TEXT_WIDTH_PT, Y_AXIS_PT, complete_cells, fs_color, no_data, row_header

CAPTION = (
    r"Request sizes over time: the median size of the data requests (without the metadata mark) of each second "
    r"of the run, as the filesystem queued them (Q, dashed) and as they were issued to the device (D, solid), "
    r"reads and writes apart; one line per traced host run, coloured by filesystem, one row per setup. A median "
    r"counts requests, not bytes: D above Q can be merging, or large queued writes, each split into more issued "
    r"ones, among small queued ones; \#Q/\#D of the same writes tells which (Section~\ref{sec:characterisation}). "
    r"Metadata requests and every setup are in the "
    r"\texttt{all\_setups} notebook of the artifact (Appendix~\ref{app:data})."
)
LABEL = "fig:size-over-time"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
ACTIONS = {"Q": "queued (Q)", "D": "issued (D)"}
ACTION_DASH = {"issued (D)": [1, 0], "queued (Q)": [3, 2]}
OPS = ["read", "write"]
KIB_TICKS = [1, 8, 64, 512, 4096]
# a row's height: four ticks of a log axis legible, and the figure on one appendix page with the I/O map
ROW_PT = 36


def _drawable(table: pl.DataFrame, cls: str = "data") -> pl.DataFrame:
    """The host rows of class `cls`, queued or issued, with a size."""
    return table.filter((pl.col("testbed") == "loop") & (pl.col("class") == cls)
                        & pl.col("action").is_in(list(ACTIONS)) & (pl.col("median_kib") > 0))  # fmt: skip


def _reads_and_writes(df: pl.DataFrame) -> pl.DataFrame:
    """The rows of the setups that issue both reads and writes, the figure's two columns: a write-only setup (fio's
    appends, the journal's; the e2e miniature chose both) would leave its read panel empty, which a figure job
    refuses (panels.check_panels). All rows when no setup issues both: the columns are then the ops issued."""
    ops = df.filter(pl.col("op").is_in(OPS)).group_by("setup").agg(pl.col("op").n_unique())
    both = ops.filter(pl.col("op") == len(OPS))["setup"].to_list()
    return df.filter(pl.col("setup").is_in(both)) if both else df


def caption(table: pl.DataFrame) -> str:
    """CAPTION and the setups drawn (select.shown)."""
    if "median_kib" not in table.columns:
        return f"{CAPTION} {select.shown([])}".rstrip()
    df = _drawable(table)
    return f"{CAPTION} {select.shown(select.representative(_reads_and_writes(df)), df)}".rstrip()


def chart(table: pl.DataFrame, setups: list[str] | None = None, cls: str = "data") -> alt.TopLevelMixin:
    """`table` is the figdata-request-size-over-time table (META, action, op, class, bin, start_s, requests,
    median_kib, ...); `cls`: the class of requests drawn (data, or meta: `M` in RWBS)."""
    if table.is_empty() or "median_kib" not in table.columns:
        return no_data("no traced runs: no request sizes over time")
    df = _drawable(table, cls)
    setups = select.representative(_reads_and_writes(df)) if setups is None else setups
    df = select.keep(df, setups)
    if df.is_empty():
        return no_data(f"no queued or issued {cls} requests in the chosen host setups")
    w = (WIDTH - HEADER_PT - Y_AXIS_PT - 22 - len(OPS) * 8) / len(OPS)
    df = df.with_columns(what=pl.col("action").replace_strict(ACTIONS))
    data = complete_cells(df.select("run_id", "fs", "setup", "op", "what", "start_s", "median_kib"), "setup", "op")
    top = float(df["median_kib"].max())
    return (
        alt.Chart(data, width=w, height=ROW_PT)
        .mark_line(strokeWidth=0.8, opacity=0.8, point=alt.OverlayMarkDef(size=4))
        .encode(
            x=alt.X("start_s:Q", title="time (s)", axis=alt.Axis(tickCount=4, labelOverlap=True)),
            y=alt.Y("median_kib:Q", scale=alt.Scale(type="log", base=2), title="median size (KiB)",
                    axis=alt.Axis(values=[v for v in KIB_TICKS if v <= 2 * top], format="d")),
            color=fs_color(df["fs"]),
            strokeDash=alt.StrokeDash("what:N", scale=alt.Scale(domain=list(ACTION_DASH),
                                                                range=list(ACTION_DASH.values())),
                                      title=None, legend=alt.Legend(orient="top")),
            detail="run_id:N",
        )
        .facet(row=alt.Row("setup:N", sort=setups, title=None, header=row_header()),
               column=alt.Column("op:N", sort=OPS, title=None), spacing={"row": 6, "column": 8})
        .resolve_scale(x="independent")
    )  # fmt: skip
