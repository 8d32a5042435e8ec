"""`blkscope ...`: the command line. Every verb is a thin adapter over the package, registered by a verb
module (cli_*.py) in blkscope.verbs; this module only reads the registry (one way: no verb module imports it)."""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys
from pathlib import Path

# one OpenBLAS thread unless the user says otherwise, set before any verb loads numpy: no verb does linear algebra
# big enough to share, and OpenBLAS's idle per-core threads spin (~0.1 s of CPU at numpy's import, ~20 CPU-s of
# `zipf`'s L-BFGS-B on 2-vectors), taking a core from the native pass or the other jobs; workers inherit it
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# polars' thread pool within the job's thread budget: Snakemake gives each job OMP_NUM_THREADS = its rule's
# threads (as it does for OpenBLAS and MKL, not for polars), and `--cores 8` runs up to 8 jobs at once; a pool of
# one thread per core in each of them cost characterise_views ~10-20 % more CPU for no less wall (bench/RESULTS.md)
if "OMP_NUM_THREADS" in os.environ:
    os.environ.setdefault("POLARS_MAX_THREADS", os.environ["OMP_NUM_THREADS"])

from blkscope.errors import InputError
from blkscope.verbs import VERBS

# at exit, every object left is frozen out of the interpreter's final garbage collections: they traversed the
# objects of polars and numpy for ~40 ms of every verb's wall time that loads them (bench/RESULTS.md,
# "Characterisation" 2026-11-27 (4)); refcounting still frees what it can, only cycles are left to the OS.
# Registered on import, before any verb's handler: it runs after every other exit handler.
atexit.register(gc.freeze)

# the light modules first (argparse only), holding the verbs that must start fast: a verb of theirs is built alone
FAST_MODULES = ["cli_ingest", "cli_reuse", "cli_notebook"]
VERB_MODULES = [*FAST_MODULES, "cli_analysis", "cli_capture", "cli_figdata", "cli_import", "cli_load", "cli_stats",
                "cli_trace", "cli_characterise", "cli_steady"]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; `only`: just that verb if a FAST_MODULES module has it (no other verb module
    imported), so `blkscope ingest` of a trace starts in ~40 ms instead of ~100 (issue B's bench times the whole
    command), and `blkscope reuse` launches its native pass ~40 ms sooner (the modules compile on every start when
    no bytecode is cached)."""
    for mod in FAST_MODULES:
        if only in VERBS:
            break
        importlib.import_module(f"blkscope.{mod}")
    if only not in VERBS:
        for mod in VERB_MODULES[len(FAST_MODULES):]:
            importlib.import_module(f"blkscope.{mod}")
        only = None

    parser = argparse.ArgumentParser(prog="blkscope", description=__doc__)
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name, (configure, help_) in VERBS.items():
        if only in (None, name):
            sp = sub.add_parser(name, help=help_, description=help_)
            configure(sp)
            _dataset_options(sp)
    return parser


def _dataset_options(p: argparse.ArgumentParser) -> None:
    """Every verb reads and writes the workflow's dataset manifests the same way (blkscope.datasets)."""
    g = p.add_argument_group("dataset manifests (the workflow declares these instead of every per-run table)")
    g.add_argument("--check-datasets", nargs="*", type=Path, default=[], metavar="MANIFEST",
                   help="before reading: every table these manifests list must have its recorded size and sha256")
    g.add_argument("--record-dataset", type=Path, metavar="MANIFEST",
                   help="after writing: list --dataset-files in MANIFEST with their sizes and sha256")
    g.add_argument("--dataset-files", nargs="*", type=Path, default=[], metavar="FILE",
                   help="the tables this run writes that --record-dataset lists")


def _with_datasets(args: argparse.Namespace) -> int:
    if args.dataset_files and not args.record_dataset:
        raise ValueError("--dataset-files without --record-dataset")
    if args.check_datasets or args.record_dataset:
        from blkscope import datasets

        for m in args.check_datasets:
            datasets.verify(m)
    rc = args._handler(args)
    if rc == 0 and args.record_dataset:
        datasets.record(args.record_dataset, args.dataset_files)
    return rc


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    parser = build_parser(args_in[0] if args_in else None)
    args = parser.parse_args(args_in)
    try:
        return _with_datasets(args)
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
    sys.exit(main())
