"""The estimators of the claims table: each takes the analysis tables and the claim's band and returns a Result.

Which runs speak to a claim: host (loop) runs; throughput, latency and iostat from untraced runs (the studies
measured without a tracer); access frequency from traced runs; queue depth, overhead and access frequency from
the saturating runs when the dataset has them (the studies measured at saturation), else from the light runs
(said so in the measurement). Claims about the journal writer's latency read its light runs, which are its point,
of at least JOURNAL_MIN_S.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import polars as pl
from scipy import stats

from blkscope.analysis.load.overhead import pooled_overhead
from blkscope.analysis.summaries.run_groups import LIGHT, SATURATING, cassandra_mode
from blkscope.paper import claim_verdict as vd
from blkscope.paper.claim_runs import (
    FEW,
    NO_RUNS,
    Result,
    Tables,
    by_strata,
    host,
    is_writeback,
    not_testable,
    pool,
    read,
    record_arm,
    runs,
    saturating_first,
    strata_ratio,
    two_arms,
    vals,
)

Evaluate = Callable[[Tables, vd.Size], Result]
# Repeats captured on different days can differ as a whole (round3-repeats' journal writes ran 30-45 % faster
# than the same configurations' earlier repeats: scripts/batch_effect.py): arms are compared within a capture
# batch, each batch a stratum, never pooled across batches.
BATCH = ["batch"]
YCSB_CASSANDRA = "cassandra-ycsb"  # the runs sheet's workload for YCSB on a Cassandra node (issue L)


def cassandra(t: pl.DataFrame, mode: str, commitlog: str | None) -> pl.DataFrame:
    t = t.filter((pl.col("workload") == "cassandra") & (cassandra_mode() == mode))
    return t.filter(pl.col("commitlog") == commitlog) if commitlog else t


def metric_ratio(table: str, select: Callable[[pl.DataFrame], pl.DataFrame], metric: str, fs: tuple[str, str],
                 traced: bool | None, prefer_sat: bool, unit: str = "", ratio: bool = True, digits: int = 2,
                 load: str | None = None) -> Evaluate:
    """The ratio (or difference) of a metric between two filesystems' runs, within each capture batch (BATCH);
    at `load` when given, else at the saturating load where there is one (prefer_sat) or the light one."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        def at(t: pl.DataFrame, load: str) -> Result:
            t = t.filter(pl.col("metric") == metric)
            value = "value" if "value" in t.columns else "mean"
            strata = by_strata(t, BATCH, pl.col("filesystem"), *fs, value=value)
            return strata_ratio(strata, fs, size, unit, digits, load, ratio)

        t = select(host(tb[table], tb, traced=traced))
        if load is not None:
            return at(t.filter(pl.col("load") == load), load)
        return saturating_first(t, at) if prefer_sat else at(t.filter(pl.col("load") == LIGHT), LIGHT)
    return ev


# -- access frequency -----------------------------------------------------------------------------------------


def zipf(tb: Tables, size: vd.Size) -> Result:
    r = runs(tb).select("run_id", "workload", "load")
    z = tb["zipf"].join(r, on="run_id").filter((pl.col("workload") == "ycsb") & (pl.col("op") == "all"))
    return saturating_first(z, _zipf_at)


def _zipf_at(z: pl.DataFrame, load: str) -> Result:
    fitted = z.filter(pl.col("alpha").is_not_null() & pl.col("s").is_not_null())
    if fitted.height == 0:
        return Result(None, "no power-law fit (too few runs or distinct counts)", str(z.height), load,
                      NO_RUNS if z.height == 0 else "inconclusive")
    s = fitted["s"].to_numpy().astype(float)
    good = fitted.filter(pl.col("p_gof").fill_null(0) >= 0.1).height
    if fitted.height >= 2:
        est = vd.mean_interval(s)
    else:  # one run: its own interval of s
        est = vd.Estimate(float(s[0]), float(fitted["s_lo"][0]), float(fitted["s_hi"][0]), math.nan,
                          "CSN fit, CI of s from alpha")
    m = (f"mean s over {fitted.height} runs; s = {', '.join(f'{x:.2f}' for x in s)}; power law plausible "
         f"(p >= 0.1) in {good}")
    return Result(est, m, str(fitted.height), load)


