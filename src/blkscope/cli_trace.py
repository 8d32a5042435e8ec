"""Trace verbs: `blkscope export-blktrace`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blkscope.verbs import Handler, verb


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


@verb("btt", "run the real btt on a blktrace set, blkparse -d dump or events.parquet; its tables into OUTDIR")
def _btt(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT", help="set prefix, dir, dump or events.parquet")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="btt_avg.parquet, btt_latency.parquet, btt.avg")

    def run(a: argparse.Namespace) -> int:
        from blkscope.readers.btt import to_dir

        avg, lat = to_dir(a.inputs, a.outdir)
        print(f"btt: {avg.height} averages, {lat.height} per-IO latencies -> {a.outdir}", file=sys.stderr)
        return 0

    return run


@verb("ingest-blkparse", "run the real blkparse (-f format) on binary traces and read its output into events")
def _via_blkparse(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT", help="set prefix, dir or blkparse -d dump")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="events.parquet and ingest.json")

    def run(a: argparse.Namespace) -> int:
        from blkscope.readers import blkparse_run

        rep = blkparse_run.to_dir(a.inputs, a.outdir)
        print(f"ingest-blkparse: events={rep.rows.get('events', 0)} -> {a.outdir}", file=sys.stderr)
        return 0

    return run
