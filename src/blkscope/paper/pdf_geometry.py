"""Readability checks from PDF geometry: text that overlaps other text (tick labels run into each other), and
figures or captions that leave the text block of the paper (a float taller than the page runs into the footer).

Text is read with pdfplumber (character boxes, also inside the figures' form XObjects); figures are found as
the form XObjects a page draws (`Do`), their /BBox mapped through the current transformation matrix. The paper's
text block is written into the PDF by main.tex (`/BlkscopeTextBlock` in the document info: left, top, width,
height in TeX points from the page's top-left corner), so the check does not guess the page layout.
"""

from __future__ import annotations

import functools
import re
import weakref
from dataclasses import dataclass
from pathlib import Path

TOL = 0.5  # bp: boxes may touch or overlap by this much (glyph boxes are em boxes, wider than the ink)
INFO_KEY = "/BlkscopeTextBlock"


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


def _may_draw_text(content: bytes) -> bool:
    """Whether a content stream could add a character: it begins a text object (BT) or draws an XObject (Do),
    which may be a form that does. A substring match: a name or number that contains the letters only costs the
    interpretation that skipping saves."""
    return b"BT" in content or b"Do" in content


_OBJ_HEAD = re.compile(rb"(\d+)\s+\d+\s+obj\s*<<")
_DICT_END = re.compile(rb">>\s*stream(?:\r\n|\n|\r)")
_ENDSTREAM = re.compile(rb"\s*endstream")
_SUBTYPE = re.compile(rb"/Subtype\s*/([A-Za-z]+)")
_FILTER = re.compile(rb"/Filter\s*(\[\s*/[A-Za-z]+\s*\]|/[A-Za-z]+)")
_LENGTH = re.compile(rb"/Length(?![A-Za-z0-9])\s*(\d+)(\s+\d+\s+R)?")
_EXTERNAL = re.compile(rb"/F(?:Filter|DecodeParms)?(?![A-Za-z0-9])")  # stream data in another file
_FLATE = (b"/FlateDecode", b"[/FlateDecode]")


class _Textless:
    """Which form XObjects of a pdfminer document cannot add a character (_may_draw_text of their content),
    read from the file's bytes at the object's offset in the cross-reference table: a regular expression over
    the stream's dictionary and zlib, not pdfminer's tokenizer (resolving the figures' ~1,700-3,700 mark forms
    each, one by one, was most of the check after they were no longer interpreted: bench/RESULTS.md). An object
    this reading is not sure of (an indirect /Length, another filter, decode parameters, a string or a comment in
    the dictionary, the object inside an object stream, an encrypted file) is not known here: the interpreter
    resolves it as before."""

    def __init__(self, xrefs: list, data: bytes) -> None:
        self.xrefs, self.data, self.known = xrefs, data, {}

    @classmethod
    def of(cls, doc) -> _Textless:
        """For a pdfminer PDFDocument: its cross-reference tables and its file's bytes (none when encrypted or
        when pdfminer rebuilt the tables by scanning the file: nothing is known then)."""
        from pdfminer.pdfdocument import PDFXRefFallback

        fp = doc._parser.fp if doc._parser is not None else None
        if fp is None or doc.decipher or any(isinstance(x, PDFXRefFallback) for x in doc.xrefs):
            return cls([], b"")
        pos = fp.tell()
        fp.seek(0)
        data = fp.read()
        fp.seek(pos)  # pdfminer's parser seeks before each object it reads; left where it was all the same
        return cls(doc.xrefs, data)

    def __call__(self, objid: int) -> bool:
        if objid not in self.known:
            self.known[objid] = self._read(objid)
        return self.known[objid]

    def _pos(self, objid: int) -> int | None:
        for xref in self.xrefs:  # the first table that has it, as PDFDocument.getobj reads it
            try:
                strmid, pos, _ = xref.get_pos(objid)
            except KeyError:
                continue
            return pos if strmid is None else None
        return None

    def _read(self, objid: int) -> bool:
        import zlib

        pos = self._pos(objid)
        head = _OBJ_HEAD.match(self.data, pos) if pos is not None else None
        if head is None or int(head.group(1)) != objid:
            return False
        end = _DICT_END.search(self.data, head.end())
        if end is None:
            return False
        dic = self.data[head.end() : end.start()]
        bare = dic.replace(b"<<", b"").replace(b">>", b"")
        odd = (b"<", b">", b"(", b")", b"%", b"/DecodeParms", b"stream", b"endobj")  # the last two: past its end
        if any(c in bare for c in odd) or _EXTERNAL.search(dic):
            return False
        subtype, filters, length = _SUBTYPE.findall(dic), _FILTER.findall(dic), _LENGTH.findall(dic)
        if subtype != [b"Form"] or len(length) != 1 or length[0][1] or len(filters) > 1:
            return False
        if filters and re.sub(rb"\s", b"", filters[0]) not in _FLATE:
            return False
        n = int(length[0][0])
        raw = self.data[end.end() : end.end() + n]
        if len(raw) != n or not _ENDSTREAM.match(self.data, end.end() + n):
            return False
        try:
            content = zlib.decompress(raw) if filters else raw
        except zlib.error:
            return False
        return not _may_draw_text(content)


