"""iostat across filesystems: per-run means of write rate, throughput, queue size and await, by job."""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures.theme import TEXT_WIDTH_PT, Y_AXIS_PT, filesystem_scale, no_data

CAPTION = (
    r"iostat per run (points) and its mean over repeats (ticks), by workload and filesystem: writes per second, "
    r"written kB/s, average queue size and write await. Host runs on a loop device."
)
LABEL = "fig:iostat"
SHOWN = {"w_s": "writes/s", "wkb_s": "written kB/s", "aqu_sz": "aqu-sz", "w_await_ms": "write await (ms)"}


def chart(summary: pl.DataFrame) -> alt.TopLevelMixin:
    """`summary` is the iostat_summary analysis table (host runs)."""
    df = summary.filter(pl.col("metric").is_in(list(SHOWN)) & (pl.col("testbed") == "loop"))
    if df.is_empty():
        return no_data("no host runs with iostat")
    df = df.with_columns(job=pl.col("workload") + "/" + pl.col("job")).select(
        "run_id", "filesystem", "job", "repeat", "traced", "metric", "mean"
    )
    fss = [f for f in ["ext4", "xfs", "btrfs", "f2fs"] if f in set(df["filesystem"])]
    color = alt.Color("filesystem:N", scale=filesystem_scale(fss), title=None, legend=alt.Legend(orient="top"))
    panels = []
    for metric, title in SHOWN.items():
        d = df.filter(pl.col("metric") == metric).to_pandas()
        base = alt.Chart(d, width=TEXT_WIDTH_PT - Y_AXIS_PT - 88, height=55)  # the shape legend takes ~85 pt
        x = alt.X("job:N", title=None, axis=alt.Axis(labelAngle=0, labelFontSize=6))
        off = alt.XOffset("filesystem:N", sort=fss)
        points = base.mark_point(size=12, filled=True).encode(
            x=x, xOffset=off, y=alt.Y("mean:Q", title=title), color=color, shape=alt.Shape("traced:N", title="traced")
        )
        bars = base.mark_tick(thickness=1.5, size=8).encode(x=x, xOffset=off, y="mean(mean):Q", color=color)
        panels.append(points + bars)
    return alt.vconcat(*panels, spacing=6)
