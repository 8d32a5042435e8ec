"""When requests arrive and when the device rests: per setup, the median and 99th percentile of the Q2Q
inter-arrival times (btt's Q2Q, all Qs with data) and of the idle periods (nothing in flight), a point per
traced run coloured by filesystem, on a log axis (blkscope characterise --arrivals). Caption and label:
CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import COLUMN_WIDTH_PT, log_axis, no_data, setup_dots, two_panel_width

CAPTION = (
    r"Inter-arrival and idle times: the median (circles) and 99th percentile (triangles) of the time between "
    r"consecutive queued requests (Q2Q, reads and writes) and of the periods the device had nothing in flight, "
    r"per setup; one point per traced run, coloured by filesystem. The Q2Q coefficient of variation and the "
    r"index of dispersion (burstiness) are in the artifact's characterisation table and \texttt{all\_setups} "
    r"notebook (Appendix~\ref{app:data})."
)
LABEL = "fig:arrivals"
WIDTH = COLUMN_WIDTH_PT  # the space the figure is printed in (theme)
WHAT = {"q2q": "Q2Q inter-arrival", "idle": "idle period"}
STATS = {"p50_us": "median", "p99_us": "99th percentile"}


def chart(table: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`table` is the figdata-arrivals table (META, op, class, what, n, mean_us, cv, p50_us, ...)."""
    if table.is_empty() or "what" not in table.columns:
        return no_data("no traced runs: no inter-arrival times")
    df = table.filter((pl.col("op") == "all") & (pl.col("class") == "all") & (pl.col("n") > 0))
    setups = select.representative(df, limit=8) if setups is None else setups
    df = select.keep(df, setups)
    long = df.unpivot(index=["run_id", "fs", "setup", "what"], on=list(STATS), variable_name="stat", value_name="us")
    long = long.drop_nulls("us").filter(pl.col("us") > 0).with_columns(
        what=pl.col("what").replace_strict(WHAT), stat=pl.col("stat").replace_strict(STATS)
    )  # fmt: skip
    if long.is_empty():
        return no_data("no Q2Q or idle periods in the chosen setups")
    axis = log_axis(long["us"].max(), "µs", two_panel_width(), min_gap=18)
    x = alt.X("us:Q", scale=alt.Scale(type="log"), axis=axis)
    return setup_dots(long, setups, x, ("stat", list(STATS.values())), ("what", list(WHAT.values())),
                      alt.Scale(range=["circle", "triangle"]), legend="bottom")  # fmt: skip
