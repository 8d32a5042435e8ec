"""Text as labels, runs of glyphs along one baseline, from pdfplumber's characters, and which labels overlap."""

from __future__ import annotations

from dataclasses import dataclass

TOL = 0.5  # bp: boxes may touch or overlap by this much (glyph boxes are em boxes, wider than the ink)


@dataclass(frozen=True)
class Box:
    x0: float
    top: float
    x1: float
    bottom: float

    def overlap(self, o: Box, tol: float = TOL) -> bool:
        return min(self.x1, o.x1) - max(self.x0, o.x0) > tol and min(self.bottom, o.bottom) - max(self.top, o.top) > tol

    def inside(self, o: Box, tol: float = TOL) -> bool:
        return (self.x0 >= o.x0 - tol and self.x1 <= o.x1 + tol and self.top >= o.top - tol
                and self.bottom <= o.bottom + tol)  # fmt: skip


@dataclass
class Label:
    """A run of characters drawn one after the other along one baseline: a tick label, a title, a word. `box` is
    its axis-aligned box (top-left origin); `corners` the rectangle of its glyphs in its own direction, from
    just below the baseline to just above lowercase and digits (PDF coordinates), for rotated text."""

    text: str
    box: Box
    corners: tuple[tuple[float, float], ...]
    baseline: float  # of the first glyph, from the page's top (LaTeX's text height ends at the last baseline)


def _frame(ch: dict) -> tuple[tuple[float, float], tuple[float, float], float]:
    """Unit vectors along and across the glyph's baseline, and the font size in PDF units (recovered from
    pdfminer's box, which spans adv along and the font size across, whatever the rotation)."""
    a, b, c, d = ch["matrix"][:4]
    lu, ln = (a * a + b * b) ** 0.5 or 1.0, (c * c + d * d) ** 0.5 or 1.0
    u, n = (a / lu, b / lu), (c / ln, d / ln)
    adv = ch["adv"] * lu
    if abs(n[0]) > 0.1:
        size = ((ch["x1"] - ch["x0"]) - abs(u[0]) * adv) / abs(n[0])
    else:
        size = ((ch["y1"] - ch["y0"]) - abs(u[1]) * adv) / abs(n[1])
    return u, n, size


def _continues(prev: dict, ch: dict) -> bool:
    """Whether `ch` is the next glyph of the string `prev` belongs to: same direction, and its origin where
    prev's advance ends (within 1 bp). A label drawn over the end of the previous one starts elsewhere, so it
    is not merged into it."""
    a, b, c, d, e, f = prev["matrix"]
    m = ch["matrix"]
    same = (m[0], m[1], m[2], m[3]) == (a, b, c, d)  # exactly, as along most labels: no tolerance to work out
    if not same and any(abs(x - y) > 1e-3 for x, y in zip(m[:4], (a, b, c, d), strict=True)):
        return False
    ex, ey = e + prev["adv"] * a, f + prev["adv"] * b
    return ((ch["matrix"][4] - ex) ** 2 + (ch["matrix"][5] - ey) ** 2) ** 0.5 <= 1.0


def labels(chars: list[dict]) -> list[Label]:
    """Group characters (in drawing order) into labels; blank characters add no ink."""
    out: list[Label] = []
    cur: list[dict] = []

    def flush() -> None:
        ink = [c for c in cur if c["text"].strip()]
        if not ink:
            return
        box = Box(min(c["x0"] for c in ink), min(c["top"] for c in ink), max(c["x1"] for c in ink),
                  max(c["bottom"] for c in ink))  # fmt: skip
        u, n, size = _frame(ink[0])
        ox, oy = ink[0]["matrix"][4:6]
        last = ink[-1]
        lu = (last["matrix"][0] ** 2 + last["matrix"][1] ** 2) ** 0.5
        length = (last["matrix"][4] - ox) * u[0] + (last["matrix"][5] - oy) * u[1] + last["adv"] * lu
        lo, hi = -0.15 * size, 0.75 * size
        corners = tuple((ox + s * u[0] + t * n[0], oy + s * u[1] + t * n[1]) for s in (0, length) for t in (lo, hi))
        page_h = ink[0]["bottom"] + ink[0]["y0"]  # pdfplumber: bottom = page height - y0
        out.append(Label("".join(c["text"] for c in cur).strip(), box, corners, page_h - oy))

    for ch in chars:
        if cur and not _continues(cur[-1], ch):
            flush()
            cur = []
        cur.append(ch)
    if cur:
        flush()
    return out


def _axes(lb: Label) -> list[tuple[float, float]]:
    (x0, y0), (x1, y1), (x2, y2) = lb.corners[0], lb.corners[1], lb.corners[2]
    return [(x1 - x0, y1 - y0), (x2 - x0, y2 - y0)]


def _intersect(a: Label, b: Label, tol: float) -> bool:
    """Separating-axis test of the two glyph rectangles, each allowed to overlap the other by `tol`."""
    for ax, ay in _axes(a) + _axes(b):
        norm = (ax * ax + ay * ay) ** 0.5
        if norm == 0:
            continue
        pa = [(x * ax + y * ay) / norm for x, y in a.corners]
        pb = [(x * ax + y * ay) / norm for x, y in b.corners]
        if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= tol:
            return False
    return True


def overlapping_labels(chars: list[dict], tol: float = TOL) -> list[tuple[Label, Label]]:
    """Every pair of labels whose glyph rectangles overlap by more than `tol`."""
    ls = sorted(labels(chars), key=lambda lb: lb.box.x0)
    # Box.overlap on plain tuples, and no copy of the rest of the list for each label: a page has thousands
    boxes = [(lb.box.x0, lb.box.top, lb.box.x1, lb.box.bottom) for lb in ls]
    pairs = []
    for i, (ax0, atop, ax1, abottom) in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            bx0, btop, bx1, bbottom = boxes[j]
            if bx0 >= ax1 - tol:
                break
            if (min(ax1, bx1) - max(ax0, bx0) > tol and min(abottom, bbottom) - max(atop, btop) > tol
                    and _intersect(ls[i], ls[j], tol)):  # fmt: skip
                pairs.append((ls[i], ls[j]))
    return pairs
