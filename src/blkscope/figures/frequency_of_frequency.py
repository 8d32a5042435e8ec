"""Frequency of frequency of page accesses per configuration: for each access count, how many 4 KiB pages were
accessed that often, on log-log axes; rows are setups (workload and job), columns read / write / all, one line
per run, coloured by filesystem.

Proposed caption (label fig:fof):
\\caption{How many 4\\,KiB pages were accessed exactly $k$ times, against $k$ (completions, every page a
request covers), per setup (rows) and operation (columns), one line per run. A
single point at $k=1$ means every page was touched once.}\\label{fig:fof}
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
from blkscope.paper.latex import count_word

CAPTION = (
    r"How many 4\,KiB pages were accessed exactly $k$ times, against $k$ (accesses are completions; a request "
    r"counts every page it covers), per setup (rows) and operation (columns), one line per run, on log--log axes, "
    rf"for the first {count_word(select.MAX_SETUPS - 1)} setups of Figure~\ref{{fig:rank}} and, for contrast, the "
    r"host setup whose pages are revisited least (a lone point at $k=1$: every page touched once); every setup is "
    r"in the \texttt{all\_setups} notebook of the artifact "
    r"(Appendix~\ref{app:data})."
)
LABEL = "fig:fof"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
OP_ORDER = ["read", "write", "all"]


def chart(fof: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`fof` is the figdata-fof table: META columns, op, count, pages. `setups`: draw these (default: the skewed
    setups and one without skew for contrast, blkscope.figures.select.with_reference)."""
    if fof.is_empty():
        return no_data("no traced runs: no page access counts")
    setups = select.with_reference(select.top_counts(fof)) if setups is None else setups
    fof = select.keep(fof, setups)
    df = complete_cells(fof.select("run_id", "fs", "setup", "op", "count", "pages"), "setup", "op")
    ncol = len(OP_ORDER)
    panel_w = (WIDTH - Y_AXIS_PT - 12 - ncol * 8) / ncol
    base = alt.Chart(df, width=panel_w, height=40)
    enc = {
        "x": alt.X("count:Q", scale=alt.Scale(type="log"),
                   axis=log_axis(fof["count"].max(), "accesses per page k", panel_w, 22)),  # fmt: skip
        "y": alt.Y("pages:Q", scale=alt.Scale(type="log"), axis=log_axis(fof["pages"].max(), None, 40)),
        "color": fs_color(fof["fs"]),
        "detail": "run_id:N",
    }
    lines = base.mark_line(clip=True, opacity=0.8).encode(**enc)
    label = corner_label(base, "setup", panel_w, ["setup", "op"], "datum.op == 'all'")
    return (
        alt.layer(lines, base.mark_point(size=6, filled=True).encode(**enc), label)
        .facet(
            row=alt.Row("setup:N", sort=setups, title=None, header=alt.Header(labels=False)),
            column=alt.Column("op:N", sort=OP_ORDER, title=None),
            spacing={"row": 4, "column": 8},
        )
        .properties(title=small_title("pages accessed exactly k times"))
    )
