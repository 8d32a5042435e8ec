"""iostat across filesystems: per-run means of write rate, throughput, queue size and await, by job. Jobs are rows
(their names written once, horizontally, left of the first panel), metrics are columns with their own x scale,
so no label has to share a narrow x band with its neighbours."""

from __future__ import annotations

import math

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.names import NOTE
from blkscope.figures.theme import (
    SI_LABELS,
    TEXT_WIDTH_PT,
    decades,
    fitted_axis,
    fs_domain,
    fs_scale,
    no_data,
    own_scales,
)

CAPTION = (
    r"iostat per run (points: circles traced, triangles untraced) and its mean over runs (ticks), by workload "
    r"and job (rows) and filesystem (colour): writes per second, written kB/s, average queue size (aqu-sz) and "
    r"write await, each with its own scale (symmetric-log where the jobs differ more than tenfold). Host runs on a "
    r"loop device; the cache sweeps' setups (descriptive) only in the \texttt{all\_setups} notebook of the "
    r"artifact (Appendix~\ref{app:data})."
    + f" Setups: {NOTE}."
)
LABEL = "fig:iostat"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
SHOWN = {"w_s": "writes/s", "wkb_s": "written kB/s", "aqu_sz": "aqu-sz", "w_await_ms": "write await (ms)"}
# SI prefixes for rates (15k); plain significant digits for queue size and await (an SI "m" would read as metres)
FORMATS = {"w_s": "~s", "wkb_s": "~s", "aqu_sz": "~r", "w_await_ms": "~r"}
LABEL_PT = 102  # the setup names left of the first panel ("RocksDB sweep 400k buffered" whole)


def three_ticks(vmax: float) -> list[float]:
    """0, a round step and twice it, covering vmax: three labels fit a 50 pt panel."""
    if not vmax > 0:
        return [0.0, 0.5, 1.0]
    raw = vmax / 2
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return [0.0, step, 2 * step]


def _labels(metric: str) -> dict:
    """SI-prefixed rates labelled each alone (theme.SI_LABELS: no "0k" beside "0k")."""
    return {"labelExpr": SI_LABELS} if FORMATS[metric] == "~s" else {}


def _x_axis(d: pl.DataFrame, metric: str, title: str, width: float) -> alt.X:
    """A linear axis of three ticks; a symmetric-log one labelled at powers of ten when the jobs' levels differ by
    more than OWN_SCALE_FACTOR (a ceiling run of 100k writes/s beside appends of a few: on a linear axis every job
    but the largest sits on zero)."""
    vmax = float(d["mean"].max()) if len(d) else 1.0
    if len(d) and own_scales(d, "job", "mean"):
        pos = d.filter(pl.col("mean") > 0)["mean"]
        low = 10 ** math.floor(math.log10(float(pos.min())))
        values = [0.0, *decades(vmax, width, min_gap=24, lowest=low)]
        axis = alt.Axis(values=values, format=FORMATS[metric], **_labels(metric))
        return alt.X("mean:Q", title=f"{title}, log", axis=axis, scale=alt.Scale(type="symlog", constant=low))
    # three ticks chosen here: Vega's own label-overlap test underestimates the widths vl-convert draws
    ticks = three_ticks(vmax)
    axis = alt.Axis(values=ticks, format=FORMATS[metric], **_labels(metric))
    return alt.X("mean:Q", title=title, axis=axis, scale=alt.Scale(domain=[0, ticks[-1]]))


def chart(summary: pl.DataFrame) -> alt.TopLevelMixin:
    """`summary` is the iostat_summary analysis table (host runs)."""
    df = select.without_sweeps(summary.filter(pl.col("metric").is_in(list(SHOWN)) & (pl.col("testbed") == "loop")))
    if df.is_empty():
        return no_data("no host runs: no iostat summary")
    mount = pl.col("mount_options").fill_null("") if "mount_options" in df.columns else pl.lit("")
    wb = mount.str.contains("data=writeback")
    df = df.with_columns(
        job=pl.col("workload") + " " + pl.col("job"),
        fs=pl.col("filesystem") + pl.when(wb).then(pl.lit(" wb")).otherwise(pl.lit("")),
    ).select("run_id", "fs", "job", "repeat", "traced", "metric", "mean")
    jobs = sorted(df["job"].unique().to_list())
    domain = fs_domain(df["fs"])
    color = alt.Color("fs:N", scale=fs_scale(domain), title=None, legend=alt.Legend(orient="top"))
    shape = alt.Shape("traced:N", title="traced", scale=alt.Scale(domain=[True, False], range=["circle", "triangle"]),
                      legend=alt.Legend(orient="top"))  # fmt: skip
    n = len(SHOWN)
    spacing = 6
    # besides the spacing: ~4 bp of axis padding per panel, 5 bp of chart padding a side, the last tick label's overhang
    w = (WIDTH - LABEL_PT - (n - 1) * spacing - n * 4 - 10 - 12) / n
    panels = []
    for i, (metric, title) in enumerate(SHOWN.items()):
        d = df.filter(pl.col("metric") == metric)
        base = alt.Chart(d, width=w, height=12 * len(jobs))
        axis = fitted_axis(jobs, LABEL_PT - 6, minExtent=LABEL_PT, maxExtent=LABEL_PT) if i == 0 else None
        y = alt.Y("job:N", sort=jobs, title=None, axis=axis)
        x = _x_axis(d, metric, title, w)
        off = alt.YOffset("fs:N", sort=domain)
        points = base.mark_point(size=10, opacity=0.8, filled=True).encode(
            x=x, y=y, yOffset=off, color=color, shape=shape
        )
        ticks = base.mark_tick(thickness=1, size=6, orient="vertical").encode(
            x="mean(mean):Q", y=y, yOffset=off, color=color
        )
        panels.append(alt.layer(points, ticks))
    return alt.hconcat(*panels, spacing=spacing).resolve_scale(x="independent")