HOT_FRACTION = 0.01  # "very hot" pages: the hottest 1 % of the pages a run read
# The workloads whose runs a claim reads. Module constants, so that blkscope.paper.claim_deviations can
# recompute a claim as it was measured before a change (None: every workload).
HOT_WORKLOADS: tuple[str, ...] | None = ("ycsb", YCSB_CASSANDRA)  # the study's YCSB A on either database
FRAG_WORKLOADS: tuple[str, ...] | None = (YCSB_CASSANDRA,)  # the claim's random writes, not keys in sequence


def _workloads(names: tuple[str, ...] | None) -> pl.Expr:
    return pl.lit(True) if names is None else pl.col("workload").is_in(list(names))


def hot_shares(fof: pl.DataFrame, op: str = "read", top: float = HOT_FRACTION) -> pl.DataFrame:
    """Per run: the share of `op` accesses that go to the hottest `top` of the pages it touched (from its
    frequency-of-frequency table: run_id, op, count, pages). Runs without such accesses have no row."""
    rows = []
    for (run_id,), g in fof.filter(pl.col("op") == op).group_by("run_id", maintain_order=True):
        g = g.sort("count", descending=True)
        counts, pages = g["count"].to_numpy().astype(float), g["pages"].to_numpy().astype(float)
        if pages.sum() == 0 or (counts * pages).sum() == 0:
            continue
        k = max(1.0, math.ceil(top * pages.sum()))  # pages in the hot set
        taken = np.minimum(pages, np.maximum(0.0, k - np.concatenate([[0.0], np.cumsum(pages)[:-1]])))
        rows.append((run_id, float((taken * counts).sum() / (counts * pages).sum())))
    return pl.DataFrame(rows, schema={"run_id": pl.Utf8, "value": pl.Float64}, orient="row")


