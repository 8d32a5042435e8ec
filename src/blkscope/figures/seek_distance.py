"""Seek distance and sequentiality of the requests issued to the device (D events): the distribution of the
signed distance from the previous request's end over signed log2 buckets (0: sequential; +-b: 2^(b-1) <= |d| <
2^b sectors), per setup, one line per run (all requests); and the share of sequential steps with its Wilson 95%
interval per setup and filesystem. Caption and label: CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import TEXT_WIDTH_PT, facet_header, fitted_axis, fs_color, no_data, small_title

CAPTION = (
    r"Seek distance of the requests issued to the device (D events, all requests): the share of requests whose "
    r"start lies $d$ sectors from the end of the previous one, in signed $\log_2$ buckets ($0$: sequential; $\pm b$: "
    r"$2^{b-1} \le |d| < 2^b$; negative: backwards), one panel per setup, one line per traced run (top; "
    r"every setup in the \texttt{all\_setups} notebook of the artifact (Appendix~\ref{app:data})); the share of "
    r"sequential requests with its Wilson 95\% interval, per setup and filesystem (bottom; the cache sweeps' "
    r"setups, descriptive, only in that notebook)."
    + r" Setups named as in Figure~\ref{fig:iostat}."
)
LABEL = "fig:seek-distance"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
LABEL_PT = 116  # "Cassandra YCSB small (guest)" whole (Vega measures it wider than fit_labels counts)


def _shown(seek: pl.DataFrame) -> list[str]:
    """The setups whose histograms are drawn: the representative ones of the paper's setups."""
    return select.representative(select.without_sweeps(select.ours(seek)).filter(pl.col("op") == "all"))


def caption(seek: pl.DataFrame) -> str:
    """CAPTION and the setups whose histograms are drawn (select.shown)."""
    paper = select.without_sweeps(select.ours(seek)) if not seek.is_empty() else seek
    return f"{CAPTION} {select.shown(_shown(seek) if not seek.is_empty() else [], paper)}".rstrip()


def chart(seek: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`seek` is the figdata-seek table: META columns, op, kind (hist / seq), bucket, share, n, lo, hi.
    `setups`: the histograms to draw (default: select.representative); the sequential shares show every setup."""
    # the paper's: the embedded dataset's setups, less the descriptive cache sweeps'
    seek = select.without_sweeps(select.ours(seek)) if setups is None else seek
    if seek.is_empty():
        return no_data("no traced runs: no seek distances")
    allops = seek.filter(pl.col("op") == "all")
    shown = _shown(seek) if setups is None else setups
    setups = sorted(allops["setup"].unique().to_list())
    color = fs_color(seek["fs"])
    hist = select.keep(allops.filter(pl.col("kind") == "hist"), shown)
    hist = hist.select("run_id", "fs", "setup", "bucket", "share")
    if hist.height:  # empty buckets are zero: a line must not bridge them
        lo, hi = int(hist["bucket"].min()), int(hist["bucket"].max())
        grid = (
            hist.select("run_id", "fs", "setup")
            .unique()
            .join(
                pl.DataFrame({"bucket": pl.int_range(lo, hi + 1, eager=True).cast(hist["bucket"].dtype)}), how="cross"
            )
        )
        hist = grid.join(hist, on=["run_id", "fs", "setup", "bucket"], how="left").with_columns(
            pl.col("share").fill_null(0.0)
        )
    hist = hist.sort("run_id", "bucket")
    ncol = 4  # all four histograms in one row across the page
    # both parts start their plots at LABEL_PT (vconcat aligns plot origins, so the labels below set the left)
    w = (WIDTH - LABEL_PT - 64 - (ncol - 1) * 6) / ncol  # 64: padding, the "100%" overhang and the legend
    hb = alt.Chart(hist, width=w, height=34)
    lines = hb.mark_line(strokeWidth=0.8, opacity=0.85, interpolate="step").encode(
        x=alt.X("bucket:Q", title="seek bucket b", axis=alt.Axis(tickCount=5)),
        y=alt.Y("share:Q", title=None, axis=alt.Axis(format="~%", tickCount=3)),
        color=color, detail="run_id:N",
    )  # fmt: skip
    top = lines.facet(
        facet=alt.Facet("setup:N", sort=shown, title=None, header=facet_header(labelPadding=2)),
        columns=ncol,
        spacing={"row": 4, "column": 6},
    ).properties(title=small_title("share of requests by signed log2 distance from the previous request's end"))
    seq = allops.filter(pl.col("kind") == "seq").select("run_id", "fs", "setup", "share", "lo", "hi", "n")
    sb = alt.Chart(seq, width=ncol * w + (ncol - 1) * 6, height=8 * len(setups))
    y = alt.Y(
        "setup:N", sort=setups, title=None,
        # labels shortened to fit (no two cut to the same ellipsis)
        axis=fitted_axis(setups, LABEL_PT - 8, minExtent=LABEL_PT, maxExtent=LABEL_PT),
    )
    x = alt.X(
        "share:Q", title="sequential share of requests", axis=alt.Axis(format="~%"), scale=alt.Scale(domain=[0, 1])
    )
    bottom = alt.layer(
        sb.mark_rule(strokeWidth=1).encode(x="lo:Q", x2="hi:Q", y=y, yOffset="fs:N", color=color),
        sb.mark_point(size=10, filled=True).encode(x=x, y=y, yOffset="fs:N", color=color,
                                                   tooltip=["run_id:N", "share:Q", "lo:Q", "hi:Q", "n:Q"]),
    )  # fmt: skip
    return alt.vconcat(top, bottom, spacing=10)
