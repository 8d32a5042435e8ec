"""Trace verbs: `blkscope export-blktrace`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blkscope.cli import Handler, verb


@verb("export-blktrace", "write events as per-CPU blktrace v7 files (PREFIX.blktrace.N) for blkparse/btt/iowatcher")
def _export(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s) from `blkscope ingest`")
    p.add_argument("-o", "--prefix", required=True, type=Path, help="output set prefix, e.g. out/loop0")

    def run(a: argparse.Namespace) -> int:
        from blkscope.errors import InputError
        from blkscope.export_blktrace import export

        for e in a.events:
            if not e.exists():
                raise InputError(e, None, "no such file")
        n = export(a.events, a.prefix)
        print(f"export-blktrace: {sum(n.values())} records on CPUs {sorted(n)} -> {a.prefix}.blktrace.N",
              file=sys.stderr)
        return 0

    return run
