"""The verb registry: verb modules (cli_*.py) register here, cli.py reads it. Below both, so neither imports
the other in a circle."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

Handler = Callable[[argparse.Namespace], int]
VERBS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], str]] = {}


def verb(name: str, help_: str):
    """Register a verb: the decorated function adds its arguments and returns the handler."""

    def deco(add_args: Callable[[argparse.ArgumentParser], Handler]):
        def configure(p: argparse.ArgumentParser) -> None:
            p.set_defaults(_handler=add_args(p))

        VERBS[name] = (configure, help_)
        return add_args

    return deco


EACH_HELP = ("each EVENTS file is a run of its own (<processed>/<run>/trace/events.parquet): one process for many "
             "runs; output paths are templates with {run}")


def each_run(events: list[Path], each: bool, **outputs: Path | None) -> list[tuple[list[Path], dict[str, Path | None]]]:
    """(events, outputs) per unit of work: all `events` as one run, or with `each` one run per file, its outputs
    the templates filled with its run id (the directory two levels above the file). Every file must exist: a missing
    one stops the verb before it writes anything."""
    for e in events:
        if not Path(e).exists():
            raise ValueError(f"{e}: no such file")
    if not each:
        return [(events, outputs)]
    for name, t in outputs.items():
        if t is not None and "{run}" not in str(t):
            raise ValueError(f"--{name.replace('_', '-')}: a table per run needs a {{run}} template, got {t}")
    return [([e], {k: None if t is None else Path(str(t).replace("{run}", e.parent.parent.name))
                   for k, t in outputs.items()}) for e in events]


def say(verb_: str, what: str, note: str) -> None:
    """Nothing to compute: say so on stderr, one line (the table written says it too: blkscope.io.NOTE_KEY)."""
    import sys

    print(f"blkscope {verb_}: {what}: {note}", file=sys.stderr)


def write_table(df, path: Path | None) -> None:
    """Write `df` to `path` (Parquet, or CSV by its name) if an output was asked for (path not None)."""
    from blkscope.io import write_atomic

    if path:
        write_atomic(df, path)


def names(v: str) -> list[str]:
    """A comma-separated option's names."""
    return [x.strip() for x in v.split(",") if x.strip()]


def jobs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-j", "--jobs", type=int, default=1, help="runs analysed in parallel processes (default 1)")


THREAD_VARS = ("POLARS_MAX_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


def file_size(f: Path) -> int:
    return f.stat().st_size if f.exists() else 0


def map_runs(files, fn, jobs: int = 1, size=file_size) -> list:
    """fn(file) for every file (any picklable unit of work), in file order; with jobs > 1 in that many processes
    (spawned: polars is not fork-safe), the largest (`size`; None: as given) first so one long run does not start
    last. fn must be picklable."""
    if jobs <= 1 or len(files) <= 1:
        return [fn(f) for f in files]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    order = sorted(range(len(files)), key=lambda i: -size(files[i])) if size else range(len(files))
    # the workers share the job's threads, each pool its share: Snakemake gives a job OMP_NUM_THREADS and
    # OPENBLAS_NUM_THREADS = its threads (blkscope.cli derives polars' from them), and idle OpenBLAS threads spin:
    # with two in each of its two workers, `zipf` (cover) took 35-37 CPU-s instead of 17-18 (bench/RESULTS.md)
    saved = {k: os.environ.get(k) for k in THREAD_VARS}
    for k, v in saved.items():
        os.environ[k] = str(max(1, int(v or os.cpu_count() or 1) // jobs))
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
            futures = {i: pool.submit(fn, files[i]) for i in order}
            try:
                return [futures[i].result() for i in range(len(files))]
            except BaseException:  # one run failed: do not wait for the queued ones
                pool.shutdown(cancel_futures=True)
                raise
    finally:
        for k, v in saved.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v
