"""Binary blktrace (struct blk_io_trace v7, blk_io_trace2 v8) -> events, read by blkscope-native
(native/src/blktrace/: Python decoded ~2 M events/s, the compiled reader ~10x that; bench/RESULTS.md).

Inputs: per-CPU files `<name>.blktrace.<cpu>`, a directory of them, a set prefix (`dir/sda`), or single
files such as a merged `blkparse -d` dump; .zst/.gz/.xz read transparently. Unlike blkparse, a gap in the
CPU list does not stop reading; it is reported, like per-CPU sequence gaps and resynchronisations.
Row order: each CPU's events in time order, CPUs interleaved in time-horizon blocks, NOT one global time
order (blkparse prints that); `sort("time_ns")` where needed.

`resolve` (the same input rules) serves the wrappers that run blkparse and btt on a set.
"""

from __future__ import annotations

import re

from blkscope import native
from blkscope.errors import InputError
from blkscope.readers.capture_meta import record_drops

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    from pathlib import Path

MAGIC = 0x65617400
SET_RE = re.compile(r"^(?P<name>.+)\.blktrace\.(?P<cpu>\d+)(?:\.(?:zst|gz|xz))?$")


def sniff(head: bytes) -> bool:
    """A blktrace magic (0x656174 and version 7 or 8) in either byte order (no numpy: sniffing stays light)."""
    if len(head) < 4:
        return False
    return any((m := int.from_bytes(head[:4], o)) >> 8 == MAGIC >> 8 and m & 0xFF in (7, 8) for o in ("little", "big"))


def resolve(inputs: list[Path]) -> dict[str, list[tuple[int | None, Path]]]:
    """Input paths -> {set name: [(cpu from the file name or None, path)]}."""
    from pathlib import Path  # here: the ingest (read) does without it

    sets: dict[str, list[tuple[int | None, Path]]] = {}
    for p in map(Path, inputs):
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if SET_RE.match(f.name))
            if not files:
                raise InputError(p, None, "directory holds no <name>.blktrace.<cpu> files")
        elif p.exists():
            files = [p]
        else:
            files = sorted(f for f in p.parent.glob(p.name + ".blktrace.*") if SET_RE.match(f.name))
            if not files:
                raise InputError(p, None, "no such file, and no set prefix: no files named " + p.name + ".blktrace.N")
        for f in files:
            m = SET_RE.match(f.name)
            key = str(f.parent / m["name"]) if m else str(f)
            sets.setdefault(key, []).append((int(m["cpu"]) if m else None, f))
    for files in sets.values():
        files.sort(key=lambda t: (t[0] is None, t[0] or 0))
    return sets


def read(inputs: list[str | Path], writer, report) -> None:
    native.run("blktrace", inputs, writer, report)
    record_drops(inputs, report)  # what blktrace itself dropped, from the capture's run.yaml
