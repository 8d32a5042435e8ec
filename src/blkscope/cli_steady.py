"""Verbs of the studies' scale regime (issue P): each run's steady-state window, and block skew against the cache
(registered on import by cli.build_parser)."""

from __future__ import annotations

import argparse
from pathlib import Path

from blkscope.verbs import Handler, verb


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet (config/runs.tsv)")
    p.add_argument("--processed", type=Path, required=True, help="processed data directory (<run>/<stage>/ tables)")
    p.add_argument("-o", "--out", type=Path, required=True, help="output table (.parquet)")
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")


def _write(df, a: argparse.Namespace, note: str | None = None) -> None:
    from blkscope.io import write_atomic

    write_atomic(df, a.out, note=note)
    if a.csv:
        write_atomic(df, a.csv)


@verb("steady-state", "per run: warm-up end (MSER-5 on per-second throughput), window, clock, and whether steady")
def _steady_state(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("--ycsb-phases", type=Path, help="the ycsb_phases table: the warm-up each capture recorded")
    p.add_argument("--raw", type=Path, help="raw data directory: each traced run's run.yaml, for a kept trace window")
    p.add_argument("run_ids", nargs="*", metavar="RUN_ID")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.steady_state import steady_state
        from blkscope.runs import load_runs

        phases = pl.read_parquet(a.ycsb_phases) if a.ycsb_phases else None
        df = steady_state(load_runs(a.runs), a.processed, a.run_ids, phases, a.raw)
        _write(df, a, None if a.run_ids else "no runs given")
        return 0

    return run


@verb("cache-sweep", "per traced YCSB run: block skew, metadata and miss ratios against its cache-to-data ratio")
def _cache_sweep(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("--raw", type=Path, required=True, help="raw data directory (each run's run.yaml)")
    p.add_argument("--zipf", type=Path, required=True, help="the zipf table (zipf_cover)")
    p.add_argument("--metadata", type=Path, required=True, help="the metadata-vs-data table")
    p.add_argument("run_ids", nargs="*", metavar="RUN_ID",
                   help="runs with <processed>/<run>/characterise/{reuse,mrc}.parquet")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.cache_sweep import EMPTY_NOTE, cache_sweep
        from blkscope.runs import load_runs

        df = cache_sweep(load_runs(a.runs), a.run_ids, a.raw, a.processed, pl.read_parquet(a.zipf),
                         pl.read_parquet(a.metadata))  # fmt: skip
        _write(df, a, None if a.run_ids else EMPTY_NOTE)
        return 0

    return run
