"""Characterisation (issue N): the views storage engineers know from btt, iowatcher and blkiomon (`characterise`),
libCacheSim's reuse distance and miss-ratio curves (`reuse`), and metadata against data. Light (argparse only):
`blkscope reuse` launches its native pass without compiling the other topics' modules (bench/RESULTS.md,
"Characterisation" 2026-11-27 (4))."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from blkscope.cli.common import EACH_HELP, each_run, jobs_option, names

# blkscope.io (json, tempfile: ~20 ms) is imported where a table is written: `reuse` launches its native pass first
from blkscope.cli.verbs import Handler, verb
from blkscope.parallel import file_size, map_runs


@verb("characterise")
def _characterise(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s) or parts.json of one run")
    p.add_argument("--io-map", type=Path, help="2-D histogram of block address against time (op, class, time_bin, "
                   "t_lo_s, t_hi_s, sector_bin, sector_lo, sector_hi, requests, bytes)")  # fmt: skip
    p.add_argument("--time-bins", type=int, default=200, help="I/O map: time bins (default 200)")
    p.add_argument("--sector-bins", type=int, default=128, help="I/O map: address bins (default 128)")
    p.add_argument("--throughput", type=Path, help="requests, IOPS, MiB/s and the mean and median request size "
                   "per time bin, action (Q and D: --throughput-actions), op and class")  # fmt: skip
    p.add_argument("--bin-s", type=float, default=1.0, help="throughput bin in seconds (default 1)")
    p.add_argument("--action", default="D", help="I/O map: D (issued, default), C or Q events")
    p.add_argument("--throughput-actions", default="Q,D", help="throughput: comma-separated actions, each its own "
                   "rows (default Q,D: request sizes as queued and as issued)")  # fmt: skip
    p.add_argument("--sizes", type=Path, help="requests per size (KiB) of Q and D events, per op and class")
    p.add_argument("--merges", type=Path, help="queued, issued, merges and #Q/#D (btt's merge ratio) per op and "
                   "class (meta: M in RWBS; data; all)")  # fmt: skip
    p.add_argument("--processes", type=Path, help="per pid, op and class: process name, queued requests and KiB, "
                   "merges")  # fmt: skip
    p.add_argument("--arrivals", type=Path, help="Q2Q inter-arrival (per op and class) and idle periods: n, mean, cv, "
                   "quantiles")  # fmt: skip
    p.add_argument("--dispersion", type=Path, help="index of dispersion of Q counts at 1 ms .. 1 s windows, per op "
                   "and class")  # fmt: skip
    p.add_argument("--latency-windows", type=Path, help="D2C and Q2C percentiles per time window (by completion), "
                   "op and class, read from the window's histogram (never averaged)")  # fmt: skip
    p.add_argument("--latency-hist", type=Path, help="the per-window latency histograms (sparse log buckets: "
                   "merge windows, ops or classes by summing counts)")  # fmt: skip
    p.add_argument("--latency-window-s", type=float, default=1.0, help="latency window in seconds (default 1; "
                   "a multiple of it where the trace would need more than 1,000 windows)")  # fmt: skip
    p.add_argument("--each", action="store_true", help=EACH_HELP)

    jobs_option(p)

    def run(a: argparse.Namespace) -> int:
        if min(a.time_bins, a.sector_bins) < 1 or min(a.bin_s, a.latency_window_s) <= 0:
            raise ValueError("--time-bins and --sector-bins must be at least 1, --bin-s and --latency-window-s "
                             "positive")  # fmt: skip
        actions = names(a.throughput_actions)
        if not actions:
            raise ValueError("--throughput-actions names no action")
        opts = {k: getattr(a, k) for k in ("action", "time_bins", "sector_bins", "bin_s", "latency_window_s")}
        units = each_run(a.events, a.each, **{n: getattr(a, n) for n in VIEWS})
        map_runs(units, partial(_views_of_run, actions=actions, **opts), a.jobs, size=lambda u: file_size(u[0][0]))
        return 0

    return run


VIEWS = ("io_map", "throughput", "sizes", "merges", "processes", "arrivals", "dispersion", "latency_windows",
         "latency_hist")  # fmt: skip


def _views_of_run(unit: tuple[list[Path], dict[str, Path | None]], actions: list[str], action: str, time_bins: int,
                  sector_bins: int, bin_s: float, latency_window_s: float) -> None:  # fmt: skip
    """The views asked for of one run (events, outputs: an each_run unit), written; a worker's unit of work."""
    from blkscope.analysis.characterise import io_map, request_mix
    from blkscope.analysis.timing import arrivals, latency_windows
    from blkscope.io import write_table
    from blkscope.parts import events_files

    events, out = unit
    ev = events_files(events)
    once = _read_once(ev) if any(out[k] for k in ("io_map", "throughput", "sizes", "merges", "processes")) else ev
    if out["io_map"]:
        write_table(io_map.io_map(once, action, time_bins, sector_bins), out["io_map"])
    if out["throughput"]:
        write_table(io_map.throughput(once, actions, bin_s), out["throughput"])
    if out["sizes"]:
        write_table(request_mix.sizes(once), out["sizes"])
    if out["merges"] or out["processes"]:
        counts = request_mix.event_counts(once)
        write_table(request_mix.merges(ev, counts), out["merges"])
        write_table(request_mix.processes(ev, counts), out["processes"])
    if out["arrivals"] or out["dispersion"]:  # one time-ordered pass gives both
        arr, disp = arrivals.arrivals_dispersion(ev, arrivals.IDC_WINDOWS_S if out["dispersion"] else ())
        write_table(arr, out["arrivals"])
        write_table(disp, out["dispersion"])
    if out["latency_windows"] or out["latency_hist"]:
        latency_windows.write(latency_windows.histograms(ev, latency_window_s), out["latency_hist"],
                              out["latency_windows"])


