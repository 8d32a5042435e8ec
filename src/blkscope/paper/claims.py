"""Each claim of the studies we build on, our measurement with its uncertainty and n, and a verdict.

Verdicts: `replicates` when our interval excludes no-effect and points the claimed way; `does not`
when it excludes no-effect the other way (or excludes the claimed size); `inconclusive` otherwise,
including too few repeats (n < 2 per arm) or no runs of that kind in the dataset (said so).
Differences are of means over repeats, with a Welch t interval (95 %) and Welch's p.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

Tables = dict[str, pl.DataFrame]
SCHEMA = {"claim_id": pl.Utf8, "study": pl.Utf8, "claim": pl.Utf8, "measurement": pl.Utf8, "n": pl.Utf8,
          "test": pl.Utf8, "verdict": pl.Utf8}  # fmt: skip
WELCH = "Welch t, 95 % CI of the difference"


@dataclass(frozen=True)
class Claim:
    claim_id: str
    study: str
    claim: str
    evaluate: Callable[[Tables], tuple[str, str, str, str]]  # measurement, n, test, verdict


def _welch_diff(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float]:
    """mean(a) - mean(b), its 95 % Welch interval, and p."""
    d = a.mean() - b.mean()
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = np.sqrt(va + vb)
    if se == 0:
        return d, d, d, 0.0 if d != 0 else 1.0
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    h = stats.t.ppf(0.975, dof) * se
    return d, d - h, d + h, float(2 * stats.t.sf(abs(d) / se, dof))


def _direction(lo: float, hi: float, claimed_sign: int) -> str:
    if lo > 0 or hi < 0:
        return "replicates" if np.sign(lo if lo > 0 else hi) == claimed_sign else "does not"
    return "inconclusive"


def compare(a: np.ndarray, b: np.ndarray, names: tuple[str, str], unit: str, claimed_sign: int, digits: int = 2):
    """Claim: mean(a) - mean(b) has sign `claimed_sign`."""
    n = f"{a.size} vs {b.size}"
    if a.size < 2 or b.size < 2:
        if not (a.size and b.size):
            return "--", n, WELCH, "not tested (no runs)"
        m = f"{names[0]} {a.mean():.{digits}f}, {names[1]} {b.mean():.{digits}f} {unit}".rstrip()
        return m, n, WELCH, "inconclusive (fewer than 2 repeats per arm)"
    d, lo, hi, p = _welch_diff(a, b)
    u = f" {unit}" if unit else ""
    m = (f"{names[0]} {a.mean():.{digits}f} vs {names[1]} {b.mean():.{digits}f}{u}; "
         f"diff {d:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}], p={p:.2g}")
    return m, n, WELCH, _direction(lo, hi, claimed_sign)


def _values(t: pl.DataFrame, metric: str, **where) -> np.ndarray:
    sel = t.filter(pl.col("metric") == metric, *[pl.col(k) == v for k, v in where.items()])
    return sel["value" if "value" in sel.columns else "mean"].to_numpy().astype(float)


def _host(t: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """Host runs traced, with the filesystem's default journal mode (ext4 data=writeback rows left out)."""
    default = runs.filter(~pl.col("mount_options").fill_null("").str.contains("data=writeback"))["run_id"]
    return t.filter((pl.col("testbed") == "loop") & pl.col("traced") & pl.col("run_id").is_in(default))


def _iostat_ext4_vs_xfs(metric: str, label: str, unit: str):
    def ev(tb: Tables):
        t = _host(tb["iostat_summary"], tb["runs"]).filter(pl.col("job").is_in(["append"]) |
                                                            (pl.col("workload") == "journal"))
        return compare(_values(t, metric, filesystem="ext4"), _values(t, metric, filesystem="xfs"),
                       ("ext4", "xfs"), unit, +1, 3)
    return ev


def _ops(workload: str, fs_a: str, fs_b: str, sign: int):
    def ev(tb: Tables):
        t = _host(tb["workload_metrics"], tb["runs"]).filter(pl.col("workload") == workload)
        return compare(_values(t, "ops_s", filesystem=fs_a), _values(t, "ops_s", filesystem=fs_b),
                       (fs_a, fs_b), "ops/s", sign, 0)
    return ev


def _journal_metric(metric: str, fs_a: str, fs_b: str, sign: int, reader: bool | None = False):
    def ev(tb: Tables):
        t = _host(tb["workload_metrics"], tb["runs"]).filter(pl.col("workload") == "journal")
        if reader is not None:
            t = t.filter(pl.col("job").str.ends_with("-reader") == reader)
        return compare(_values(t, metric, filesystem=fs_a), _values(t, metric, filesystem=fs_b),
                       (fs_a, fs_b), "us", sign, 1)
    return ev


