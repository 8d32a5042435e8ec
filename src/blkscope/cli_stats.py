"""Statistics verbs: access frequency modes, Zipf fits, latency stages, queue depth, seeks, tracing overhead and
cross-filesystem comparison. Verbs that take one file per run name each row by its run id (the directory two
levels up: <processed>/<run_id>/<stage>/<file>), so one call covers every run."""

from __future__ import annotations

import argparse
from pathlib import Path

from blkscope.verbs import EACH_HELP, Handler, each_run, say, verb
from blkscope.verbs import jobs_option as _jobs
from blkscope.verbs import map_runs as _map_runs


def _out(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("-o", "--out", type=Path, required=required, help="output table (.parquet)")
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")


def _write(df, path: Path | None, csv: Path | None = None, note: str | None = None) -> None:
    from blkscope.io import write_atomic

    if path:
        write_atomic(df, path, note)
    if csv:
        write_atomic(df, csv)


def _per_run(files, fn, jobs: int = 1):
    """Concatenate fn(file) over files with a leading run_id column."""
    import polars as pl

    from blkscope.runs import run_id_of

    parts = [
        df.with_columns(run_id=pl.lit(run_id_of(f))) for f, df in zip(files, _map_runs(files, fn, jobs), strict=True)
    ]
    df = pl.concat(parts, how="diagonal_relaxed")
    return df.select("run_id", pl.exclude("run_id"))


@verb("access-frequency", "page access counts (modes cover | ssd-study), rank-frequency, frequency of frequency")
def _access_frequency(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s) or parts.json of one run")
    p.add_argument(
        "--mode", default="cover", choices=["cover", "ssd-study"],
        help="cover: every page a request touches; ssd-study: one hit per 8-sector step (C only)",
    )  # fmt: skip
    p.add_argument("--action", default="C", help="events that count: C (completions, default) or D (issues)")
    p.add_argument("--page-kib", type=int, default=4, help="page size in KiB (default 4)")
    p.add_argument("--pages", type=Path, help="per-page counts (op, page, count)")
    p.add_argument("--rank", type=Path, help="rank-frequency table (op, rank, count)")
    p.add_argument("--fof", type=Path, required=True, help="frequency of frequency (op, count, pages)")
    p.add_argument("--each", action="store_true", help=EACH_HELP)

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.frequency import frequency_of_frequency, noted_page_counts, rank_frequency

        for events, out in each_run(a.events, a.each, pages=a.pages, rank=a.rank, fof=a.fof):
            # sorted only to be written as they are: rank_frequency sorts them itself (the same order)
            counts, note = noted_page_counts(events, page_kib=a.page_kib, action=a.action, mode=a.mode,
                                             sort=bool(out["pages"]))  # fmt: skip
            if note:
                say("access-frequency", ", ".join(map(str, events)), f"no page counted: {note}")
            _write(counts, out["pages"], note=note)
            if out["rank"]:
                _write(rank_frequency(counts), out["rank"], note=note)
            _write(frequency_of_frequency(counts), out["fof"], note=note)
        return 0

    return run


def _zipf_one(f: Path, **fit):
    import polars as pl

    from blkscope.analysis.zipf import fit_table
    from blkscope.io import table_note

    return fit_table(pl.read_parquet(f), **fit, why_empty=table_note(f))


@verb("zipf", "discrete power-law fits (CSN: KS-chosen xmin, MLE alpha, bootstrap p, LR tests) of page access counts")
def _zipf(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("fof", nargs="+", type=Path, help="<processed>/<run_id>/frequency/fof.parquet (op, count, pages)")
    _out(p)
    p.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates for the p-value (0: skip)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-alpha", type=float, help="exclude xmin candidates with alpha at or above this")
    _jobs(p)

    def run(a: argparse.Namespace) -> int:
        from functools import partial

        one = partial(_zipf_one, n_boot=a.n_boot, seed=a.seed, max_alpha=a.max_alpha)
        df = _per_run(a.fof, one, a.jobs)
        for run_id, op, note in df.filter(df["note"].is_not_null()).select("run_id", "op", "note").iter_rows():
            say("zipf", f"{run_id} {op}", f"no fit: {note}")
        _write(df, a.out, a.csv)
        return 0

    return run


def _latency_one(f: Path, by_rw: bool, window_s: float, **tables: Path | None):
    """One run's stage summary; with the `tables` templates also its per-window histograms and percentiles
    (latency_hist, latency_windows), from the same replay of the trace."""
    import polars as pl

    from blkscope.analysis import latency_windows as lw
    from blkscope.analysis import replay
    from blkscope.analysis.latency import stages_of

    out_files = each_run([f], True, **tables)[0][1]
    r = replay.run([f])
    try:
        out = stages_of(r, by_rw=by_rw)
        if out_files["latency_hist"] or out_files["latency_windows"]:
            lw.write(lw.histograms_of(r, window_s), out_files["latency_hist"], out_files["latency_windows"])
    finally:
        r.close()
    return out.select(pl.exclude("rw"), "rw") if by_rw else out


@verb("latency", "per-request latency stages Q2G G2I Q2M I2D M2D Q2D D2C Q2C matched as btt does, with CIs")
def _latency(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet or a split trace's parts.json, one per run")
    _out(p)
    p.add_argument("--by-rw", action="store_true", help="also split by read/write (rw column: R or W)")
    p.add_argument("--latency-hist", type=Path, help="per run ({run} template): the per-window latency histograms "
                   "(as `characterise --latency-hist`), from the same replay")  # fmt: skip
    p.add_argument("--latency-windows", type=Path, help="per run ({run} template): D2C and Q2C percentiles per "
                   "window (as `characterise --latency-windows`)")  # fmt: skip
    p.add_argument("--latency-window-s", type=float, default=1.0, help="latency window in seconds (default 1)")
    _jobs(p)

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
        _write(df, a.out, a.csv)
        return 0

    return run


@verb("queue-depth", "requests in flight from D/C pairs: time-weighted mean (CI), distribution, series, aqu-sz")
def _queue_depth(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet or a split trace's parts.json, one per run")
    p.add_argument("--iostat", nargs="*", type=Path, default=[], help="iostat.parquet of the same runs")
    _out(p)
    p.add_argument("--dist", type=Path, help="time share per depth (run_id, depth, ns, time_share)")
    p.add_argument("--series", type=Path, help="mean depth per bin (run_id, bin, start_s, mean_depth)")
    p.add_argument("--bin-s", type=float, default=1.0, help="bin width in seconds (default 1, as iostat 1)")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis import queue_depth as qd
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
        _write(summary, a.out, a.csv)
        for frames, out in ((dists, a.dist), (sers, a.series)):
            df = pl.concat(frames).select("run_id", pl.exclude("run_id"))
            _write(df, out, note=f"runs without rows: {noted}" if noted else None)
        return 0

    return run


def _seek_one(f: Path, action: str):
    from blkscope.analysis import seek

    return seek.summarise([f], action)


@verb(
    "seek",
    "seek distance and sequentiality of D (or Q) streams per op and class (meta: M in RWBS; data; all), "
    "with CIs, and a signed log2 histogram",
)
def _seek(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet, one per run")
    p.add_argument("--action", default="D", choices=["D", "Q", "C"], help="which stream (default D: issued)")
    _out(p)
    p.add_argument("--hist", type=Path, help="histogram (run_id, op, class, bucket, count)")
    _jobs(p)

    def run(a: argparse.Namespace) -> int:
        from functools import partial

        import polars as pl

        from blkscope.runs import run_id_of

        # one run per process at a time, in time windows: memory holds one run's distances, not the trace
        out = _map_runs(a.events, partial(_seek_one, action=a.action), a.jobs)
        summ = [s.with_columns(run_id=pl.lit(run_id_of(f))) for f, (s, _) in zip(a.events, out, strict=True)]
        _write(pl.concat(summ, how="diagonal_relaxed").select("run_id", pl.exclude("run_id")), a.out, a.csv)
        if a.hist:
            h = [d.with_columns(run_id=pl.lit(run_id_of(f))) for f, (_, d) in zip(a.events, out, strict=True)]
            _write(pl.concat(h).select("run_id", pl.exclude("run_id")), a.hist)
        return 0

    return run


@verb("overhead", "throughput lost to tracing from paired traced/untraced runs (bootstrap CI, Welch t)")
def _overhead(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet")
    p.add_argument("fio", nargs="*", type=Path, help="fio_jobs.parquet of traced and untraced runs")
    p.add_argument("--metrics", type=Path, help="workload_metrics table: ops_s of every workload (instead of fio)")
    _out(p)
    p.add_argument("--n-boot", type=int, default=4000)

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.overhead import fio_ops, tracing_overhead
        from blkscope.runs import load_runs, run_id_of

        ops = {run_id_of(f): fio_ops(pl.read_parquet(f)) for f in a.fio}
        if a.metrics:
            m = pl.read_parquet(a.metrics).filter(pl.col("metric") == "ops_s")
            ops |= dict(m.select("run_id", "value").iter_rows())
        _write(tracing_overhead(load_runs(a.runs), ops, n_boot=a.n_boot), a.out, a.csv)
        return 0

    return run


@verb("trace-cost", "trace volume: raw bytes per second and per event (run ids from the events paths)")
def _trace_cost(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--raw", type=Path, required=True, help="raw data directory (<raw>/<run_id>/trace.txt.zst)")
    p.add_argument("events", nargs="+", type=Path, help="events.parquet, one per run")
    _out(p)

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.overhead import trace_cost
        from blkscope.runs import run_id_of

        rows = []
        for f in a.events:
            rid = run_id_of(f)
            traces = sorted((a.raw / rid).glob("trace*"))
            if not traces:
                raise ValueError(f"{a.raw / rid}: no trace file")
            rows.append({"run_id": rid, "trace": traces[0].name} | trace_cost(traces[0], f))
        _write(pl.DataFrame(rows), a.out, a.csv)
        return 0

    return run


@verb("compare", "filesystems over repeats: means with t CIs, pairwise Welch t and exact permutation tests")
def _compare(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet")
    p.add_argument("fio", nargs="+", type=Path, help="<processed>/<run_id>/fio/fio_jobs.parquet")
    p.add_argument("--latency", type=Path, help="the `blkscope latency` table: adds block-level stage means")
    _out(p)
    p.add_argument("--pairs", type=Path, required=True, help="pairwise tests table")
    p.add_argument("--pairs-csv", type=Path, help="also write the pairwise table as CSV here")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis import compare
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
        _write(compare.per_filesystem(m, runs), a.out, a.csv)
        _write(compare.pairwise(m, runs), a.pairs, a.pairs_csv)
        return 0

    return run


@verb("skew", "requested (YCSB zipfian constant) vs block-level rank-frequency exponent, per run and op")
def _skew(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet")
    p.add_argument("--raw", type=Path, default=Path("data/raw"), help="raw data directory (run.yaml per run)")
    p.add_argument("zipf", type=Path, help="the `blkscope zipf` table")
    _out(p)

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.analysis.skew import skew_table
        from blkscope.runs import load_runs

        _write(skew_table(pl.read_parquet(a.zipf), load_runs(a.runs), a.raw), a.out, a.csv)
        return 0

    return run
