"""Content that cannot add a character (form XObjects and q ... Q blocks of paths and marks), found from bytes."""

from __future__ import annotations

import re
import weakref


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
_PARSED_BYTES = 64 << 20  # what a memo of streams (_STRIPPED, pdf_chars._PARSED) may hold, in the streams' bytes


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
