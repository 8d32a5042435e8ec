"""One altair theme for every figure, sized in points for the paper.

vl-convert maps one Vega pixel to one PDF point (bp), so widths below are PDF points: the paper's class
(IEEEtran, conference) sets two columns of 252 TeX pt (251 bp) in a text block 516 TeX pt (514 bp) wide. A
figure module says which it is drawn for (WIDTH: COLUMN_WIDTH_PT, or TEXT_WIDTH_PT for a figure* across both
columns); blkscope.paper.figure_tex places it accordingly. vl-convert embeds the fonts it renders with, so the
PDF needs no system fonts.
"""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import altair as alt
import polars as pl
import vl_convert as vlc
from altair.utils.display import HTMLRenderer
from altair.vegalite.v6.display import html_renderer

from blkscope.figures.names import plain_setup, vega_lookup
from blkscope.figures.panels import SPARSE_SHARE, check_panels
from blkscope.io import write_bytes_atomic

TEXT_WIDTH_PT = 514  # both columns: the widest a figure may be
COLUMN_WIDTH_PT = 251  # one column
# paper/main.tex's text height is 672 TeX pt (669 bp); a figure leaves room for a caption of up to ~8 lines
MAX_FIGURE_HEIGHT_PT = 540
FONT = "Liberation Sans"
Y_AXIS_PT = 32  # labels + title of a y axis
# Okabe and Ito's colour-blind-safe palette (distinct under protanopia, deuteranopia and tritanopia), the same
# filesystem -> colour in every figure; ext4 mounted data=writeback gets ext4's lighter blue.
FILESYSTEM_COLORS = {"ext4": "#0072B2", "xfs": "#E69F00", "btrfs": "#009E73", "f2fs": "#CC79A7"}


# Figures are static renders of tables the analyses already thinned; altair's 5,000-row guard is meant for
# notebooks shipping raw data to a browser, and three repeats of every run pass it (rank-frequency: 6,479 rows).
alt.data_transformers.disable_max_rows()


