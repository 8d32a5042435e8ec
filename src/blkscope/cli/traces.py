"""Traces: split a large trace into parts and gather them, export events as blktrace files, and run the real
blkparse and btt on a blktrace set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blkscope.cli.verbs import Handler, verb


@verb("split")
def _split(p: argparse.ArgumentParser) -> Handler:
    from blkscope.native import KINDS  # the kinds parts.plan splits (parts.PART_KINDS), without parts' imports

    p.add_argument("--kind", default="auto", choices=["auto", *KINDS])
    p.add_argument("--parts", type=int, required=True, metavar="N", help="number of parts")
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT", help="a blktrace set or one text trace")

    def run(a: argparse.Namespace) -> int:
        import json

        from blkscope.parts import plan

        kind = a.kind
        if kind == "auto":
            from blkscope.readers.detect import detect

            kind = detect(a.inputs)
        if a.parts < 1:
            raise ValueError("--parts must be at least 1")
        print(json.dumps(plan(kind, a.inputs, a.parts), indent=2))
        return 0

    return run


@verb("gather-parts")
def _gather(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("parts", nargs="+", type=Path, metavar="PARTDIR", help="part directories, 1..N in order")
    p.add_argument("-o", "--out", required=True, type=Path, help="parts.json")

    def run(a: argparse.Namespace) -> int:
        from blkscope.parts import gather

        doc = gather(a.parts, a.out)
        print(f"gather-parts: {len(doc['parts'])} parts, {doc['rows']['events']} events -> {a.out}", file=sys.stderr)
        return 0

    return run


@verb("export-blktrace")
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


@verb("ingest-blkparse")
def _via_blkparse(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT", help="set prefix, dir or blkparse -d dump")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="events.parquet and ingest.json")

    def run(a: argparse.Namespace) -> int:
        from blkscope.readers import blkparse_run

        rep = blkparse_run.to_dir(a.inputs, a.outdir)
        print(f"ingest-blkparse: events={rep.rows.get('events', 0)} -> {a.outdir}", file=sys.stderr)
        return 0

    return run


@verb("btt")
def _btt(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT", help="set prefix, dir, dump or events.parquet")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="btt_avg.parquet, btt_latency.parquet, btt.avg")

    def run(a: argparse.Namespace) -> int:
        from blkscope.readers.btt import to_dir

        avg, lat = to_dir(a.inputs, a.outdir)
        print(f"btt: {avg.height} averages, {lat.height} per-IO latencies -> {a.outdir}", file=sys.stderr)
        return 0

    return run