# events files up to this size (all of them, a split trace's parts together) are read once for the views that group
# them (I/O map, throughput, sizes, merges, processes), each of which scanned the files once or twice; larger traces
# are scanned per view, streaming, as before (the columns kept take at most about the files' size: Parquet without
# compression, as the ingest writes it)
READ_ONCE_MAX_BYTES = 256 << 20
ONCE_COLUMNS = ["time_ns", "pid", "process", "action", "rwbs", "sector", "nsectors"]  # what those views read


def _read_once(files: list[Path], max_bytes: int | None = None):
    """The columns the grouping views read, in memory (a LazyFrame the views take in place of the files), or the
    files themselves when they are larger than max_bytes (READ_ONCE_MAX_BYTES). The tables are the same either way
    (tests/test_characterise.py)."""
    import polars as pl

    if sum(file_size(f) for f in files) > (READ_ONCE_MAX_BYTES if max_bytes is None else max_bytes):
        return files
    return pl.scan_parquet([str(f) for f in files]).select(ONCE_COLUMNS).collect().lazy()


@verb("reuse")
def _reuse(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s) or parts.json of one run")
    p.add_argument("-o", "--out", type=Path, required=True,
                   help="summary per op, class and method: accesses, distinct pages, error against the exact curve, "
                   "the profile of record")  # fmt: skip
    p.add_argument("--mrc", type=Path, help="miss-ratio curves (op, class, method, rate, size_limit, cache_pages, "
                   "cache_mib, miss_ratio)")  # fmt: skip
    p.add_argument("--distance", type=Path, help="reuse-distance histogram in power-of-two buckets (op, class, "
                   "method, lo, hi, mass)")  # fmt: skip
    p.add_argument("--wss", type=Path, help="working-set size: distinct pages per window (op, class, window, "
                   "start_s, pages)")  # fmt: skip
    p.add_argument("--no-exact", action="store_true", help="skip the exact profile (memory: ~50 bytes per page)")
    p.add_argument("--auto", action="store_true", help="the exact profile only where the trace has at most "
                   "--exact-max-accesses page accesses; above, SHARDS alone (the fixed-size profiles asked for, or "
                   "8,192 sampled pages); the summary's of_record and exact_max_accesses say which")  # fmt: skip
    p.add_argument("--exact-max-accesses", type=int, default=None, metavar="N",
                   help="--auto's limit (default 25,000,000: the exact profile's memory stays within ~5 GB)")
    p.add_argument("--shards-rate", type=float, action="append", default=[], metavar="R",
                   help="SHARDS at sampling rate R (0 < R <= 1; repeatable)")  # fmt: skip
    p.add_argument("--shards-size", type=int, action="append", default=[], metavar="S",
                   help="fixed-size SHARDS holding at most S sampled pages (repeatable)")  # fmt: skip
    p.add_argument("--no-adj", action="store_true", help="fixed-rate SHARDS without the SHARDS_adj correction")
    p.add_argument("--streams", default="all,read,write", help="comma-separated: all, read, write, data, meta "
                   "(meta: requests marked M in RWBS; data, meta alone: every op), or op/class (read/meta); "
                   "default all,read,write")  # fmt: skip
    p.add_argument("--classes", default="all", help="comma-separated classes (all, data, meta) each op stream of "
                   "--streams (all, read, write) is split into (default all; all,data,meta: every view by class)")
    p.add_argument("--action", default="C", help="events that count: C (completions, default) or D (issues)")
    p.add_argument("--mode", default="cover", choices=["cover", "ssd-study"],
                   help="pages of a request as access-frequency counts them (default cover)")  # fmt: skip
    p.add_argument("--page-kib", type=int, default=4, help="page size in KiB (default 4)")
    p.add_argument("--window-s", type=float, default=1.0, help="working-set window in seconds (default 1)")
    p.add_argument("--dump-pages", type=Path, help="also write the first stream's page accesses here, in order "
                   "(u64 little-endian; what bench/characterise gives libCacheSim)")  # fmt: skip
    p.add_argument("--each", action="store_true", help=EACH_HELP)

    def run(a: argparse.Namespace) -> int:
        # the tables (polars) imported after the pass: on the direct path polars loads while the pass runs
        from blkscope.analysis.characterise.reuse import AUTO_EXACT_MAX_ACCESSES, profile, streams_by_class
        from blkscope.parts import events_files

        if a.window_s <= 0:
            raise ValueError("--window-s must be positive")
        if a.exact_max_accesses is not None and not a.auto:
            raise ValueError("--exact-max-accesses is --auto's limit: give --auto too")
        if a.auto and a.no_exact:
            raise ValueError("--auto chooses the exact profile or not: not with --no-exact")
        limit = (AUTO_EXACT_MAX_ACCESSES if a.exact_max_accesses is None else a.exact_max_accesses) if a.auto else None
        streams = streams_by_class(names(a.streams), names(a.classes))
        if a.each and a.dump_pages:
            raise ValueError("--dump-pages writes one run's pages: not with --each")
        outs = each_run(a.events, a.each, out=a.out, mrc=a.mrc, distance=a.distance, wss=a.wss)
        for events, out in outs:
            # the program writes a Parquet MRC table itself (the rows reuse_tables.mrc makes); a CSV one here
            native_mrc = out["mrc"] if out["mrc"] and Path(out["mrc"]).suffix != ".csv" else None
            if native_mrc:
                Path(native_mrc).parent.mkdir(parents=True, exist_ok=True)
            r = profile(events_files(events), exact=not a.no_exact, rates=a.shards_rate, sizes=a.shards_size,
                        adj=not a.no_adj, streams=streams, action=a.action, page_kib=a.page_kib, mode=a.mode,
                        window_s=a.window_s, dump_pages=a.dump_pages, exact_max_accesses=limit,
                        wss=out["wss"] is not None, meanwhile=_tables_ready, mrc=native_mrc)  # fmt: skip
            if r.counted_accesses is not None:
                took = "exact" if r.counted_accesses <= limit else "SHARDS only (no exact profile)"
                print(f"blkscope reuse: {events[0]}: {r.counted_accesses:,} page accesses, limit {limit:,}: {took}",
                      file=sys.stderr)  # fmt: skip
            from blkscope.analysis.characterise import reuse_tables as rt
            from blkscope.io import write_table

            summ = rt.summary(r)
            for note in summ["note"].drop_nulls().unique(maintain_order=True):
                print(f"blkscope reuse: {events[0]}: {note}", file=sys.stderr)
            write_table(summ, out["out"])
            write_table(rt.mrc(r), None if native_mrc else out["mrc"])
            write_table(rt.distance_histogram(r), out["distance"])
            write_table(rt.wss(r), out["wss"])
        return 0

    return run


