"""Rank-frequency of page accesses on log-log axes for the setups that have skew (pages revisited: YCSB, the
saturating fio jobs over a small working set), chosen from the data by blkscope.figures.select.skewed; rows are
setups, columns read / write / all, a line per run coloured by filesystem. Caption and label: caption(table)
(CAPTION, then the setups not drawn and how often their runs' hottest page is accessed, read from the figure
data), LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import (
    TEXT_WIDTH_PT,
    Y_AXIS_PT,
    complete_cells,
    corner_label,
    fs_color,
    log_axis,
    no_data,
    small_title,
)

OP_ORDER = ["read", "write", "all"]
CAPTION = (
    r"Rank--frequency of 4\,KiB page accesses (completions; a request counts every page it covers) for the setups "
    r"whose pages are revisited (the hottest page of the median run accessed at least "
    f"{select.SKEW_MIN_TOP_COUNT}"
    r" times), log--log, one line "
    r"per traced run, coloured by filesystem; rows: setups, columns: reads, writes, all."
)
LABEL = "fig:rank"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)


def _with_setup(rank: pl.DataFrame) -> pl.DataFrame:
    if "setup" in rank.columns:
        return rank
    # the rank_frequency analysis table (host fio runs), as notebooks hold it
    return rank.with_columns(fs=pl.col("filesystem"), setup=pl.col("workload") + " " + pl.col("job"),
                             testbed=pl.lit("loop"))  # fmt: skip


def caption(rank: pl.DataFrame) -> str:
    """CAPTION, then the setups the figure leaves out, from the figure data: the other setups whose pages are
    revisited (past MAX_SETUPS), and the rest with the fewest and most accesses of their median run's hottest page
    (the all_setups notebook draws them all)."""
    from blkscope.paper.latex import counted, fmt_float, join_and

    if rank.is_empty():
        return CAPTION + " No traced run: nothing is drawn."
    top = select.ours(select.top_counts(_with_setup(rank)))
    drawn, revisited = select.skewed(top), select.skewed(top, limit=top.height)
    # the rest by their median run, as the rule reads them
    rest = top.filter(~pl.col("setup").is_in(revisited)).group_by("setup").agg(pl.col("top_count").median())
    others = len(revisited) - len(drawn)
    parts = [f"{counted(others, 'other setup', 'other setups')} whose pages are revisited"] if others else []
    if not rest.is_empty():
        lo, hi = (fmt_float(v, 0 if float(v).is_integer() else 1) for v in (rest["top_count"].min(),
                                                                             rest["top_count"].max()))
        times = "once" if hi == "1" else f"{lo} times" if lo == hi else f"{lo} to {hi} times"
        n = counted(rest.height, "setup", "setups")
        parts.append(f"{n} whose median run's hottest page is accessed {times}")
    if not parts:
        return CAPTION + " Every setup of the traced runs is drawn."
    return (f"{CAPTION} Not drawn here: {join_and(parts)}; the \\texttt{{all\\_setups}} notebook of the artifact "
            "(Appendix~\\ref{app:data}) draws every setup.")


def chart(rank: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`rank` is the figdata-rank table (META, op, rank, count). `setups`: draw these (default: the skewed ones)."""
    if rank.is_empty():
        return no_data("no traced runs: no page access counts")
    rank = _with_setup(rank)
    setups = select.skewed(select.top_counts(rank)) if setups is None else setups
    if not setups:
        return no_data(f"no setup revisits its pages (hottest page < {select.SKEW_MIN_TOP_COUNT} accesses)")
    df = select.keep(rank, setups).select("run_id", "fs", "setup", "op", "rank", "count")
    ncol = len(OP_ORDER)
    panel_w = (WIDTH - Y_AXIS_PT - 12 - ncol * 8) / ncol
    base = alt.Chart(complete_cells(df, "setup", "op"), width=panel_w, height=44)
    enc = {
        "x": alt.X("rank:Q", scale=alt.Scale(type="log"), axis=log_axis(df["rank"].max(), "rank of page", panel_w, 22)),
        "y": alt.Y("count:Q", scale=alt.Scale(type="log"), axis=log_axis(df["count"].max(), None, 44)),
        "color": fs_color(df["fs"]),
        "detail": "run_id:N",
    }
    lines = base.mark_line(clip=True, opacity=0.8, strokeWidth=0.9).encode(**enc)
    label = corner_label(base, "setup", panel_w, ["setup", "op"], "datum.op == 'all'")
    return (
        alt.layer(lines, label)
        .facet(
            row=alt.Row("setup:N", sort=setups, title=None, header=alt.Header(labels=False)),
            column=alt.Column("op:N", sort=OP_ORDER, title=None),
            spacing={"row": 4, "column": 8},
        )
        .properties(title=small_title("accesses per page, by the page's rank"))
    )
