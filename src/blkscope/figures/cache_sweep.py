"""Block skew against the cache (issue P item 3; table: blkscope.analysis.characterise.cache_sweep): per traced YCSB run
under a memory cap or in the sweep's batch, the fitted rank exponent, the hottest 1 % of pages' share of reads and of
writes, the metadata share and the LRU miss ratio at caches of 1 % and 10 % of the touched pages (rows), against the
cache-to-data ratio, the data's size in 4 KiB pages (the key count) and the distinct pages the kept trace touched
(columns, log scales); a point per run, coloured by the database and the records loaded, shaped by the cache
(memory cap or RocksDB's block cache under O_DIRECT) and the kept trace window, whose length the counts depend on.
Runs of the sweep that are not captured yet are said in the title (never left out silently); a table without a
captured run draws its note.
Caption: caption(table), CAPTION and the runs drawn (how many, their batches and configurations, the kept trace
windows) and that the figure is descriptive (no claim reads it); label: LABEL. """

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures.names import DATABASES
from blkscope.figures.theme import HEADER_PT, TEXT_WIDTH_PT, Y_AXIS_PT, complete_cells, no_data, row_header, small_title
from blkscope.runs import uncaptured_note

CAPTION = (
    r"Block-level skew against the cache on ext4: per traced YCSB run under a memory cap or in the cache sweep, the "
    r"fitted rank exponent $s$ of 4\,KiB page accesses, the hottest 1\,\% of touched pages' share of read and of write "
    r"accesses, the share of accesses the filesystem marks as metadata, and the LRU miss ratio of caches of 1 and "
    r"10\,\% of the touched pages, against the ratio of the cache (the cgroup's memory cap: page cache, heap and "
    r"block cache; or RocksDB's block cache where it read with O\_DIRECT) to the data (records $\times$ record size), "
    r"against the data's size in 4\,KiB pages, and against the distinct pages the kept trace window touched; one "
    r"point per run, its shape the cache and the window's length."
)
LABEL = "fig:cache-sweep"
# the table's configuration columns (analysis.characterise.cache_sweep.CONFIGURATION, which a figure may not import:
# the layers of docs/ARCHITECTURE.md; tests/test_sweep_numbers.py checks the two agree)
CONFIGURATION = ["cache_kind", "cache_bytes", "recordcount"]
MIN_HOT_PAGES = 100  # the table's cache_sweep.MIN_HOT_PAGES (the same test checks it): fewer read pages, no hot share


def _window(w: float | None) -> str:
    """A kept trace window's length as a caption says it: "120\\,s", or the whole run where none was set (null)."""
    from blkscope.paper.latex import fmt_float

    return "the whole run" if w is None else f"{fmt_float(w, 0)}\\,s"


def _windows_apart(done: pl.DataFrame) -> str:
    """The configurations whose runs kept windows of different lengths (a run again with a longer window, or the
    same configuration in another study's batch), each named with its windows: both sets are drawn, by shape."""
    from blkscope.paper.latex import count_word, fmt_float, fmt_int, join_and

    by = done.group_by([*CONFIGURATION, "database"]).agg(pl.col("window_s").unique().sort(nulls_last=True)).filter(
        pl.col("window_s").list.len() > 1).sort("database", "recordcount", "cache_bytes")  # fmt: skip
    if by.is_empty():
        return ""
    cache = {"memory cap": "cap"}
    named = [f"{DATABASES.get(r['database'], r['database'])} with {fmt_int(r['recordcount'])} records under a "
             f"{fmt_float(r['cache_bytes'] / 2**20, 0)}\\,MiB {cache.get(r['cache_kind'], 'block cache')} "
             f"({join_and([_window(w) for w in r['window_s']])})" for r in by.iter_rows(named=True)]
    which = "one configuration" if by.height == 1 else f"{count_word(by.height)} configurations"
    return f" Runs of {which} kept trace windows of different lengths, each drawn: {join_and(named)}."


def caption(table: pl.DataFrame) -> str:
    """CAPTION, then the captured runs drawn: how many, of which batches and configurations, in what windows."""
    from blkscope.paper.latex import count_word, fmt_float, fmt_int

    done = table.filter(pl.col("captured")) if "captured" in table.columns else table
    if done.is_empty():
        return CAPTION + " No run is drawn: the figure says why."
    batches = done["batch"].n_unique()  # counted, not named: a batch's name is internal (pdf_text)
    w = done["window_s"].drop_nulls()
    windows = "" if w.is_empty() else (
        f"; each keeps {fmt_float(w.min(), 0)}" + ("" if w.min() == w.max() else f" to {fmt_float(w.max(), 0)}")
        + "\\,s of its trace")  # fmt: skip
    few = done["hot1_read"].null_count() if "hot1_read" in done.columns else 0
    few = "" if not few else (f" {fmt_int(few)} of them read fewer than {MIN_HOT_PAGES} pages in their window, too "
                              "few for a hottest 1\\,\\%: they have no point in the hot-1\\,\\% rows.")  # fmt: skip
    again = _windows_apart(done)
    return (f"{CAPTION} {fmt_int(done.height)} runs of {count_word(batches)} batches in "
            f"{count_word(done.select(CONFIGURATION).n_unique())} "
            f"configurations of cache, cache size and records{windows}.{few}{again} Descriptive: no claim reads this "
            "figure.")
