"""`blkscope ...`: the command line. Every verb is a thin adapter over the package, in the module of its topic
(blkscope.cli.<topic>: logs, traces, analyses, characterisation, figures, paper, capture, notebooks), registered in
blkscope.cli.verbs; this module only reads the registry (one way: no topic module imports it)."""

from __future__ import annotations

import atexit
import gc
import os
import sys

# one OpenBLAS thread unless the user says otherwise, set before any verb loads numpy: no verb does linear algebra
# big enough to share, and OpenBLAS's idle per-core threads spin (~0.1 s of CPU at numpy's import, ~20 CPU-s of
# `zipf`'s L-BFGS-B on 2-vectors), taking a core from the native pass or the other jobs; workers inherit it
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# polars' thread pool within the job's thread budget: Snakemake gives each job OMP_NUM_THREADS = its rule's
# threads (as it does for OpenBLAS and MKL, not for polars), and `--cores 8` runs up to 8 jobs at once; a pool of
# one thread per core in each of them cost characterise_views ~10-20 % more CPU for no less wall (bench/RESULTS.md)
if "OMP_NUM_THREADS" in os.environ:
    os.environ.setdefault("POLARS_MAX_THREADS", os.environ["OMP_NUM_THREADS"])

from blkscope.cli.verbs import HELP, PLAIN, TOPIC_OF, TOPICS, VERBS, load
from blkscope.errors import InputError

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

# at exit, every object left is frozen out of the interpreter's final garbage collections: they traversed the
# objects of polars and numpy for ~40 ms of every verb's wall time that loads them (bench/RESULTS.md,
# "Characterisation" 2026-11-27 (4)); refcounting still frees what it can, only cycles are left to the OS.
# Registered on import, before any verb's handler: it runs after every other exit handler.
atexit.register(gc.freeze)


def build_parser(only: str | None = None, *, configured: bool = True) -> argparse.ArgumentParser:
    """The command line. `only` (a verb): that verb alone, only its topic's module imported, so a verb starts
    without compiling the others (issue B times the whole command; `blkscope reuse` launches its native pass sooner;
    `blkscope ingest` of a trace in its plain form needs no parser at all: PLAIN). Else every verb: configured
    (every topic module imported), or with `configured=False` by name alone (`blkscope --help`: TOPICS, no topic
    module)."""
    import argparse  # here: a verb's plain form (PLAIN) does without it

    if only in TOPIC_OF:
        load(TOPIC_OF[only])
    elif configured:
        for topic in TOPICS:
            load(topic)
    parser = argparse.ArgumentParser(prog="blkscope", description=__doc__,
                                     epilog=None if only in TOPIC_OF else _by_topic(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB", help="blkscope VERB --help: its options")
    for name in [only] if only in TOPIC_OF else TOPIC_OF:
        sp = sub.add_parser(name, description=HELP[name])  # no help=: listed by topic in the epilog instead
        if name == only or configured:
            VERBS[name](sp)
            _dataset_options(sp)
    return parser


def _by_topic() -> str:
    """The verbs grouped by topic, each with its help, for `blkscope --help`."""
    import textwrap  # here: a verb's start does without it

    col = 24  # a longer verb's help starts on the next line
    lines = ["verbs by topic:"]
    for heading, verbs in TOPICS.values():
        lines.append(f"  {heading}")
        for name, help_ in verbs.items():
            wrapped = textwrap.wrap(help_, 118 - col, break_on_hyphens=False)
            first = f"    {name}"
            lines += [first.ljust(col) + wrapped[0]] if len(first) < col - 1 else [first, " " * col + wrapped[0]]
            lines += [" " * col + w for w in wrapped[1:]]
    return "\n".join(lines)


def _dataset_options(p: argparse.ArgumentParser) -> None:
    """Every verb reads and writes the workflow's dataset manifests the same way (blkscope.datasets)."""
    from pathlib import Path

    g = p.add_argument_group("dataset manifests (the workflow declares these instead of every per-run table)")
    g.add_argument("--check-datasets", nargs="*", type=Path, default=[], metavar="MANIFEST",
                   help="before reading: every table these manifests list must have its recorded size and sha256")
    g.add_argument("--record-dataset", type=Path, action="append", default=[], metavar="MANIFEST",
                   help="after writing: list --dataset-files in MANIFEST with their sizes and sha256 (repeatable: "
                   "a verb that writes several datasets gives each its own --record-dataset and --dataset-files)")
    g.add_argument("--dataset-files", nargs="*", type=Path, action="append", default=[], metavar="FILE",
                   help="the tables this run writes that the --record-dataset before it lists")


def _with_datasets(args: argparse.Namespace) -> int:
    records, files = args.record_dataset, args.dataset_files
    if len(files) > len(records):
        raise ValueError("--dataset-files without --record-dataset")
    if len(records) > 1 and len(files) != len(records):
        raise ValueError("several --record-dataset: each takes its own --dataset-files")
    if args.check_datasets or records:
        from blkscope import datasets

        for m in args.check_datasets:
            datasets.verify(m)
    rc = args._handler(args)
    if rc == 0:
        for m, fs in zip(records, files or [[]], strict=False):
            datasets.record(m, fs)
    return rc


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    verb = args_in[0] if args_in else None
    if verb in TOPIC_OF:
        load(TOPIC_OF[verb])  # its topic registers the verb, and its plain-form reader if it has one
        handler = PLAIN[verb](args_in[1:]) if verb in PLAIN else None
        if handler is not None:
            return _guarded(verb, handler)
    # a verb: its topic alone; anything else (--help, no verb, a wrong one): the verbs by name, none imported
    parser = build_parser(verb, configured=False)
    args = parser.parse_args(args_in)
    return _guarded(args.verb, lambda: _with_datasets(args))


def _guarded(verb: str, handler: Callable[[], int]) -> int:
    """Run a verb's handler: bad input, a missing file or an interrupt as one line on stderr, not a traceback."""
    try:
        return handler()
    except InputError as e:
        print(f"blkscope {verb}: error: {e}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:  # e.g. a missing input file: one line, not a traceback
        print(f"blkscope {verb}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"blkscope {verb}: interrupted", file=sys.stderr)
        return 130

