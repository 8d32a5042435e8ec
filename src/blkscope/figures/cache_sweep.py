"""Block skew against the cache (issue P item 3; table: blkscope.analysis.characterise.cache_sweep): per traced YCSB run
under a memory cap, the fitted rank exponent, the hottest 1 % of pages' share of reads and of writes, the metadata share
and the LRU miss ratio at a cache of 10 % of the touched pages (rows), against the cache-to-data ratio and against the
data's size in 4 KiB pages (columns, log scales), a point per run coloured by database. An empty table (no sweep run
captured) draws its note. Caption and label: CAPTION, LABEL. """

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures.theme import HEADER_PT, TEXT_WIDTH_PT, Y_AXIS_PT, complete_cells, no_data, row_header

CAPTION = (
    r"Block-level skew against the cache: per traced YCSB run under a memory cap, the fitted rank exponent $s$ of "
    r"4\,KiB page accesses, the hottest 1\,\% of touched pages' share of read and of write accesses, the share of "
    r"accesses the filesystem marks as metadata, and the LRU miss ratio of a cache of 10\,\% of the touched pages, "
    r"against the ratio of the cache (the cgroup's memory cap: page cache, heap and block cache) to the data "
    r"(records $\times$ record size), and against the data's size in 4\,KiB pages; one point per run."
)
LABEL = "fig:cache-sweep"
# short row labels: the row header puts each word on a line of its own
QUANTITIES = {"s": "rank exponent", "hot1_read": "hot-1% reads", "hot1_write": "hot-1% writes",
              "meta_share": "metadata share", "miss_10pct": "miss ratio at 10%"}  # fmt: skip
XS = {"cache_to_data": "cache / data", "data_pages": "data (4 KiB pages)"}
ROW_PT = 52
# labels at powers of ten only (a log axis over less than a decade crowds its labels), ratios below 1 as decimals
# (0.01), sizes with SI prefixes (10k): one axis for both facet columns; `nice` takes each domain out to decades
LOG_LABEL = ("abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) > 1e-6 ? '' : "
             "datum.value < 1 ? format(datum.value, '~g') : format(datum.value, '~s')")


def chart(table: pl.DataFrame) -> alt.TopLevelMixin:
    if table.is_empty():
        return no_data("no sweep runs: the cache-sweep table has no rows")
    keep = [q for q in QUANTITIES if q in table.columns]
    long = (table.select("run_id", "database", *XS, *keep)
            .unpivot(index=["run_id", "database", *XS], on=keep, variable_name="q", value_name="y")
            .unpivot(index=["run_id", "database", "q", "y"], on=list(XS), variable_name="x_of", value_name="x")
            .filter(pl.col("x") > 0).drop_nulls("y"))  # fmt: skip
    if long.is_empty():
        return no_data("no run has both a cache-to-data ratio and a measured skew")
    long = long.with_columns(q=pl.col("q").replace_strict(QUANTITIES), x_of=pl.col("x_of").replace_strict(XS))
    long = complete_cells(long, "q", "x_of")
    width = (TEXT_WIDTH_PT - HEADER_PT - 2 * Y_AXIS_PT - 2 * 8 - 24) / 2
    return (
        alt.Chart(long, width=width, height=ROW_PT)
        .mark_point(filled=True, size=18, opacity=0.8)
        .encode(x=alt.X("x:Q", scale=alt.Scale(type="log", nice=True), title=None,
                        axis=alt.Axis(labelExpr=LOG_LABEL, tickCount=4)),
                y=alt.Y("y:Q", title=None, axis=alt.Axis(tickCount=3)),
                color=alt.Color("database:N", title=None, legend=alt.Legend(orient="top")))
        .facet(row=alt.Row("q:N", sort=list(QUANTITIES.values()), title=None, header=row_header()),
               column=alt.Column("x_of:N", sort=list(XS.values()), title=None), spacing=8)
        .resolve_scale(x="independent", y="independent")
    )  # fmt: skip