# short row labels: the row header puts each word on a line of its own
QUANTITIES = {"s": "rank exponent", "hot1_read": "hot-1% reads", "hot1_write": "hot-1% writes",
              "meta_share": "metadata share", "miss_1pct": "miss ratio at 1%",
              "miss_10pct": "miss ratio at 10%"}  # fmt: skip
XS = {"cache_to_data": "cache / data", "data_pages": "data (4 KiB pages)", "touched_pages": "distinct pages traced"}
KINDS = {"memory cap": "memory cap", "RocksDB block cache (O_DIRECT reads)": "block cache"}
ROW_PT = 46  # six rows, a legend of two rows above and one below: within MAX_FIGURE_HEIGHT_PT
# labels at powers of ten only (a log axis over less than a decade crowds its labels), ratios below 1 as decimals
# (0.01), sizes with SI prefixes (10k): one axis for both facet columns; `nice` takes each domain out to decades
LOG_LABEL = ("abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) > 1e-6 ? '' : "
             "datum.value < 1 ? format(datum.value, '~g') : format(datum.value, '~s')")


def _labels(table: pl.DataFrame) -> pl.DataFrame:
    """Colour (records) and shape (cache, window) labels of each run."""
    window = pl.col("window_s") if "window_s" in table.columns else pl.lit(None, pl.Float64)
    return table.with_columns(
        # the database first: both databases' sweeps share the axes (RocksDB 4 M/400 k/40 k, Cassandra 7 M/700 k/70 k)
        records=pl.col("database").replace_strict(DATABASES, default=pl.col("database")) + pl.lit(", ")
        + pl.col("recordcount").map_elements(lambda n: f"{n:,} records", return_dtype=pl.Utf8),
        cache=pl.col("cache_kind").replace(KINDS) + pl.lit(", ")
        + pl.when(window.is_null()).then(pl.lit("whole run")).otherwise(window.round(1).cast(pl.Utf8) + " s window"),
    )  # fmt: skip


def chart(table: pl.DataFrame) -> alt.TopLevelMixin:
    missing = uncaptured_note(table, name_batches=False)
    done = table.filter(pl.col("captured")) if "captured" in table.columns else table
    if done.is_empty():
        return no_data(f"no sweep run captured yet ({missing})" if missing else
                       "no sweep runs: the cache-sweep table has no rows")  # fmt: skip
    keep = [q for q in QUANTITIES if q in done.columns]
    xs = [x for x in XS if x in done.columns]
    long = (_labels(done).select("run_id", "records", "cache", *xs, *keep)
            .unpivot(index=["run_id", "records", "cache", *xs], on=keep, variable_name="q", value_name="y")
            .unpivot(index=["run_id", "records", "cache", "q", "y"], on=xs, variable_name="x_of", value_name="x")
            .filter(pl.col("x") > 0).drop_nulls("y"))  # fmt: skip
    if long.is_empty():
        return no_data("no run has both a cache-to-data ratio and a measured skew")
    long = long.with_columns(q=pl.col("q").replace_strict(QUANTITIES), x_of=pl.col("x_of").replace_strict(XS))
    long = complete_cells(long, "q", "x_of")
    width = (TEXT_WIDTH_PT - HEADER_PT - len(xs) * Y_AXIS_PT - len(xs) * 8 - 24) / len(xs)
    out = (
        alt.Chart(long, width=width, height=ROW_PT)
        .mark_point(filled=True, size=18, opacity=0.8)
        .encode(x=alt.X("x:Q", scale=alt.Scale(type="log", nice=True), title=None,
                        axis=alt.Axis(labelExpr=LOG_LABEL, tickCount=4)),
                y=alt.Y("y:Q", title=None, axis=alt.Axis(tickCount=3)),
                # the two legends side by side are wider than the text: records above, caches below
                color=alt.Color("records:N", title=None, legend=alt.Legend(orient="top", columns=3)),
                # five caches and windows (Cassandra's 70 k point's long window too) overrun one row
                shape=alt.Shape("cache:N", title=None, legend=alt.Legend(orient="bottom", columns=3)))
        .facet(row=alt.Row("q:N", sort=list(QUANTITIES.values()), title=None, header=row_header()),
               column=alt.Column("x_of:N", sort=[XS[x] for x in xs], title=None), spacing=8)
        .resolve_scale(x="independent", y="independent")
    )  # fmt: skip
    return out.properties(title=small_title(missing)) if missing else out
