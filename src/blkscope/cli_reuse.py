"""`blkscope reuse` (issue N): reuse distance, miss-ratio curves and working-set size. A module of its own, light
(argparse only) and imported first by cli.build_parser, so the verb starts without compiling the other verb modules
(the native pass waits on that start: bench/RESULTS.md, "Characterisation" 2026-11-27 (4))."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blkscope.verbs import EACH_HELP, Handler, each_run, verb
from blkscope.verbs import names as _names
from blkscope.verbs import write_table as _write


@verb("reuse", "reuse distance, LRU miss-ratio curve and working-set size of 4 KiB pages (exact and/or SHARDS)")
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
        from blkscope.analysis.reuse import AUTO_EXACT_MAX_ACCESSES, profile, streams_by_class
        from blkscope.parts import events_files

        if a.window_s <= 0:
            raise ValueError("--window-s must be positive")
        if a.exact_max_accesses is not None and not a.auto:
            raise ValueError("--exact-max-accesses is --auto's limit: give --auto too")
        if a.auto and a.no_exact:
            raise ValueError("--auto chooses the exact profile or not: not with --no-exact")
        limit = (AUTO_EXACT_MAX_ACCESSES if a.exact_max_accesses is None else a.exact_max_accesses) if a.auto else None
        streams = streams_by_class(_names(a.streams), _names(a.classes))
        if a.each and a.dump_pages:
            raise ValueError("--dump-pages writes one run's pages: not with --each")
        outs = each_run(a.events, a.each, out=a.out, mrc=a.mrc, distance=a.distance, wss=a.wss)
        for events, out in outs:
            r = profile(events_files(events), exact=not a.no_exact, rates=a.shards_rate, sizes=a.shards_size,
                        adj=not a.no_adj, streams=streams, action=a.action, page_kib=a.page_kib, mode=a.mode,
                        window_s=a.window_s, dump_pages=a.dump_pages, exact_max_accesses=limit,
                        wss=out["wss"] is not None, meanwhile=_tables_ready)  # fmt: skip
            if r.counted_accesses is not None:
                took = "exact" if r.counted_accesses <= limit else "SHARDS only (no exact profile)"
                print(f"blkscope reuse: {events[0]}: {r.counted_accesses:,} page accesses, limit {limit:,}: {took}",
                      file=sys.stderr)  # fmt: skip
            from blkscope.analysis import reuse_tables as rt

            summ = rt.summary(r)
            for note in summ["note"].drop_nulls().unique(maintain_order=True):
                print(f"blkscope reuse: {events[0]}: {note}", file=sys.stderr)
            _write(summ, out["out"])
            _write(rt.mrc(r), out["mrc"])
            _write(rt.distance_histogram(r), out["distance"])
            _write(rt.wss(r), out["wss"])
        return 0

    return run


def _tables_ready() -> None:
    """Run while the native pass runs: the tables' modules, and what their first table loads (numpy.ma, polars'
    construction from numpy), ~30 ms after the pass otherwise (bench/RESULTS.md, "Characterisation" 2026-11-27 (4))."""
    import numpy as np
    import polars as pl

    from blkscope import io  # noqa: F401
    from blkscope.analysis import reuse_tables  # noqa: F401

    pl.DataFrame({"x": np.zeros(1)})
