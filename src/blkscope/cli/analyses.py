"""Analyses: per-run statistics of the traces (access frequency, Zipf fits, skew, latency stages, queue depth,
seeks), tracing's cost, and the tables across runs (run summaries, workload metrics, iostat, extents, YCSB phases,
Cassandra, the tracer's load, steady state, the cache sweep). Verbs that take one file per run name each row by
its run id (the directory two levels up: <processed>/<run_id>/<stage>/<file>), so one call covers every run."""

from __future__ import annotations

import argparse
from pathlib import Path

from blkscope.cli.common import EACH_HELP, each_run, jobs_option, names, runs_option, say, table_options
from blkscope.cli.verbs import Handler, verb
from blkscope.io import write_table
from blkscope.parallel import map_runs


def _per_run(files, fn, jobs: int = 1):
    """Concatenate fn(file) over files with a leading run_id column."""
    import polars as pl

    from blkscope.runs import run_id_of

    parts = [
        df.with_columns(run_id=pl.lit(run_id_of(f))) for f, df in zip(files, map_runs(files, fn, jobs), strict=True)
    ]
    df = pl.concat(parts, how="diagonal_relaxed")
    return df.select("run_id", pl.exclude("run_id"))


@verb("frequency")
def _frequency(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s) or a split trace's parts.json")
    p.add_argument("--page-kib", type=int, default=4, help="page size in KiB (default 4)")
    p.add_argument("--action", default="C", help="which events count (default C: completions)")
    p.add_argument("--pages", type=Path, help="write per-page counts here (Parquet)")
    p.add_argument("--rank", type=Path, required=True, help="write rank-frequency table here (Parquet)")
    p.add_argument("--each", action="store_true", help=EACH_HELP)

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.popularity.frequency import noted_page_counts, rank_frequency

        for events, out in each_run(a.events, a.each, pages=a.pages, rank=a.rank):
            counts, note = noted_page_counts(events, page_kib=a.page_kib, action=a.action)
            if note:
                say("frequency", ", ".join(map(str, events)), f"no page counted: {note}")
            write_table(counts, out["pages"], note=note)
            write_table(rank_frequency(counts), out["rank"], note=note)
        return 0

    return run


@verb("access-frequency")
def _access_frequency(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s) or parts.json of one run")
    p.add_argument(
        "--mode", default="cover",
        help="cover: every page a request touches; ssd-study: one hit per 8-sector step (C only); comma-separated "
        "for both, from one process (the output paths then hold {mode})",
    )  # fmt: skip
    p.add_argument("--action", default="C", help="events that count: C (completions, default) or D (issues)")
    p.add_argument("--page-kib", type=int, default=4, help="page size in KiB (default 4)")
    p.add_argument("--pages", type=Path, help="per-page counts (op, page, count)")
    p.add_argument("--rank", type=Path, help="rank-frequency table (op, rank, count)")
    p.add_argument("--fof", type=Path, required=True, help="frequency of frequency (op, count, pages)")
    p.add_argument("--metadata-hot", type=Path, help="also `blkscope metadata`'s table, counted as --mode cover "
                   "counts (its per-page counts give the cover mode's, summed over the class: one count of the trace)")
    p.add_argument("--metadata-rank", type=Path, help="also `blkscope metadata --rank`'s table, as --metadata-hot")
    p.add_argument("--each", action="store_true", help=EACH_HELP)

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.popularity.frequency import MODES

        modes = names(a.mode)
        if not modes or len(set(modes)) < len(modes) or not set(modes) <= set(MODES):
            raise ValueError(f"--mode: one or more of {', '.join(MODES)} (each once), got {a.mode!r}")
        for name in ("pages", "rank", "fof"):
            t = getattr(a, name)
            if len(modes) > 1 and t is not None and "{mode}" not in str(t):
                raise ValueError(f"--{name}: a table per mode needs a {{mode}} template, got {t}")
        outs = each_run(a.events, a.each, pages=a.pages, rank=a.rank, fof=a.fof, metadata_hot=a.metadata_hot,
                        metadata_rank=a.metadata_rank)  # fmt: skip
        for events, out in outs:
            _frequency_of_run(events, out, modes, a.action, a.page_kib)
        return 0

    return run