_TEXTLESS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


_WS = b"\x00\t\n\x0c\r "
_TOKENS = rb"""(?P<ws>[\x00\t\n\x0c\r ]+)
    |(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?![^\x00\t\n\x0c\r ()<>\[\]{}/%]))
    |(?P<name>/[^\x00\t\n\x0c\r ()<>\[\]{}/%]*)
    |(?P<str>\((?:[^()\\]|\\.)*\))
    |(?P<open>\[|<<)|(?P<close>\]|>>)
    |(?P<hex><[0-9A-Fa-f\x00\t\n\x0c\r ]*>)
    |(?P<op>[^\x00\t\n\x0c\r ()<>\[\]{}/%]+)"""
# a figure's mark, `q /gs12 gs /xo12 Do Q` (most of vl-convert's content streams), as one match: the lexer's loop
# takes it as the six tokens and five spaces it is (_without_textless_blocks), in one step instead of eleven
_MARK = rb"""(?P<mark>q[\x00\t\n\x0c\r ]+/[^\x00\t\n\x0c\r ()<>\[\]{}/%\#]*[\x00\t\n\x0c\r ]+gs[\x00\t\n\x0c\r ]+
    /(?P<xo>[^\x00\t\n\x0c\r ()<>\[\]{}/%\#]*)[\x00\t\n\x0c\r ]+Do[\x00\t\n\x0c\r ]+Q(?![^\x00\t\n\x0c\r ()<>\[\]{}/%]))
    |"""
_LEX_TOKENS = re.compile(_TOKENS, re.X | re.S)  # token by token (the tests' reference)
_LEX = re.compile(_MARK + _TOKENS, re.X | re.S)
# operators that change no text state outside their q ... Q and add no character, with their operands
_PATHS = {op: ("num",) * n for ops, n in (((b"h", b"S", b"s", b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"n",
                                            b"W", b"W*"), 0), ((b"w", b"J", b"j", b"M", b"i"), 1),
                                          ((b"m", b"l"), 2), ((b"v", b"y", b"re"), 4), ((b"c", b"cm"), 6))
          for op in ops} | {b"gs": ("name",), b"ri": ("name",), b"d": ("arr", "num")}  # fmt: skip
_DEVICE = {b"g": 1, b"G": 1, b"rg": 3, b"RG": 3, b"k": 4, b"K": 4}


