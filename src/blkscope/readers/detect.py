"""Sniff the format of a raw input: each reader module judges the first bytes."""

from __future__ import annotations

from pathlib import Path

from blkscope.errors import InputError
from blkscope.readers import KINDS, module_for
from blkscope.readers.textio import open_binary

HEAD_BYTES = 65536


def detect(inputs: list[Path]) -> str:
    if not inputs:
        raise InputError("<none>", None, "no input given")
    p = Path(inputs[0])
    if p.is_dir():
        return "blktrace"  # a directory of per-CPU blktrace files
    if not p.exists():
        # a blktrace set prefix such as dir/sda names files dir/sda.blktrace.N
        if list(p.parent.glob(p.name + ".blktrace.*")):
            return "blktrace"
        raise InputError(p, None, "no such file")
    with open_binary(p) as f:
        head = f.read(HEAD_BYTES)
    if not head.strip():
        raise InputError(p, "byte offset 0", "empty file; cannot detect its format")
    for kind in KINDS:
        mod = module_for(kind)
        if mod is not None and mod.sniff(head):
            return kind
    raise InputError(p, "byte offset 0", "unrecognised format; pass --kind")
