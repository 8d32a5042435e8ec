"""Each claim of the studies we build on: the quantity and size it claims, our estimate with its interval and n,
and a verdict that compares the two (rules in blkscope.analysis.verdict).

Which runs speak to a claim: host (loop) runs; throughput, latency and iostat from untraced runs (the studies
measured without a tracer); access frequency from traced runs; queue depth, overhead and access frequency from
the saturating runs when the dataset has them (the studies measured at saturation), else from the light runs
(said so in the measurement). Claims about the journal's tail latency read the light runs, which are its point.
No runs of a kind: `not tested (no runs)`; fewer than 2 repeats in an arm: `inconclusive`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from blkscope.analysis import verdict as vd
from blkscope.analysis.overhead import pooled_overhead
from blkscope.analysis.run_groups import LIGHT, SATURATING, cassandra_mode, with_groups

Tables = dict[str, pl.DataFrame]
SCHEMA = {"claim_id": pl.Utf8, "study": pl.Utf8, "claim": pl.Utf8, "quantity": pl.Utf8, "claimed": pl.Utf8,
          "ours": pl.Utf8, "measurement": pl.Utf8, "n": pl.Utf8, "test": pl.Utf8, "verdict": pl.Utf8,
          "estimate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "level": pl.Float64,
          "claimed_lo": pl.Float64, "claimed_hi": pl.Float64, "p": pl.Float64, "p_tost": pl.Float64,
          "load": pl.Utf8}  # fmt: skip
NO_RUNS = "not tested (no runs)"
FEW = "inconclusive (fewer than 2 repeats per arm)"


@dataclass(frozen=True)
class Result:
    """What an evaluation found: an estimate (None: nothing to judge), its text, n, test, and the runs used."""

    estimate: vd.Estimate | None
    measurement: str
    n: str
    load: str | None = None
    verdict: str | None = None  # set only where the rule is not an interval (e.g. every run >= 1 ms)


@dataclass(frozen=True)
class Claim:
    claim_id: str
    study: str
    claim: str
    quantity: str
    size: vd.Size
    fmt: str  # "ratio" | "pct" | "float" | "us" | "ms"
    evaluate: Callable[[Tables, vd.Size], Result]


def _fmt(x: float, kind: str) -> str:
    if x is None or not math.isfinite(x):
        return "--"
    return {"ratio": f"{x:.2f}x", "pct": f"{100 * x:.1f} %", "float": f"{x:.2f}", "us": f"{x:.2f} us",
            "ms": f"{x:.2f} ms"}[kind]


# -- selecting runs -----------------------------------------------------------------------------------------


def _runs(tb: Tables) -> pl.DataFrame:
    r = with_groups(tb["runs"])
    return r.with_columns(mount_options=pl.col("mount_options").fill_null("")) if "mount_options" in r.columns \
        else r.with_columns(mount_options=pl.lit(""))


def _host(t: pl.DataFrame, tb: Tables, *, traced: bool | None, load: str | None = None) -> pl.DataFrame:
    """Rows of host runs with the filesystem's default journal mode (ext4 data=writeback is its own config)."""
    runs = _runs(tb).filter(~pl.col("mount_options").str.contains("data=writeback"))
    if "testbed" in runs.columns:
        runs = runs.filter(pl.col("testbed") == "loop")
    if traced is not None:
        runs = runs.filter(pl.col("traced") == traced)
    if load is not None:
        runs = runs.filter(pl.col("load") == load)
    keep = [c for c in ("run_id", "load", "commitlog") if c not in t.columns or c == "run_id"]
    return t.join(runs.select(keep), on="run_id", how="inner")


def _saturating_first(t: pl.DataFrame, at: Callable[[pl.DataFrame, str], Result]) -> Result:
    """Judge on the saturating rows; where they cannot be judged (no runs, too few repeats), on the light ones,
    and say so."""
    sat = at(t.filter(pl.col("load") == SATURATING), SATURATING)
    if sat.estimate is not None:
        return sat
    light = at(t.filter(pl.col("load") == LIGHT), LIGHT)
    if light.estimate is None and sat.verdict != NO_RUNS:
        return sat
    if sat.verdict == NO_RUNS:
        return light
    note = f" (light runs: the saturating ones cannot be judged, {sat.verdict}, n {sat.n})"
    return Result(light.estimate, light.measurement + note, light.n, light.load, light.verdict)