def _without_textless_blocks(data: bytes, colour_components, textless_xobject, lex: re.Pattern = _LEX) -> bytes:
    """A content stream without its q ... Q blocks that cannot add a character or change what follows them:
    each operator in the block paths, paints, clips or sets graphics state (line width, colour, the matrix, an
    ExtGState) with exactly the operands pdfminer pops for it, or draws an XObject `textless_xobject(name)` knows
    cannot draw text; Q restores all of it. The characters pdfminer finds are the same; the figures' marks and
    paths (most of their content streams, each operand tokenized by pdfminer in Python) are not read. The stream as
    it is wherever the lexer is not sure of a token (a comment, an inline image, a string with parentheses).
    `lex`: _LEX takes a mark block as one match, _LEX_TOKENS token by token; the result is the same."""
    # open blocks: [start, removable, fill colour's components, stroke colour's] (the first: outside any block)
    stack: list[list] = [[-1, False, None, None]]
    spans: list[tuple[int, int]] = []
    operands: list[str] = []
    depth = pos = 0
    for m in lex.finditer(data):
        if m.start() != pos:
            return data
        pos, kind = m.end(), m.lastgroup
        if kind == "ws":
            continue
        if kind == "mark":  # a mark (_MARK): q, then gs with its name, Do with its name, Q, as the loop takes them
            if depth:
                return data
            blk = stack[-1]
            if operands:  # q: an operand before it
                blk[1] = False
            whole = m.start() > 0 and data[m.start() - 1] in _WS and pos < len(data) and data[pos] in _WS
            if textless_xobject(m.group("xo").decode("latin-1")) and whole:
                spans.append((m.start(), pos))
            else:
                blk[1] = False
            operands = []
            continue
        if kind in ("open", "close"):
            depth += 1 if kind == "open" else -1
            if depth < 0:
                return data
            if depth == 0:
                operands.append("arr")
            continue
        if depth or kind != "op":
            if depth and kind == "op":
                return data
            if not depth:  # a name with an escape (#20) is not looked up as written
                name = kind == "name" and b"#" not in m.group()
                operands.append("name:" + m.group()[1:].decode("latin-1") if name else kind)
            continue
        op = m.group()
        if op in (b"BI", b"ID", b"EI"):
            return data
        blk = stack[-1]
        if op == b"q":
            if operands:
                blk[1] = False
            stack.append([m.start(), True, blk[2], blk[3]])
        elif op == b"Q":
            if len(stack) > 1:
                stack.pop()
                whole = m.start() > 0 and blk[0] > 0 and data[blk[0] - 1] in _WS and pos < len(data) \
                    and data[pos] in _WS  # fmt: skip
                if blk[1] and not operands and whole:
                    spans.append((blk[0], pos))
                else:
                    stack[-1][1] = False
            else:  # restores a state saved before this stream: its colour spaces are not known here
                blk[2] = blk[3] = None
        else:  # colour spaces are followed in every block (a block inside starts with them)
            kinds = [k.split(":")[0] for k in operands]
            names = [k[5:] for k in operands if k.startswith("name:")]
            if op in _PATHS:
                ok = tuple(kinds) == _PATHS[op]
            elif op in _DEVICE:
                ok = kinds == ["num"] * _DEVICE[op]
                blk[2 if op.islower() else 3] = _DEVICE[op]
            elif op in (b"cs", b"CS"):
                n = colour_components(names[0]) if kinds == ["name"] else None
                ok = n is not None
                blk[2 if op == b"cs" else 3] = n
            elif op in (b"sc", b"scn", b"SC", b"SCN"):
                n = blk[2 if op.islower() else 3]
                ok = n is not None and kinds == ["num"] * n
            elif op == b"Do":
                ok = kinds == ["name"] and textless_xobject(names[0])
            else:
                ok = False
            blk[1] = blk[1] and ok
        operands = []
    if pos != len(data) or not spans:
        return data
    out, at = [], 0
    for a, b in sorted(spans):
        if a >= at:  # an outer block's span covers the blocks inside it
            out.append(data[at:a])
            at = b
    return b"".join(out) + data[at:]


_STRIPPED: dict[bytes, tuple[bytes | None, tuple]] = {}


