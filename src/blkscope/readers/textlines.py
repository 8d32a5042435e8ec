"""Numbered lines of a (possibly compressed) text file, knowing whether each line is complete.

Tools end every line with a newline, but a file copied from a web page or saved by an editor often
lacks the last one. So a last line without a line end is read as data when it reads as a whole line
(right number of fields, every number parses; ingest.json notes its line number), and dropped with a
warning when it does not (a cut line: `total, 12` of `total, 1234, 56`). A cut inside the last number
of an otherwise whole line cannot be told from a complete line; the note in ingest.json says where to look.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from blkscope.errors import InputError
from blkscope.readers.textio import open_text

if TYPE_CHECKING:
    from blkscope.io import Report


def numbered_lines(path: Path, what: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, text without line end, complete?) for each line; InputError if the file is empty."""
    n = 0
    with open_text(path) as f:
        for n, line in enumerate(f, start=1):
            complete = line.endswith("\n")
            yield n, line.rstrip("\r\n"), complete
    if n == 0:
        raise InputError(path, "byte offset 0", f"empty file; expected {what}")


def unterminated(report: Report, path: Path, lineno: int) -> None:
    """The last line had no line end but read as a whole line: note it in ingest.json."""
    report.extra.setdefault("last_line_without_line_end", {})[str(path)] = lineno


def cut_line(report: Report, path: Path, lineno: int, why: str) -> None:
    """The last line has no line end and does not read as a whole line: warn, do not read it."""
    report.warn(f"{path}: line {lineno}: last line has no line end and {why}: cut, not read")
