"""LRU miss-ratio curves of 4 KiB pages (blkscope.analysis.reuse) for one representative setup per workload
(blkscope.figures.select.representative): miss ratio against cache size (MiB, log), a line per traced run
coloured by filesystem; the exact curve solid, fixed-size SHARDS (8,192 sampled pages) dashed over it.
Caption and label: CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, decades, fs_color, no_data

CAPTION = (
    r"LRU miss ratio of 4\,KiB page accesses (completions; a request counts every page it covers) against the "
    r"cache size, for one setup per workload; one line per traced run, coloured by filesystem. Solid: the exact "
    r"curve (Olken's stack distances); dashed: SHARDS at a fixed size of 8,192 sampled pages. Every setup is "
    r"drawn in the \texttt{all\_setups} notebook."
)
LABEL = "fig:mrc"
METHOD_DASH = {"exact": [1, 0], "shards-size": [3, 2]}


def chart(mrc: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`mrc` is the figdata-mrc table (META, method, cache_pages, cache_mib, miss_ratio)."""
    if mrc.is_empty():
        return no_data("no traced runs: no miss-ratio curves")
    setups = select.representative(mrc) if setups is None else setups
    df = select.keep(mrc, setups).filter(pl.col("method").is_in(list(METHOD_DASH)) & (pl.col("cache_mib") > 0))
    if df.is_empty():
        return no_data("no exact or fixed-size SHARDS curve for the chosen setups")
    ncol = 2
    w = (TEXT_WIDTH_PT - ncol * (Y_AXIS_PT + 12)) / ncol
    data = df.select("run_id", "fs", "setup", "method", "cache_mib", "miss_ratio").to_pandas()
    lines = alt.Chart(data, width=w, height=70).mark_line(clip=True, strokeWidth=0.9, opacity=0.85).encode(
        x=alt.X("cache_mib:Q", scale=alt.Scale(type="log"),
                axis=alt.Axis(values=decades(df["cache_mib"].max(), w, 22, lowest=0.01), format="~g",
                              title="cache size (MiB)")),
        y=alt.Y("miss_ratio:Q", scale=alt.Scale(domain=[0, 1]), title="miss ratio"),
        color=fs_color(df["fs"]),
        strokeDash=alt.StrokeDash("method:N", scale=alt.Scale(domain=list(METHOD_DASH),
                                                              range=list(METHOD_DASH.values())), title=None,
                                  legend=alt.Legend(orient="top")),
        detail="run_id:N",
    )  # fmt: skip
    return lines.facet(facet=alt.Facet("setup:N", sort=setups, title=None, header=alt.Header(labelFontSize=7)),
                       columns=ncol, spacing=8)  # fmt: skip