def hot_pages(other: str) -> Evaluate:
    """btrfs against `other`: share of read accesses to the hottest 1 % of read pages, per traced run, in strata
    of workload, job and testbed (the guest's f2fs is the only f2fs; its access pattern, not its timing, counts).
    Under the study's workload only, YCSB A (half reads, zipfian) on either database: cassandra-stress's write and
    mixed loads read a few pages of the node's files, where the hottest 1 % is one page."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        if tb.get("fof") is None or tb["fof"].height == 0:
            return Result(None, "--", "0", None, NO_RUNS)
        r = runs(tb).filter(pl.col("traced") & pl.col("database").is_in(["rocksdb", "cassandra"])
                            & _workloads(HOT_WORKLOADS) & ~is_writeback())
        t = hot_shares(tb["fof"]).join(r.select("run_id", "workload", "job", "testbed", "filesystem", *BATCH),
                                       on="run_id")
        strata = by_strata(t, ["testbed", "workload", "job", *BATCH], pl.col("filesystem"), "btrfs", other)
        res = strata_ratio(strata, ("btrfs", other), size, digits=3)
        if res.verdict == NO_RUNS and r.filter(pl.col("filesystem") == other).height:
            return Result(None, f"{other}'s traced runs have no read accesses", res.n, None,
                          f"not tested (no {other} reads)")
        return res
    return ev


META_FS = ("ext4", "f2fs")  # the filesystems whose hot read pages the SSD study calls metadata


def hot_metadata(tb: Tables, size: vd.Size) -> Result:
    """Per traced YCSB-RocksDB run on ext4 or f2fs: the share of accesses to its hottest 1 % of read pages that
    carry REQ_META (`M` in RWBS; the metadata-vs-data table, issue N), a t interval over runs. M is what the
    filesystem marks: ext4 marks its inode-table, directory, bitmap and extent-tree reads; the jbd2 journal is
    written, not read, under these loads. A share of 0 with M set elsewhere in the same runs says the hot reads
    are data."""
    md = tb.get("metadata_vs_data")
    if md is None or md.height == 0:
        return Result(None, "--", "0", None, NO_RUNS, "no metadata-vs-data table (blkscope metadata-vs-data)")
    r = runs(tb).filter(pl.col("traced") & (pl.col("workload") == "ycsb") & ~is_writeback())
    t = md.filter(pl.col("op") == "read").select("run_id", "pages", "hot_meta_share").join(
        r.select("run_id", "filesystem", "testbed", "load"), on="run_id")
    t = t.filter(pl.col("filesystem").is_in(META_FS))
    silent = sorted(set(t.filter(pl.col("pages") == 0)["filesystem"]))  # e.g. the guest's f2fs: no read completion
    t = t.filter((pl.col("pages") > 0) & pl.col("hot_meta_share").is_not_null())
    if t.height == 0:
        return Result(None, f"no read accesses on {', '.join(silent) or 'ext4 or f2fs'}", "0", None, NO_RUNS)

    def at(t: pl.DataFrame, load: str) -> Result:
        x = t["hot_meta_share"].to_numpy().astype(float)
        if x.size < 2:
            return Result(None, f"{x.size} run(s)", str(x.size), load, NO_RUNS if x.size == 0 else FEW)
        fs = ", ".join(f"{f} {n}" for f, n in t.group_by("filesystem").len().sort("filesystem").iter_rows())
        m = (f"mean over runs ({fs}) of the REQ_META share of accesses to the hottest 1 % of read pages; "
             f"per run {', '.join(f'{100 * v:.1f} %' for v in x)}")
        m += f"; {', '.join(silent)}: no read completions in the trace" if silent else ""
        return Result(vd.mean_interval(x), m, str(x.size), load)

    return saturating_first(t, at)


def fragmentation(tb: Tables, size: vd.Size) -> Result:
    """Extents per GiB of Cassandra's data files of at least 1 MiB (the `extents` table: run_id, file, kind,
    size_bytes, extents), btrfs against ext4, in strata of job, under the claim's random writes: the YCSB runs
    (zipfian updates), not cassandra-stress's writes of keys in sequence. Not within a capture batch: the
    YCSB-Cassandra grid is captured one filesystem per batch (an hour each), and extents per GiB count the files'
    layout, not a speed, which is what the day shifts (scripts/batch_effect.py)."""
    ext = tb.get("extents")
    if ext is None or ext.height == 0:
        return Result(None, "--", "0", None, NO_RUNS, "no `extents` table in the dataset (issue L item 4)")
    # filefrag's table names a file's top directory (`dir`: data, commitlog) and its `bytes`
    ext = ext.rename({k: v for k, v in {"dir": "kind", "bytes": "size_bytes"}.items() if k in ext.columns
                      and v not in ext.columns})
    big = ext.filter((pl.col("kind") == "data") & (pl.col("size_bytes") >= 1 << 20))
    per = big.group_by("run_id").agg(value=pl.col("extents").sum() / (pl.col("size_bytes").sum() / 2**30))
    t = host(per, tb, traced=None).filter(_workloads(FRAG_WORKLOADS))
    return strata_ratio(by_strata(t, ["workload", "job"], pl.col("filesystem"), "btrfs", "ext4"),
                        ("btrfs", "ext4"), size, "extents/GiB", 1)


# -- tracing overhead -----------------------------------------------------------------------------------------


def steady(tb: Tables, phase: str) -> pl.DataFrame:
    """A YCSB phase's throughput past its recorded warm-up (the ycsb_phases table: the three-phase jobs of issue
    L, whose phases climb for minutes here) as metric rows (run_id, metric, value), metric ops_s_<phase>."""
    ph = tb.get("ycsb_phases")
    cols = {"run_id": pl.Utf8, "metric": pl.Utf8, "value": pl.Float64}
    if ph is None or ph.height == 0:
        return pl.DataFrame(schema=cols)
    ph = ph.filter((pl.col("phase") == phase) & pl.col("ops_s_steady").is_not_null())
    return ph.select("run_id", metric=pl.lit(f"ops_s_{phase}"), value=pl.col("ops_s_steady").cast(pl.Float64))


def window_rate(tb: Tables, column: str) -> pl.DataFrame:
    """Each run's mean rate over its steady window (the steady_state table's `column`: ops_s, read_ops_s,
    update_ops_s) as metric rows (run_id, metric, value)."""
    st = tb.get("steady_state")
    if st is None or column not in st.columns:
        return pl.DataFrame(schema={"run_id": pl.Utf8, "metric": pl.Utf8, "value": pl.Float64})
    st = st.filter(pl.col(column).is_not_null())
    return st.select("run_id", metric=pl.lit(column), value=pl.col(column).cast(pl.Float64))


def overhead_in_window(select: Callable[[pl.DataFrame], pl.DataFrame]) -> Evaluate:
    """Tracing overhead as `overhead`, on each run's ops/s over its steady window (the scale rows: a run without a
    read-only phase has no ycsb_phases row)."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        t = select(host(window_rate(tb, "ops_s"), tb, traced=None))
        return saturating_first(t, lambda x, load: _overhead_at(x, load, size))
    return ev


