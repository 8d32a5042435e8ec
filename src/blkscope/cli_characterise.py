"""Characterisation verbs (issue N): the views storage engineers know from btt, iowatcher, blkiomon and
libCacheSim (reuse distance and miss-ratio curves: cli_reuse)."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from blkscope.verbs import EACH_HELP, Handler, each_run, file_size, jobs_option, map_runs, verb
from blkscope.verbs import names as _names
from blkscope.verbs import write_table as _write


@verb("metadata", "metadata (M in RWBS) against data in the page access frequency: hot-page shares, rank-frequency")
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
        from blkscope.analysis import metadata as md
        from blkscope.parts import events_files

        for events, out in each_run(a.events, a.each, out=a.out, rank=a.rank):
            c = md.counts(events_files(events), action=a.action, page_kib=a.page_kib, mode=a.mode)
            hot, rank = md.hot_and_rank(c, a.action)
            for note in hot["note"].drop_nulls().unique(maintain_order=True):
                print(f"blkscope metadata: {events[0]}: {note}", file=sys.stderr)
            _write(hot, out["out"])
            _write(rank, out["rank"])
        return 0

    return run


@verb("metadata-vs-data", "every run's metadata-against-data table with its setup (filesystem, workload, ...)")
def _metadata_vs_data(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet (config/runs.tsv)")
    p.add_argument("hot", nargs="+", type=Path, help="<processed>/<run_id>/characterise/metadata_hot.parquet files")
    p.add_argument("-o", "--out", type=Path, required=True, help="output table (.parquet)")
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis.metadata import across_runs
        from blkscope.runs import load_runs

        df = across_runs(a.hot, load_runs(a.runs))
        _write(df, a.out)
        _write(df, a.csv)
        return 0

    return run


@verb("characterise", "I/O map, IOPS and bytes/s over time, request sizes, merges, per-process view, Q2Q and idle "
      "periods with burstiness, latency percentiles per window: the views of iowatcher, blkiomon and btt, each "
      "table on request")
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
        actions = _names(a.throughput_actions)
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
    from blkscope.analysis import arrivals, io_map, latency_windows, request_mix
    from blkscope.parts import events_files

    events, out = unit
    ev = events_files(events)
    if out["io_map"]:
        _write(io_map.io_map(ev, action, time_bins, sector_bins), out["io_map"])
    if out["throughput"]:
        _write(io_map.throughput(ev, actions, bin_s), out["throughput"])
    if out["sizes"]:
        _write(request_mix.sizes(ev), out["sizes"])
    if out["merges"] or out["processes"]:
        counts = request_mix.event_counts(ev)
        _write(request_mix.merges(ev, counts), out["merges"])
        _write(request_mix.processes(ev, counts), out["processes"])
    if out["arrivals"] or out["dispersion"]:  # one time-ordered pass gives both
        arr, disp = arrivals.arrivals_dispersion(ev, arrivals.IDC_WINDOWS_S if out["dispersion"] else ())
        _write(arr, out["arrivals"])
        _write(disp, out["dispersion"])
    if out["latency_windows"] or out["latency_hist"]:
        latency_windows.write(latency_windows.histograms(ev, latency_window_s), out["latency_hist"],
                              out["latency_windows"])


@verb("characterise-numbers", "per traced run and per setup (median over repeats): the characterisation's key "
      "metrics, and the Characterisation section's macros")
def _characterise_numbers(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet (config/runs.tsv)")
    p.add_argument("tables", nargs="*", type=Path,
                   help="<processed>/<run_id>/characterise/*.parquet files: their runs' directories are read")
    p.add_argument("-o", "--out", type=Path, required=True, help="macros (.tex)")
    p.add_argument("--table", type=Path, help="the per-setup table (.parquet)")
    p.add_argument("--csv", type=Path, help="also the per-setup table as CSV")
    jobs_option(p)

    def run(a: argparse.Namespace) -> int:
        from blkscope.analysis import characterise_summary as cs
        from blkscope.io import write_text_atomic
        from blkscope.paper import characterise_numbers as cn
        from blkscope.runs import load_runs, run_id_of

        dirs = {run_id_of(t): t.parent for t in a.tables}
        by = cs.by_setup(cs.per_run(dirs, a.jobs), load_runs(a.runs))
        _write(by, a.table)
        _write(by, a.csv)
        write_text_atomic(cn.render(cn.macros(by)), a.out)
        return 0

    return run