def _stripped(data: bytes, colour_components, textless_xobject) -> bytes:
    """_without_textless_blocks, remembered by the stream's bytes with every answer the two functions gave: given
    the same answers it returns the same bytes (it reads nothing else), so a stream met again (a figure's content,
    drawn by the paper as a form) is not lexed again once the names it asked about are found the same here."""
    hit = _STRIPPED.get(data)
    if hit is not None:
        less, asked = hit
        ask = {"cs": colour_components, "xo": textless_xobject}
        if all(ask[kind](name) == answer for kind, name, answer in asked):
            return data if less is None else less
    asked = []

    def components(name: str) -> int | None:
        asked.append(("cs", name, answer := colour_components(name)))
        return answer

    def textless(name: str) -> bool:
        asked.append(("xo", name, answer := textless_xobject(name)))
        return answer

    less = _without_textless_blocks(data, components, textless)
    if sum(len(k) for k in _STRIPPED) + len(data) <= _PARSED_BYTES:
        _STRIPPED[data] = (None if less is data else less, tuple(dict.fromkeys(asked)))
    return less


def _text_interpreter():
    """pdfminer's page interpreter, but a form XObject whose content cannot add a character is not run. The
    figures draw each mark with opacity as a form of its own (~1,700-3,700 per figure, no text in any), and
    interpreting them was most of what the checks spent (bench/RESULTS.md). A form _Textless knows is skipped
    before pdfminer resolves it."""
    from pdfminer.pdfinterp import LITERAL_FORM, PDFPageInterpreter
    from pdfminer.pdftypes import PDFObjRef, PDFStream, resolve1
    from pdfminer.psparser import PSKeyword, keyword_name, literal_name

    class TextInterpreter(PDFPageInterpreter):
        def _textless(self, name: str) -> bool:
            ref = self.xobjmap.get(name)
            if not isinstance(ref, PDFObjRef) or ref.doc is None:
                return False
            textless = _TEXTLESS.get(ref.doc)
            if textless is None:
                textless = _TEXTLESS[ref.doc] = _Textless.of(ref.doc)
            return textless(ref.objid)

        def _components(self, name: str) -> int | None:
            cs = self.csmap.get(name)
            return cs.ncomponents if cs is not None and cs.name != "Pattern" else None

        def execute(self, streams) -> None:
            kept = []
            for obj in streams:
                strm = resolve1(obj)
                if isinstance(strm, PDFStream) and strm.objid is not None:
                    data = strm.get_data()
                    less = _stripped(data, self._components, self._textless)
                    if less is not data:
                        copy = PDFStream({}, less)
                        copy.set_objid(strm.objid, strm.genno)
                        strm = copy
                kept.append(strm)
            if not all(isinstance(s, PDFStream) and s.objid is not None for s in kept):
                super().execute(kept)  # an inline stream: pdfminer's own handling of it
                return
            # pdfminer's execute, its parse of the streams' bytes remembered (_parsed)
            self.stream_ids.clear()
            valid = []
            for s in kept:  # a stream that is already being run (a form that draws itself) is not run again
                if s.objid not in self.parent_stream_ids:
                    valid.append(s)
                    self.stream_ids.add(s.objid)
            for obj in _parsed(valid):
                if not isinstance(obj, PSKeyword):
                    self.push(obj)
                    continue
                method = "do_" + keyword_name(obj).replace("*", "_a").replace('"', "_w").replace("'", "_q")
                func = getattr(self, method, None)
                if func is None:
                    continue
                nargs = func.__code__.co_argcount - 1
                if not nargs:
                    func()
                elif len(args := self.pop(nargs)) == nargs:
                    func(*args)

        def do_Do(self, xobjid_arg) -> None:
            if self._textless(literal_name(xobjid_arg)):
                return
            xobj = resolve1(self.xobjmap.get(literal_name(xobjid_arg)))
            form = isinstance(xobj, PDFStream) and xobj.get("Subtype") is LITERAL_FORM
            if form and not _may_draw_text(xobj.get_data()):
                return
            super().do_Do(xobjid_arg)

    return TextInterpreter