class NumberedHTML(HTMLRenderer):
    """altair's HTML renderer (the notebooks' default), with each chart's div numbered in the order drawn instead
    of named by uuid4: an executed notebook is then the same bytes run to run (bench/kill_resume.py compares
    them). Unique within a kernel, which is all the embedding script needs (it looks at its own div first)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._drawn = itertools.count(1)

    @property
    def output_div(self) -> str:
        return f"altair-viz-{next(self._drawn)}"


alt.renderers.register("blkscope", NumberedHTML(**html_renderer.kwargs))
if alt.renderers.active == "default":  # a renderer the user chose stays theirs
    alt.renderers.enable("blkscope")


@alt.theme.register("blkscope", enable=True)
def blkscope_theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "font": FONT,
            "view": {"stroke": "#bbbbbb", "strokeWidth": 0.5},
            "axis": {"labelFontSize": 7, "titleFontSize": 8, "gridWidth": 0.3, "tickWidth": 0.5, "domainWidth": 0.5},
            # A fixed y-axis extent makes a figure's width independent of its tick labels, so widths
            # computed from TEXT_WIDTH_PT hold whatever the data.
            "axisY": {"minExtent": Y_AXIS_PT, "maxExtent": Y_AXIS_PT},
            "legend": {"labelFontSize": 7, "titleFontSize": 8, "symbolSize": 40},
            "header": {"labelFontSize": 8, "titleFontSize": 8},
            "title": {"fontSize": 9},
            "line": {"strokeWidth": 1},
        }
    }


def filesystem_scale(domain: list[str]) -> alt.Scale:
    return alt.Scale(domain=domain, range=[FILESYSTEM_COLORS.get(f, "#666666") for f in domain])


_CONVERT = {"svg": str.encode, "pdf": vlc.svg_to_pdf, "png": lambda svg: vlc.svg_to_png(svg, scale=2)}


def save(chart: alt.TopLevelMixin, prefix: str | Path, formats: list[str]) -> list[Path]:
    """Write chart to prefix.{fmt}; PNG at 2x for screens. Returns the paths written.

    Vega renders the chart once, to SVG; the PDF and PNG are converted from that SVG (what vegalite_to_pdf and
    vegalite_to_png do inside, each with its own Vega run: three runs cost about 1 s more a figure). That SVG is
    checked first (panels.check_panels): a figure with a panel that draws no data raises EmptyPanelError and
    writes nothing; all-but-empty panels are counted on stderr (the job's log). Every format is converted before
    any is written, each written atomically: a conversion that fails leaves no figure in part."""
    prefix = Path(prefix)
    unknown = set(formats) - set(_CONVERT)
    if unknown:
        raise ValueError(f"unknown figure format(s) {', '.join(sorted(unknown))}: not one of {', '.join(_CONVERT)}")
    svg = vlc.vegalite_to_svg(chart.to_dict())
    ps, sparse = check_panels(svg, f"{prefix}.{{{','.join(formats)}}}")
    which = "".join(f"; {p.describe()}: {p.marks} marks" for p in sparse)
    panels = f"{len(ps)} panel{'' if len(ps) == 1 else 's'}"
    print(f"figure {prefix.name}: {panels}, none empty, {len(sparse)} all but empty (under {SPARSE_SHARE:.0%} of "
          f"their grid's fullest){which}", file=sys.stderr)  # fmt: skip
    data = {fmt: _CONVERT[fmt](svg) for fmt in formats}
    written = []
    for fmt, payload in data.items():
        out = prefix.with_suffix(f".{fmt}")
        write_bytes_atomic(payload, out)
        written.append(out)
    return written


# Shared helpers for the figure modules (added with the study figures; the values above are unchanged).
FS_ORDER = ["ext4", "ext4 wb", "xfs", "btrfs", "f2fs"]  # `fs` of blkscope.figures.data: " wb" = data=writeback
VARIANT_COLORS = {"ext4 wb": "#56B4E9"}
SETUP_AXIS_PT = 96  # a y axis of setup names (dot plots: a row per setup; "Cassandra YCSB light (guest)")
HEADER_PT = 58  # a facet-row header of horizontal labels, one word a line ("journal" / "prealloc-reader")


def fs_domain(values) -> list[str]:
    """The filesystems (as configured) present in values, in the study's order, unknown ones last."""
    present = set(values)
    return [f for f in FS_ORDER if f in present] + sorted(present - set(FS_ORDER))


def fs_scale(values) -> alt.Scale:
    """The colour scale of the `fs` column: the filesystem colours and the variants' own."""
    domain = fs_domain(values)
    colors = FILESYSTEM_COLORS | VARIANT_COLORS
    return alt.Scale(domain=domain, range=[colors.get(f, "#666666") for f in domain])


LEGEND_COLUMNS = 3  # filesystems a legend row holds: five in one row (~280 bp) are wider than a column


def fs_color(values, legend: bool = True) -> alt.Color:
    """Colour by the `fs` column (fs_scale), legend on top, LEGEND_COLUMNS entries a row."""
    return alt.Color("fs:N", scale=fs_scale(values), title=None,
                     legend=alt.Legend(orient="top", columns=LEGEND_COLUMNS) if legend else None)  # fmt: skip


def no_data(message: str, width: float = COLUMN_WIDTH_PT - 10, height: float = 40) -> alt.Chart:
    """A placeholder chart that says why there is nothing to draw (an empty table must not crash a figure); a long
    reason (a table's note) is wrapped to the width, 8 pt text at about 4 pt a character."""
    import textwrap

    lines = textwrap.wrap(message, max(20, int(width / 4.2))) or [""]
    return (
        alt.Chart(pl.DataFrame({"message": ["\n".join(lines)]}), width=width, height=max(height, 11 * len(lines) + 8))
        .mark_text(fontSize=8, color="#555555", lineBreak="\n")
        .encode(text="message:N")
    )


def decades(max_value: float, length: float | None = None, min_gap: float = 12, lowest: float = 1.0) -> list[float]:
    """Powers of ten from `lowest` up to max_value; with `length` (the axis length in pt), every k-th one so that
    labels stand at least `min_gap` pt apart (a 7 pt label needs ~10 pt on a y axis, ~20 pt on an x axis)."""
    values, v = [], lowest
    while v <= max(max_value, lowest) * 1.0001:
        values.append(v)
        v *= 10
    if length and len(values) > 1:
        step = max(1, math.ceil(min_gap / (length / (len(values) - 1))))
        values = values[::step]
    return values


def log_axis(max_value: float, title: str | None = None, length: float | None = None, min_gap: float = 12,
             **kw) -> alt.Axis:
    """A log axis labelled only at powers of ten (1, 10, 100, ... up to max_value), SI-formatted; with `length`,
    thinned so that no two labels crowd each other (decades)."""
    return alt.Axis(values=decades(max_value, length, min_gap), format="~s", title=title, **kw)


def facet_header(**kw) -> alt.Header:
    """A facet's header of setup names, in plain words (names.vega_lookup), 7 pt."""
    return alt.Header(labelFontSize=7, labelExpr=vega_lookup(), **kw)


def row_header() -> alt.Header:
    """Facet-row labels left of each row, horizontal, one word a line of the setup's plain name
    (names.vega_lookup), so setup names stay narrow; left-aligned: right-aligned labels made Vega reserve twice
    their limit."""
    return alt.Header(
        labelAngle=0,
        labelOrient="left",
        labelAlign="left",
        labelBaseline="middle",
        labelFontSize=7,
        labelExpr=f"split({vega_lookup()}, ' ')",
        labelPadding=4,
        labelLimit=HEADER_PT - 4,
    )


def small_title(text: str) -> alt.TitleParams:
    """A figure title in axis-label size, left-aligned: names the shared y quantity of a facet grid once."""
    return alt.TitleParams(text, anchor="start", fontSize=7, fontWeight="normal", offset=2)


def corner_label(
    base: alt.Chart, field: str, width: float, facets: list[str], where: str | None = None, above: bool = False
) -> alt.Chart:
    """A text layer writing `field` once per facet cell in the top-right corner (where log-log and
    distribution panels are usually empty), optionally only in cells matching the Vega expression `where`.
    `facets` are the fields the chart is faceted by (kept so each label lands in its cell). It replaces
    facet-row headers, which take width from the panels. `above`: just above the cell's top edge instead, for
    time series, whose lines reach every corner (the facet's row spacing must leave it room)."""
    layer = base.transform_filter(where) if where else base
    return (
        layer.transform_aggregate(n="count()", groupby=sorted({field, *facets}))
        .transform_calculate(plain_label=vega_lookup(f"datum[{field!r}]"))
        .mark_text(align="right", baseline="bottom" if above else "top", fontSize=6.5, color="#333333", dx=-2,
                   dy=-1 if above else 2)  # fmt: skip
        .encode(text="plain_label:N", x=alt.value(width), y=alt.value(0))
    )


def complete_cells(df: pl.DataFrame, row: str, column: str) -> pl.DataFrame:
    """Add a row of nulls for every (row, column) facet cell without data: Vega-Lite lays out the cells of a
    row x column facet with a sorted row field in order of appearance, so a missing cell would shift the rest."""
    # in order of appearance: the added rows (and the chart data a notebook embeds) the same from run to run
    cells = df.select(row).unique(maintain_order=True).join(df.select(column).unique(maintain_order=True), how="cross")
    missing = cells.join(df.select(row, column).unique(), on=[row, column], how="anti", maintain_order="left")
    return pl.concat([df, missing], how="diagonal_relaxed") if missing.height else df


OWN_SCALE_FACTOR = 10  # facets whose extents differ by more than this get scales of their own


def own_scales(df: pl.DataFrame, facet: str, field: str, factor: float = OWN_SCALE_FACTOR) -> bool:
    """Whether the facets by `facet` differ in the extent of `field` (the largest absolute value in each) by more
    than `factor`: one shared axis would make the small ones slivers (3-s and 250-s runs on one time axis)."""
    ext = df.drop_nulls(field).group_by(facet).agg(pl.col(field).abs().max().alias("m"))["m"]
    ext = ext.filter(ext > 0)
    return ext.len() > 1 and float(ext.max()) > factor * float(ext.min())


def two_panel_width(width: float = COLUMN_WIDTH_PT) -> float:
    """The width of each of two facet columns beside a setup axis in a figure `width` wide (24: the axis padding
    and the last x label's overhang; 16 left metadata_vs_data 351 bp wide on the dataset)."""
    return (width - SETUP_AXIS_PT - 2 * 8 - 24) / 2


def setup_dots(long: pl.DataFrame, setups: list[str], x: alt.X, mark: tuple[str, list[str]],
               column: tuple[str, list[str]], shapes: alt.Scale | None = None,
               legend: str = "top", width: float = COLUMN_WIDTH_PT) -> alt.FacetChart:  # fmt: skip
    """A dot plot of runs: a row per setup (in `setups`' order), the points of a run side by side within it by
    `mark` (field, order; also their shape), two facet columns by `column` (field, order), colour by filesystem.
    `long` holds run_id, fs, setup and those fields; `x` its x encoding (at two_panel_width(width))."""
    axis = fitted_axis(setups, SETUP_AXIS_PT, minExtent=SETUP_AXIS_PT, maxExtent=SETUP_AXIS_PT)
    shape = alt.Shape(f"{mark[0]}:N", sort=mark[1], title=None, legend=alt.Legend(orient=legend),
                      **({"scale": shapes} if shapes is not None else {}))  # fmt: skip
    return (
        alt.Chart(long, width=two_panel_width(width), height=alt.Step(9))
        .mark_point(filled=True, size=18, opacity=0.8)
        .encode(x=x, y=alt.Y("setup:N", sort=setups, title=None, axis=axis),
                yOffset=alt.YOffset(f"{mark[0]}:N", sort=mark[1]), shape=shape, color=fs_color(long["fs"]))
        .facet(column=alt.Column(f"{column[0]}:N", sort=column[1], title=None), spacing=8)
    )  # fmt: skip


# Row labels (a workload and its job) print in plain words (blkscope.figures.names: one mapping for every figure
# and the runs appendix), which fit the label columns whole. A label still too long keeps its start and its end
# (a label cut by labelLimit instead ends in an ellipsis, and labels that differ only past it print the same).
CHAR_PT = 3.4  # about the width of a character of a 7-pt label ("ycsb workloada-zipfian-b…" fit 84 pt)


def label_chars(limit_pt: float) -> int:
    """How many characters of a 7-pt label fit `limit_pt`."""
    return max(8, int(limit_pt / CHAR_PT))


def fit_labels(labels: list[str], limit_pt: float) -> dict[str, str]:
    """Each label as it prints within `limit_pt`: its plain name (names.plain_setup), whole where it fits. A
    ValueError where two labels would print the same."""
    n = label_chars(limit_pt)
    out = {}
    for label in labels:
        s = plain_setup(label)
        if len(s) > n:
            s = s[: n // 2 - 1] + "\u2026" + s[-(n - n // 2):]
        out[label] = s
    if len(set(out.values())) < len(out):
        same = sorted(k for k in out if list(out.values()).count(out[k]) > 1)
        raise ValueError(f"row labels that print the same once shortened: {', '.join(same)}")
    return out


def fitted_axis(labels: list[str], limit_pt: float, **kw) -> alt.Axis:
    """An axis whose labels print as fit_labels shortens them (a lookup in the label expression), each whole."""
    import json

    short = {k: v for k, v in fit_labels(labels, limit_pt).items() if k != v}
    expr = f"({json.dumps(short)})[datum.label] || datum.label" if short else "datum.label"
    return alt.Axis(labelExpr=expr, labelLimit=limit_pt, **kw)


# Tick labels with an SI prefix from 1,000 up (15k) and plain digits below (0.2, not "200m": an axis in ms would read
# it as milli-ms). Each label is formatted alone: Vega's axis format gives all ticks the prefix of the largest, so a
# log axis printed "0k, 0k, 10k" for 0, 1 and 10,000.
SI_LABELS = "abs(datum.value) >= 1000 ? format(datum.value, '~s') : format(datum.value, '~r')"
