"""Rank-frequency of page accesses on log-log axes: a line per run, coloured by filesystem."""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, filesystem_scale, no_data

OP_ORDER = ["read", "write", "all"]
CAPTION = (
    r"Accesses per 4\,KiB page against the page's rank, log--log, one line per run, coloured by filesystem; "
    r"rows: reads, writes, all; columns: fio job (host runs)."
)
LABEL = "fig:rank"


def chart(rank: pl.DataFrame) -> alt.TopLevelMixin:
    """`rank` is the thinned analysis table: run_id, filesystem, job, repeat, op, rank, count."""
    if rank.is_empty():
        return no_data("no traced fio runs: no page access counts")
    df = rank.select("run_id", "filesystem", "job", "repeat", "op", "rank", "count").to_pandas()
    jobs = sorted(rank["job"].unique().to_list())
    fss = [f for f in ["ext4", "xfs", "btrfs", "f2fs"] if f in set(rank["filesystem"])]
    # every panel has its own y axis (independent scales) plus spacing; the row headers take ~35 pt
    ncol = max(len(jobs), 1)
    panel_w = (TEXT_WIDTH_PT - 35 - ncol * (Y_AXIS_PT + 22)) / ncol
    base = alt.Chart(df, width=panel_w, height=70).mark_line(clip=True)
    return (
        base.encode(
            x=alt.X("rank:Q", scale=alt.Scale(type="log"), title="rank of page (4 KiB)"),
            y=alt.Y("count:Q", scale=alt.Scale(type="log"), title="accesses"),
            color=alt.Color("filesystem:N", scale=filesystem_scale(fss), title=None, legend=alt.Legend(orient="top")),
            detail="run_id:N",
        )
        .facet(
            row=alt.Row("op:N", sort=OP_ORDER, title=None),
            column=alt.Column("job:N", sort=jobs, title=None),
        )
        .resolve_scale(y="independent")
    )