_PARSED: dict[tuple[bytes, ...], list] = {}
_PARSED_BYTES = 64 << 20  # what the remembered parses may hold, counted in their streams' bytes


def _parsed(streams) -> list:
    """The objects pdfminer's content parser reads from `streams` (operands and operators in order), remembered by
    the streams' bytes: the paper draws each figure as a form whose content is the bytes of the figure's own PDF,
    whose check (check_figure_pdf) parsed them already. Parsing, not running, was most of a figure's cost."""
    from pdfminer.pdfinterp import PDFContentParser
    from pdfminer.psparser import PSEOF

    key = tuple(s.get_data() for s in streams)
    if key in _PARSED:
        return _PARSED[key]
    out = []
    try:
        parser = PDFContentParser(streams)
        while True:
            out.append(parser.nextobject()[1])
    except PSEOF:
        pass
    if sum(len(k) for k in _PARSED) + sum(len(b) for b in key) <= _PARSED_BYTES:
        _PARSED[key] = out
    return out


def text_page(page):
    """A pdfplumber page laid out without the forms that cannot add a character (_text_interpreter): its `chars`
    and `extract_words()` are those pdfplumber gives, its paths and rectangles are not all there. Sets the page's
    cached layout (pdfplumber 0.11: `Page._layout`, which its `layout` property fills the same way)."""
    if not hasattr(page, "_layout"):
        from pdfplumber.page import PDFPageAggregatorWithMarkedContent

        device = PDFPageAggregatorWithMarkedContent(page.pdf.rsrcmgr, pageno=page.page_number,
                                                    laparams=page.pdf.laparams)  # fmt: skip
        _text_interpreter()(page.pdf.rsrcmgr, device).process_page(page.page_obj)
        page._layout = device.get_result()
    return page


@functools.lru_cache(maxsize=4)
def _cached_reader(path: str, mtime_ns: int, size: int):
    from pypdf import PdfReader

    return PdfReader(path)


def reader(pdf: Path):
    """A pypdf PdfReader of `pdf`, one per process while the file is unchanged: the checks read its document info,
    its pages and their forms in several places, and each PdfReader parsed the whole 8 MB paper again."""
    st = Path(pdf).stat()
    return _cached_reader(str(pdf), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=2)
def _cached_plumber(path: str, mtime_ns: int, size: int):
    import pdfplumber

    return pdfplumber.open(path)


def plumber_pages(pdf: Path, pages=None) -> list:
    """pdfplumber pages of `pdf` (1-based numbers `pages`, or all), from one pdfplumber document per process while
    the file is unchanged: every open parsed the paper's object streams and page tree again (a part of the check
    opened it once, its layout once more; ~1 CPU-s each, bench/RESULTS.md). Close each page after use (its
    layout is cached on it). A page's `doctop` is that of the whole document's, which no check reads."""
    st = Path(pdf).stat()
    every = _cached_plumber(str(pdf), st.st_mtime_ns, st.st_size).pages
    return every if pages is None else [every[n - 1] for n in pages]


def chars(page) -> list[dict]:
    """The characters of a pdfplumber page laid out by text_page, each with the keys the checks read (text, x0, x1,
    y0, y1, top, bottom, matrix, adv), their values as in `page.chars`: pdfplumber's conversion of every attribute
    of each of ~100,000 characters (its colours resolved, its font name decoded) was a sixth of the check."""
    from pdfminer.layout import LTChar, LTContainer

    if page.pdf.laparams is not None or page.pdf.unicode_norm is not None:
        return [{k: c[k] for k in _CHAR_KEYS} for c in page.chars]  # as pdfplumber gives them, not derived here
    height = page.height
    mb_x0, mb_top = page.mediabox[:2]
    out: list[dict] = []

    def walk(objs) -> None:
        for o in objs:
            if isinstance(o, LTContainer):
                walk(o._objs)
            elif isinstance(o, LTChar):
                x0, x1 = (o.x0 + mb_x0, o.x1 + mb_x0) if mb_x0 != 0 else (o.x0, o.x1)
                out.append({"text": o.get_text(), "x0": x0, "x1": x1, "y0": o.y0, "y1": o.y1,
                            "top": (height - o.y1) + mb_top, "bottom": (height - o.y0) + mb_top,
                            "matrix": o.matrix, "adv": o.adv})  # fmt: skip

    walk(text_page(page).layout._objs)
    return out


