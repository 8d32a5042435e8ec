"""What two clean runs of the main job may differ in, and each output compared without it (issue R item 5).

Two uninterrupted runs of one commit differ in 72 files (bench/RESULTS.md, "Interrupted, resumed, identical").
Compared byte for byte they say nothing, so a killed round that left one of them damaged went unseen. Here each kind
is compared without what a run may change in it:

- manifest (data/processed/datasets/*.tsv): without the `mtime_ns` column (path, bytes and sha256 kept);
- notebook (*.ipynb): without papermill's and the kernel's timestamps and durations, and the cells' ids (random
  where jupytext converts the .py); every cell's status and exception, its source and outputs kept;
- pdf: the object graph from the catalogue in a canonical order (dictionaries by key, objects numbered as first
  reached, streams decoded and hashed), without dates, the trailer's /ID, the document information (not reached
  from the catalogue), XMP metadata and the fonts' subset tags;
- latexmk's record (*.fdb_latexmk): without the files' mtimes and the runs' times (sizes and md5 kept);
- not comparable: Snakemake's benchmark timings (benchmarks/) and logs (*.log): listed, not compared.

Every other file is compared byte for byte. A file that does not read as its kind (a truncated PDF, a notebook cut
mid-JSON) is a difference, named with why.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections import deque
from pathlib import PurePosixPath

NOT_COMPARABLE = "not comparable"


def kind(rel: str) -> str:
    """The kind of an output by its path in the tree."""
    p = PurePosixPath(rel)
    if p.parts[0] == "benchmarks" or p.suffix == ".log":
        return NOT_COMPARABLE
    if p.parts[:3] == ("data", "processed", "datasets") and p.suffix == ".tsv":
        return "manifest"
    return {".ipynb": "notebook", ".pdf": "pdf", ".fdb_latexmk": "latexmk"}.get(p.suffix, "bytes")


def manifest(data: bytes) -> bytes:
    rows = [line.split("\t") for line in data.decode().splitlines()]
    if not rows or rows[0][:3] != ["path", "bytes", "sha256"]:
        raise ValueError("no manifest header (path, bytes, sha256[, mtime_ns])")
    if any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("a row without every column")
    return "".join("\t".join(r[:3]) + "\n" for r in rows).encode()  # mtime_ns left out


_RUN_KEYS = ("start_time", "end_time", "duration")  # papermill's; its status and exception stay


def notebook(data: bytes) -> bytes:
    nb = json.loads(data)
    pm = nb.get("metadata", {}).get("papermill", {})
    for k in _RUN_KEYS:
        pm.pop(k, None)
    for cell in nb["cells"]:
        cell.pop("id", None)  # drawn at random where jupytext writes the .py as an .ipynb
        meta = cell.get("metadata", {})
        meta.pop("execution", None)  # the kernel's iopub and shell timestamps
        for k in _RUN_KEYS:
            meta.get("papermill", {}).pop(k, None)
    return json.dumps(nb, sort_keys=True, ensure_ascii=False).encode()


_FDB_RUN = re.compile(r'^(\[[^\]]*\]) [\d.]+ (.*) [\d.]+ (\d+)$')  # ["rule"] time "src" "dest" "base" time 0
_FDB_FILE = re.compile(r'^(\s+"[^"]*") [\d.]+ ')  # "file" mtime size md5 "from"
# a PDF input's md5 (the figures): its bytes carry its creation date; the PDF itself is compared as a PDF
_FDB_PDF = re.compile(r'^(\s+"[^"]*\.pdf" - \d+) [0-9a-f]{32} ')
# a file the run made ("from" names its rule, e.g. the .aux): latexmk keeps a cached md5 while mtime and size are
# unchanged, so one made twice in the same second may keep the first version's md5; the file is compared itself
_FDB_MADE = re.compile(r'^(\s+"[^"]*" - \d+) [0-9a-f]{32} ("[^"]+")$')


def latexmk(data: bytes) -> bytes:
    lines = []
    for line in data.decode().splitlines():
        line = _FDB_RUN.sub(r"\1 - \2 - \3", line)
        line = _FDB_PDF.sub(r"\1 - ", _FDB_FILE.sub(r"\1 - ", line))
        lines.append(_FDB_MADE.sub(r"\1 - \2", line))
    return "\n".join(lines).encode()


_PDF_DROP = {"/CreationDate", "/ModDate", "/Metadata", "/Length"}
_SUBSET = re.compile(r"^/[A-Z]{6}\+")  # a font subset's tag: ABCDEF+LiberationSans


def pdf(data: bytes) -> bytes:
    """The object graph from the catalogue, canonical: objects numbered in the order a breadth-first walk that
    reads dictionaries by key first reaches them, each written once with its references as @n."""
    from pypdf import PdfReader
    from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, NameObject, StreamObject

    reader = PdfReader(io.BytesIO(data), strict=True)
    number: dict[tuple[int, int], int] = {}
    todo: deque[IndirectObject] = deque()

    def ref(o: IndirectObject) -> str:
        key = (o.idnum, o.generation)
        if key not in number:
            number[key] = len(number)
            todo.append(o)
        return f"@{number[key]}"

    def text(o) -> str:
        if isinstance(o, IndirectObject):
            return ref(o)
        if isinstance(o, StreamObject):
            body = o.get_data()  # decoded: how it was compressed is no difference (a damaged one raises)
            head = DictionaryObject({k: v for k, v in o.items() if k not in ("/Filter", "/DecodeParms")})
            return f"stream {text(head)} {hashlib.sha256(body).hexdigest()}"
        if isinstance(o, DictionaryObject):
            return "<<" + " ".join(f"{k} {text(v)}" for k, v in sorted(o.items()) if k not in _PDF_DROP) + ">>"
        if isinstance(o, ArrayObject):
            return "[" + " ".join(text(x) for x in o) + "]"
        if isinstance(o, NameObject):
            return _SUBSET.sub("/XXXXXX+", str(o))
        return repr(o)

    out = [f"pages {len(reader.pages)}", f"root {text(reader.trailer.raw_get('/Root'))}"]
    while todo:
        o = todo.popleft()
        out.append(f"{number[(o.idnum, o.generation)]} {text(o.get_object())}")
    return "\n".join(out).encode()


NORMALISE = {"manifest": manifest, "notebook": notebook, "latexmk": latexmk, "pdf": pdf}


def comparable(rel: str, data: bytes) -> bytes | None:
    """The bytes of an output that two clean runs must agree on (None: not comparable). ValueError when it does
    not read as its kind."""
    k = kind(rel)
    if k == NOT_COMPARABLE:
        return None
    if k not in NORMALISE:
        return data
    try:
        return NORMALISE[k](data)
    except Exception as e:  # ours, json's, pypdf's: a damaged file of its kind, said so
        raise ValueError(f"not a readable {k}: {type(e).__name__}: {e}") from e


def same(rel: str, a: bytes, b: bytes) -> tuple[bool | None, str]:
    """Do two versions of an output agree? (True/False, or None when not comparable), and why not."""
    if a == b:
        return True, ""
    try:
        na = comparable(rel, a)
    except ValueError as e:
        return False, f"the reference does not read: {e}"
    if na is None:
        return None, ""
    try:
        nb = comparable(rel, b)
    except ValueError as e:
        return False, str(e)
    k = kind(rel)
    return na == nb, "" if na == nb else "differs" if k == "bytes" else f"differs as a {k}"