def overhead(select: Callable[[pl.DataFrame], pl.DataFrame], phase: str | None = None) -> Evaluate:
    """Pooled tracing overhead over the selected host configurations (saturating ones preferred); with a YCSB
    `phase`, on that phase's throughput past its warm-up (steady) instead of the run's whole ops/s."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        m = steady(tb, phase) if phase else tb["workload_metrics"].filter(pl.col("metric") == "ops_s")
        return saturating_first(select(host(m, tb, traced=None)), lambda t, load: _overhead_at(t, load, size))
    return ev


def _overhead_at(t: pl.DataFrame, load: str, size: vd.Size) -> Result:
    cfg = [c for c in ("workload", "job", "filesystem", "commitlog", *BATCH) if c in t.columns]
    arms, ids = [], []
    for _, g in t.group_by(cfg, maintain_order=True):
        tr, un = g.filter(pl.col("traced"))["value"].to_numpy(), g.filter(~pl.col("traced"))["value"].to_numpy()
        if tr.size and un.size:
            arms.append((tr, un))
            ids.append(set(g["run_id"].to_list()) if "run_id" in g.columns else set())
            record_arm(g, pl.when(pl.col("traced")).then(pl.lit("traced")).otherwise(pl.lit("untraced")))
    def runs_n(pairs: list) -> str:  # not "1 configs"
        n_tr, n_un = sum(a.size for a, _ in pairs), sum(b.size for _, b in pairs)
        return f"{n_tr} traced, {n_un} untraced; {len(pairs)} configuration{'' if len(pairs) == 1 else 's'}"

    if not arms:
        return Result(None, "--", runs_n(arms), load,
                      NO_RUNS if t.height == 0 else "not tested (no traced/untraced pair)")  # fmt: skip
    full = [(a, b) for a, b in arms if a.size >= 2 and b.size >= 2]  # one repeat in an arm: no spread to resample
    read(set().union(*[i for (a, b), i in zip(arms, ids, strict=True) if a.size >= 2 and b.size >= 2]))
    if not full:
        return Result(None, "--", runs_n(arms), load, FEW)
    n = runs_n(full)  # the runs the estimate reads
    ov, lo, hi = pooled_overhead(full, seed=0, level=size.level)
    each = [1 - a.mean() / b.mean() for a, b in full]
    meas = f"mean over configurations; per configuration {100 * min(each):.1f} to {100 * max(each):.1f} %"
    if len(full) < len(arms):
        meas += f"; {len(arms) - len(full)} configs left out (an arm with 1 run)"
    # n_needed: the delta method's variance of each 1 - T/U, (T/U)^2 (cv_T^2 + cv_U^2), over k^2
    k = len(full)
    parts = [(a.mean() / b.mean()) ** 2 * x.var(ddof=1) / x.mean() ** 2 / k**2 for a, b in full for x in (a, b)]
    est = vd.Estimate(ov, lo, hi, math.nan, "stratified bootstrap of 1 - traced/untraced ops/s",
                      spread=vd.spread_of(parts))
    # each configuration's 1 - T/U and its delta-method variance, for the test of whether they agree
    v = [(a.mean() / b.mean()) ** 2 * sum(x.var(ddof=1) / x.size / x.mean() ** 2 for x in (a, b)) for a, b in full]
    est, het, note = pool(est, each, v, size.level, "linear")
    return Result(est, meas + note, n, load, het=het, strata=tuple(overhead_of(a, b, size.level) for a, b in full))


def overhead_of(traced: np.ndarray, untraced: np.ndarray, level: float) -> vd.Estimate:
    """One configuration's 1 - mean(traced)/mean(untraced) with a Welch t interval on its delta-method variance,
    (T/U)^2 (var_T / (n_T T^2) + var_U / (n_U U^2)), on Welch-Satterthwaite degrees of freedom: the configuration
    judged on its own where the configurations disagree (a bootstrap of 3 runs per arm has too few resamples)."""
    r = traced.mean() / untraced.mean()
    parts = [r * r * x.var(ddof=1) / x.size / x.mean() ** 2 for x in (traced, untraced)]
    se, value = math.sqrt(sum(parts)), 1 - r
    if se == 0:
        return vd.Estimate(value, value, value, 0.0 if value else 1.0, "delta-method Welch t", se=0.0)
    dof = sum(parts) ** 2 / sum(q * q / (x.size - 1) for q, x in zip(parts, (traced, untraced), strict=True))
    h = float(stats.t.ppf(0.5 + level / 2, dof)) * se
    return vd.Estimate(value, value - h, value + h, float(2 * stats.t.sf(abs(value) / se, dof)),
                       "delta-method Welch t", se=se, dof=dof)


# -- journal latency ------------------------------------------------------------------------------------------


# The writer's worst stalls come from the filesystems' periodic work, some of it on 30-s clocks: its fdatasync (every
# 64 writes) skips the inode's timestamps, which the flusher writes back once dirty for 30 s
# (vm.dirty_expire_centisecs), and xfs's log worker runs every 30 s (fs.xfs.xfssyncd_centisecs). A 10-s run ends
# before either; the study's journal ran for hours. The writer-alone claims read runs of at least twice that.
JOURNAL_MIN_S = 60
BEST_IN_FULL_BATCHES = True  # S4-sparse-max picks the best other pair in the batches that ran all pairs


def journal_writer(t: pl.DataFrame) -> pl.DataFrame:
    """The journal writer alone (no reader) in runs of at least JOURNAL_MIN_S; a run of unknown length (no
    runtime_s) is not one."""
    if "runtime_s" not in t.columns:
        return t.clear()
    return t.filter((pl.col("workload") == "journal") & ~pl.col("job").str.ends_with("-reader")
                    & (pl.col("runtime_s") >= JOURNAL_MIN_S))


def _journal(tb: Tables, metric: str) -> pl.DataFrame:
    return journal_writer(host(tb["workload_metrics"], tb, traced=False, load=LIGHT)).filter(
        pl.col("metric") == metric)


def _no_long_journal() -> Result:
    return Result(None, "--", "0", LIGHT, NO_RUNS, f"no run of the journal writer alone of at least {JOURNAL_MIN_S} s")


def reader_stalls(tb: Tables, size: vd.Size) -> Result:
    """xfs against ext4, the max write latency of the journal writer with a concurrent reader (untraced, light), in
    strata of reader mode (job: the file not preallocated, sparse, or preallocated and filled) and capture batch: the
    modes are strata like the batches, tested for agreement before they are pooled (claim_runs.pool), not one arm."""
    t = host(tb["workload_metrics"], tb, traced=False, load=LIGHT).filter(
        (pl.col("workload") == "journal") & pl.col("job").str.ends_with("-reader")
        & (pl.col("metric") == "write_max_us"))
    return strata_ratio(by_strata(t, ["job", *BATCH], pl.col("filesystem"), "xfs", "ext4"), ("xfs", "ext4"), size,
                        "us", 0, LIGHT)


def ext4_ms_writes(tb: Tables, size: vd.Size) -> Result:
    t = _journal(tb, "write_max_us").filter(pl.col("filesystem") == "ext4")
    if t.height == 0:
        return _no_long_journal()
    per_mode = t.group_by("job").agg(pl.col("value").min().alias("lo"), pl.col("value").max().alias("hi")).sort("job")
    lo = float(per_mode["lo"].min()) / 1e3
    m = "; ".join(f"{r['job']} {r['lo'] / 1e3:.2f}-{r['hi'] / 1e3:.2f} ms" for r in per_mode.iter_rows(named=True))
    v = "replicates" if lo >= size.lo else "does not"
    est = vd.Estimate(lo, lo, lo, math.nan, "smallest max write latency over runs and modes")
    return Result(est, "max write latency per mode, range over runs: " + m, str(t.height), LIGHT, v)


def sparse_best_max(tb: Tables, size: vd.Size) -> Result:
    """xfs with sparse preallocation against the best other filesystem x mode pair (lowest geometric mean of
    the max write latency): below 1 only if it beats every pair. The best is chosen in the batches that ran every
    pair (a batch of a few pairs cannot say which is best: it repeats the one chosen before), and compared in
    every batch that ran both."""
    t = _journal(tb, "write_max_us").with_columns(pair=pl.col("filesystem") + " " + pl.col("job"))
    if t.height == 0:
        return _no_long_journal()
    t = t.filter(pl.col("value") > 0)
    n_pairs = t["pair"].n_unique()
    full = t.group_by(BATCH).agg(pl.col("pair").n_unique().alias("k"))
    full = full.filter(pl.col("k") == n_pairs) if BEST_IN_FULL_BATCHES else full
    grid = t.join(full.select(BATCH), on=BATCH)
    others = {p: vals(grid, "write_max_us", pair=p) for p in grid["pair"].unique().sort() if p != "xfs sparse"}
    if not others or "xfs sparse" not in set(grid["pair"]):
        return two_arms(vals(t, "write_max_us", pair="xfs sparse"), np.array([]), ("xfs sparse", "best other"),
                        size, True, "us", 0, LIGHT)
    best = min(others, key=lambda p: float(np.log(others[p]).mean()))
    r = strata_ratio(by_strata(t, BATCH, pl.col("pair"), "xfs sparse", best), ("xfs sparse", best), size, "us",
                     0, LIGHT)
    how = f" (best of {len(others)} other pairs by geometric mean in the {full.height} batch(es) that ran all)"
    return replace(r, measurement=r.measurement + how, load=LIGHT)


# -- write amplification, journal modes, atime ----------------------------------------------------------------


def _device_kib(tb: Tables, metric: str = "wkb_s") -> pl.DataFrame:
    """Per run: KiB the device wrote (or read) over the iostat window, all its devices (1 s reports: mean x n)."""
    io = tb["iostat_summary"].filter(pl.col("metric") == metric)
    return io.group_by("run_id", maintain_order=True).agg(device_kib=(pl.col("mean") * pl.col("n")).sum())


def _app(tb: Tables, metric: str) -> pl.DataFrame:
    return tb["workload_metrics"].filter(pl.col("metric") == metric).select("run_id", app=pl.col("value"))


def write_amplification(other: str) -> Evaluate:
    """btrfs against `other`: device KiB written (iostat, the run's window, its deferred writeback included)
    per KiB the workload wrote, untraced host runs, in strata of workload, job and load."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        amp = _device_kib(tb).join(_app(tb, "write_kib"), on="run_id").filter(pl.col("app") > 0)
        t = host(amp.with_columns(value=pl.col("device_kib") / pl.col("app")), tb, traced=False)
        strata = by_strata(t, ["workload", "job", "load", *BATCH], pl.col("filesystem"), "btrfs", other)
        return strata_ratio(strata, ("btrfs", other), size, "", 2)
    return ev


def writeback_speed(workload: str, metric: str, traced: bool, faster_is_higher: bool) -> Evaluate:
    """ext4 data=writeback against data=ordered, the same workload: speed-up (ops/s writeback/ordered, or
    latency ordered/writeback), in strata of job."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        t = host(tb["workload_metrics"], tb, traced=traced, load=LIGHT, writeback=None).filter(
            (pl.col("workload") == workload) & (pl.col("filesystem") == "ext4") & (pl.col("metric") == metric)
            & ~pl.col("job").str.ends_with("-reader"))
        names = ("writeback", "ordered") if faster_is_higher else ("ordered", "writeback")
        arm = pl.when(is_writeback()).then(pl.lit("writeback")).otherwise(pl.lit("ordered"))
        return strata_ratio(by_strata(t, ["job", *BATCH], arm, *names), names, size, "", 1, LIGHT)
    return ev


def atime_writes(mode: str) -> Evaluate:
    """Device KiB written per 1,000 reads of a read-only load on many files (fio job `atime`), mounted `mode`
    against noatime: the difference (noatime may write nothing, so no ratio)."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        per = _device_kib(tb).join(_app(tb, "read_ios"), on="run_id").filter(pl.col("app") > 0)
        t = host(per.with_columns(value=1e3 * pl.col("device_kib") / pl.col("app")), tb, traced=None).filter(
            (pl.col("workload") == "fio") & (pl.col("job") == "atime"))
        opt = pl.col("mount_options").str.split(",")
        a, b = (t.filter(opt.list.contains(m))["value"].to_numpy() for m in (mode, "noatime"))
        return two_arms(a, b, (mode, "noatime"), size, False, "KiB/1000 reads", 1)
    return ev


# -- databases under YCSB -------------------------------------------------------------------------------------


def f2fs_rocksdb(tb: Tables, size: vd.Size) -> Result:
    """f2fs against ext4, YCSB on RocksDB, host runs; the guest's timings are emulated."""
    t = host(tb["workload_metrics"], tb, traced=False).filter((pl.col("workload") == "ycsb")
                                                               & (pl.col("database") == "rocksdb"))
    if t.filter(pl.col("filesystem") == "f2fs").height == 0:
        return not_testable("f2fs runs exist only in the emulated guest (qemu TCG), whose timings are emulated; "
                            "the host has no f2fs run")
    return saturating_first(t, lambda x, load: two_arms(vals(x, "ops_s", filesystem="f2fs"),
                                                        vals(x, "ops_s", filesystem="ext4"), ("f2fs", "ext4"),
                                                        size, True, "ops/s", 0, load))


def cassandra_vs_rocksdb(phase: str, whole: bool = False) -> Evaluate:
    """Cassandra against RocksDB under the same YCSB phases on the same filesystem within a capture batch
    (strata), host runs: `phase` is load (insert-only) or read (the read-only workload C phase after the run).
    A timed phase counts past its measured warm-up (steady); the load is a fixed record count that here ends
    about when the warm-up measured on a longer load does (RocksDB's within seconds), so it counts whole
    (whole=True: YCSB's OVERALL throughput, both databases from a cold start). Neither phase is traced (the tracer
    covers the workload A run), so traced and untraced runs both count; only unthrottled (saturating) runs:
    RocksDB's light runs hold a target rate."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        m = tb["workload_metrics"].filter(pl.col("metric") == f"ops_s_{phase}") if whole else steady(tb, phase)
        rocksdb = (pl.col("workload") == "ycsb") & (pl.col("database") == "rocksdb")
        t = host(m, tb, traced=None, load=SATURATING).filter((pl.col("workload") == YCSB_CASSANDRA) | rocksdb)
        db = pl.when(pl.col("workload") == YCSB_CASSANDRA).then(pl.lit("cassandra")).otherwise(pl.lit("rocksdb"))
        strata = by_strata(t, ["filesystem", *BATCH], db, "cassandra", "rocksdb")
        r = strata_ratio(strata, ("cassandra", "rocksdb"), size, "ops/s", 0, SATURATING)
        how = "whole phase from a cold start" if whole else "past its warm-up"
        return replace(r, measurement=f"{phase} phase, {how}: {r.measurement}")
    return ev


def untraced(evaluate: Evaluate) -> Evaluate:
    """`evaluate` on the untraced runs alone: both arms alike where one database's arm held traced runs too (the
    YCSB-on-Cassandra batches traced half their runs, the RocksDB ones none)."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        return evaluate(tb | {"runs": tb["runs"].filter(~pl.col("traced").cast(pl.Boolean))}, size)
    return ev


