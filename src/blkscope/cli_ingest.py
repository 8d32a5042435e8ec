"""Verbs of the trace path: `blkscope ingest` and `blkscope frequency`. Registered without importing the
other verb modules, so `blkscope ingest` of a trace starts in ~40 ms (issue B's bench times the command)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blkscope.verbs import Handler, verb


@verb("ingest", "read raw logs into tidy Parquet tables (one per table) plus ingest.json")
def _ingest(p: argparse.ArgumentParser) -> Handler:
    from blkscope.readers import KINDS

    p.add_argument("--kind", default="auto", choices=["auto", *KINDS], help="input format (default: sniff)")
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="output directory (replaced atomically)")

    def run(a: argparse.Namespace) -> int:
        from blkscope.ingest import run_ingest

        rep = run_ingest(a.kind, a.inputs, a.outdir)
        rows = ", ".join(f"{k}={v}" for k, v in rep.rows.items())
        print(f"{rep.kind}: {rows} -> {a.outdir}", file=sys.stderr)
        for w in rep.warnings:
            print(f"warning: {w}", file=sys.stderr)
        return 0

    return run


@verb("frequency", "accesses per page from block events: per-page counts and rank-frequency tables")
def _frequency(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s)")
    p.add_argument("--page-kib", type=int, default=4, help="page size in KiB (default 4)")
    p.add_argument("--action", default="C", help="which events count (default C: completions)")
    p.add_argument("--pages", type=Path, help="write per-page counts here (Parquet)")
    p.add_argument("--rank", type=Path, required=True, help="write rank-frequency table here (Parquet)")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.frequency import page_counts, rank_frequency
        from blkscope.io import write_atomic

        counts = page_counts(a.events, page_kib=a.page_kib, action=a.action)
        if a.pages:
            write_atomic(counts, a.pages)
        write_atomic(rank_frequency(counts), a.rank)
        return 0

    return run