def _ext4_ms_writes(tb: Tables):
    t = _host(tb["workload_metrics"], tb["runs"]).filter(
        (pl.col("workload") == "journal") & (pl.col("filesystem") == "ext4") & (pl.col("metric") == "write_max_us"))
    if t.height == 0:
        return "--", "0", "max write latency per mode", "not tested (no runs)"
    per_mode = t.group_by("job").agg(pl.col("value").min().alias("lo"), pl.len().alias("n")).sort("job")
    ok = (per_mode["lo"] >= 1000).all()
    m = "; ".join(f"{r['job']} min over runs {r['lo'] / 1e3:.2f} ms" for r in per_mode.iter_rows(named=True))
    return m, str(t.height), "max write latency >= 1 ms in every run of every mode", "replicates" if ok else "does not"


def _tracing_overhead(tb: Tables):
    o = tb["overhead"]
    if o.height == 0 or "overhead" not in o.columns:
        return "--", "0", "bootstrap CI of 1 - traced/untraced ops/s", "not tested (no paired runs)"
    host = o.filter(pl.col("testbed") == "loop")
    lo, hi = float(host["overhead_lo"].min()), float(host["overhead_hi"].max())
    m = (f"{100 * float(host['overhead'].min()):.1f} to {100 * float(host['overhead'].max()):.1f} % over "
         f"{host.height} configurations (CIs span {100 * lo:.1f} to {100 * hi:.1f} %)")
    n = f"{int(host['n_traced'].sum())} traced, {int(host['n_untraced'].sum())} untraced"
    inside = host.filter((pl.col("overhead_hi") >= 0.24) & (pl.col("overhead_lo") <= 0.36)).height
    below = host.filter(pl.col("overhead_hi") < 0.24).height
    verdict = "replicates" if inside > host.height / 2 else "does not" if below > host.height / 2 else "inconclusive"
    return m, n, "bootstrap CI of 1 - traced/untraced ops/s per configuration", verdict


def _zipf(tb: Tables):
    z = tb["zipf"].join(tb["runs"].select("run_id", "workload"), on="run_id").filter(
        (pl.col("workload") == "ycsb") & (pl.col("op") == "all"))
    fitted = z.filter(pl.col("alpha").is_not_null() & pl.col("p_gof").is_not_null())
    if fitted.height == 0:
        return "no power-law fit (too few runs or distinct counts)", str(z.height), "CSN fit, bootstrap p", \
            "inconclusive"
    good = fitted.filter(pl.col("p_gof") >= 0.1).height
    m = f"power law plausible (p >= 0.1) in {good} of {fitted.height} runs; s = " + ", ".join(
        f"{s:.2f}" for s in fitted["s"].to_list())
    verdict = "replicates" if good > fitted.height / 2 else "does not"
    return m, str(fitted.height), "CSN discrete fit, bootstrap goodness of fit", verdict


CLAIMS: list[Claim] = [
    Claim("S1-zipf", "SSD study", "Block accesses of YCSB on RocksDB roughly follow a Zipf curve", _zipf),
    Claim("S1-trace", "SSD study", "Tracing the block layer costs 24-36 % of throughput", _tracing_overhead),
    Claim("S2-aqu", "commitlog study", "Appends queue deeper on ext4 than on xfs (avgqu-sz 1.43 vs 0.45)",
          _iostat_ext4_vs_xfs("aqu_sz", "aqu-sz", "")),
    Claim("S2-merge", "commitlog study", "ext4 merges more writes than xfs under appends",
          _iostat_ext4_vs_xfs("wrqm_s", "wrqm/s", "merges/s")),
    Claim("S4-ms", "journal study", "ext4 shows multi-millisecond writes in every preallocation mode", _ext4_ms_writes),
    Claim("S4-mean", "journal study", "Mean journal write latency is lower on xfs than on ext4",
          _journal_metric("write_mean_us", "ext4", "xfs", +1)),
    Claim("S4-reader", "journal study", "With a concurrent reader, xfs stalls the writer more than ext4 (max)",
          _journal_metric("write_max_us", "xfs", "ext4", +1, reader=True)),
    Claim("S5-sysbench", "MySQL study", "xfs beats ext4 on sysbench fileio random read/write, 4 threads",
          _ops("sysbench", "xfs", "ext4", +1)),
]


def evaluate(tables: Tables) -> pl.DataFrame:
    rows = []
    for c in CLAIMS:
        m, n, test, verdict = c.evaluate(tables)
        rows.append({"claim_id": c.claim_id, "study": c.study, "claim": c.claim, "measurement": m, "n": n,
                     "test": test, "verdict": verdict})  # fmt: skip
    return pl.DataFrame(rows, schema=SCHEMA)