def _tables_ready() -> None:
    """Run while the native pass runs: the tables' modules, and what their first table loads (numpy.ma, polars'
    construction from numpy), ~30 ms after the pass otherwise (bench/RESULTS.md, "Characterisation" 2026-11-27 (4))."""
    import numpy as np
    import polars as pl

    from blkscope import io  # noqa: F401
    from blkscope.analysis.characterise import reuse_tables  # noqa: F401

    pl.DataFrame({"x": np.zeros(1)})


@verb("metadata")
def _metadata(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("events", nargs="+", type=Path, help="events.parquet file(s) or parts.json of one run")
    p.add_argument("-o", "--out", type=Path, required=True, help="per op: accesses, metadata share, hot-page share "
                   "(top 1 %% of pages), share of hot accesses that are metadata")  # fmt: skip
    p.add_argument("--rank", type=Path, help="rank-frequency of metadata and data apart (op, class, rank, count)")
    p.add_argument("--action", default="C", help="events that count: C (completions, default) or D (issues)")
    p.add_argument("--mode", default="cover", choices=["cover", "ssd-study"], help="as access-frequency counts")
    p.add_argument("--page-kib", type=int, default=4, help="page size in KiB (default 4)")
    p.add_argument("--each", action="store_true", help=EACH_HELP)

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.characterise import metadata as md
        from blkscope.io import write_table
        from blkscope.parts import events_files

        for events, out in each_run(a.events, a.each, out=a.out, rank=a.rank):
            c = md.counts(events_files(events), action=a.action, page_kib=a.page_kib, mode=a.mode)
            hot, rank = md.hot_and_rank(c, a.action)
            for note in hot["note"].drop_nulls().unique(maintain_order=True):
                print(f"blkscope metadata: {events[0]}: {note}", file=sys.stderr)
            write_table(hot, out["out"])
            write_table(rank, out["rank"])
        return 0

    return run


@verb("metadata-vs-data")
def _metadata_vs_data(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet (config/runs.tsv)")
    p.add_argument("hot", nargs="+", type=Path, help="<processed>/<run_id>/characterise/metadata_hot.parquet files")
    p.add_argument("-o", "--out", type=Path, required=True, help="output table (.parquet)")
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.characterise.metadata import across_runs
        from blkscope.io import write_table
        from blkscope.runs import load_runs

        write_table(across_runs(a.hot, load_runs(a.runs)), a.out, a.csv)
        return 0

    return run
