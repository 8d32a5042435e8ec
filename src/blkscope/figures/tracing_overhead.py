"""Tracing overhead: throughput lost to tracing, 1 - traced / untraced ops/s, per setup (rows) and filesystem,
within a capture batch: one point per configuration and batch that holds both arms (a setup paired in two batches
has two points on its row, side by side), the bootstrap 95% interval over repeats as a bar; n of each arm in the
tooltip. Batches that hold one arm only are not drawn; `caption(table)` counts them. An empty overhead table (no
configuration with both traced and untraced runs) gives a chart that says so. Label: LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures.theme import COLUMN_WIDTH_PT, fitted_axis, fs_color, no_data

# the analysis table's configuration columns and the `arms` of a batch with traced and untraced runs
# (analysis.load.overhead.CONFIG and BOTH, which a figure may not import: tests/test_figures.py checks they agree)
CONFIG = ("workload", "job", "filesystem", "mount_options", "testbed", "load", "cap", "commitlog")
BOTH = "both"
# the `load` of a job that fixes its rate (analysis.summaries.run_groups.LIGHT): its ops/s is the rate, traced or
# not, so tracing cannot show in its throughput (Q review: most of the points at 0 are these)
LIGHT = "light"

CAPTION = (
    r"Throughput lost to block tracing: $1 - \overline{\text{traced}}/\overline{\text{untraced}}$ operations per "
    r"second of the workload, per setup and filesystem, host loop devices with the tracefs \texttt{blk} tracer "
    r"(the emulated guest's timings say nothing about overhead). "
    r"Points: the estimate; bars: percentile-bootstrap 95\% intervals resampling the repeats of each arm (a single "
    r"repeat per arm gives no interval). Positive values: tracing slowed the workload; MiB/s: a device cap's write "
    r"rate; LZ4: a compressed commitlog. Traced and untraced runs are compared within a capture batch: one point "
    r"per setup, filesystem and batch that holds both."
    + r" Setups named as in Figure~\ref{fig:iostat}."
)
LABEL = "fig:tracing-overhead"
WIDTH = COLUMN_WIDTH_PT  # the space the figure is printed in (theme)
NO_PAIRS = "no paired runs: no configuration has both traced and untraced runs"
LABEL_PT = 125  # the setup labels left of the plot ("Cassandra fixed writes 2 MiB/s LZ4" whole)


# mount options every run has, or the filesystem's default anyway (ext4 data=ordered, xfs inode64 since Linux 3.7)
DEFAULT_OPTIONS = ["", "noatime", "defaults", "data=ordered", "inode64"]


def _options() -> pl.Expr:
    """Mount options that set a configuration apart (` data=writeback`); noatime is every run's."""
    opts = pl.col("mount_options").fill_null("").str.split(",").list.eval(
        pl.element().filter(~pl.element().is_in(DEFAULT_OPTIONS))).list.join(",")  # fmt: skip
    return pl.when(opts != "").then(" " + opts).otherwise(pl.lit(""))


def _host(overhead: pl.DataFrame) -> pl.DataFrame:
    """The host rows (guest timings are emulated: no overhead from them), or all rows when none is a host's."""
    if "testbed" in overhead.columns and (overhead["testbed"] == "loop").any():
        return overhead.filter(pl.col("testbed") == "loop")
    return overhead


def _paired(overhead: pl.DataFrame) -> pl.DataFrame:
    """The strata with both arms (the analysis's `arms`; a table without it has no other rows)."""
    return overhead.filter(pl.col("arms") == BOTH) if "arms" in overhead.columns else overhead


def _config(df: pl.DataFrame) -> list[str]:
    return [c for c in CONFIG if c in df.columns]