def _frequency_of_run(events: list[Path], out: dict[str, Path | None], modes: list[str], action: str,
                      page_kib: int) -> None:  # fmt: skip
    """access-frequency's tables of one run (an each_run unit) in every mode, and the metadata tables if asked for:
    every count from one read of the events by blkscope-native pages, sorted as the tables need them; for files it
    does not take, counted in polars once per mode, the cover mode's counts summed from the metadata's where both
    are (the same tables: tests/test_batch_verbs.py)."""
    from blkscope.analysis.popularity import frequency as fq
    from blkscope.parts import events_files

    files = events_files(events)
    # every table's counts from one read by blkscope-native pages, sorted already; else counted in polars below
    wanted = [("cover", True)] * bool(out["metadata_hot"] or out["metadata_rank"]) + [(m, False) for m in modes]
    counted = dict(zip(wanted, fq.native_page_counts(files, page_kib, action, wanted) or [], strict=False))
    by_class = None
    if out["metadata_hot"] or out["metadata_rank"]:
        from blkscope.analysis.characterise import metadata as md

        by_class = counted.get(("cover", True))
        if by_class is None:
            by_class = md.counts(files, action=action, page_kib=page_kib)
        hot, rank = md.hot_and_rank(by_class, action, presorted=bool(counted))
        for note in hot["note"].drop_nulls().unique(maintain_order=True):
            say("metadata", str(events[0]), note)
        write_table(hot, out["metadata_hot"])
        write_table(rank, out["metadata_rank"])
    for mode in modes:
        at = {k: out[k] and Path(str(out[k]).replace("{mode}", mode)) for k in ("pages", "rank", "fof")}
        # sorted only to be written as they are: rank_frequency sorts them itself (the same order)
        if counted:  # by_hotness's order
            counts = counted[(mode, False)]
        elif mode == "cover" and by_class is not None:
            counts = fq.summed_over_class(by_class, sort=bool(at["pages"]))
        else:
            counts = fq.page_counts(files, page_kib=page_kib, action=action, mode=mode, sort=bool(at["pages"]))
        note = None if counts.height else fq.why_no_pages(files, action)
        if note:
            say("access-frequency", ", ".join(map(str, events)), f"no page counted: {note}")
        write_table(counts, at["pages"], note=note)
        if at["rank"]:
            write_table(fq.rank_frequency(counts, presorted=bool(counted)), at["rank"], note=note)
        write_table(fq.frequency_of_frequency(counts), at["fof"], note=note)


