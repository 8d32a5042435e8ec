"""Open raw inputs, compressed or not, by content (.zst/.xz/.gz read transparently)."""

from __future__ import annotations

import gzip
import io
import lzma
from pathlib import Path
from typing import BinaryIO

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
GZIP_MAGIC = b"\x1f\x8b"
XZ_MAGIC = b"\xfd7zXZ\x00"


def open_binary(path: str | Path) -> BinaryIO:
    """A binary stream of the decompressed content of `path`."""
    f = open(path, "rb")  # noqa: SIM115 - returned to the caller
    head = f.read(6)
    f.seek(0)
    if head.startswith(ZSTD_MAGIC):
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(f, closefd=True)  # type: ignore[return-value]
    if head.startswith(GZIP_MAGIC):
        return gzip.GzipFile(fileobj=f)  # type: ignore[return-value]
    if head.startswith(XZ_MAGIC):
        return lzma.LZMAFile(f)  # type: ignore[return-value]
    return f


def open_text(path: str | Path) -> io.TextIOWrapper:
    """A text stream (UTF-8, undecodable bytes replaced, universal newlines)."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace", newline=None)


def head_text(path: str | Path, nbytes: int = 65536) -> str:
    with open_binary(path) as f:
        return f.read(nbytes).decode("utf-8", errors="replace")
