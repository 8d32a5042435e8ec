"""Zipf diagnostics: the CCDF P(X >= k) of per-page access counts per run on log-log axes, rows are setups and
columns read / write / all, coloured by filesystem; where the zipf table has a discrete power-law fit (CSN: xmin
by KS, MLE alpha), its tail is drawn dashed from xmin down to the lowest measured CCDF of its panel (a steep fit
would otherwise stretch the shared axis decades below every measured point). Runs with too few distinct counts have
no fit and no tail. The setups of frequency_of_frequency, without those whose every page is accessed once (a CCDF
that is the one point k = 1): caption(table) names them. Label: LABEL.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from blkscope.figures import select
from blkscope.figures.theme import (
    TEXT_WIDTH_PT,
    Y_AXIS_PT,
    complete_cells,
    corner_label,
    decades,
    fs_color,
    log_axis,
    no_data,
    small_title,
)

CAPTION = (
    r"Zipf diagnostics: complementary CDF $P(X \ge k)$ of the number of accesses $X$ per 4\,KiB page, per setup "
    r"(rows) and operation (columns), one line per run. Dashed: the discrete power-law tail fitted by maximum "
    r"likelihood with $x_{\min}$ chosen by the Kolmogorov--Smirnov distance (Clauset, Shalizi and Newman), drawn "
    r"from $x_{\min}$. Runs without a dashed tail had too few distinct counts (fewer than five) for a fit. "
    r"Tails end at their panel's lowest measured point. Setups as in Figure~\ref{fig:fof}"
)
LABEL = "fig:zipf-ccdf"
WIDTH = TEXT_WIDTH_PT  # the space the figure is printed in (theme)
OP_ORDER = ["read", "write", "all"]
PANEL = ["setup", "op"]
# the rows share this height (40 pt each of four): fewer rows draw taller panels, not a shorter figure (the main
# text's floats are laid out for it)
ROWS_PT = 160


def _setups(ccdf: pl.DataFrame) -> tuple[list[str], list[str]]:
    """The setups of frequency_of_frequency (select.with_reference) whose pages are revisited, and those whose every
    run accessed every page once (nothing to draw but the point k = 1)."""
    data = ccdf.filter(pl.col("kind") == "data")
    chosen = select.with_reference(select.top_counts(data, "x"))
    once = select.keep(data, chosen).group_by("setup").agg(pl.col("x").max()).filter(pl.col("x") <= 1)["setup"]
    return [s for s in chosen if s not in once], [s for s in chosen if s in once]


def caption(ccdf: pl.DataFrame) -> str:
    """CAPTION, and the setups left out because every page of theirs was accessed once (from the figure data)."""
    from blkscope.figures.names import plain_setup
    from blkscope.paper.latex import join_and

    if ccdf.is_empty():
        return CAPTION + ". No traced run: nothing is drawn."
    once = _setups(ccdf)[1]
    if not once:
        return CAPTION + "."
    without = join_and([plain_setup(s) for s in once])
    return f"{CAPTION}, without {without} (each page accessed once: a CCDF of one point)."


def _clip_fits(ccdf: pl.DataFrame) -> pl.DataFrame:
    """The fitted tails cut where they fall below the lowest measured (positive) CCDF of their panel: the last point
    kept is where the line crosses that floor (log-log interpolation), so the axis follows the data."""
    data = ccdf.filter((pl.col("kind") == "data") & (pl.col("ccdf") > 0))
    floor = data.group_by(PANEL).agg(floor=pl.col("ccdf").min())
    fit = ccdf.filter(pl.col("kind") == "fit").join(floor, on=PANEL, how="left").sort("run_id", "op", "x")
    by = ["run_id", "op"]
    lx, ly, lf = pl.col("x").log(), pl.col("ccdf").log(), pl.col("floor").log()
    px, py = lx.shift(1).over(by), ly.shift(1).over(by)
    crossing = (pl.col("ccdf") < pl.col("floor")) & (py >= lf)  # the first point below, after one at or above
    fit = fit.with_columns(
        x=pl.when(crossing).then((px + (lf - py) * (lx - px) / (ly - py)).exp()).otherwise(pl.col("x")),
        ccdf=pl.when(crossing).then(pl.col("floor")).otherwise(pl.col("ccdf")),
        keep=(pl.col("ccdf") >= pl.col("floor")) | crossing | pl.col("floor").is_null(),
    )
    fit = fit.filter("keep").drop("floor", "keep")
    return pl.concat([ccdf.filter(pl.col("kind") != "fit"), fit.select(ccdf.columns)])


def chart(ccdf: pl.DataFrame, setups: list[str] | None = None) -> alt.TopLevelMixin:
    """`ccdf` is the figdata-ccdf table: META columns, op, kind (data / fit), x, ccdf, alpha, xmin, p_gof.
    `setups`: draw these (default: the skewed setups and one without skew, select.with_reference)."""
    if ccdf.is_empty():
        return no_data("no traced runs: no page access counts")
    if setups is None:
        setups = _setups(ccdf)[0]
    ccdf = _clip_fits(select.keep(ccdf, setups))
    if ccdf.filter(pl.col("ccdf") > 0).is_empty():  # e.g. every chosen setup's pages accessed once (left out)
        return no_data("no setup revisits its pages: no CCDF beyond k = 1")
    df = complete_cells(ccdf.select("run_id", "fs", "setup", "op", "kind", "x", "ccdf"), "setup", "op")
    ncol = len(OP_ORDER)
    panel_w = (WIDTH - Y_AXIS_PT - 16 - ncol * 8) / ncol  # 16: the last x label's overhang
    panel_h = ROWS_PT / max(len(setups), 1)
    base = alt.Chart(df, width=panel_w, height=panel_h)
    xmax = ccdf["x"].max()
    ymin = max(float(ccdf.filter(pl.col("ccdf") > 0)["ccdf"].min()), 1e-9)
    enc = {
        "x": alt.X("x:Q", scale=alt.Scale(type="log"), axis=log_axis(xmax, "accesses per page k", panel_w, 22)),
        "y": alt.Y(
            "ccdf:Q",
            scale=alt.Scale(type="log", domain=[ymin, 1]),
            axis=alt.Axis(values=[1 / v for v in decades(1 / ymin, panel_h)], format="~g", title=None),
        ),  # fmt: skip
        "color": fs_color(ccdf["fs"]),
        "detail": "run_id:N",
    }
    data = base.transform_filter("datum.kind == 'data'")
    fit = base.transform_filter("datum.kind == 'fit'")
    layers = [
        data.mark_line(clip=True, opacity=0.8).encode(**enc),
        data.mark_point(size=5, filled=True, clip=True).encode(**enc),
        fit.mark_line(clip=True, strokeDash=[3, 2], strokeWidth=1.3, color="#222222").encode(
            x=enc["x"], y=enc["y"], detail="run_id:N"
        ),
        corner_label(base, "setup", panel_w, ["setup", "op"], "datum.op == 'all'"),
    ]
    return (
        alt.layer(*layers)
        .facet(
            row=alt.Row("setup:N", sort=setups, title=None, header=alt.Header(labels=False)),
            column=alt.Column("op:N", sort=OP_ORDER, title=None),
            spacing={"row": 4, "column": 8},
        )
        .properties(title=small_title("P(X ≥ k): share of pages accessed at least k times (dashed: fitted power law)"))
    )
