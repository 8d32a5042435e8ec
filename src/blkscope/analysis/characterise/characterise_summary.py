"""One row per traced run from its characterisation tables (<processed>/<run>/characterise/*.parquet), and the
median over a setup's repeats: what the paper's Characterisation section compares across filesystems.

Per run (null where the table or the requests are absent):
- read_kib, write_kib: mean size of the issued (D) requests; meta_requests: share of D requests marked `M`;
- write_merge_ratio: btt's #Q/#D of the writes (class all);
- data_write_merge_ratio: #Q/#D of the data writes alone (class data), the requests q_write_median_kib and
  d_write_median_kib describe; q_write_mean_kib, d_write_mean_kib: the mean size of those writes as queued and as
  issued over the whole run (bytes over requests: their ratio is that #Q/#D, where every byte queued is issued);
- meta_share: share of page accesses (C) that are metadata; hot_meta_share: of the hottest 1 % of pages';
- q2q_cv: coefficient of variation of the Q2Q times (1 for Poisson arrivals); idc_1s: index of dispersion of the
  Q counts in 1-s windows (class all); idle_share: the share of the trace's span the device had nothing in flight;
- map_gib: the highest block address the issued requests reach (GiB: the top of the I/O map's highest non-empty
  address bin, so within one bin, 1/128 of it); map_fill: the share of the map's address bins below it that hold
  a request (how much of the range it reaches the run touches: a run writing in one place and at the end of the
  device reaches far and fills little);
- distinct_mib: the pages touched (op all, class all; the reuse profile of record: exact, or SHARDS' estimate
  where `blkscope reuse --auto` found the trace too large for the exact one); cold_miss: distinct / accesses, the
  miss ratio of an infinite LRU cache; half_mib: the smallest LRU cache (that profile's curve) that misses at most
  half the accesses; wss_mib: the median working set (distinct pages) of the 1-s windows; data_cold_miss,
  meta_cold_miss: cold_miss of the data and of the metadata requests (each its own page sequence and profile of
  record); mrc_record: the method of the op-all profile of record (exact, shards-size; a string, not a metric);
- q_write_median_kib, d_write_median_kib: the median over the run's seconds of the median size of the data writes
  queued (Q) and issued (D) in that second (D above Q: merged; below: split);
- d2c_p99_us: the whole run's D2C p99 (the windows' histograms summed), d2c_p99_spread: the largest p99 of a
  SPREAD_WINDOW_S window (base windows summed; windows of >= MIN_WINDOW_N completions) over the run's: how far
  100 ms's tail strays from the run's (null when the base windows do not divide SPREAD_WINDOW_S).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polars as pl

from blkscope.analysis.timing import latency_windows as lw

MIN_WINDOW_N = 100
SPREAD_WINDOW_S = 0.1  # the saturating runs last seconds: 100-ms windows hold thousands of completions there
SETUP = ["testbed", "workload", "job", "filesystem"]
METRICS = ["read_kib", "write_kib", "meta_requests", "write_merge_ratio", "meta_share", "hot_meta_share", "q2q_cv",
           "idc_1s", "idle_share", "map_gib", "map_fill", "distinct_mib", "cold_miss", "half_mib", "wss_mib",
           "d2c_p99_us", "d2c_p99_spread", "q_write_median_kib", "d_write_median_kib", "data_cold_miss",
           "meta_cold_miss", "data_write_merge_ratio", "q_write_mean_kib", "d_write_mean_kib"]  # fmt: skip
ALL_CLASSES = pl.col("class") == "all"
# the views read here that sum over requests, and the reuse tables: class all rows
BY_CLASS = {"arrivals", "merges", "dispersion", "reuse", "mrc", "wss"}


def _read(d: Path, name: str) -> pl.DataFrame | None:
    p = d / f"{name}.parquet"
    if not p.exists():
        return None
    t = pl.read_parquet(p)
    # a per-request view (or a reuse table) written before it was split by class held every request: class all
    return t.with_columns(**{"class": pl.lit("all")}) if name in BY_CLASS and "class" not in t.columns else t


def _one(t: pl.DataFrame | None, where: pl.Expr, col: str) -> float | None:
    if t is None:
        return None
    v = t.filter(where)[col]
    return None if v.is_empty() or v[0] is None else float(v[0])


def _sizes(s: pl.DataFrame | None) -> dict:
    if s is None:
        return {}
    d = s.filter(pl.col("action") == "D")
    mean = {}
    for op in ("read", "write"):
        x = d.filter(pl.col("op") == op)
        n_op = x["requests"].sum()
        mean[op] = float((x["size_kib"] * x["requests"]).sum() / n_op) if n_op else None
    n = d["requests"].sum()
    meta = d.filter(pl.col("class") == "meta")["requests"].sum() / n if n else None
    data = {}  # the data writes as queued and as issued
    for a in "QD":
        x = s.filter((pl.col("action") == a) & (pl.col("op") == "write") & (pl.col("class") == "data"))
        n_a = x["requests"].sum()
        data[f"{a.lower()}_write_mean_kib"] = float((x["size_kib"] * x["requests"]).sum() / n_a) if n_a else None
    return {"read_kib": mean["read"], "write_kib": mean["write"], "meta_requests": meta, **data}


def _over_time(t: pl.DataFrame | None) -> dict:
    """The median second's median size of the data writes (the throughput table's exact per-second median, the
    seconds with such writes), as queued (Q) and as issued (D)."""
    if t is None:
        return {}
    w = t.filter((pl.col("op") == "write") & (pl.col("class") == "data") & (pl.col("requests") > 0))
    return {f"{a.lower()}_write_median_kib": w.filter(pl.col("action") == a)["median_kib"].median() for a in "QD"}


def _io_map(m: pl.DataFrame | None) -> dict:
    if m is None or m.is_empty():
        return {}
    bins = m.select(pl.col("sector_bin").max() + 1, pl.col("sector_bin").n_unique().alias("used")).row(0)
    return {"map_gib": float(m["sector_hi"].max()) * 512 / 2**30, "map_fill": bins[1] / bins[0]}


def _of_record(reuse: pl.DataFrame | None, stream: pl.Expr) -> tuple[pl.Expr, str | None]:
    """The rows of a stream's profile of record (exact where it ran; SHARDS where `auto` found the trace too large;
    the exact one in tables written before `auto`) and its method (None: no such profile)."""
    rec = reuse.filter(stream & pl.col("of_record")) if reuse is not None and "of_record" in reuse.columns else None
    if rec is None or rec.is_empty():
        exact = stream & (pl.col("method") == "exact")
        return exact, "exact" if reuse is not None and reuse.filter(exact).height else None
    r = rec.row(0, named=True)
    same = (pl.col("method") == r["method"]) & (pl.col("size_limit") == r["size_limit"]) & (pl.col("rate") == r["rate"])
    return stream & same, r["method"]


def _cold_miss(reuse: pl.DataFrame | None, rows: pl.Expr) -> float | None:
    """distinct pages / accesses of the profile `rows` selects: the miss ratio of an infinite LRU cache."""
    pages, acc = _one(reuse, rows, "distinct_pages"), _one(reuse, rows, "accesses")
    return pages / acc if pages is not None and acc else None


def _reuse(d: Path) -> dict:
    reuse, mrc, wss = _read(d, "reuse"), _read(d, "mrc"), _read(d, "wss")
    every = (pl.col("op") == "all") & ALL_CLASSES
    chosen, method = _of_record(reuse, every)
    out: dict = {"mrc_record": method}
    for cls in ("data", "meta"):  # each class is its own sequence of pages, with its own profile of record
        rows, _ = _of_record(reuse, (pl.col("op") == "all") & (pl.col("class") == cls))
        out[f"{cls}_cold_miss"] = _cold_miss(reuse, rows)
    if mrc is not None and not mrc.filter(chosen).is_empty():
        m = mrc.filter(chosen)
        page_mib = float(m["cache_mib"][0] / m["cache_pages"][0])
        half = m.filter(pl.col("miss_ratio") <= 0.5)["cache_mib"]
        out |= {"half_mib": float(half.min()) if half.len() else None, "cold_miss": _cold_miss(reuse, chosen)}
        if out["cold_miss"] is not None:
            out |= {"distinct_mib": _one(reuse, chosen, "distinct_pages") * page_mib}
        if wss is not None and not wss.filter(every).is_empty():
            out |= {"wss_mib": float(wss.filter(every)["pages"].median()) * page_mib}
    return out


def _latency(h: pl.DataFrame | None) -> dict:
    if h is None or h.is_empty():
        return {}
    h = h.filter((pl.col("stage") == "d2c") & (pl.col("op") == "all") & (pl.col("class") == "all"))
    whole = _one(lw.percentiles(lw.merge(h, 0)), pl.lit(True), "p99_us")
    k = SPREAD_WINDOW_S / float(h["window_s"][0])  # base windows summed into SPREAD_WINDOW_S ones
    if round(k) < 1 or abs(k - round(k)) > 1e-9:
        return {"d2c_p99_us": whole}
    w = lw.percentiles(lw.merge(h, round(k))).filter(pl.col("n") >= MIN_WINDOW_N)["p99_us"]
    return {"d2c_p99_us": whole, "d2c_p99_spread": float(w.max()) / whole if w.len() and whole else None}


def per_run(dirs: Mapping[str, Path], jobs: int = 1) -> pl.DataFrame:
    """dirs: run_id -> its characterise directory; runs read in `jobs` processes (blkscope.parallel.map_runs)."""
    from blkscope.parallel import map_runs

    rows = map_runs(list(dirs.items()), _run_row, jobs, size=None)
    schema = {"run_id": pl.Utf8, "mrc_record": pl.Utf8} | dict.fromkeys(METRICS, pl.Float64)
    return pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)


def _run_row(item: tuple[str, Path]) -> dict:
    run_id, d = item
    io_map, arr, disp, hot, merges = (_read(d, t) for t in ("io_map", "arrivals", "dispersion", "metadata_hot",
                                                            "merges"))
    span = float(io_map["t_hi_s"].max()) if io_map is not None and io_map.height else None
    idle = _one(arr, (pl.col("op") == "all") & (pl.col("what") == "idle"), "total_s")
    return {
        "run_id": run_id, **_sizes(_read(d, "sizes")), **_over_time(_read(d, "throughput")),
        "write_merge_ratio": _one(merges, (pl.col("op") == "write") & ALL_CLASSES, "merge_ratio"),
        "data_write_merge_ratio": _one(merges, (pl.col("op") == "write") & (pl.col("class") == "data"), "merge_ratio"),
        "meta_share": _one(hot, pl.col("op") == "all", "meta_share"),
        "hot_meta_share": _one(hot, pl.col("op") == "all", "hot_meta_share"),
        "q2q_cv": _one(arr, (pl.col("op") == "all") & ALL_CLASSES & (pl.col("what") == "q2q"), "cv"),
        "idc_1s": _one(disp, (pl.col("op") == "all") & ALL_CLASSES & (pl.col("window_s") == 1.0), "idc"),
        "idle_share": idle / span if idle is not None and span else None,
        **_io_map(io_map), **_reuse(d), **_latency(_read(d, "latency_hist")),
    }  # fmt: skip


def by_setup(per: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """The median of every metric over a setup's runs (testbed, workload, job, filesystem), with n runs and how many
    of them have an exact (exact_runs) or a SHARDS (shards_runs) profile of record."""
    j = per.join(runs.select("run_id", *SETUP), on="run_id", how="inner")
    record = pl.col("mrc_record")
    return j.group_by(SETUP).agg(
        n=pl.len(), exact_runs=(record == "exact").sum(), shards_runs=record.str.starts_with("shards").sum(),
        **{m: pl.col(m).median() for m in METRICS},
    ).sort(SETUP)  # fmt: skip