def _vals(t: pl.DataFrame, metric: str, **where) -> np.ndarray:
    sel = t.filter(pl.col("metric") == metric, *[pl.col(k) == v for k, v in where.items()])
    return sel["value" if "value" in sel.columns else "mean"].to_numpy().astype(float)


def _cassandra(t: pl.DataFrame, mode: str, commitlog: str | None) -> pl.DataFrame:
    t = t.filter((pl.col("workload") == "cassandra") & (cassandra_mode() == mode))
    return t.filter(pl.col("commitlog") == commitlog) if commitlog else t


# -- two-arm comparisons ------------------------------------------------------------------------------------


def two_arms(a: np.ndarray, b: np.ndarray, names: tuple[str, str], size: vd.Size, ratio: bool,
             unit: str = "", digits: int = 2, load: str | None = None) -> Result:
    """Arm a against arm b: ratio of geometric means (ratio=True) or difference of means, at size.level."""
    n = f"{a.size} vs {b.size}"
    if not (a.size and b.size):
        return Result(None, "--", n, load, NO_RUNS)
    means = f"{names[0]} {a.mean():.{digits}f} vs {names[1]} {b.mean():.{digits}f}{' ' + unit if unit else ''}"
    if a.size < 2 or b.size < 2:
        return Result(None, means, n, load, FEW)
    if ratio and (a.min() <= 0 or b.min() <= 0):
        return Result(None, means + " (a value <= 0: no ratio)", n, load, "inconclusive (a value <= 0)")
    margin = size.hi - 1 if size.kind == "same" else None
    est = vd.log_ratio(a, b, size.level, margin) if ratio else vd.welch_diff(a, b, size.level)
    extra = f", TOST p={est.p_tost:.2g}" if margin is not None else f", p={est.p:.2g}"
    return Result(est, means + extra, n, load)


def _metric_ratio(table: str, select: Callable[[pl.DataFrame], pl.DataFrame], metric: str, fs: tuple[str, str],
                  traced: bool | None, prefer_sat: bool, unit: str = "", ratio: bool = True, digits: int = 2):
    def ev(tb: Tables, size: vd.Size) -> Result:
        def at(t: pl.DataFrame, load: str) -> Result:
            a, b = _vals(t, metric, filesystem=fs[0]), _vals(t, metric, filesystem=fs[1])
            return two_arms(a, b, fs, size, ratio, unit, digits, load)

        t = select(_host(tb[table], tb, traced=traced))
        return _saturating_first(t, at) if prefer_sat else at(t.filter(pl.col("load") == LIGHT), LIGHT)
    return ev


# -- claims with their own estimators -----------------------------------------------------------------------


def _zipf(tb: Tables, size: vd.Size) -> Result:
    runs = _runs(tb).select("run_id", "workload", "load")
    z = tb["zipf"].join(runs, on="run_id").filter((pl.col("workload") == "ycsb") & (pl.col("op") == "all"))
    return _saturating_first(z, _zipf_at)


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


def _overhead(select: Callable[[pl.DataFrame], pl.DataFrame]):
    """Pooled tracing overhead over the selected host configurations (saturating ones preferred)."""
    def ev(tb: Tables, size: vd.Size) -> Result:
        m = tb["workload_metrics"].filter(pl.col("metric") == "ops_s")
        return _saturating_first(select(_host(m, tb, traced=None)), lambda t, load: _overhead_at(t, load, size))
    return ev


def _overhead_at(t: pl.DataFrame, load: str, size: vd.Size) -> Result:
    cfg = [c for c in ("workload", "job", "filesystem", "commitlog") if c in t.columns]
    arms = []
    for _, g in t.group_by(cfg, maintain_order=True):
        tr, un = g.filter(pl.col("traced"))["value"].to_numpy(), g.filter(~pl.col("traced"))["value"].to_numpy()
        if tr.size and un.size:
            arms.append((tr, un))
    n_tr, n_un = sum(a.size for a, _ in arms), sum(b.size for _, b in arms)
    n = f"{n_tr} traced, {n_un} untraced; {len(arms)} configs"
    if not arms:
        return Result(None, "--", n, load, NO_RUNS if t.height == 0 else "not tested (no traced/untraced pair)")
    full = [(a, b) for a, b in arms if a.size >= 2 and b.size >= 2]  # one repeat in an arm: no spread to resample
    if not full:
        return Result(None, "--", n, load, FEW)
    ov, lo, hi = pooled_overhead(full, seed=0, level=size.level)
    each = [1 - a.mean() / b.mean() for a, b in full]
    meas = f"mean over configurations; per configuration {100 * min(each):.1f} to {100 * max(each):.1f} %"
    if len(full) < len(arms):
        meas += f"; {len(arms) - len(full)} configs left out (an arm with 1 run)"
    return Result(vd.Estimate(ov, lo, hi, math.nan, "stratified bootstrap of 1 - traced/untraced ops/s"),
                  meas, n, load)


