"""Verbs of the trace path: `blkscope ingest` and `blkscope frequency`. Registered without importing the
other verb modules, so `blkscope ingest` of a trace starts in ~40 ms (issue B's bench times the command)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blkscope.verbs import EACH_HELP, Handler, each_run, say, verb


@verb("ingest", "read raw logs into tidy Parquet tables (one per table) plus ingest.json")
def _ingest(p: argparse.ArgumentParser) -> Handler:
    from blkscope.readers import KINDS

    p.add_argument("--kind", default="auto", choices=["auto", *KINDS], help="input format (default: sniff)")
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="output directory (replaced atomically)")
    p.add_argument("--part", metavar="K/N", help="ingest only part K of N of a large trace (blkscope.parts: CPU "
                   "files of a blktrace set, cut at record starts when N exceeds them, or a byte range of a text "
                   "trace cut at line starts)")  # fmt: skip

    def run(a: argparse.Namespace) -> int:
        if a.part:
            from blkscope.parts import ingest_part, parse_part

            rep = ingest_part(a.kind, a.inputs, *parse_part(a.part), a.outdir)
        else:
            from blkscope.ingest import run_ingest

            rep = run_ingest(a.kind, a.inputs, a.outdir)
        _say(rep, f"{rep.kind}: ", f" -> {a.outdir}")
        return 0

    return run


def _say(rep, prefix: str, suffix: str = "") -> None:
    """An ingest's rows and warnings on stderr, each line led by `prefix`."""
    rows = ", ".join(f"{k}={v}" for k, v in rep.rows.items())
    print(f"{prefix}{rows}{suffix}", file=sys.stderr)
    for w in rep.warnings:
        print(f"{prefix}warning: {w}", file=sys.stderr)


@verb("ingest-runs", "ingest every raw log of captured runs: <raw>/<run>/* -> <processed>/<run>/<source>/")
def _ingest_runs(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run ids (directories under --raw)")
    p.add_argument("--sheet", required=True, type=Path, help="the runs sheet (config/runs.tsv): each run's workload")
    p.add_argument("--raw", required=True, type=Path, help="raw data directory (data/raw)")
    p.add_argument("-o", "--processed", required=True, type=Path, help="processed data directory (data/processed)")
    p.add_argument("--split", nargs="*", default=[], metavar="RUN",
                   help="runs whose trace is ingested in parts (workflow/rules/parts.smk): their other logs only")

    def run(a: argparse.Namespace) -> int:
        """One process for many runs: the workflow's unit of ingest is a batch of runs, since a Python process
        costs more to start than most of these logs take to read (bench/RESULTS.md, "The main job")."""
        from blkscope.ingest import run_ingest
        from blkscope.run_logs import sources
        from blkscope.runs import load_runs

        sheet = load_runs(a.sheet)
        workload = dict(zip(sheet["run_id"].to_list(), sheet["workload"].to_list(), strict=True))
        for r in a.runs:
            if r not in workload:
                raise ValueError(f"{a.sheet}: no run {r!r}")
            for sub, kind, files in sources(a.raw, r, workload[r]):
                if sub == "trace" and r in a.split:
                    continue
                _say(run_ingest(kind, files, a.processed / r / sub), f"{r} {kind}: ")
        return 0

    return run


@verb("frequency", "accesses per page from block events: per-page counts and rank-frequency tables")
def _frequency(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s) or a split trace's parts.json")
    p.add_argument("--page-kib", type=int, default=4, help="page size in KiB (default 4)")
    p.add_argument("--action", default="C", help="which events count (default C: completions)")
    p.add_argument("--pages", type=Path, help="write per-page counts here (Parquet)")
    p.add_argument("--rank", type=Path, required=True, help="write rank-frequency table here (Parquet)")
    p.add_argument("--each", action="store_true", help=EACH_HELP)

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.frequency import noted_page_counts, rank_frequency
        from blkscope.io import write_atomic

        for events, out in each_run(a.events, a.each, pages=a.pages, rank=a.rank):
            counts, note = noted_page_counts(events, page_kib=a.page_kib, action=a.action)
            if note:
                say("frequency", ", ".join(map(str, events)), f"no page counted: {note}")
            if out["pages"]:
                write_atomic(counts, out["pages"], note)
            write_atomic(rank_frequency(counts), out["rank"], note)
        return 0

    return run