_CHAR_KEYS = ("text", "x0", "x1", "y0", "y1", "top", "bottom", "matrix", "adv")


def text_block(pdf: Path) -> Box:
    """The text block main.tex records in the document info (left top width height, bp)."""
    info = reader(pdf).metadata or {}
    if INFO_KEY not in info:
        raise ValueError(f"{pdf}: no {INFO_KEY} in the document info (main.tex writes it)")
    # TeX points (1/72.27 in) -> PDF points (1/72 in)
    left, top, width, height = (float(v.removesuffix("pt")) * 72 / 72.27 for v in str(info[INFO_KEY]).split())
    return Box(left, top, left + width, top + height)


def check_figure_pdf(pdf: Path, max_width: float, max_height: float) -> list[str]:
    """Problems of one figure's own PDF: larger than the space it is printed in, or overlapping text."""
    import pdfplumber

    problems = []
    with pdfplumber.open(pdf) as doc:
        page = text_page(doc.pages[0])
        if page.width > max_width + TOL or page.height > max_height + TOL:
            problems.append(f"{pdf.name}: {page.width:.0f} x {page.height:.0f} bp exceeds "
                            f"{max_width:.0f} x {max_height:.0f} bp")  # fmt: skip
        for a, b in overlapping_labels(chars(page)):
            problems.append(f"{pdf.name}: text {a.text!r} overlaps {b.text!r} at x={a.box.x0:.0f}, y={a.box.top:.0f}")
    return problems


def check_paper_pdf(pdf: Path, every_page: bool = False, pages: range | None = None) -> list[str]:
    """Problems of the built paper, on every page that draws a figure (`every_page`: on every page, where a long
    table could run off the page): a figure outside the text block, text other than the page number outside it (a
    caption pushed into the footer, a table row below the block), or overlapping text. `pages` (1-based): only
    those, so that parts of the paper can be checked in parallel processes."""
    problems = []
    for ppage in plumber_pages(pdf, pages):
        problems += check_paper_page(pdf, ppage, every_page)
        ppage.close()  # its layout: the document stays open for the next part (plumber_pages)
    return problems


def check_paper_page(pdf: Path, ppage, every_page: bool = False) -> list[str]:
    """check_paper_pdf of one pdfplumber page of `pdf` (plumber_pages), left open: its layout (text_page) serves
    other checks of the page until it is closed."""
    block = text_block(pdf)
    problems = []
    i = ppage.page_number
    figs = form_boxes(reader(pdf).pages[i - 1])
    if not figs and not every_page:
        return []
    for box in figs:
        if not box.inside(block):
            problems.append(f"page {i}: a figure at ({box.x0:.0f}, {box.top:.0f})-({box.x1:.0f}, "
                            f"{box.bottom:.0f}) leaves the text block ({block.x0:.0f}, {block.top:.0f})-"
                            f"({block.x1:.0f}, {block.bottom:.0f})")  # fmt: skip
    page_chars = chars(ppage)
    for lb in labels(page_chars):
        if lb.text.isdigit() and lb.baseline > block.bottom + TOL:
            continue  # the page number, in the footer
        # a line of text is inside when its glyphs are within the block's sides and top and its baseline
        # above the block's bottom (descenders of the last line hang below, as LaTeX sets them)
        text_box = Box(lb.box.x0, lb.box.top, lb.box.x1, lb.baseline)
        if not text_box.inside(block):
            problems.append(f"page {i}: text {lb.text!r} outside the text block")
    for a, b in overlapping_labels(page_chars):
        problems.append(f"page {i}: text {a.text!r} overlaps {b.text!r}")
    return problems
