"""One altair theme for every figure, sized in points for the paper.

vl-convert maps one Vega pixel to one PDF point, so widths below are LaTeX points:
the article class at 10 pt has a 345 pt text width. vl-convert embeds the fonts it
renders with, so the PDF needs no system fonts.
"""

from __future__ import annotations

from pathlib import Path

import altair as alt
import vl_convert as vlc

from blkscope.io import write_text_atomic

TEXT_WIDTH_PT = 345
FONT = "Liberation Sans"
Y_AXIS_PT = 32  # labels + title of a y axis
FILESYSTEM_COLORS = {"ext4": "#1b9e77", "xfs": "#d95f02", "btrfs": "#7570b3", "f2fs": "#e7298a"}


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


def save(chart: alt.TopLevelMixin, prefix: str | Path, formats: list[str]) -> list[Path]:
    """Write chart to prefix.{fmt}; PNG at 2x for screens. Returns the paths written."""
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    spec = chart.to_dict()
    written = []
    for fmt in formats:
        out = prefix.with_suffix(f".{fmt}")
        tmp = out.with_name(f".{out.name}.tmp")
        if fmt == "svg":
            write_text_atomic(vlc.vegalite_to_svg(spec), out)
        else:
            data = vlc.vegalite_to_pdf(spec) if fmt == "pdf" else vlc.vegalite_to_png(spec, scale=2)
            tmp.write_bytes(data)
            tmp.replace(out)
        written.append(out)
    return written
