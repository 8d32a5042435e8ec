"""Request sizes as blkiomon counts them: the share of the requests issued to the device (D) in each power-of-two
size class (4 KiB: [4, 8) KiB, ...), writes solid and reads dashed, a line per traced host run coloured by
filesystem, one panel per representative setup (blkscope.figures.select). Caption and label: CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, facet_header, fs_color, no_data

CAPTION = (
    r"Sizes of the requests issued to the device (D): the share of a run's reads (dashed) or writes (solid) in "
    r"each power-of-two size class (4\,KiB stands for 4 to 8\,KiB), data and metadata together; one line per "
    r"traced host run, coloured by filesystem, one panel per setup. Every setup is in the "
    r"\texttt{all\_setups} notebook of the artifact (Appendix~\ref{app:data})."
)
LABEL = "fig:request-sizes"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
OP_DASH = {"write": [1, 0], "read": [3, 2]}


def shares(table: pl.DataFrame) -> pl.DataFrame:
    """Per run and op: requests per power-of-two size class (KiB) and their share of the run's requests of the op;
    the classes between a run's smallest and largest with no request are there with 0 (as seek_distance's empty
    buckets): a line must not bridge them."""
    b = table.with_columns(size_class=pl.col("size_kib").log(2).floor().cast(pl.Int64))
    key = ["run_id", "fs", "setup", "op"]
    g = b.group_by(*key, "size_class").agg(pl.col("requests").sum())
    grid = (
        g.group_by(key).agg(size_class=pl.int_ranges(pl.col("size_class").min(), pl.col("size_class").max() + 1))
        .explode("size_class")
    )  # fmt: skip
    g = grid.join(g, on=[*key, "size_class"], how="left").with_columns(
        pl.col("requests").fill_null(0), size_class=2.0 ** pl.col("size_class")
    )
    return g.with_columns(share=pl.col("requests") / pl.col("requests").sum().over("run_id", "op")).sort(
        "run_id", "op", "size_class"
    )


def _host(table: pl.DataFrame) -> pl.DataFrame:
    return table.filter((pl.col("testbed") == "loop") & (pl.col("size_kib") > 0))


def caption(table: pl.DataFrame) -> str:
    """CAPTION and the setups drawn (select.shown)."""
    if "size_kib" not in table.columns:
        return f"{CAPTION} {select.shown([])}".rstrip()
    return f"{CAPTION} {select.shown(select.representative(_host(table)), _host(table))}".rstrip()


def chart(table: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`table` is the figdata-request-sizes table (META, action, op, class, size_kib, requests)."""
    if table.is_empty() or "size_kib" not in table.columns:
        return no_data("no traced runs: no request sizes")
    host = _host(table)
    setups = select.representative(host) if setups is None else setups
    df = shares(select.keep(host, setups))
    if df.is_empty():
        return no_data("no issued requests in the chosen setups")
    ncol = 2
    w = (WIDTH - ncol * (Y_AXIS_PT + 14)) / ncol
    return (
        alt.Chart(df, width=w, height=70)
        .mark_line(strokeWidth=0.8, opacity=0.8, point=alt.OverlayMarkDef(size=5))
        .encode(
            x=alt.X("size_class:Q", scale=alt.Scale(type="log", base=2), title="request size (KiB)",
                    axis=alt.Axis(values=[1, 8, 64, 512], format="d", labelOverlap=True)),
            y=alt.Y("share:Q", scale=alt.Scale(domain=[0, 1]), title="share of requests", axis=alt.Axis(tickCount=3)),
            color=fs_color(df["fs"]),
            strokeDash=alt.StrokeDash("op:N", scale=alt.Scale(domain=list(OP_DASH), range=list(OP_DASH.values())),
                                      title=None, legend=alt.Legend(orient="top")),
            detail="run_id:N",
        )
        .facet(facet=alt.Facet("setup:N", sort=setups, title=None, header=facet_header()),
               columns=ncol, spacing=8)
    )  # fmt: skip
