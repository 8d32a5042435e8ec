"""Panels of a rendered figure (Vega's SVG): how many data marks each panel draws, and which panel it is, so that
a figure job can refuse a figure with a panel that has nothing in it (theme.save, issue Q).

A panel is an item of Vega's facet cell group (`role-scope cell`, `concat_0_cell` in a concatenation), or a view of
a concatenation that is not a facet grid (`concat_1_group`); its data marks are the items of its `role-mark` groups
other than text (a corner label names the panel, it is not data). A facet panel's name comes from the headers
beside it: the row header item at its y, the column header item at its x (siblings of the cell group, so their
offsets are in the same frame); a view's, from its title."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import NamedTuple

_NS = "{http://www.w3.org/2000/svg}"
_SHAPES = ("rect", "line", "circle", "ellipse", "polygon", "polyline")
_VIEW = re.compile(r"concat_\d+_group")  # a view of a concatenation (hconcat, vconcat)
_TRANSLATE = re.compile(r"translate\(\s*([-\d.e]+)[\s,]+([-\d.e]+)\s*\)")

# a panel drawing less than this share of the fullest panel's marks is all but empty (a stray point or two where the
# other panels draw a line per run): Q review, the Cassandra panel of latency_windows (7 marks beside 280)
SPARSE_SHARE = 0.05


class Panel(NamedTuple):
    grid: int  # which facet grid or concatenated view of the figure, in drawing order
    where: str  # its place: "row 2, column 1" in a facet grid (1-based, from its offset), "view 2 of 3"
    marks: int
    labels: tuple[str, ...]  # its row and column header labels, or a view's title: those the figure prints

    def describe(self) -> str:
        return self.where + (f" ({' / '.join(self.labels)})" if self.labels else "")


class EmptyPanelError(ValueError):
    """A figure with a panel that draws no data: refused before any of its files is written."""


def _classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def _drawn(mark_group: ET.Element) -> int:
    """Items a mark group draws: paths with a non-empty path, and every element of the other shapes (_SHAPES)."""
    n = 0
    for el in mark_group.iter():
        if el is mark_group:
            continue
        tag = el.tag.removeprefix(_NS)
        path = tag == "path" and el.get("d", "").strip() not in ("", "M0,0Z")
        if path or tag in _SHAPES:
            n += 1
    return n


def _data_marks(panel: ET.Element) -> int:
    """Marks a panel draws in its mark groups other than text."""
    groups = (g for g in panel.iter(f"{_NS}g") if "role-mark" in _classes(g) and "mark-text" not in _classes(g))
    return sum(_drawn(g) for g in groups)


def _text_marks(group: ET.Element) -> int:
    """Texts a group draws as marks (a corner label, a placeholder's reason), not as axis labels or titles."""
    marks = (g for g in group.iter(f"{_NS}g") if {"role-mark", "mark-text"} <= _classes(g))
    return sum(1 for g in marks for _ in g.iter(f"{_NS}text"))


def _title_words(group: ET.Element) -> tuple[str, ...]:
    """The text of the titles in a group (a view's title; a header item's label), each title's lines joined."""
    titles = [g for g in group.iter(f"{_NS}g") if "role-title-text" in _classes(g)]
    return tuple(" ".join(w.strip() for t in g.iter(f"{_NS}text") for w in t.itertext() if w.strip()) for g in titles)


def _offset(item: ET.Element) -> tuple[float, float]:
    m = _TRANSLATE.search(item.get("transform", ""))
    return (round(float(m.group(1)), 1), round(float(m.group(2)), 1)) if m else (0.0, 0.0)


def _header_labels(siblings: list[ET.Element], name: str, axis: int) -> dict[float, str]:
    """The label of each item of the header group `name` (a title text, its lines joined), by its x (axis 0, a
    column header) or y (axis 1, a row header) offset; a header that prints axes only gives none."""
    out = {}
    for group in siblings:
        if name not in _classes(group):
            continue
        for item in group.findall(f"{_NS}g"):
            words = " ".join(w for w in _title_words(item) if w)
            if words:
                out[_offset(item)[axis]] = words
    return out


def _facet_grid(group: ET.Element, siblings: list[ET.Element], cell: str, grid: int) -> list[Panel]:
    """The panels of the facet cell group `group` (class `cell`), named by the headers among its siblings."""
    prefix = cell.removesuffix("cell")  # "" or "concat_0_"
    rows = _header_labels(siblings, f"{prefix}row_header", 1)
    columns = _header_labels(siblings, f"{prefix}column_header", 0)
    items = group.findall(f"{_NS}g")
    offsets = [_offset(i) for i in items]
    xs, ys = sorted({x for x, _ in offsets}), sorted({y for _, y in offsets})
    of = f" of grid {grid + 1}" if grid else ""
    return [Panel(grid, f"row {ys.index(y) + 1}, column {xs.index(x) + 1}{of}", _data_marks(item),
                  tuple(s for s in (rows.get(y), columns.get(x)) if s))
            for item, (x, y) in zip(items, offsets, strict=True)]  # fmt: skip


def _cell_class(group: ET.Element) -> str | None:
    cls = _classes(group)
    return next((c for c in cls if c == "cell" or c.endswith("_cell")), None) if "role-scope" in cls else None


def panels(svg: str) -> list[Panel]:
    """Every panel of a figure: the cells of its facet grids in drawing order, then the views of a concatenation
    that are not facet grids themselves; [] for a single chart. A view that draws text alone is left out: the
    no-data placeholder (theme.no_data) says why it draws nothing."""
    root = ET.fromstring(svg)
    out: list[Panel] = []
    views: list[ET.Element] = []
    for parent in root.iter(f"{_NS}g"):
        siblings = parent.findall(f"{_NS}g")
        for group in siblings:
            if cell := _cell_class(group):
                out += _facet_grid(group, siblings, cell, len({p.grid for p in out}))
            elif "role-scope" in _classes(group) and any(_VIEW.fullmatch(c) for c in _classes(group)):
                views.append(group)
    views = [v for v in views if not any(_cell_class(g) for g in v.iter(f"{_NS}g"))]
    for k, view in enumerate(views):
        marks = _data_marks(view)
        if marks or not _text_marks(view):
            title = _title_words(view)
            out.append(Panel(len({p.grid for p in out}), f"view {k + 1} of {len(views)}", marks, title))
    return out


def panel_marks(svg: str) -> list[int]:
    """Data marks drawn in each panel, in order (panels; [] for a single chart)."""
    return [p.marks for p in panels(svg)]


def sparse_panels(svg_or_panels: str | list[Panel], share: float = SPARSE_SHARE) -> list[Panel]:
    """The panels with nothing or next to nothing in them: below `share` of the fullest panel's marks of the same
    facet grid (the grids of a concatenation draw different marks: a line per run beside points)."""
    ps = panels(svg_or_panels) if isinstance(svg_or_panels, str) else svg_or_panels
    fullest: dict[int, int] = {}
    for p in ps:
        fullest[p.grid] = max(fullest.get(p.grid, 0), p.marks)
    return [p for p in ps if p.marks == 0 or p.marks < share * fullest[p.grid]]


def check_panels(svg: str, figure: str) -> tuple[list[Panel], list[Panel]]:
    """Raise EmptyPanelError naming `figure` and every panel of it that draws no data; else (its panels, the all-but-
    empty ones among them).

    An all-but-empty panel is a warning the job logs, counted, not an error: marks count unlike things (a line
    per run is one path whatever its length, a scatter one symbol a point), so a panel under SPARSE_SHARE of the
    fullest can be a setup's true few runs or a short line beside scatter; it is a cue for review (the tests hold
    the figures of the embedded runs to it), while no marks at all is never a picture of data."""
    ps = panels(svg)
    empty = [p for p in ps if p.marks == 0]
    if empty:
        which = "; ".join(p.describe() for p in empty)
        raise EmptyPanelError(f"{figure}: refused, {len(empty)} of {len(ps)} panels draw no data: {which}")
    return ps, sparse_panels(ps)