@verb("rank-frequency")
def _rank_frequency(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    table_options(p)
    p.add_argument("--points", type=int, default=200, help="log-spaced ranks kept per run and op (default 200)")
    p.add_argument("rank", nargs="+", type=Path, help="<processed>/<run_id>/frequency/rank.parquet files")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.popularity.frequency import thin_ranks
        from blkscope.runs import load_runs, run_id_of

        runs = load_runs(a.runs)
        parts = [thin_ranks(pl.read_parquet(f), a.points).with_columns(run_id=pl.lit(run_id_of(f))) for f in a.rank]
        df = pl.concat(parts).join(runs.select("run_id", "filesystem", "workload", "job", "repeat"), on="run_id")
        write_table(df.select("run_id", "filesystem", "workload", "job", "repeat", "op", "rank", "count"), a.out, a.csv)
        return 0

    return run


def _zipf_one(f: Path, **fit):
    import polars as pl

    from blkscope.analysis.popularity.zipf import fit_table
    from blkscope.io import table_note

    return fit_table(pl.read_parquet(f), **fit, why_empty=table_note(f))


@verb("zipf")
def _zipf(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("fof", nargs="+", type=Path, help="<processed>/<run_id>/frequency/fof.parquet (op, count, pages)")
    table_options(p)
    p.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates for the p-value (0: skip)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-alpha", type=float, help="exclude xmin candidates with alpha at or above this")
    jobs_option(p)

    def run(a: argparse.Namespace) -> int:
        from functools import partial

        one = partial(_zipf_one, n_boot=a.n_boot, seed=a.seed, max_alpha=a.max_alpha)
        df = _per_run(a.fof, one, a.jobs)
        for run_id, op, note in df.filter(df["note"].is_not_null()).select("run_id", "op", "note").iter_rows():
            say("zipf", f"{run_id} {op}", f"no fit: {note}")
        write_table(df, a.out, a.csv)
        return 0

    return run


@verb("skew")
def _skew(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    p.add_argument("--raw", type=Path, default=Path("data/raw"), help="raw data directory (run.yaml per run)")
    p.add_argument("zipf", type=Path, help="the `blkscope zipf` table")
    table_options(p)

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.popularity.skew import skew_table
        from blkscope.runs import load_runs

        write_table(skew_table(pl.read_parquet(a.zipf), load_runs(a.runs), a.raw), a.out, a.csv)
        return 0

    return run


def _latency_one(f: Path, by_rw: bool, window_s: float, **tables: Path | None):
    """One run's stage summary; with the `tables` templates also its per-window histograms and percentiles
    (latency_hist, latency_windows), from the same replay of the trace."""
    import polars as pl

    from blkscope.analysis.timing import latency_windows as lw
    from blkscope.analysis.timing import replay
    from blkscope.analysis.timing.latency import stages_of

    out_files = each_run([f], True, **tables)[0][1]
    r = replay.run([f])
    try:
        out = stages_of(r, by_rw=by_rw)
        if out_files["latency_hist"] or out_files["latency_windows"]:
            lw.write(lw.histograms_of(r, window_s), out_files["latency_hist"], out_files["latency_windows"])
    finally:
        r.close()
    return out.select(pl.exclude("rw"), "rw") if by_rw else out


@verb("latency")
def _latency(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet or a split trace's parts.json, one per run")
    table_options(p)
    p.add_argument("--by-rw", action="store_true", help="also split by read/write (rw column: R or W)")
    p.add_argument("--latency-hist", type=Path, help="per run ({run} template): the per-window latency histograms "
                   "(as `characterise --latency-hist`), from the same replay")  # fmt: skip
    p.add_argument("--latency-windows", type=Path, help="per run ({run} template): D2C and Q2C percentiles per "
                   "window (as `characterise --latency-windows`)")  # fmt: skip
    p.add_argument("--latency-window-s", type=float, default=1.0, help="latency window in seconds (default 1)")
    jobs_option(p)

    def run(a: argparse.Namespace) -> int:
        from functools import partial

        import polars as pl

        if a.latency_window_s <= 0:
            raise ValueError("--latency-window-s must be positive")
        tables = {"latency_hist": a.latency_hist, "latency_windows": a.latency_windows}
        each_run(a.events, True, **tables)  # every file there and every template with {run}, before any work
        one = partial(_latency_one, by_rw=a.by_rw, window_s=a.latency_window_s, **tables)
        df = _per_run(a.events, one, a.jobs)
        # a stage no request has both ends of (no merges: no Q2M; no C events: no D2C, Q2C): n = 0, said why
        why = pl.format("no request has both its {} and {} events in the trace",
                        pl.col("stage").str.slice(0, 1).str.to_uppercase(),
                        pl.col("stage").str.slice(2, 1).str.to_uppercase())  # fmt: skip
        df = df.with_columns(note=pl.when(pl.col("n") == 0).then(why))
        for run_id, stage, note in df.filter(pl.col("n") == 0).select("run_id", "stage", "note").unique(
                maintain_order=True).rows():  # fmt: skip
            say("latency", f"{run_id} {stage}", f"nothing to compute: {note}")
        write_table(df, a.out, a.csv)
        return 0

    return run


@verb("queue-depth")
def _queue_depth(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet or a split trace's parts.json, one per run")
    p.add_argument("--iostat", nargs="*", type=Path, default=[], help="iostat.parquet of the same runs")
    table_options(p)
    p.add_argument("--dist", type=Path, help="time share per depth (run_id, depth, ns, time_share)")
    p.add_argument("--series", type=Path, help="mean depth per bin (run_id, bin, start_s, mean_depth)")
    p.add_argument("--bin-s", type=float, default=1.0, help="bin width in seconds (default 1, as iostat 1)")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.timing import queue_depth as qd
        from blkscope.runs import run_id_of

        io = {run_id_of(f): pl.read_parquet(f) for f in a.iostat}
        rows, dists, sers = [], [], []
        for f in a.events:
            rid = run_id_of(f)
            row, dist, ser = qd.from_events([f], io.get(rid), a.bin_s)
            row["note"] = None
            if row["requests"] and not row["completed"]:  # nothing leaves the queue: its depth would only grow
                row["note"] = "no C events: no request completes, so the trace gives no queue depth"
                say("queue-depth", rid, f"{row['note']} (count what the trace has: blkscope seek --action D)")
                row |= dict.fromkeys(("mean_depth", "mean_depth_lo", "mean_depth_hi", "max_depth")) | {"bins": 0}
                dist, ser = dist.clear(), ser.clear()
            rows.append({"run_id": rid} | row)
            dists.append(dist.with_columns(run_id=pl.lit(rid)))
            sers.append(ser.with_columns(run_id=pl.lit(rid)))
        summary = pl.DataFrame(
            rows,
            schema_overrides={"max_depth": pl.Int64, "note": pl.Utf8}
            | dict.fromkeys(("mean_depth", "mean_depth_lo", "mean_depth_hi"), pl.Float64),
        )
        noted = "; ".join(f"{r}: {n}" for r, n in summary.select("run_id", "note").rows() if n)
        write_table(summary, a.out, a.csv)
        for frames, out in ((dists, a.dist), (sers, a.series)):
            df = pl.concat(frames).select("run_id", pl.exclude("run_id"))
            write_table(df, out, note=f"runs without rows: {noted}" if noted else None)
        return 0

    return run


def _seek_one(f: Path, action: str):
    from blkscope.analysis.timing import seek

    return seek.summarise([f], action)


@verb("seek")
def _seek(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet, one per run")
    p.add_argument("--action", default="D", choices=["D", "Q", "C"], help="which stream (default D: issued)")
    table_options(p)
    p.add_argument("--hist", type=Path, help="histogram (run_id, op, class, bucket, count)")
    jobs_option(p)

    def run(a: argparse.Namespace) -> int:
        from functools import partial

        import polars as pl

        from blkscope.runs import run_id_of

        # one run per process at a time, in time windows: memory holds one run's distances, not the trace
        out = map_runs(a.events, partial(_seek_one, action=a.action), a.jobs)
        summ = [s.with_columns(run_id=pl.lit(run_id_of(f))) for f, (s, _) in zip(a.events, out, strict=True)]
        write_table(pl.concat(summ, how="diagonal_relaxed").select("run_id", pl.exclude("run_id")), a.out, a.csv)
        if a.hist:
            h = [d.with_columns(run_id=pl.lit(run_id_of(f))) for f, (_, d) in zip(a.events, out, strict=True)]
            write_table(pl.concat(h).select("run_id", pl.exclude("run_id")), a.hist)
        return 0

    return run


@verb("overhead")
def _overhead(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    p.add_argument("fio", nargs="*", type=Path, help="fio_jobs.parquet of traced and untraced runs")
    p.add_argument("--metrics", type=Path, help="workload_metrics table: ops_s of every workload (instead of fio)")
    table_options(p)
    p.add_argument("--n-boot", type=int, default=4000)

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.load.overhead import fio_ops, tracing_overhead
        from blkscope.runs import load_runs, run_id_of

        ops = {run_id_of(f): fio_ops(pl.read_parquet(f)) for f in a.fio}
        if a.metrics:
            m = pl.read_parquet(a.metrics).filter(pl.col("metric") == "ops_s")
            ops |= dict(m.select("run_id", "value").iter_rows())
        write_table(tracing_overhead(load_runs(a.runs), ops, n_boot=a.n_boot), a.out, a.csv)
        return 0

    return run


@verb("trace-cost")
def _trace_cost(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--raw", type=Path, required=True, help="raw data directory (<raw>/<run_id>/trace.txt.zst)")
    p.add_argument("events", nargs="+", type=Path, help="events.parquet, one per run")
    table_options(p)

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.load.overhead import trace_cost
        from blkscope.runs import run_id_of

        rows = []
        for f in a.events:
            rid = run_id_of(f)
            traces = sorted((a.raw / rid).glob("trace*"))
            if not traces:
                raise ValueError(f"{a.raw / rid}: no trace file")
            rows.append({"run_id": rid, "trace": traces[0].name} | trace_cost(traces[0], f))
        write_table(pl.DataFrame(rows), a.out, a.csv)
        return 0

    return run


@verb("compare")
def _compare(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    p.add_argument("fio", nargs="+", type=Path, help="<processed>/<run_id>/fio/fio_jobs.parquet")
    p.add_argument("--latency", type=Path, help="the `blkscope latency` table: adds block-level stage means")
    table_options(p)
    p.add_argument("--pairs", type=Path, required=True, help="pairwise tests table")
    p.add_argument("--pairs-csv", type=Path, help="also write the pairwise table as CSV here")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.summaries import compare
        from blkscope.runs import load_runs, run_id_of

        runs = load_runs(a.runs)
        m = pl.concat([compare.fio_metrics(run_id_of(f), pl.read_parquet(f)) for f in a.fio])
        if a.latency:
            lat = pl.read_parquet(a.latency)
            if "rw" in lat.columns:
                lat = lat.filter(pl.col("rw") == "all")
            lat = lat.filter(pl.col("n") > 0).select(
                "run_id", metric=pl.lit("block_") + pl.col("stage") + pl.lit("_mean_us"), value=pl.col("mean_us")
            )
            m = pl.concat([m, lat], how="diagonal_relaxed")
        write_table(compare.per_filesystem(m, runs), a.out, a.csv)
        write_table(compare.pairwise(m, runs), a.pairs, a.pairs_csv)
        return 0

    return run


@verb("run-summary")
def _run_summary(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    table_options(p)
    p.add_argument("--raw", type=Path, default=Path("data/raw"), help="raw data directory (for run.yaml)")
    p.add_argument("--processed", type=Path, default=Path("data/processed"), help="processed data directory")
    p.add_argument("run_ids", nargs="+", metavar="RUN_ID")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.summaries.run_summary import run_summary
        from blkscope.runs import load_runs

        write_table(run_summary(a.run_ids, load_runs(a.runs), a.processed, a.raw), a.out, a.csv)
        return 0

    return run


@verb("workload-metrics")
def _workload_metrics(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    table_options(p)
    p.add_argument("--processed", type=Path, default=Path("data/processed"), help="processed data directory")
    p.add_argument("run_ids", nargs="+", metavar="RUN_ID")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.summaries.workload_metrics import workload_metrics
        from blkscope.runs import load_runs

        write_table(workload_metrics(load_runs(a.runs), a.processed, a.run_ids), a.out, a.csv)
        return 0

    return run


def _per_run_summary(p: argparse.ArgumentParser, arg: str, nargs: str, help_: str, module: str) -> Handler:
    """A verb that summarises per-run tables (files under <processed>/<run_id>/) with the runs sheet:
    blkscope.analysis.summaries.<module>.<module>(files, runs, run_id_of)."""
    runs_option(p)
    table_options(p)
    p.add_argument(arg, nargs=nargs, type=Path, help=help_)

    def run(a: argparse.Namespace) -> int:
        import importlib

        from blkscope.runs import load_runs, run_id_of

        summary = getattr(importlib.import_module(f"blkscope.analysis.summaries.{module}"), module)
        write_table(summary(getattr(a, arg), load_runs(a.runs), run_id_of), a.out, a.csv)
        return 0

    return run


@verb("iostat-summary")
def _iostat_summary(p: argparse.ArgumentParser) -> Handler:
    return _per_run_summary(p, "iostat", "+", "<processed>/<run_id>/iostat/iostat.parquet files", "iostat_summary")


@verb("extents-summary")
def _extents_summary(p: argparse.ArgumentParser) -> Handler:
    return _per_run_summary(p, "extents", "*", "<processed>/<run_id>/extents/extents.parquet files", "extents_summary")


@verb("ycsb-phases")
def _ycsb_phases(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    table_options(p)
    p.add_argument("--raw", type=Path, default=Path("data/raw"), help="raw data directory (for run.yaml)")
    p.add_argument("series", nargs="*", type=Path, help="<processed>/<run_id>/ycsb/ycsb_series.parquet files")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.summaries.ycsb_phases import ycsb_phases
        from blkscope.runs import load_runs, run_id_of

        write_table(ycsb_phases(a.series, a.raw, load_runs(a.runs), run_id_of), a.out, a.csv)
        return 0

    return run


@verb("cassandra-summary")
def _cassandra_summary(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    p.add_argument("--metrics", type=Path, required=True, help="workload_metrics table")
    p.add_argument("--iostat", type=Path, required=True, help="iostat_summary table")
    table_options(p)
    p.add_argument("--versus", type=Path, required=True, help="each filesystem against xfs (ratio table)")
    p.add_argument("--versus-csv", type=Path)
    p.add_argument("intervals", nargs="*", type=Path, help="<processed>/<run_id>/cstress/cstress_intervals.parquet")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.summaries import cassandra
        from blkscope.runs import load_runs, run_id_of

        runs, m, io = load_runs(a.runs), pl.read_parquet(a.metrics), pl.read_parquet(a.iostat)
        steady = [cassandra.steadiness(run_id_of(f), pl.read_parquet(f)) for f in a.intervals]
        steady_df = pl.concat(steady) if steady else None
        write_table(cassandra.summary(m, io, runs, steady_df), a.out, a.csv)
        write_table(cassandra.versus(m, io, runs), a.versus, a.versus_csv)
        return 0

    return run


@verb("tracer-load")
def _tracer_load(p: argparse.ArgumentParser) -> Handler:
    runs_option(p)
    p.add_argument("--raw", type=Path, required=True, help="raw data directory (<raw>/<run_id>/run.yaml)")
    p.add_argument("--iostat", type=Path, help="iostat_summary table: adds each run's util and aqu-sz")
    p.add_argument("run_ids", nargs="+", metavar="RUN_ID")
    table_options(p)
    p.add_argument("--by-load", type=Path, required=True, help="per (workload, load) means with t CIs")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.load.tracer_load import by_load, per_run
        from blkscope.runs import load_runs

        io = pl.read_parquet(a.iostat) if a.iostat else None
        cost = per_run(a.run_ids, a.raw, load_runs(a.runs), io)
        write_table(cost, a.out, a.csv)
        write_table(by_load(cost), a.by_load)
        return 0

    return run


def _sheet_and_processed(p: argparse.ArgumentParser) -> None:
    """The options of the scale regime's verbs (issue P): the sheet, the per-run tables, the table written."""
    runs_option(p)
    p.add_argument("--processed", type=Path, required=True, help="processed data directory (<run>/<stage>/ tables)")
    table_options(p)


@verb("steady-state")
def _steady_state(p: argparse.ArgumentParser) -> Handler:
    _sheet_and_processed(p)
    p.add_argument("--ycsb-phases", type=Path, help="the ycsb_phases table: the warm-up each capture recorded")
    p.add_argument("--raw", type=Path, help="raw data directory: each traced run's run.yaml, for a kept trace window")
    p.add_argument("run_ids", nargs="*", metavar="RUN_ID")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.load.steady_state import steady_state
        from blkscope.runs import load_runs

        phases = pl.read_parquet(a.ycsb_phases) if a.ycsb_phases else None
        df = steady_state(load_runs(a.runs), a.processed, a.run_ids, phases, a.raw)
        write_table(df, a.out, a.csv, None if a.run_ids else "no runs given")
        return 0

    return run


@verb("cache-sweep")
def _cache_sweep(p: argparse.ArgumentParser) -> Handler:
    _sheet_and_processed(p)
    p.add_argument("--raw", type=Path, required=True, help="raw data directory (each run's run.yaml)")
    p.add_argument("--zipf", type=Path, required=True, help="the zipf table (zipf_cover)")
    p.add_argument("--metadata", type=Path, required=True, help="the metadata-vs-data table")
    p.add_argument("--planned", action="append", default=[], metavar="BATCH",
                   help="a batch whose runs without raw data get a row that says so (repeatable)")
    p.add_argument("run_ids", nargs="*", metavar="RUN_ID",
                   help="runs with <processed>/<run>/characterise/{reuse,mrc}.parquet")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.characterise.cache_sweep import EMPTY_NOTE, cache_sweep
        from blkscope.runs import load_runs, uncaptured_note

        df = cache_sweep(load_runs(a.runs), a.run_ids, a.raw, a.processed, pl.read_parquet(a.zipf),
                         pl.read_parquet(a.metadata), tuple(a.planned))  # fmt: skip
        note = "; ".join(n for n in (None if a.run_ids else EMPTY_NOTE, uncaptured_note(df)) if n)
        write_table(df, a.out, a.csv, note or None)
        return 0

    return run
