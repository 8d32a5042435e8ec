"""The form XObjects the PDF checks skip without resolving them (blkscope.paper.pdf_textless._Textless, read from
the file's bytes): exactly those pdfminer, resolving each, finds to be forms whose content cannot add a character,
in a figure of translucent marks (a form per mark) and in a LaTeX page that includes it; an object whose bytes
do not settle it is left to pdfminer."""

from __future__ import annotations

import zlib

import altair as alt
import pandas as pd
import pytest
import vl_convert as vlc
from test_figure_geometry import _forms, _paper

from blkscope.paper.pdf_textless import _may_draw_text, _Textless


def _pdfminer_skips(doc) -> dict[int, bool]:
    """Every object of a pdfminer document: whether it is a form the text interpreter skips, resolved."""
    from pdfminer.pdfinterp import LITERAL_FORM
    from pdfminer.pdftypes import PDFStream

    out = {}
    for xref in doc.xrefs:
        for objid in xref.get_objids():
            obj = doc.getobj(objid)
            form = isinstance(obj, PDFStream) and obj.get("Subtype") is LITERAL_FORM
            out.setdefault(objid, form and not _may_draw_text(obj.get_data()))
    return out


def test_the_forms_read_from_the_bytes_are_the_ones_pdfminer_skips(tmp_path):
    import pdfplumber

    points = pd.DataFrame({"x": range(200), "y": [(i * 37) % 101 for i in range(200)]})
    chart = alt.Chart(points, width=280, height=200).mark_circle(opacity=0.4).encode(x="x:Q", y="y:Q")
    fig = tmp_path / "marks.pdf"
    fig.write_bytes(vlc.vegalite_to_pdf(chart.to_dict()))
    for pdf in (fig, _paper(tmp_path, fig)):
        with pdfplumber.open(pdf) as doc:
            slow = _pdfminer_skips(doc.doc)
        with pdfplumber.open(pdf) as doc:  # a document of its own: nothing resolved yet
            fast = _Textless.of(doc.doc)
            assert {objid: fast(objid) for objid in slow} == slow, pdf.name
        assert sum(slow.values()) >= 200, pdf.name  # every mark's form, known without pdfminer


class _XRef:
    def get_pos(self, objid: int):
        if objid != 7:
            raise KeyError(objid)
        return None, 3, 0


LINE = b"0 0 m 10 10 l S"


def _obj(content: bytes = LINE, dic: bytes = b"/Type /XObject /Subtype /Form /BBox [0 0 10 10]", flate=True,
         length: bytes | None = None, objid: int = 7) -> bytes:  # fmt: skip
    data = zlib.compress(content) if flate else content
    length = length if length is not None else str(len(data)).encode()
    filt = b" /Filter /FlateDecode" if flate else b""
    return b"%x\n" + b"%d 0 obj\n<< %s%s /Length %s >>\nstream\n" % (objid, dic, filt, length) + data + \
        b"\nendstream\nendobj\n"  # fmt: skip


@pytest.mark.parametrize(
    ("data", "known"),
    [
        (_obj(), True),
        (_obj(flate=False), True),
        (_obj(b"BT /F1 10 Tf (a) Tj ET"), False),  # draws text
        (_obj(b"q /Fm0 Do Q"), False),  # draws another form, which may
        (_obj(length=b"8 0 R"), False),  # its length in another object
        (_obj(length=b"3"), False),  # a length that does not end at endstream
        (_obj(dic=b"/Subtype /Image /Width 1 /Height 1"), False),
        (_obj(dic=b"/Subtype /Form /DecodeParms << /Predictor 12 >>"), False),
        (_obj(dic=b"/Subtype /Form /Name (a string >> stream)"), False),
        (_obj(objid=8), False),  # not the object the table says is there
    ],
)
def test_only_what_the_bytes_settle_is_known(data, known):
    assert _Textless([_XRef()], data)(7) is known
    assert _Textless([_XRef()], data)(9) is False  # not in the table


def _strip(data: bytes) -> bytes:
    from blkscope.paper.pdf_textless import _without_textless_blocks

    return _without_textless_blocks(data, {"cs0": 3}.get, {"x0"}.__contains__)


@pytest.mark.parametrize(
    ("block", "removed"),
    [
        (b"q /cs0 CS 0.5 0.5 0.5 SCN 0.5 w [] 0 d 0 0 m 9 0 l h S Q", True),  # a path
        (b"q /gs0 gs 1 0 0 1 5 5 cm /x0 Do Q", True),  # a mark's form that draws no text
        (b"q q 0 0 m 1 1 l S Q 1 0 0 RG 0 0 5 5 re f Q", True),  # blocks inside a block
        (b"q /x1 Do Q", False),  # a form not known to draw no text
        (b"q BT /F1 9 Tf (a) Tj ET Q", False),  # text
        (b"q 0 0 1 1 m Q", False),  # an operand left on the stack after Q
        (b"q 0.5 0.5 0.5 scn Q", False),  # components of a colour space not known here
        (b"q /cs1 cs 0.5 scn Q", False),  # a colour space not in the resources
        (b"q 1 0 0 1 0 0 cm BDC Q", False),  # marked content
        (b"q 0 0 m % a comment\n 1 1 l S Q", False),  # a comment: the stream as it is
    ],
)
def test_a_block_is_left_out_only_when_it_cannot_change_the_characters(block, removed):
    data = b"BT (x) Tj ET\n" + block + b"\nBT (y) Tj ET\n"
    assert (_strip(data) == b"BT (x) Tj ET\n\nBT (y) Tj ET\n") is removed
    assert removed or _strip(data) == data


