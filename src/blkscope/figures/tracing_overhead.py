"""Tracing overhead: throughput lost to tracing, 1 - traced / untraced ops/s, per setup (rows) and filesystem,
with the bootstrap 95% interval over repeats as a bar; n of each arm in the tooltip. An empty overhead table
(no configuration with both traced and untraced runs) gives a chart that says so. Caption and label: CAPTION, LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures.theme import COLUMN_WIDTH_PT, fs_color, no_data

CAPTION = (
    r"Throughput lost to block tracing: $1 - \overline{\text{traced}}/\overline{\text{untraced}}$ operations per "
    r"second of the workload, per setup and filesystem, host loop devices with the tracefs \texttt{blk} tracer "
    r"(the emulated guest's timings say nothing about overhead). "
    r"Points: the estimate; bars: percentile-bootstrap 95\% intervals resampling the repeats of each arm (a single "
    r"repeat per arm gives no interval). Positive values: tracing slowed the workload."
)
LABEL = "fig:tracing-overhead"
WIDTH = COLUMN_WIDTH_PT  # the space the figure is printed in (theme)
NO_PAIRS = "no paired runs: no configuration has both traced and untraced runs"
LABEL_PT = 95  # the setup labels left of the plot


# mount options every run has, or the filesystem's default anyway (ext4 data=ordered, xfs inode64 since Linux 3.7)
DEFAULT_OPTIONS = ["", "noatime", "defaults", "data=ordered", "inode64"]


def _options() -> pl.Expr:
    """Mount options that set a configuration apart (` data=writeback`); noatime is every run's."""
    opts = pl.col("mount_options").fill_null("").str.split(",").list.eval(
        pl.element().filter(~pl.element().is_in(DEFAULT_OPTIONS))).list.join(",")  # fmt: skip
    return pl.when(opts != "").then(" " + opts).otherwise(pl.lit(""))


def chart(overhead: pl.DataFrame) -> alt.TopLevelMixin:
    """`overhead` is the overhead analysis table (workload, job, filesystem, testbed, n_traced, n_untraced,
    overhead, overhead_lo, overhead_hi, ...)."""
    if overhead.is_empty() or "overhead" not in overhead.columns:
        return no_data(NO_PAIRS)
    if "mount_options" not in overhead.columns:
        overhead = overhead.with_columns(mount_options=pl.lit(""))
    if "commitlog" not in overhead.columns:
        overhead = overhead.with_columns(commitlog=pl.lit(None, pl.Utf8))
    if "testbed" in overhead.columns and (overhead["testbed"] == "loop").any():
        overhead = overhead.filter(pl.col("testbed") == "loop")  # guest timings are emulated: no overhead from them
    df = overhead.with_columns(
        # Cassandra's commitlog modes are configurations of their own: without it their rows would overlap
        setup=pl.col("workload") + " " + pl.col("job") + _options()
        + pl.when(pl.col("commitlog").is_not_null()).then(" " + pl.col("commitlog")).otherwise(pl.lit(""))
        + pl.when(pl.col("testbed") == "loop").then(pl.lit("")).otherwise(" (" + pl.col("testbed") + ")"),
        fs=pl.col("filesystem"),
        pct=pl.col("overhead") * 100, lo=pl.col("overhead_lo") * 100, hi=pl.col("overhead_hi") * 100,
    ).select("setup", "fs", "pct", "lo", "hi", "n_traced", "n_untraced")  # fmt: skip
    setups = sorted(df["setup"].unique().to_list())
    color = fs_color(df["fs"])
    base = alt.Chart(df, width=WIDTH - LABEL_PT - 12, height=11 * len(setups))
    # a label cut at labelLimit gets an ellipsis drawn past it: keep the limit inside the extent
    axis = alt.Axis(labelLimit=LABEL_PT - 8, minExtent=LABEL_PT, maxExtent=LABEL_PT)
    y = alt.Y("setup:N", sort=setups, title=None, axis=axis)
    off = alt.YOffset("fs:N")
    x = alt.X("pct:Q", title="throughput lost to tracing (%)")
    tip = ["setup:N", "fs:N", "pct:Q", "lo:Q", "hi:Q", "n_traced:Q", "n_untraced:Q"]
    zero = alt.Chart().mark_rule(color="#888888", strokeWidth=0.5).encode(x=alt.datum(0))
    bars = base.mark_rule(strokeWidth=1.2).encode(x=alt.X("lo:Q"), x2="hi:Q", y=y, yOffset=off, color=color)
    points = base.mark_point(size=14, filled=True).encode(x=x, y=y, yOffset=off, color=color, tooltip=tip)
    return alt.layer(zero, bars, points)
