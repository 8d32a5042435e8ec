"""Numbered lines of a (possibly compressed) text file, knowing whether each line is complete.

Tools end every line with a newline, so a last line without one means the file was cut: a
reader must not take numbers from it (`12.5` cut to `12.` would be silently wrong).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from blkscope.errors import InputError
from blkscope.readers.textio import open_text


def numbered_lines(path: Path, what: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, text without line end, complete?) for each line; InputError if the file is empty."""
    n = 0
    with open_text(path) as f:
        for n, line in enumerate(f, start=1):
            complete = line.endswith("\n")
            yield n, line.rstrip("\r\n"), complete
    if n == 0:
        raise InputError(path, "byte offset 0", f"empty file; expected {what}")


def incomplete(path: Path, lineno: int) -> InputError:
    return InputError(path, f"line {lineno}", "last line is incomplete (no line end): file truncated?")