def caption(overhead: pl.DataFrame) -> str:
    """CAPTION, then what is drawn and what is not: the batches that hold one arm of a configuration only."""
    from blkscope.paper.latex import count_word, counted, fmt_pct, join_and

    if overhead.is_empty() or "overhead" not in overhead.columns:
        return CAPTION + " No configuration has traced and untraced runs: nothing is drawn."
    host = _host(overhead)
    paired = _paired(host)
    text = f"{CAPTION} Drawn: {counted(paired.height, 'point', 'points')}"
    twice = paired.group_by(_config(paired)).len().filter(pl.col("len") > 1).height
    if twice:
        text += f"; {counted(twice, 'configuration is', 'configurations are')} paired in more than one batch"
    light = paired.filter(pl.col("load") == LIGHT) if "load" in paired.columns else paired.clear()
    if light.height:
        most = light["overhead"].drop_nulls().abs().max()
        most = f" (at most {fmt_pct(float(most))} either way)" if most is not None else ""
        text += (f"; {counted(light.height, 'is a rate-limited job', 'are rate-limited jobs')}, whose throughput "
                 f"tracing cannot change{most}")
    one = host.filter(pl.col("arms") != BOTH) if "arms" in host.columns else host.clear()
    if one.is_empty():
        return text + ". Every batch holds both arms of its configurations."
    kinds = one.group_by("arms", maintain_order=True).len()
    each = join_and([f"{count_word(n)} {a}" for a, n in kinds.iter_rows()])
    what = (f"only the {kinds['arms'][0].removesuffix(' only')} runs of a configuration" if kinds.height == 1
            else f"one arm of a configuration only ({each})")
    alone = one.join(paired, on=_config(one), how="anti", nulls_equal=True).select(_config(one))
    text += f". Not drawn: {counted(one.height, 'batch', 'batches')} holding {what}"
    if alone.height:
        text += f"; {counted(alone.n_unique(), 'configuration has', 'configurations have')} no batch with both"
    return text + "."


def chart(overhead: pl.DataFrame) -> alt.TopLevelMixin:
    """`overhead` is the overhead analysis table (workload, job, filesystem, testbed, batch, arms, n_traced,
    n_untraced, overhead, overhead_lo, overhead_hi, ...)."""
    if overhead.is_empty() or "overhead" not in overhead.columns:
        return no_data(NO_PAIRS)
    overhead = _paired(_host(overhead))
    if overhead.is_empty():
        return no_data(NO_PAIRS)
    if "mount_options" not in overhead.columns:
        overhead = overhead.with_columns(mount_options=pl.lit(""))
    if "commitlog" not in overhead.columns:
        overhead = overhead.with_columns(commitlog=pl.lit(None, pl.Utf8))
    if "batch" not in overhead.columns:
        overhead = overhead.with_columns(batch=pl.lit(""))
    if "cap" not in overhead.columns:
        overhead = overhead.with_columns(cap=pl.lit(None, pl.Utf8))
    df = overhead.with_columns(
        # Cassandra's commitlog modes are configurations of their own: without it their rows would overlap
        # runs under different device caps are configurations of their own too: the cap's write rate after the job
        setup=pl.col("workload") + " " + pl.col("job")
        + pl.when(pl.col("cap").is_not_null()).then(" " + pl.col("cap")).otherwise(pl.lit("")) + _options()
        + pl.when(pl.col("commitlog").is_not_null()).then(" " + pl.col("commitlog")).otherwise(pl.lit(""))
        + pl.when(pl.col("testbed") == "loop").then(pl.lit("")).otherwise(" (" + pl.col("testbed") + ")"),
        fs=pl.col("filesystem"),
        pct=pl.col("overhead") * 100, lo=pl.col("overhead_lo") * 100, hi=pl.col("overhead_hi") * 100,
    ).with_columns(
        # a setup paired in two batches: its points side by side, by batch (a batch's name is internal: numbered)
        slot=pl.col("fs") + pl.col("batch").rank("dense").over("setup", "fs").cast(pl.Utf8).str.pad_start(2, "0"),
    ).select("setup", "fs", "slot", "pct", "lo", "hi", "n_traced", "n_untraced")  # fmt: skip
    setups = sorted(df["setup"].unique().to_list())
    color = fs_color(df["fs"])
    base = alt.Chart(df, width=WIDTH - LABEL_PT - 12, height=11 * len(setups))
    # a label cut at labelLimit gets an ellipsis drawn past it: keep the limit inside the extent
    axis = fitted_axis(setups, LABEL_PT - 8, minExtent=LABEL_PT, maxExtent=LABEL_PT)  # no two cut the same
    y = alt.Y("setup:N", sort=setups, title=None, axis=axis)
    off = alt.YOffset("slot:N", sort=sorted(df["slot"].unique().to_list()))
    x = alt.X("pct:Q", title="throughput lost to tracing (%)")
    tip = ["setup:N", "fs:N", "pct:Q", "lo:Q", "hi:Q", "n_traced:Q", "n_untraced:Q"]
    zero = alt.Chart().mark_rule(color="#888888", strokeWidth=0.5).encode(x=alt.datum(0))
    bars = base.mark_rule(strokeWidth=1.2).encode(x=alt.X("lo:Q"), x2="hi:Q", y=y, yOffset=off, color=color)
    points = base.mark_point(size=14, filled=True).encode(x=x, y=y, yOffset=off, color=color, tooltip=tip)
    return alt.layer(zero, bars, points)