def _ext4_ms_writes(tb: Tables, size: vd.Size) -> Result:
    t = _host(tb["workload_metrics"], tb, traced=False, load=LIGHT).filter(
        (pl.col("workload") == "journal") & (pl.col("filesystem") == "ext4") & (pl.col("metric") == "write_max_us")
        & ~pl.col("job").str.ends_with("-reader"))
    if t.height == 0:
        return Result(None, "--", "0", LIGHT, NO_RUNS)
    per_mode = t.group_by("job").agg(pl.col("value").min().alias("lo"), pl.col("value").max().alias("hi")).sort("job")
    lo = float(per_mode["lo"].min()) / 1e3
    m = "; ".join(f"{r['job']} {r['lo'] / 1e3:.2f}-{r['hi'] / 1e3:.2f} ms" for r in per_mode.iter_rows(named=True))
    v = "replicates" if lo >= size.lo else "does not"
    est = vd.Estimate(lo, lo, lo, math.nan, "smallest max write latency over runs and modes")
    return Result(est, "max write latency per mode, range over runs: " + m, str(t.height), LIGHT, v)


# -- the claims ---------------------------------------------------------------------------------------------

def _cw(commitlog: str | None):
    return lambda t: _cassandra(t, "write", commitlog)


def _workload(w: str, reader: bool | None = None):
    def sel(t: pl.DataFrame) -> pl.DataFrame:
        t = t.filter(pl.col("workload") == w)
        return t if reader is None else t.filter(pl.col("job").str.ends_with("-reader") == reader)
    return sel


def _append(t: pl.DataFrame) -> pl.DataFrame:
    return t.filter((pl.col("workload") == "fio") & pl.col("job").str.starts_with("append"))


