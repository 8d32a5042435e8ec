"""Verbs of the load, tracer-cost and Cassandra analyses and their paper macros (registered on import)."""

from __future__ import annotations

import argparse
from pathlib import Path

from blkscope.verbs import Handler, verb


def _out(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--out", type=Path, required=True, help="output table (.parquet)")
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")


def _write(df, path: Path, csv: Path | None) -> None:
    from blkscope.io import write_atomic

    write_atomic(df, path)
    if csv:
        write_atomic(df, csv)


@verb("cassandra-summary", "Cassandra per configuration: ops/s, latency percentiles, aqu-sz, merges (t CIs); vs xfs")
def _cassandra_summary(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet")
    p.add_argument("--metrics", type=Path, required=True, help="workload_metrics table")
    p.add_argument("--iostat", type=Path, required=True, help="iostat_summary table")
    _out(p)
    p.add_argument("--versus", type=Path, required=True, help="each filesystem against xfs (ratio table)")
    p.add_argument("--versus-csv", type=Path)
    p.add_argument("intervals", nargs="*", type=Path, help="<processed>/<run_id>/cstress/cstress_intervals.parquet")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis import cassandra
        from blkscope.runs import load_runs, run_id_of

        runs, m, io = load_runs(a.runs), pl.read_parquet(a.metrics), pl.read_parquet(a.iostat)
        steady = [cassandra.steadiness(run_id_of(f), pl.read_parquet(f)) for f in a.intervals]
        steady_df = pl.concat(steady) if steady else None
        _write(cassandra.summary(m, io, runs, steady_df), a.out, a.csv)
        _write(cassandra.versus(m, io, runs), a.versus, a.versus_csv)
        return 0

    return run


@verb("tracer-load", "the tracer's own cost per traced run (events/s, bytes/event, lost events) and per load level")
def _tracer_load(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet")
    p.add_argument("--raw", type=Path, required=True, help="raw data directory (<raw>/<run_id>/run.yaml)")
    p.add_argument("--iostat", type=Path, help="iostat_summary table: adds each run's util and aqu-sz")
    p.add_argument("run_ids", nargs="+", metavar="RUN_ID")
    _out(p)
    p.add_argument("--by-load", type=Path, required=True, help="per (workload, load) means with t CIs")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.tracer_load import by_load, per_run
        from blkscope.runs import load_runs

        io = pl.read_parquet(a.iostat) if a.iostat else None
        cost = per_run(a.run_ids, a.raw, load_runs(a.runs), io)
        _write(cost, a.out, a.csv)
        _write(by_load(cost), a.by_load, None)
        return 0

    return run


@verb("load-numbers", "macros of the load, overhead, verdict, skew and Cassandra sections (\\newcommand file)")
def _load_numbers(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet")
    for name in ("claims", "overhead", "tracer-load", "tracer-runs", "skew", "metrics", "iostat", "cassandra",
                 "cassandra-versus"):
        p.add_argument(f"--{name}", type=Path, required=True, help=f"the {name} table (.parquet)")
    p.add_argument("--claims-before", type=Path,
                   help="an earlier claims table (.csv: claim_id, verdict): which verdicts moved since")
    p.add_argument("-o", "--out", type=Path, required=True, help="output .tex")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.io import write_text_atomic
        from blkscope.paper import load_numbers as ln
        from blkscope.runs import load_runs

        metrics, iostat = pl.read_parquet(a.metrics), pl.read_parquet(a.iostat)
        m = ln.runs_by_load(load_runs(a.runs), metrics["run_id"].unique())
        m |= ln.ceiling(metrics, iostat)
        m |= ln.claims(pl.read_parquet(a.claims), pl.read_csv(a.claims_before) if a.claims_before else None)
        m |= ln.overhead(pl.read_parquet(a.overhead))
        m |= ln.tracer(pl.read_parquet(a.tracer_load))
        m |= ln.machine_load(pl.read_parquet(a.tracer_runs))
        skew = pl.read_parquet(a.skew)
        m |= ln.skew(skew, metrics, iostat, in_memory=load_runs(a.runs))
        m |= ln.cassandra_zipf(skew)
        m |= ln.cassandra_threads(metrics)
        m |= ln.cassandra(pl.read_parquet(a.cassandra), pl.read_parquet(a.cassandra_versus))
        write_text_atomic(ln.render(m), a.out)
        return 0

    return run
