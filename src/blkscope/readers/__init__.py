"""One module per raw format.

Each module exposes `read(inputs, writer, report)` (write tables through `writer`, count
what it does not know in `report`, raise InputError on bad input) and
`sniff(head: bytes) -> bool` (does this start look like my format?).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from types import ModuleType

    from blkscope.io import Report, TableWriter

    Reader = Callable[[list[Path], TableWriter, Report], None]

# kind (as on the command line) -> module under blkscope.readers, in sniffing order
# (binary formats first: their magic is unambiguous).
KINDS: dict[str, str] = {
    "blktrace": "blktrace",
    "iostat": "iostat",
    "fio": "fio",
    "ftrace": "ftrace",
    "blkparse": "blkparse",
    "ycsb": "ycsb",
    "cassandra-stress": "cassandra_stress",
    "sysbench": "sysbench",
    "journal": "journal",
    "filefrag": "filefrag",
}


def module_for(kind: str) -> ModuleType | None:
    """The reader module for `kind`, or None when that reader is not built yet."""
    try:
        return importlib.import_module(f"blkscope.readers.{KINDS[kind]}")
    except ModuleNotFoundError as e:
        if e.name == f"blkscope.readers.{KINDS[kind]}":
            return None
        raise


def available_kinds() -> list[str]:
    return [k for k in KINDS if module_for(k) is not None]


def get_reader(kind: str) -> Reader:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
    mod = module_for(kind)
    if mod is None:
        raise ValueError(f"no reader for kind {kind!r} in this version")
    return mod.read