def cassandra_vs_rocksdb_in_window(op: str) -> Evaluate:
    """Cassandra against RocksDB in the scale regime (the claims plan's S1-cass-read/-write scale rows): each
    untraced run's `op` completions a second over its steady window (steady_state <op>_ops_s), per filesystem the
    log ratio of the two databases' runs, the mean over the filesystems with both. Strata are filesystems alone:
    each database was captured in batches of its own, under its own cap, in the same data-to-cap regime."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        rocksdb = (pl.col("workload") == "ycsb") & (pl.col("database") == "rocksdb")
        t = host(window_rate(tb, f"{op}_ops_s"), tb, traced=False).filter(
            (pl.col("workload") == YCSB_CASSANDRA) | rocksdb)
        db = pl.when(pl.col("workload") == YCSB_CASSANDRA).then(pl.lit("cassandra")).otherwise(pl.lit("rocksdb"))
        r = strata_ratio(by_strata(t, ["filesystem"], db, "cassandra", "rocksdb"), ("cassandra", "rocksdb"), size,
                         f"{op}s/s", 0)  # fmt: skip
        return replace(r, measurement=f"{op}s over the steady window: {r.measurement}")
    return ev


# -- sysbench on a large volume -------------------------------------------------------------------------------

VOLUME_JOB = "rndrw-max-256m"  # sysbench fileio, unthrottled, the same 256 MiB of files on every volume size


def volume_growth(tb: Tables, size: vd.Size) -> Result:
    """(xfs/ext4 on the largest volume) / (xfs/ext4 on the smallest), sysbench req/s, xfs mounted inode64: a
    ratio of ratios above 1 when xfs's advantage grows with the volume; within each capture batch (the batches
    differ in run length too), the mean over batches of the log contrast."""
    t = _volume(tb)
    sizes = sorted(t["device_mb"].unique().to_list()) if t.height else []
    if len(sizes) < 2:
        return Result(None, "--", str(t.height), SATURATING, NO_RUNS,
                      "needs sysbench runs on two volume sizes (batch round3-claims)")
    small, large = sizes[0], sizes[-1]
    cells = [(d, f) for d in (large, small) for f in ("xfs inode64", "ext4")]
    per = {b[0]: [vals(g, "ops_s", device_mb=d, fs=f) for d, f in cells]
           for b, g in t.sort(BATCH).group_by(BATCH, maintain_order=True)}
    arms = [np.concatenate([a[i] for a in per.values()]) for i in range(len(cells))]
    n = " vs ".join(str(a.size) for a in arms)
    m = "; ".join(f"{b} {d / 2**20:.0f} TiB xfs/ext4 {a[2 * i].mean():.0f}/{a[2 * i + 1].mean():.0f} req/s"
                  for b, a in per.items() for i, d in enumerate((large, small)) if a[2 * i].size and a[2 * i + 1].size)
    full = [a for a in per.values() if min(x.size for x in a) >= 2]
    if not full:
        return Result(None, m or "--", n, SATURATING, FEW)
    k = len(full)
    est = vd.log_contrast([x for a in full for x in a], [w / k for _ in full for w in (1, -1, -1, 1)], size.level)
    left = f"; {len(per) - k} batches left out (a cell with < 2 runs)" if k < len(per) else ""
    lg = [[np.log(x) for x in a] for a in full]
    y = [float(a[0].mean() - a[1].mean() - a[2].mean() + a[3].mean()) for a in lg]
    v = [float(sum(x.var(ddof=1) / x.size for x in a)) for a in lg]
    est, het, note = pool(est, y, v, size.level, "log")
    return Result(est, m + left + f", p={est.p:.2g}{note}", n, SATURATING, het=het)


def inode64(tb: Tables, size: vd.Size) -> Result:
    """xfs inode64 against inode32 on the largest volume, sysbench req/s, within each capture batch."""
    t = _volume(tb)
    if t.height == 0:
        return Result(None, "--", "0", SATURATING, NO_RUNS)
    big = t.filter((pl.col("device_mb") == t["device_mb"].max()) & (pl.col("metric") == "ops_s"))
    value = "value" if "value" in big.columns else "mean"
    return strata_ratio(by_strata(big, BATCH, pl.col("fs"), "xfs inode64", "xfs inode32", value=value),
                        ("inode64", "inode32"), size, "req/s", 0, SATURATING)


def _volume(tb: Tables) -> pl.DataFrame:
    t = host(tb["workload_metrics"], tb, traced=False).filter((pl.col("workload") == "sysbench")
                                                               & (pl.col("job") == VOLUME_JOB))
    if "device_mb" not in t.columns:  # a sheet without device sizes has no volume runs
        t = t.clear().with_columns(device_mb=pl.lit(None, pl.Int64))
    opt = pl.col("mount_options").str.split(",")
    return t.with_columns(fs=pl.when(pl.col("filesystem") != "xfs").then(pl.col("filesystem"))
                          .when(opt.list.contains("inode32")).then(pl.lit("xfs inode32"))
                          .otherwise(pl.lit("xfs inode64")))  # inode64: xfs's default since Linux 3.7
