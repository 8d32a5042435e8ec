"""The device's tail over time: the D2C 99th percentile of every window (blkscope characterise --latency-windows,
100 ms in the workflow: read from the window's histogram, all requests), a line per host run coloured by
filesystem, one panel per representative setup (blkscope.figures.select) of which at least MIN_RUN_SHARE of the
runs hold a window of MIN_N completions, log axis; caption(table) names the setups left out and their median window.
Label: LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, facet_header, fs_color, log_axis, no_data

CAPTION = (
    r"D2C (device service time) 99th percentile per 100\,ms of the run, read from that window's latency "
    r"histogram (all requests completed in it; windows with fewer than 100 completions left out); one line per "
    r"traced host run, coloured by filesystem, one panel per setup. Percentiles of longer windows are read "
    r"from the summed histograms, not averaged. Every setup is in the \texttt{all\_setups} notebook of the "
    r"artifact (Appendix~\ref{app:data})."
)
LABEL = "fig:latency-windows"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
MIN_N = 100  # a window's p99 from fewer completions is its maximum or close to it
# a setup whose runs mostly lack such a window would be a panel of a few stray points (Cassandra's writes: a
# handful of 100-ms windows of its 18 runs): left out, and the caption says why
MIN_RUN_SHARE = 0.5


def _d2c(table: pl.DataFrame) -> pl.DataFrame:
    return table.filter((pl.col("stage") == "d2c") & (pl.col("testbed") == "loop"))


def _sparse(d2c: pl.DataFrame, setups: list[str]) -> pl.DataFrame:
    """Of the chosen setups, those with fewer than MIN_RUN_SHARE of their runs holding a window of MIN_N completions:
    setup, runs, full (runs with such a window), median_n (completions in the median window)."""
    by = (
        select.keep(d2c, setups).group_by("setup")
        .agg(runs=pl.col("run_id").n_unique(), full=pl.col("run_id").filter(pl.col("n") >= MIN_N).n_unique(),
             median_n=pl.col("n").median())
    )  # fmt: skip
    return by.filter(pl.col("full") < MIN_RUN_SHARE * pl.col("runs")).sort(pl.col("setup").replace_strict(
        {s: i for i, s in enumerate(setups)}, default=len(setups)))


def _setups(d2c: pl.DataFrame) -> list[str]:
    chosen = select.representative(d2c)
    sparse = _sparse(d2c, chosen)["setup"].to_list()
    return [s for s in chosen if s not in sparse]


def caption(table: pl.DataFrame) -> str:
    """CAPTION and what it draws; the chosen setups left out because most of their runs have no window of MIN_N
    completions, with their runs and median window (from the figure data)."""
    from blkscope.figures.names import plain_setup
    from blkscope.paper.latex import fmt_int, join_and

    if table.is_empty() or "stage" not in table.columns:
        return CAPTION + " No traced run: nothing is drawn."
    d2c = _d2c(table)
    sparse = _sparse(d2c, select.representative(d2c))
    # the workloads of the setups left out for their windows are said below, not among those not drawn
    left = d2c.filter(pl.col("setup").is_in(sparse["setup"].implode()))["workload"].unique()
    others = d2c.filter(~pl.col("workload").is_in(left.implode()))
    text = f"{CAPTION} {select.shown(_setups(d2c), others)}".rstrip()
    if sparse.is_empty():
        return text
    # short: the setups of a small dataset may all be here (the appendix page must still hold its figures)
    why = [f"{plain_setup(r['setup'])} (median window {fmt_int(r['median_n'])}; runs with a window of "
           f"{fmt_int(MIN_N)}: {fmt_int(r['full']) if r['full'] else 'none'} of {fmt_int(r['runs'])})"
           for r in sparse.iter_rows(named=True)]  # fmt: skip
    return f"{text} Not drawn, too few completions per window: {join_and(why)}."


def chart(table: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`table` is the figdata-latency-windows table (META, stage, op, class, window, start_s, n, p99_us, ...)."""
    if table.is_empty() or "stage" not in table.columns:
        return no_data("no traced runs: no latency per second")
    d2c = _d2c(table)
    setups = _setups(d2c) if setups is None else setups
    df = select.keep(d2c.filter(pl.col("n") >= MIN_N), setups)
    if df.is_empty():
        return no_data(f"no window with {MIN_N} or more completions in the chosen setups")
    ncol = 2
    w = (WIDTH - ncol * (Y_AXIS_PT + 25)) / ncol  # each panel has its own y axis
    data = df.select("run_id", "fs", "setup", "start_s", "p99_us")
    return (
        alt.Chart(data, width=w, height=70)
        .mark_line(strokeWidth=0.8, opacity=0.8, point=alt.OverlayMarkDef(size=4))
        .encode(
            x=alt.X("start_s:Q", title="time (s)", axis=alt.Axis(tickCount=4)),
            y=alt.Y("p99_us:Q", scale=alt.Scale(type="log"),
                    axis=log_axis(df["p99_us"].max(), "D2C p99 (µs)", 70, min_gap=10)),
            color=fs_color(df["fs"]), detail="run_id:N",
        )
        .facet(facet=alt.Facet("setup:N", sort=setups, title=None, header=facet_header()),
               columns=ncol, spacing=8)
        .resolve_scale(x="independent", y="independent")
    )  # fmt: skip
