"""Analysis, figure and paper verbs (registered on import by cli.build_parser)."""

from __future__ import annotations

import argparse
from pathlib import Path

from blkscope.verbs import Handler, verb


def _runs_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet (config/runs.tsv)")


def _table_out(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--out", type=Path, required=True, help="output table (.parquet)")
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")


def _write_table(df, a: argparse.Namespace) -> None:
    from blkscope.io import write_atomic

    write_atomic(df, a.out)
    if a.csv:
        write_atomic(df, a.csv)


@verb("rank-frequency", "combine per-run rank-frequency tables (thinned to log-spaced ranks) with run metadata")
def _rank_frequency(p: argparse.ArgumentParser) -> Handler:
    _runs_arg(p)
    _table_out(p)
    p.add_argument("--points", type=int, default=200, help="log-spaced ranks kept per run and op (default 200)")
    p.add_argument("rank", nargs="+", type=Path, help="<processed>/<run_id>/frequency/rank.parquet files")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.frequency import thin_ranks
        from blkscope.runs import load_runs, run_id_of

        runs = load_runs(a.runs)
        parts = [thin_ranks(pl.read_parquet(f), a.points).with_columns(run_id=pl.lit(run_id_of(f))) for f in a.rank]
        df = pl.concat(parts).join(runs.select("run_id", "filesystem", "workload", "job", "repeat"), on="run_id")
        _write_table(df.select("run_id", "filesystem", "workload", "job", "repeat", "op", "rank", "count"), a)
        return 0

    return run


@verb("run-summary", "one row per run: events, completions, pages touched, fio IOPS, iostat means, overruns")
def _run_summary(p: argparse.ArgumentParser) -> Handler:
    _runs_arg(p)
    _table_out(p)
    p.add_argument("--raw", type=Path, default=Path("data/raw"), help="raw data directory (for run.yaml)")
    p.add_argument("--processed", type=Path, default=Path("data/processed"), help="processed data directory")
    p.add_argument("run_ids", nargs="+", metavar="RUN_ID")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.run_summary import run_summary
        from blkscope.runs import load_runs

        _write_table(run_summary(a.run_ids, load_runs(a.runs), a.processed, a.raw), a)
        return 0

    return run


@verb("workload-metrics", "what each run's workload reported (ops/s and latencies), long form, one table")
def _workload_metrics(p: argparse.ArgumentParser) -> Handler:
    _runs_arg(p)
    _table_out(p)
    p.add_argument("--processed", type=Path, default=Path("data/processed"), help="processed data directory")
    p.add_argument("run_ids", nargs="+", metavar="RUN_ID")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.workload_metrics import workload_metrics
        from blkscope.runs import load_runs

        _write_table(workload_metrics(load_runs(a.runs), a.processed, a.run_ids), a)
        return 0

    return run


def _per_run_summary(p: argparse.ArgumentParser, arg: str, nargs: str, help_: str, module: str) -> Handler:
    """A verb that summarises per-run tables (files under <processed>/<run_id>/) with the runs sheet:
    blkscope.analysis.<module>.<module>(files, runs, run_id_of)."""
    _runs_arg(p)
    _table_out(p)
    p.add_argument(arg, nargs=nargs, type=Path, help=help_)

    def run(a: argparse.Namespace) -> int:
        import importlib

        from blkscope.runs import load_runs, run_id_of

        summary = getattr(importlib.import_module(f"blkscope.analysis.{module}"), module)
        _write_table(summary(getattr(a, arg), load_runs(a.runs), run_id_of), a)
        return 0

    return run


@verb("iostat-summary", "per-run iostat means with CIs (since-boot report dropped), one row per device and metric")
def _iostat_summary(p: argparse.ArgumentParser) -> Handler:
    return _per_run_summary(p, "iostat", "+", "<processed>/<run_id>/iostat/iostat.parquet files", "iostat_summary")


@verb("extents-summary", "extents per MiB of each run's commitlog, sstable and other files (filefrag at its end)")
def _extents_summary(p: argparse.ArgumentParser) -> Handler:
    return _per_run_summary(p, "extents", "*", "<processed>/<run_id>/extents/extents.parquet files", "extents_summary")


@verb("ycsb-phases", "each YCSB phase's ops/s past the warm-up its run.yaml records (load, workload A, read-only)")
def _ycsb_phases(p: argparse.ArgumentParser) -> Handler:
    _runs_arg(p)
    _table_out(p)
    p.add_argument("--raw", type=Path, default=Path("data/raw"), help="raw data directory (for run.yaml)")
    p.add_argument("series", nargs="*", type=Path, help="<processed>/<run_id>/ycsb/ycsb_series.parquet files")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.ycsb_phases import ycsb_phases
        from blkscope.runs import load_runs, run_id_of

        _write_table(ycsb_phases(a.series, a.raw, load_runs(a.runs), run_id_of), a)
        return 0

    return run


def _claims_inputs(p: argparse.ArgumentParser) -> None:
    _runs_arg(p)
    for name in ("iostat", "metrics", "overhead", "zipf"):
        p.add_argument(f"--{name}", type=Path, required=True, help=f"the {name} analysis table (.parquet)")
    p.add_argument("--extents", type=Path, nargs="*", default=[],
                   help="per-run extents of files (filefrag), <processed>/<run_id>/extents/extents.parquet")
    p.add_argument("--fof", type=Path, nargs="*", default=[],
                   help="per-run frequency-of-frequency tables, <processed>/<run_id>/frequency/fof.<mode>.parquet")
    p.add_argument("--metadata", type=Path, help="the metadata-vs-data analysis table (.parquet), issue N")
    p.add_argument("--ycsb-phases", type=Path,
                   help="the YCSB phases' throughput past their warm-up (.parquet), issue L")
    p.add_argument("--steady-state", type=Path,
                   help="per run: steady, window (.parquet); the scale rows read only steady runs")


def _claims_tables(a: argparse.Namespace) -> dict:
    import polars as pl

    from blkscope.runs import load_runs

    def per_run(files: list[Path]) -> pl.DataFrame | None:
        """Per-run tables live in <processed>/<run_id>/<stage>/: the run is the grandparent directory."""
        parts = [pl.read_parquet(f).with_columns(run_id=pl.lit(f.parent.parent.name)) for f in files]
        return pl.concat(parts, how="diagonal_relaxed") if parts else None

    return {
        "runs": load_runs(a.runs),
        "iostat_summary": pl.read_parquet(a.iostat),
        "workload_metrics": pl.read_parquet(a.metrics),
        "overhead": pl.read_parquet(a.overhead),
        "zipf": pl.read_parquet(a.zipf),
        "extents": per_run(a.extents),
        "fof": per_run(a.fof),
        "metadata_vs_data": pl.read_parquet(a.metadata) if a.metadata else None,
        "ycsb_phases": pl.read_parquet(a.ycsb_phases) if a.ycsb_phases else None,
        "steady_state": pl.read_parquet(a.steady_state) if a.steady_state else None,
    }


@verb("claims", "re-test the claims of the studies we build on: measurement, CI, n, verdict per claim")
def _claims(p: argparse.ArgumentParser) -> Handler:
    _claims_inputs(p)
    _table_out(p)
    p.add_argument("--plan", type=Path, help="the claims plan (config/claims_plan.yaml): the runs each row reads")

    def run(a: argparse.Namespace) -> int:
        from blkscope.paper import claims_plan
        from blkscope.paper.claims import evaluate

        plan = claims_plan.load(a.plan) if a.plan else None
        _write_table(evaluate(_claims_tables(a), plan), a)
        return 0

    return run


@verb("claims-deviations", "each change of a claim's measure made after its estimate was seen: before and after")
def _claims_deviations(p: argparse.ArgumentParser) -> Handler:
    _claims_inputs(p)
    _table_out(p)

    def run(a: argparse.Namespace) -> int:
        from blkscope.paper.claim_deviations import recompute

        _write_table(recompute(_claims_tables(a)), a)
        return 0

    return run


@verb("claims-plan-tex", "the claims plan's macros (date, Holm, heterogeneity) and the deviations table (LaTeX)")
def _claims_plan_tex(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--plan", type=Path, required=True, help="config/claims_plan.yaml")
    p.add_argument("--claims", type=Path, required=True, help="the claims table (.parquet)")
    p.add_argument("--deviations", type=Path, required=True, help="blkscope claims-deviations' table (.parquet)")
    p.add_argument("-o", "--out", type=Path, required=True, help="the macros (.tex)")
    p.add_argument("--table", type=Path, required=True, help="the deviations table (.tex)")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.io import write_text_atomic
        from blkscope.paper import claims_plan
        from blkscope.paper.claims_plan_tex import render_deviations, render_plan

        plan = claims_plan.load(a.plan)
        write_text_atomic(render_plan(plan, pl.read_parquet(a.claims)), a.out)
        write_text_atomic(render_deviations(plan, pl.read_parquet(a.deviations)), a.table)
        return 0

    return run


@verb("figure", "draw one figure from an analysis table (PDF, PNG, SVG)")
def _figure(p: argparse.ArgumentParser) -> Handler:
    from blkscope.figures import FIGURES

    p.add_argument("name", choices=list(FIGURES), help="which figure")
    p.add_argument("table", type=Path, help="the analysis table it draws (.parquet)")
    p.add_argument("-o", "--prefix", type=Path, required=True, help="output path without extension")
    p.add_argument("--formats", default="pdf,png,svg", help="comma-separated: pdf,png,svg")

    def run(a: argparse.Namespace) -> int:
        import importlib

        import polars as pl

        from blkscope.figures.theme import save

        mod = importlib.import_module(f"blkscope.figures.{FIGURES[a.name]}")
        df = pl.read_parquet(a.table)
        if df.is_empty():  # say why, on stderr and in the figure, from the table's note when it has one
            from blkscope.figures.theme import no_data
            from blkscope.io import table_note
            from blkscope.verbs import say

            why = table_note(a.table) or "its table has no rows"
            say(f"figure {a.name}", f"nothing to draw from {a.table}", why)
            save(no_data(f"No data: {why}"), a.prefix, a.formats.split(","))
            return 0
        save(mod.chart(df), a.prefix, a.formats.split(","))
        return 0

    return run


@verb("paper-numbers", "write the numbers quoted in the paper as \\newcommand macros")
def _paper_numbers(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--summary", type=Path, required=True, help="run_summary table (.parquet)")
    p.add_argument("--iostat", type=Path, help="iostat_summary table (.parquet)")
    p.add_argument("--runs", type=Path, help="the runs sheet (needed by the tables below)")
    for name in ("queue-depth", "trace-cost", "overhead", "zipf", "metrics", "latency", "claims", "skew",
                 "ycsb-phases"):
        p.add_argument(f"--{name}", type=Path, help=f"the {name} analysis table (.parquet)")
    p.add_argument("-o", "--out", type=Path, required=True, help="output .tex")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.figures import select
        from blkscope.io import write_text_atomic
        from blkscope.paper import literature
        from blkscope.paper import study_numbers as sn
        from blkscope.paper.numbers import iostat_numbers, render, skeleton_numbers
        from blkscope.runs import load_runs

        macros = skeleton_numbers(pl.read_parquet(a.summary))
        if a.iostat:
            macros |= iostat_numbers(pl.read_parquet(a.iostat))
        runs = load_runs(a.runs) if a.runs else None
        metrics = pl.read_parquet(a.metrics) if a.metrics else None
        if metrics is not None:
            macros |= sn.dataset(metrics)
        if runs is not None:
            if a.queue_depth:
                macros |= sn.queue_depth(pl.read_parquet(a.queue_depth), runs)
            if a.trace_cost:
                macros |= sn.trace_cost(pl.read_parquet(a.trace_cost), runs)
            if metrics is not None:
                macros |= sn.workloads(metrics, runs) | sn.devices(runs, metrics)
                if a.latency:
                    macros |= sn.guest(pl.read_parquet(a.latency), metrics, runs)
        if a.overhead:
            macros |= sn.overhead(pl.read_parquet(a.overhead))
        if a.zipf:
            macros |= sn.zipf(pl.read_parquet(a.zipf), runs)
        if a.claims:
            macros |= sn.verdicts(pl.read_parquet(a.claims))
        if a.skew and runs is not None:
            macros |= sn.skew(pl.read_parquet(a.skew), runs)
        if a.ycsb_phases and runs is not None and metrics is not None:
            macros |= sn.ycsb_phases(pl.read_parquet(a.ycsb_phases), metrics, runs)
        macros |= literature.macros() | {"SkewMinTopCount": str(select.SKEW_MIN_TOP_COUNT)}
        write_text_atomic(render(macros), a.out)
        return 0

    return run


@verb("paper-figure", "write the LaTeX figure environment of figures (caption and label from their modules)")
def _paper_figure(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("names", nargs="+", metavar="NAME", help="figure module name(s), e.g. rank_frequency")
    p.add_argument("-o", "--out", type=Path, required=True,
                   help="output .tex; with several names a template with {name}")
    p.add_argument("--table", nargs="*", default=[], metavar="NAME=PATH",
                   help="the figure data of a figure whose caption is read from them (miss_ratio_curve: which "
                   "profile is of record)")  # fmt: skip

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.io import write_text_atomic
        from blkscope.paper.figure_tex import figure_tex

        if len(a.names) > 1 and "{name}" not in str(a.out):
            raise ValueError(f"several figures: -o needs a {{name}} template, got {a.out}")
        tables = dict(t.split("=", 1) for t in a.table if "=" in t)
        if len(tables) != len(a.table) or not set(tables) <= set(a.names):
            raise ValueError(f"--table takes NAME=PATH of the figures named, not {' '.join(a.table)}")
        for name in a.names:
            table = pl.read_parquet(tables[name]) if name in tables else None
            write_text_atomic(figure_tex(name, table), str(a.out).replace("{name}", name))
        return 0

    return run


@verb("paper-table", "write one table of the paper as booktabs LaTeX")
def _paper_table(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("name", choices=["runs", "claims"], help="which table")
    p.add_argument("table", type=Path, help="the analysis table it shows (.parquet)")
    p.add_argument("-o", "--out", type=Path, required=True, help="output .tex")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.io import write_text_atomic
        from blkscope.paper import tables

        write_text_atomic(getattr(tables, f"{a.name}_table")(pl.read_parquet(a.table)), a.out)
        return 0

    return run
