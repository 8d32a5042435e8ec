"""Runs analysed in parallel processes: a verb's `-j/--jobs` (blkscope.cli.common.jobs_option) and the analyses
that read many runs (analysis/characterise/characterise_summary.py)."""

from __future__ import annotations

import os
from pathlib import Path

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