SSD, CL, JNL, MYSQL = "SSD study", "commitlog study", "journal study", "MySQL study"
CLAIMS: list[Claim] = [
    Claim("S1-zipf", SSD, "Block accesses of YCSB on RocksDB roughly follow a Zipf curve",
          "rank exponent s of block accesses", vd.within(0.7, 1.3, "s = 0.7-1.3 (Zipf: s near 1)"), "float", _zipf),
    Claim("S1-trace", SSD, "Tracing the block layer costs 24-36 % of throughput",
          "1 - traced/untraced ops/s, all host workloads", vd.within(0.24, 0.36, "24-36 %"), "pct",
          _overhead(lambda t: t)),
    Claim("S1-trace-cass", SSD, "Tracing Cassandra costs 24-36 % of its ops/s",
          "1 - traced/untraced ops/s, Cassandra", vd.within(0.24, 0.36, "24-36 %"), "pct",
          _overhead(lambda t: t.filter(pl.col("workload") == "cassandra"))),
    Claim("S1-trace-btrfs", SSD, "Tracing RocksDB on btrfs costs about 36 % of its ops/s",
          "1 - traced/untraced ops/s, YCSB-RocksDB on btrfs", vd.within(0.30, 0.42, "about 36 % (30-42 %)"), "pct",
          _overhead(lambda t: t.filter((pl.col("workload") == "ycsb") & (pl.col("filesystem") == "btrfs")))),
    Claim("S2-ops", CL, "Uncompressed commitlogs: ext4 about 4x the ops/s of xfs",
          "ext4/xfs cassandra-stress write ops/s, commitlog uncompressed", vd.comparable_ratio(4.0), "ratio",
          _metric_ratio("workload_metrics", _cw("none"), "ops_s", ("ext4", "xfs"), False, True, "ops/s", digits=0)),
    Claim("S2-lz4", CL, "LZ4 commitlogs: ext4 and xfs give the same ops/s",
          "ext4/xfs cassandra-stress write ops/s, commitlog LZ4", vd.same(0.10), "ratio",
          _metric_ratio("workload_metrics", _cw("lz4"), "ops_s", ("ext4", "xfs"), False, True, "ops/s", digits=0)),
    Claim("S2-aqu", CL, "Commitlog writes queue deeper on ext4 (avgqu-sz 1.43 vs 0.45)",
          "ext4/xfs iostat aqu-sz, Cassandra write, uncompressed", vd.comparable_ratio(1.43 / 0.45), "ratio",
          _metric_ratio("iostat_summary", _cw("none"), "aqu_sz", ("ext4", "xfs"), False, True, "", digits=3)),
    Claim("S2-merge", CL, "ext4 merges more commitlog writes than xfs",
          "ext4/xfs iostat wrqm/s, Cassandra write, uncompressed", vd.more("ext4/xfs"), "ratio",
          _metric_ratio("iostat_summary", _cw("none"), "wrqm_s", ("ext4", "xfs"), False, True, "merges/s")),
    Claim("S2-aqu-fio", CL, "Appends queue deeper on ext4 than on xfs (fio append, proxy)",
          "ext4/xfs iostat aqu-sz, fio append", vd.comparable_ratio(1.43 / 0.45), "ratio",
          _metric_ratio("iostat_summary", _append, "aqu_sz", ("ext4", "xfs"), False, True, "", digits=3)),
    Claim("S4-ms", JNL, "ext4 shows multi-millisecond writes in every preallocation mode",
          "smallest max write latency over ext4 runs (ms)", vd.within(1.0, math.inf, ">= 1 ms in every run"), "ms",
          _ext4_ms_writes),
    Claim("S4-mean", JNL, "Mean journal write latency is lower on xfs by a few hundred ns",
          "ext4 - xfs mean write latency", vd.within(0.1, 0.9, "0.1-0.9 us"), "us",
          _metric_ratio("workload_metrics", _workload("journal", False), "write_mean_us", ("ext4", "xfs"), False,
                        False, "us", ratio=False)),
    Claim("S4-reader", JNL, "With a concurrent reader, xfs stalls the writer more than ext4 (max)",
          "xfs/ext4 max write latency with a reader", vd.more("xfs/ext4"), "ratio",
          _metric_ratio("workload_metrics", _workload("journal", True), "write_max_us", ("xfs", "ext4"), False,
                        False, "us", digits=0)),
    Claim("S5-sysbench", MYSQL, "xfs beats ext4 on sysbench fileio random read/write (2 TB: +6.7 %)",
          "xfs/ext4 sysbench req/s", vd.comparable_ratio(4005.66 / 3754.66), "ratio",
          _metric_ratio("workload_metrics", _workload("sysbench"), "ops_s", ("xfs", "ext4"), False, True, "req/s",
                        digits=0)),
]


def evaluate(tables: Tables) -> pl.DataFrame:
    rows = []
    for c in CLAIMS:
        r = c.evaluate(tables, c.size)
        e = r.estimate
        v = r.verdict or (vd.verdict(e.lo, e.hi, c.size) if e is not None else "inconclusive")
        ours = "--" if e is None else f"{_fmt(e.value, c.fmt)} [{_fmt(e.lo, c.fmt)}, {_fmt(e.hi, c.fmt)}]"
        if e is not None and e.lo == e.hi == e.value:
            ours = _fmt(e.value, c.fmt)
        test = (e.test if e else "") + f"; {100 * c.size.level:.0f} % interval vs the claimed size"
        rows.append({
            "claim_id": c.claim_id, "study": c.study, "claim": c.claim, "quantity": c.quantity,
            "claimed": c.size.text, "ours": ours, "measurement": r.measurement, "n": r.n, "test": test, "verdict": v,
            "estimate": e.value if e else None, "lo": e.lo if e else None, "hi": e.hi if e else None,
            "level": c.size.level, "claimed_lo": c.size.lo, "claimed_hi": c.size.hi,
            "p": e.p if e else None, "p_tost": e.p_tost if e else None,
            "load": None if v.startswith("not tested") else r.load,
        })  # fmt: skip
    return pl.DataFrame(rows, schema=SCHEMA)
