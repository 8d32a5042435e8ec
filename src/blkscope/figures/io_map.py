"""The I/O map (as iowatcher and seekwatcher draw it): block address against time, the requests issued (D) per
cell, for the first repeat of one setup on each filesystem side by side: SETUP, the one the Characterisation
section's paragraph on where requests land quotes (its Char Map macros; tests/test_figures.py holds the two
together), or, in a dataset without it, the setup with the most distinct filesystems among the representative ones
(blkscope.figures.select). Caption and label: CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.names import plain_setup
from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, no_data

CAPTION = (
    r"I/O map: the block address (GiB from the start of the device) of the requests issued to the device (D) "
    r"against time, reads and writes, data and metadata together, in 40 by 32 cells of each run's own span; "
    r"darker cells hold more requests. The first repeat of one setup on each filesystem; every setup is in the "
    r"\texttt{all\_setups} notebook of the artifact (Appendix~\ref{app:data})."
)
LABEL = "fig:io-map"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
MAX_PANELS = 3  # runs side by side at 345 bp (and 3 x 40 x 32 cells stay within Altair's 5,000 rows)
# the colour legend beside the panels, not above them: the figure then shares an appendix page with the one before it
# (Q review: each stood alone on a page, 17 pt too tall for two)
LEGEND_PT = 56
# the setup the text's sentence on this figure describes (YCSB-A at saturation, uncapped), not the representative
# YCSB setup (the memory-capped one, whose 12 GiB of data the text does not discuss)
SETUP = ("ycsb", "workloada-zipfian-sat")


def _setup(table: pl.DataFrame) -> str | None:
    """SETUP's host label where the table has it; else, among the representative setups, the one drawn on the most
    filesystems (first in their order on a tie)."""
    named = table.filter((pl.col("workload") == SETUP[0]) & (pl.col("job") == SETUP[1]) & (pl.col("testbed") == "loop"))
    if not named.is_empty():
        return named["setup"][0]
    setups = select.representative(table)
    if not setups:
        return None
    n = {s: table.filter(pl.col("setup") == s)["fs"].n_unique() for s in setups}
    return max(setups, key=lambda s: (n[s], -setups.index(s)))


def chart(table: pl.DataFrame, setup: str | None = None) -> alt.TopLevelMixin:
    """`table` is the figdata-io-map table (META, t_lo_s, t_hi_s, gib_lo, gib_hi, requests)."""
    if table.is_empty():
        return no_data("no traced runs: no I/O map")
    setup = _setup(table) if setup is None else setup
    df = table.filter(pl.col("setup") == setup)
    if df.is_empty():
        return no_data(f"no I/O map of setup {setup}")
    runs = df.sort("repeat", "fs").unique("fs", keep="first", maintain_order=True).head(MAX_PANELS)
    df = df.filter(pl.col("run_id").is_in(runs["run_id"].implode()))
    n = runs.height
    w = (WIDTH - LEGEND_PT - n * (Y_AXIS_PT + 26)) / n  # each panel has its own address axis
    data = df.select("fs", "t_lo_s", "t_hi_s", "gib_lo", "gib_hi", "requests")
    return (
        alt.Chart(data, width=w, height=90)
        .mark_rect()
        .encode(
            x=alt.X("t_lo_s:Q", title="time (s)", axis=alt.Axis(tickCount=3, labelOverlap=True)), x2="t_hi_s:Q",
            y=alt.Y("gib_lo:Q", title="address (GiB)", axis=alt.Axis(tickCount=4, labelOverlap=True)), y2="gib_hi:Q",
            color=alt.Color("requests:Q", scale=alt.Scale(type="log", scheme="greys"), title="requests",
                            legend=alt.Legend(orient="right", gradientLength=70, gradientThickness=6)),
        )
        .facet(column=alt.Column("fs:N", title=plain_setup(setup), sort=runs["fs"].to_list(),
                                 header=alt.Header(labelFontSize=8, titleFontSize=8)), spacing=10)
        .resolve_scale(x="independent", y="independent")
    )  # fmt: skip
