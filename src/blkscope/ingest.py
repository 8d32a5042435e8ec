"""`blkscope ingest`: pick the reader for a kind (or sniff it) and run it into OUTDIR, atomically.

Report, TableWriter and run_reader live in blkscope.io, below both this module and the readers.
"""

from __future__ import annotations

from blkscope.io import Report, TableWriter, run_reader

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Report", "TableWriter", "run_ingest", "run_reader"]


def run_ingest(kind: str, inputs: list[str | Path], outdir: str | Path) -> Report:
    """Read `inputs` with the reader for `kind` (or sniffed) into `outdir`, atomically."""
    from blkscope.readers import get_reader

    if kind == "auto":
        from blkscope.readers.detect import detect  # here: a stated kind does without it (and gzip, bz2, lzma)

        kind = detect(inputs)
    return run_reader(get_reader(kind), kind, inputs, outdir)
