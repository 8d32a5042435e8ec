"""`blkscope ...`: the command line. Every verb is a thin adapter over the package."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from blkscope.errors import InputError

Handler = Callable[[argparse.Namespace], int]
_VERBS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Handler, str]] = {}


def verb(name: str, help_: str):
    """Register a verb: decorated function adds arguments; returns the handler."""

    def deco(add_args: Callable[[argparse.ArgumentParser], Handler]):
        def configure(p: argparse.ArgumentParser) -> None:
            p.set_defaults(_handler=add_args(p))

        _VERBS[name] = (configure, None, help_)  # type: ignore[assignment]
        return add_args

    return deco


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


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; `only`: just that verb of this module (no verb modules imported), so
    `blkscope ingest` of a trace starts in ~40 ms instead of ~100 (issue B's bench times the whole command)."""
    if only not in _VERBS:
        # Import verb modules that register themselves.
        from blkscope import cli_analysis, cli_capture, cli_figdata, cli_load, cli_stats, cli_trace  # noqa: F401
        only = None

    parser = argparse.ArgumentParser(prog="blkscope", description=__doc__)
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name, (configure, _, help_) in _VERBS.items():
        if only in (None, name):
            sp = sub.add_parser(name, help=help_, description=help_)
            configure(sp)
    return parser


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    parser = build_parser(args_in[0] if args_in else None)
    args = parser.parse_args(args_in)
    try:
        return args._handler(args)
    except InputError as e:
        print(f"blkscope {args.verb}: error: {e}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:  # e.g. a missing input file: one line, not a traceback
        print(f"blkscope {args.verb}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"blkscope {args.verb}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # Run through the package module so verb modules register into the same registry.
    from blkscope.cli import main as _main

    sys.exit(_main())
