"""Paper: the claims re-tested and their plan, and what the paper prints: \\newcommand macros of every section
(paper-numbers, load-numbers, characterise-numbers, claims-plan-tex), the LaTeX of figures and tables."""

from __future__ import annotations

import argparse
from pathlib import Path

from blkscope.cli.common import jobs_option, runs_option, table_options
from blkscope.cli.verbs import Handler, verb
from blkscope.io import write_table


def _claims_inputs(p: argparse.ArgumentParser) -> None:
    runs_option(p)
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


@verb("claims")
def _claims(p: argparse.ArgumentParser) -> Handler:
    _claims_inputs(p)
    table_options(p)
    p.add_argument("--plan", type=Path, help="the claims plan (config/claims_plan.yaml): the runs each row reads")
    p.add_argument("--arms", type=Path, help="also write each row's runs by arm (claim_id, run_id, arm; .parquet)")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.paper import claims_plan
        from blkscope.paper.claims import ARMS_SCHEMA, evaluate

        plan = claims_plan.load(a.plan) if a.plan else None
        arms: list[pl.DataFrame] = []
        write_table(evaluate(_claims_tables(a), plan, arms), a.out, a.csv)
        if a.arms:
            pl.concat([pl.DataFrame(schema=ARMS_SCHEMA), *arms]).write_parquet(a.arms)
        return 0

    return run


@verb("claims-deviations")
def _claims_deviations(p: argparse.ArgumentParser) -> Handler:
    _claims_inputs(p)
    table_options(p)

    p.add_argument("--plan", type=Path, help="the claims plan: its in-memory runs only, as the claims table's ours_all")
    p.add_argument("--saturated", type=Path,
                   help="per capped Cassandra run: ops/s over the saturated window (.parquet), a secondary measure")
    p.add_argument("--secondary", type=Path, help="the secondary measures beside the planned ones (.parquet)")
    p.add_argument("--secondary-csv", type=Path)

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.paper import claims_plan
        from blkscope.paper.claim_deviations import recompute
        from blkscope.paper.claim_secondary import SATURATED, estimates

        plan = claims_plan.load(a.plan) if a.plan else None
        tables = _claims_tables(a) | {SATURATED: pl.read_parquet(a.saturated) if a.saturated else None}
        write_table(recompute(tables, plan), a.out, a.csv)
        if a.secondary or a.secondary_csv:
            write_table(estimates(tables, plan), a.secondary, a.secondary_csv)
        return 0

    return run


@verb("claims-plan-tex")
def _claims_plan_tex(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--plan", type=Path, required=True, help="config/claims_plan.yaml")
    p.add_argument("--claims", type=Path, required=True, help="the claims table (.parquet)")
    p.add_argument("--deviations", type=Path, required=True, help="blkscope claims-deviations' table (.parquet)")
    p.add_argument("-o", "--out", type=Path, required=True, help="the macros (.tex)")
    p.add_argument("--table", type=Path, required=True, help="the deviations table (.tex)")
    p.add_argument("--secondary", type=Path, help="claims-deviations' secondary measures (.parquet): their macros")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.io import write_text_atomic
        from blkscope.paper import claims_plan
        from blkscope.paper.claims_plan_tex import render_deviations, render_plan

        plan = claims_plan.load(a.plan)
        secondary = pl.read_parquet(a.secondary) if a.secondary else None
        recomputed = pl.read_parquet(a.deviations)
        write_text_atomic(render_plan(plan, pl.read_parquet(a.claims), secondary, recomputed), a.out)
        write_text_atomic(render_deviations(plan, recomputed, pl.read_parquet(a.claims), secondary), a.table)
        return 0

    return run


@verb("paper-numbers")
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


@verb("load-numbers")
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
        claims = pl.read_parquet(a.claims)
        m |= ln.claims(claims, pl.read_csv(a.claims_before) if a.claims_before else None)
        m |= ln.pooled_tracing(claims, metrics, load_runs(a.runs))
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


@verb("characterise-numbers")
def _characterise_numbers(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet (config/runs.tsv)")
    p.add_argument("tables", nargs="*", type=Path,
                   help="<processed>/<run_id>/characterise/*.parquet files: their runs' directories are read")
    p.add_argument("-o", "--out", type=Path, required=True, help="macros (.tex)")
    p.add_argument("--table", type=Path, help="the per-setup table (.parquet)")
    p.add_argument("--csv", type=Path, help="also the per-setup table as CSV")
    jobs_option(p)

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.characterise import characterise_summary as cs
        from blkscope.io import write_text_atomic
        from blkscope.paper import characterise_numbers as cn
        from blkscope.runs import load_runs, run_id_of

        dirs = {run_id_of(t): t.parent for t in a.tables}
        by = cs.by_setup(cs.per_run(dirs, a.jobs), load_runs(a.runs))
        write_table(by, a.table, a.csv)
        write_text_atomic(cn.render(cn.macros(by)), a.out)
        return 0

    return run


@verb("paper-figure")
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


@verb("paper-table")
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
