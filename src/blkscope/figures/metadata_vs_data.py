"""Metadata against data (blkscope.analysis.characterise.metadata): per setup and run, the share of all page accesses
that are metadata (`M` in RWBS) and the share of the hot pages' accesses (top 1 % of pages) that are metadata, reads and
all accesses, a point per traced run coloured by filesystem. Caption and label: CAPTION, LABEL. """

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import COLUMN_WIDTH_PT, no_data, setup_dots

CAPTION = (
    r"Metadata against data: the share of 4\,KiB page accesses (completions) made by requests the filesystem "
    r"marks as metadata (\texttt{M} in \texttt{RWBS}, REQ\_META), among all accesses and among the accesses to the "
    r"hottest 1\,\% of pages, for reads and for all accesses; one point per traced run. \texttt{M} is a lower "
    r"bound: the journal and xfs do not mark all their metadata."
    + r" Setups named as in Figure~\ref{fig:iostat}."
)
LABEL = "fig:metadata"
WIDTH = COLUMN_WIDTH_PT  # the space the figure is printed in (theme)
QUANTITIES = {"meta_share": "all accesses", "hot_meta_share": "hot-page accesses"}


def chart(table: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`table` is the metadata-vs-data table joined with META (figdata-join): run_id, fs, setup, op, shares."""
    if table.is_empty():
        return no_data("no traced runs: no metadata shares")
    setups = select.representative(table, limit=8) if setups is None else setups
    df = select.keep(table, setups).filter(pl.col("op").is_in(["read", "all"]))
    long = df.unpivot(index=["run_id", "fs", "setup", "op"], on=list(QUANTITIES), variable_name="q", value_name="share")
    long = long.drop_nulls("share").with_columns(q=pl.col("q").replace_strict(QUANTITIES))
    if long.is_empty():
        return no_data("no reads or accesses with data in the chosen setups")
    x = alt.X("share:Q", scale=alt.Scale(domain=[0, 1]), title="metadata share")
    # the op legend below: beside five filesystems on top it made the figure 351 bp wide on the dataset
    return setup_dots(long, setups, x, ("op", ["read", "all"]), ("q", list(QUANTITIES.values())), legend="bottom")
