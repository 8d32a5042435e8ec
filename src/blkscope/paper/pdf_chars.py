"""pdfplumber pages laid out for their characters alone (textless content skipped), one document per file."""

from __future__ import annotations

import functools
from pathlib import Path

from blkscope.paper.pdf_textless import _PARSED_BYTES, _TEXTLESS, _may_draw_text, _stripped, _Textless


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
