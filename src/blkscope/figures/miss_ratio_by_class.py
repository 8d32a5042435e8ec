"""LRU miss-ratio curves by class of request: all requests, data (no `M` in RWBS) and metadata (`M`, REQ_META),
each stream's profile of record (blkscope.analysis.characterise.reuse: exact, or fixed-size SHARDS where `reuse --auto`
found the trace too large), for one representative setup per workload (rows) and class (columns), a line per traced host
run coloured by filesystem. Caption and label: caption(table), LABEL. """

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.miss_ratio_curve import METHODS, method_dash, record_text
from blkscope.figures.theme import (
    HEADER_PT,
    TEXT_WIDTH_PT,
    Y_AXIS_PT,
    complete_cells,
    decades,
    fs_color,
    no_data,
    row_header,
)

CAPTION = (
    r"LRU miss ratio of 4\,KiB page accesses against the cache size by class of request: all, data (requests "
    r"without the metadata mark) and metadata (\texttt{{M}} in \texttt{{RWBS}}, REQ\_META), each its own sequence "
    r"of pages; one setup per row, one line per traced host run, coloured by filesystem. {record} A "
    r"panel without a filesystem's line: that filesystem marked none of the run's requests as metadata (the mark "
    r"is a lower bound). Every setup is in the \texttt{{all\_setups}} notebook of the artifact "
    r"(Appendix~\ref{{app:data}})."
)
LABEL = "fig:mrc-class"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
CLASSES = {"all": "all", "data": "data", "meta": "metadata"}


def _drawn(mrc: pl.DataFrame, setups: list[str] | None) -> tuple[pl.DataFrame, list[str]]:
    """The curves the figure draws (host runs, each stream's profile of record) and the setups it shows."""
    df = mrc.filter((pl.col("testbed") == "loop") & pl.col("of_record") & pl.col("method").is_in(list(METHODS))
                    & (pl.col("cache_mib") > 0))  # fmt: skip
    setups = select.representative(df) if setups is None else setups
    return select.keep(df, setups), setups


def record(mrc: pl.DataFrame, setups: list[str] | None = None) -> str:
    """Which profile is of record for the curves chart(mrc, setups) draws: the caption's sentence."""
    if mrc.is_empty() or "of_record" not in mrc.columns:  # record_text says why not
        return record_text(mrc)
    return record_text(_drawn(mrc, setups)[0], beside=False)


def caption(mrc: pl.DataFrame, setups: list[str] | None = None) -> str:
    """The caption of the figure chart(mrc, setups) draws, saying which profile is of record."""
    shown = select.shown(_drawn(mrc, setups)[1], mrc) if "of_record" in mrc.columns else ""
    return f"{CAPTION.format(record=record(mrc, setups))} {shown}".rstrip()


def chart(mrc: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`mrc` is the figdata-mrc table of the classes all, data and meta, profiles of record (META, class, method,
    size_limit, cache_mib, miss_ratio, of_record)."""
    if mrc.is_empty():
        return no_data("no traced runs: no miss-ratio curves by class")
    if "of_record" not in mrc.columns:
        return no_data("the figure data do not say which profile is of record: make them again (figdata-mrc)")
    df, setups = _drawn(mrc, setups)
    if df.is_empty():
        return no_data("no exact or fixed-size SHARDS curve of record for the chosen host setups")
    ncol = len(CLASSES)
    w = (WIDTH - HEADER_PT - Y_AXIS_PT - 22 - ncol * 8) / ncol
    df = df.with_columns(curve=pl.col("method").replace_strict(METHODS), cls=pl.col("class").replace_strict(CLASSES))
    cols = ["run_id", "fs", "setup", "cls", "curve", "cache_mib", "miss_ratio"]
    data = complete_cells(df.select(cols), "setup", "cls")
    return (
        alt.Chart(data, width=w, height=44)
        .mark_line(clip=True, strokeWidth=0.9, opacity=0.85)
        .encode(
            x=alt.X("cache_mib:Q", scale=alt.Scale(type="log"),
                    axis=alt.Axis(values=decades(df["cache_mib"].max(), w, 22, lowest=0.01), format="~g",
                                  title="cache size (MiB)")),
            y=alt.Y("miss_ratio:Q", scale=alt.Scale(domain=[0, 1]), title="miss ratio", axis=alt.Axis(tickCount=3)),
            color=fs_color(df["fs"]), strokeDash=method_dash(df), detail="run_id:N",
        )
        .facet(row=alt.Row("setup:N", sort=setups, title=None, header=row_header()),
               column=alt.Column("cls:N", sort=list(CLASSES.values()), title=None), spacing={"row": 6, "column": 8})
    )  # fmt: skip
