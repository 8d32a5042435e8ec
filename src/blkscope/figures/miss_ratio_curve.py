"""LRU miss-ratio curves of 4 KiB pages (blkscope.analysis.characterise.reuse) for one representative setup per workload
(blkscope.figures.select.representative): miss ratio against cache size (MiB, log), a line per traced run
coloured by filesystem; the exact curve solid, fixed-size SHARDS (8,192 sampled pages) dashed. Which of them is
each run's profile of record (the reuse summary's of_record: exact where it ran, SHARDS where `reuse --auto`
found the trace too large) is read from the data: caption(table) fills the {record} slot of CAPTION.
Caption and label: caption(table), LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, decades, facet_header, fs_color, no_data
from blkscope.paper.latex import fmt_int

CAPTION = (
    r"LRU miss ratio of 4\,KiB page accesses (completions; a request counts every page it covers) against the "
    r"cache size, one panel per setup; one line per traced run, coloured by filesystem. {record} Every "
    r"setup is drawn in the \texttt{{all\_setups}} notebook of the artifact (Appendix~\ref{{app:data}})."
)
LABEL = "fig:mrc"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
METHODS = {"exact": "exact", "shards-size": "SHARDS"}  # method -> legend label
DASH = {"exact": [1, 0], "SHARDS": [3, 2]}


def _drawn(mrc: pl.DataFrame, setups: list[str] | None) -> tuple[pl.DataFrame, list[str]]:
    """The rows the figure draws (class all; exact and fixed-size SHARDS curves) and the setups it shows."""
    if "class" in mrc.columns:
        mrc = mrc.filter(pl.col("class") == "all")
    setups = select.representative(mrc) if setups is None else setups
    df = select.keep(mrc, setups).filter(pl.col("method").is_in(list(METHODS)) & (pl.col("cache_mib") > 0))
    return df, setups


def record_text(df: pl.DataFrame, beside: bool = True) -> str:
    """Which profile stands for each drawn run (its of_record rows), said for a caption: exact for every run, SHARDS
    for every run (and why: the trace was above `reuse --auto`'s limit), or how many of each. `beside`: the curves
    that are not of record are drawn too."""
    if df.is_empty():
        return "No curve is drawn: the figure says why."
    if "of_record" not in df.columns:
        raise ValueError("the miss-ratio figure data do not say which profile is of record (written before "
                         "figdata-mrc read the reuse summaries): make them again")  # fmt: skip
    rec = df.filter(pl.col("of_record")).select("run_id", "method").unique()
    n, exact = df["run_id"].n_unique(), rec.filter(pl.col("method") == "exact").height
    sizes = df.filter(pl.col("method") == "shards-size")["size_limit"].unique().sort().to_list()
    shards = "SHARDS at a fixed size of " + " or ".join(fmt_int(s) for s in sizes) + " sampled pages"
    limit = df["exact_max_accesses"].drop_nulls().unique().sort().to_list()
    above = "no exact profile was computed for them"
    if limit:
        above = (f"their traces have more than {' or '.join(fmt_int(x) for x in limit)} page accesses, the exact "
                 r"profile's limit in \texttt{blkscope reuse --auto}")  # fmt: skip
    if exact == n:
        other = f"; dashed: {shards}, drawn over it" if beside and sizes else ""
        return rf"Solid: the exact curve (Olken's stack distances), every run's profile of record{other}."
    if exact == 0:
        return f"Dashed: {shards}, every run's profile of record ({above})."
    return (rf"Solid: the exact curve (Olken's stack distances); dashed: {shards}. The profile of record is the "
            rf"exact curve for {fmt_int(exact)} of the {fmt_int(n)} runs and SHARDS for the other "
            rf"{fmt_int(n - exact)} ({above}).")  # fmt: skip


def record(mrc: pl.DataFrame, setups: list[str] | None = None) -> str:
    """Which profile is of record for the runs chart(mrc, setups) draws: the caption's sentence."""
    return record_text(_drawn(mrc, setups)[0])


def caption(mrc: pl.DataFrame, setups: list[str] | None = None) -> str:
    """The caption of the figure chart(mrc, setups) draws, saying which profile is of record."""
    shown = select.shown(_drawn(mrc, setups)[1], mrc) if "method" in mrc.columns else ""
    return f"{CAPTION.format(record=record(mrc, setups))} {shown}".rstrip()


def method_dash(df: pl.DataFrame) -> alt.StrokeDash:
    """Dash by method (exact solid, SHARDS dashed), the legend naming only the methods drawn."""
    shown = [m for m in DASH if m in set(df["curve"])]
    return alt.StrokeDash("curve:N", scale=alt.Scale(domain=shown, range=[DASH[m] for m in shown]), title=None,
                          legend=alt.Legend(orient="top"))  # fmt: skip


def chart(mrc: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`mrc` is the figdata-mrc table (META, class, method, size_limit, cache_pages, cache_mib, miss_ratio,
    of_record)."""
    if mrc.is_empty():
        return no_data("no traced runs: no miss-ratio curves")
    df, setups = _drawn(mrc, setups)
    if df.is_empty():
        return no_data("no exact or fixed-size SHARDS curve for the chosen setups")
    ncol = 2
    w = (WIDTH - ncol * (Y_AXIS_PT + 12)) / ncol
    df = df.with_columns(curve=pl.col("method").replace_strict(METHODS))
    data = df.select("run_id", "fs", "setup", "curve", "cache_mib", "miss_ratio")
    lines = alt.Chart(data, width=w, height=70).mark_line(clip=True, strokeWidth=0.9, opacity=0.85).encode(
        x=alt.X("cache_mib:Q", scale=alt.Scale(type="log"),
                axis=alt.Axis(values=decades(df["cache_mib"].max(), w, 22, lowest=0.01), format="~g",
                              title="cache size (MiB)")),
        y=alt.Y("miss_ratio:Q", scale=alt.Scale(domain=[0, 1]), title="miss ratio"),
        color=fs_color(df["fs"]), strokeDash=method_dash(df), detail="run_id:N",
    )  # fmt: skip
    return lines.facet(facet=alt.Facet("setup:N", sort=setups, title=None, header=facet_header()),
                       columns=ncol, spacing=8)  # fmt: skip
