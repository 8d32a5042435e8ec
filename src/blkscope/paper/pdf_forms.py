"""The pypdf side of the PDF checks: one reader per file, the form XObjects a page draws with their boxes."""

from __future__ import annotations

import functools
from pathlib import Path

from blkscope.paper.pdf_labels import Box


def _mul(m: list[float], n: list[float]) -> list[float]:
    """m then n, PDF matrices [a b c d e f]."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F]


def form_boxes(page) -> list[Box]:
    """The boxes (top-left origin, bp) of the form XObjects a pypdf page draws at its top level: the included
    figures."""
    return [b for b, _ in forms(page)]


_STROKES = {b"S", b"s", b"B", b"B*", b"b", b"b*"}


def strokes(form, pdf, depth: int = 4) -> bool:
    """Whether a form XObject (or a form it draws) strokes a path: a chart's axes, ticks and lines do; a placeholder
    chart (theme.no_data) fills its background and writes its message only."""
    from pypdf.generic import ContentStream

    res = form.get("/Resources") or {}
    xobjects = (res.get_object() if hasattr(res, "get_object") else res).get("/XObject") or {}
    xobjects = xobjects.get_object() if hasattr(xobjects, "get_object") else xobjects
    for operands, op in ContentStream(form, pdf).operations:
        if op in _STROKES:
            return True
        if op == b"Do" and depth > 0:
            xo = xobjects.get(operands[0])
            xo = xo.get_object() if xo is not None else None
            if xo is not None and xo.get("/Subtype") == "/Form" and strokes(xo, pdf, depth - 1):
                return True
    return False


def forms(page) -> list[tuple[Box, object]]:
    """form_boxes with each box's form XObject. Tracks q/Q/cm; applies each form's /Matrix and maps its /BBox
    corners."""
    from pypdf.generic import ContentStream

    res = page.get("/Resources") or {}
    xobjects = res.get("/XObject") or {}
    xobjects = xobjects.get_object() if hasattr(xobjects, "get_object") else xobjects
    height = float(page.mediabox.height)
    ctm, stack, boxes = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [], []
    contents = page.get_contents()
    if contents is None or b"Do" not in contents.get_data():
        return []  # draws no XObject: pypdf's parse of a page of text was most of this function's time
    for operands, op in ContentStream(contents, page.pdf).operations:
        if op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop() if stack else ctm
        elif op == b"cm":
            ctm = _mul([float(v) for v in operands], ctm)
        elif op == b"Do":
            xo = xobjects.get(operands[0])
            xo = xo.get_object() if xo is not None else None
            if xo is None or xo.get("/Subtype") != "/Form":
                continue
            m = _mul([float(v) for v in xo.get("/Matrix", [1, 0, 0, 1, 0, 0])], ctm)
            x0, y0, x1, y1 = (float(v) for v in xo["/BBox"])
            pts = [(x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5]) for x in (x0, x1) for y in (y0, y1)]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            boxes.append((Box(min(xs), height - max(ys), max(xs), height - min(ys)), xo))
    return boxes


@functools.lru_cache(maxsize=4)
def _cached_reader(path: str, mtime_ns: int, size: int) -> tuple:
    from pypdf import PdfReader

    return PdfReader(path), {}  # the reader, and page_forms' answers from it (page number -> forms)


def _read(pdf: Path) -> tuple:
    st = Path(pdf).stat()
    return _cached_reader(str(pdf), st.st_mtime_ns, st.st_size)


def reader(pdf: Path):
    """A pypdf PdfReader of `pdf`, one per process while the file is unchanged: the checks read its document info,
    its pages and their forms in several places, and each PdfReader parsed the whole 8 MB paper again."""
    return _read(pdf)[0]


def page_forms(pdf: Path, n: int) -> tuple[tuple[Box, object], ...]:
    """forms() of page `n` (1-based) of `pdf`, parsed once per reader (reader: one per process while the file is
    unchanged) and kept with it: the check asked for each page's forms up to four times (its geometry, its share of
    the main text, whether it is a half-empty page of figures, whether they stroke). Read it, never change it."""
    rd, known = _read(pdf)
    if n not in known:
        known[n] = tuple(forms(rd.pages[n - 1]))
    return known[n]


def page_form_boxes(pdf: Path, n: int) -> list[Box]:
    """form_boxes() of page `n` (1-based) of `pdf`, from page_forms."""
    return [b for b, _ in page_forms(pdf, n)]