MARKS = [
    b"q /gs0 gs /x0 Do Q",  # a mark: left out
    b"q\n/gs0 gs\n/x1 Do\nQ",  # a form not known to draw no text
    b"1 q /gs0 gs /x0 Do Q",  # an operand before q: the block around it stays
    b"q q /gs0 gs /x0 Do Q Q",  # inside a block
    b"q /gs0 gs /x0 Do Q 0 0 m Q",  # an operand left after a block
    b"[q /gs0 gs /x0 Do Q]",  # inside an array: the stream as it is
    b"q /g#20s gs /x0 Do Q",  # a name with an escape
    b"q /gs0 gs /x0 Do Qq",  # not the operator Q
    b"q /gs0 gs /x0 Do Q\nq /gs0 gs /x0 Do Q",  # one after the other
]


@pytest.mark.parametrize("mark", MARKS)
@pytest.mark.parametrize(("before", "after"), [(b"", b""), (b"BT (x) Tj ET\n", b"\nBT (y) Tj ET\n")])
def test_a_mark_read_whole_leaves_the_stream_the_tokens_leave(mark, before, after):
    """_LEX reads a mark block (q, gs, Do, Q) in one match: the same stream as _LEX_TOKENS reading it token by
    token, also where the block is not left out (the stream's first or last bytes, an operand around it)."""
    from blkscope.paper.pdf_textless import _LEX, _LEX_TOKENS, _without_textless_blocks

    data = before + mark + after
    textless = {"x0"}.__contains__
    whole = _without_textless_blocks(data, {"cs0": 3}.get, textless, _LEX)
    assert whole == _without_textless_blocks(data, {"cs0": 3}.get, textless, _LEX_TOKENS)


def test_a_figure_s_streams_read_with_marks_whole_are_those_read_token_by_token(tmp_path):
    from blkscope.paper.pdf_textless import _LEX, _LEX_TOKENS, _without_textless_blocks

    points = pd.DataFrame({"x": range(200), "y": [(i * 37) % 101 for i in range(200)]})
    chart = alt.Chart(points, width=280, height=200).mark_circle(opacity=0.4).encode(x="x:Q", y="y:Q")
    fig = tmp_path / "marks.pdf"
    fig.write_bytes(vlc.vegalite_to_pdf(chart.to_dict()))
    from pypdf import PdfReader

    cut = 0
    for pdf in (fig, _paper(tmp_path, fig)):
        for data in [p.get_contents().get_data() for p in PdfReader(pdf).pages] + _forms(pdf):
            for textless in ({f"xo{i}" for i in range(0, 400, 2)}.__contains__, lambda name: True):
                whole = _without_textless_blocks(data, {"cs0": 3}.get, textless, _LEX)
                assert whole == _without_textless_blocks(data, {"cs0": 3}.get, textless, _LEX_TOKENS), pdf.name
                cut += whole is not data
    assert cut >= 2


def test_a_stream_met_again_is_lexed_again_only_when_its_names_answer_otherwise(monkeypatch):
    """_stripped remembers what _without_textless_blocks left of a stream with the answers it was given: met
    again with the same answers the stream is not lexed again; with another (a form here that may draw text, a
    colour space of other components) it is, and each time the bytes are those of _without_textless_blocks."""
    from blkscope.paper import pdf_textless
    from blkscope.paper.pdf_textless import _stripped, _without_textless_blocks

    lexed = []
    monkeypatch.setattr(pdf_textless, "_without_textless_blocks",
                        lambda data, *a: lexed.append(data) or _without_textless_blocks(data, *a))  # fmt: skip
    data = b"BT (x) Tj ET\nq /gs0 gs /x0 Do Q\nq /cs0 CS 0.5 0.5 0.5 SCN 0 0 m 9 0 l S Q\nBT (y) Tj ET\n"
    answers = [({"cs0": 3}, {"x0"}), ({"cs0": 3}, {"x0"}), ({"cs0": 3}, set()), ({"cs0": 1}, {"x0"}),
               ({"cs0": 3}, {"x0"})]  # fmt: skip
    out = [_stripped(data, cs.get, xo.__contains__) for cs, xo in answers]
    assert out == [_without_textless_blocks(data, cs.get, xo.__contains__) for cs, xo in answers]
    assert out[0] == b"BT (x) Tj ET\n\n\nBT (y) Tj ET\n" and out[2] != out[0] and out[3] != out[0]
    assert len(lexed) == 4  # all but the second
