"""Facet panels of a rendered figure (Vega's SVG): how many data marks each panel draws, so that a test can find
a panel with nothing in it. A panel is an item of Vega's facet cell group (`role-scope cell`, `concat_0_cell`); its
data marks are
the items of its `role-mark` groups other than text (a corner label names the panel, it is not data)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

_NS = "{http://www.w3.org/2000/svg}"
_SHAPES = ("rect", "line", "circle", "ellipse", "polygon", "polyline")


def _classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def _drawn(mark_group: ET.Element) -> int:
    """Items a mark group draws: paths with a path, symbols, rects and lines with a size."""
    n = 0
    for el in mark_group.iter():
        if el is mark_group:
            continue
        tag = el.tag.removeprefix(_NS)
        path = tag == "path" and el.get("d", "").strip() not in ("", "M0,0Z")
        if path or tag in _SHAPES:
            n += 1
    return n


def grid_marks(svg: str) -> list[list[int]]:
    """Data marks drawn in each facet panel, per facet grid (a concatenation holds several), in drawing order."""
    root = ET.fromstring(svg)
    grids = []
    for group in root.iter(f"{_NS}g"):
        cls = _classes(group)  # `cell`, or `concat_0_cell` in a concatenation of facet grids
        if "role-scope" not in cls or not any(c == "cell" or c.endswith("_cell") for c in cls):
            continue
        counts = []
        for panel in group.findall(f"{_NS}g"):
            marks = [g for g in panel.iter(f"{_NS}g") if "role-mark" in _classes(g) and "mark-text" not in _classes(g)]
            counts.append(sum(_drawn(g) for g in marks))
        grids.append(counts)
    return grids


def panel_marks(svg: str) -> list[int]:
    """Data marks drawn in each facet panel, in drawing order ([] for a chart without facets)."""
    return [n for grid in grid_marks(svg) for n in grid]


def empty_panels(svg: str) -> int:
    return sum(1 for n in panel_marks(svg) if n == 0)


# a panel drawing less than this share of the fullest panel's marks is all but empty (a stray point or two where the
# other panels draw a line per run): Q review, the Cassandra panel of latency_windows (7 marks beside 280)
SPARSE_SHARE = 0.05


def sparse_panels(svg: str, share: float = SPARSE_SHARE) -> list[int]:
    """Mark counts of the panels with nothing or next to nothing in them: below `share` of the fullest panel's of
    the same facet grid (the grids of a concatenation draw different marks: a line per run beside points)."""
    return [n for grid in grid_marks(svg) if grid for n in grid if n == 0 or n < share * max(grid)]
