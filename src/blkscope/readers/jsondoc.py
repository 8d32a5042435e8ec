"""Find and decode the JSON document(s) in a tool's output file.

Tools such as fio print warnings and errors before (and sometimes after) their JSON, so the
document starts at the first line whose first non-blank character is `{`. Decoding errors are
reported with the line, column and byte offset the decoder stopped at, in the whole file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blkscope.errors import InputError
from blkscope.readers.textio import open_binary

_DOC_START = re.compile(r"^[ \t]*\{", re.MULTILINE)


@dataclass
class JsonDocs:
    docs: list[Any]
    text_outside: list[str] = field(default_factory=list)  # non-blank lines around the documents
    repaired: bool = False  # the last document was completed with `repair`


def read_text(path: Path) -> str:
    with open_binary(path) as f:
        raw = f.read()
    # No newline translation: decoder positions must map back onto the file as stored.
    return raw.decode("utf-8", errors="replace")


def where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col} (byte offset {len(text[:pos].encode('utf-8'))})"


def decode_all(path: Path, text: str, what: str, repair: str | None = None) -> JsonDocs:
    """Every top-level JSON object in `text`, in order, with the text around them.

    `repair`, when given, is appended to a document that ends the file unterminated; it is
    used only if that makes the document valid (e.g. iostat killed by SIGTERM stops after a
    complete sample, missing just its closing brackets). The caller is told via `repaired`.
    """
    if not text.strip():
        raise InputError(path, "byte offset 0", f"empty file; expected {what}")
    dec = json.JSONDecoder()
    out = JsonDocs(docs=[])
    pos = 0
    while True:
        m = _DOC_START.search(text, pos)
        stop = m.start() if m else len(text)
        out.text_outside += [ln.strip() for ln in text[pos:stop].splitlines() if ln.strip()]
        if m is None:
            break
        start = text.index("{", m.start())
        try:
            obj, end = dec.raw_decode(text, start)
        except json.JSONDecodeError as e:
            obj, end = _try_repair(dec, text, start, repair, e)
            if obj is None:
                at_end = e.pos >= len(text.rstrip())
                why = "file ends inside the JSON document (truncated?)" if at_end else f"invalid JSON: {e.msg}"
                raise InputError(path, where(text, e.pos), f"{why}; expected {what}") from None
            out.repaired = True
        out.docs.append(obj)
        pos = end
    if not out.docs:
        raise InputError(path, "line 1", f"no JSON object found; expected {what}")
    return out


def _try_repair(dec: json.JSONDecoder, text: str, start: int, repair: str | None, err: json.JSONDecodeError):
    if repair is None or err.pos < len(text.rstrip()):
        return None, None
    try:
        obj, _ = dec.raw_decode(text.rstrip() + repair, start)
    except json.JSONDecodeError:
        return None, None
    return obj, len(text)
