"""e2fsprogs `filefrag -v` output (FIEMAP) -> table `extents`, one row per file.

Per file filefrag prints `File size of PATH is BYTES (N blocks of SIZE bytes)`, a header (` ext: logical_offset:
...`), one record line per FIEMAP extent (`   0:   0..  73:   39981591..  39981664:   74:   last,eof`) and
`PATH: N extents found` (filefrag's count: physically contiguous records counted once). `Filesystem type is: X`
(the statfs magic, hex) comes before the first file and again when it changes. Every file must end in its count
line; anything else is an error naming the line: the extent count is the point of the file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from blkscope.errors import InputError
from blkscope.readers.textlines import numbered_lines
from blkscope.schemas import EXTENTS

if TYPE_CHECKING:
    from blkscope.io import Report, TableWriter

_FSTYPE = re.compile(r"^Filesystem type is: ([0-9a-fA-F]+)$")
_SIZE = re.compile(r"^File size of (.+) is (\d+) \((\d+) blocks? of (\d+) bytes\)$")
_HEADER = re.compile(r"^ ext:\s+logical_offset:")
_RECORD = re.compile(r"^\s*\d+:\s+\d+\.\.\s*\d+:\s+\d+\.\.\s*\d+:\s+\d+:")
_COUNT = re.compile(r"^(.+): (\d+) extents? found$")
_SNIFF = re.compile(rb"^File size of .+ is \d+ \(\d+ blocks? of \d+ bytes\)$", re.MULTILINE)


def sniff(head: bytes) -> bool:
    return bool(_SNIFF.search(head))


def read(inputs: list[Path], writer: TableWriter, report: Report) -> None:
    for path in map(Path, inputs):
        writer.write("extents", pl.DataFrame(_rows(path), schema=EXTENTS, orient="row"))
    writer.ensure("extents")


def _rows(path: Path) -> list[tuple]:
    rows: list[tuple] = []
    magic = None
    cur: list | None = None  # [path, bytes, block_size, records, line of its size line]
    for n, line, _complete in numbered_lines(path, "filefrag -v output"):
        if m := _FSTYPE.match(line):
            magic = m.group(1).lower()
        elif m := _SIZE.match(line):
            if cur is not None:
                raise InputError(path, f"line {cur[4]}", f"no 'extents found' line for {cur[0]!r}")
            cur = [m.group(1), int(m.group(2)), int(m.group(4)), 0, n]
        elif cur is not None and _HEADER.match(line):
            continue
        elif cur is not None and _RECORD.match(line):
            cur[3] += 1
        elif (m := _COUNT.match(line)) and cur is not None:
            if m.group(1) != cur[0]:
                raise InputError(path, f"line {n}", f"count for {m.group(1)!r} inside {cur[0]!r}")
            name, size, block, records, _ = cur
            top = name.split("/", 1)[0] if "/" in name else ""
            rows.append((name, top, size, block, int(m.group(2)), records, magic))
            cur = None
        else:
            raise InputError(path, f"line {n}", f"not a filefrag -v line: {line[:80]!r}")
    if cur is not None:
        raise InputError(path, f"line {cur[4]}", f"no 'extents found' line for {cur[0]!r} (cut file?)")
    return rows
