"""What tracing costs: throughput lost to tracing (paired traced / untraced runs) and trace volume.

Overhead for a configuration (workload, job, filesystem, mount options, testbed, load level, device cap, Cassandra
commitlog mode: ext4 data=writeback is not plain ext4) is read within each capture batch (a stratum): 1 - mean(traced
ops/s) / mean(untraced ops/s) over the repeats of that batch; its 95% interval is a percentile bootstrap that
resamples the repeats of each arm separately; Welch's t test on ops/s gives the p-value; n of each arm is reported.
Repeats captured on another day differ as a whole (the saturate-2 Cassandra writes ran at about twice the
throughput of the confirmatory batches' untraced repeats), so arms of different batches are never compared. A
batch that holds one arm of a configuration only is a row of its own, `arms` "traced only" or "untraced only",
with its n and mean and no overhead. With 2-3 repeats per arm the bootstrap has few distinct resamples, so the
interval is coarse: the n columns say so.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.stats.uncertainty import bootstrap_ci, welch
from blkscope.analysis.summaries.run_groups import with_groups
from blkscope.readers.textio import open_binary

# a configuration: saturating, light and capped runs, runs under different device caps, and Cassandra's commitlog
# modes are never pooled
CONFIG = ("workload", "job", "filesystem", "mount_options", "testbed", "load", "cap", "commitlog")
STRATUM = "batch"  # traced and untraced runs are compared within a capture batch only
BOTH, TRACED_ONLY, UNTRACED_ONLY = "both", "traced only", "untraced only"  # the `arms` a stratum holds
TEST = "within a capture batch: Welch t on ops/s; bootstrap CI of 1 - traced/untraced"
SCHEMA = {c: pl.Utf8 for c in (*CONFIG, STRATUM, "arms")} | {"n_traced": pl.Int64, "n_untraced": pl.Int64} | {
    c: pl.Float64 for c in ("traced_ops_s", "untraced_ops_s", "overhead", "overhead_lo", "overhead_hi", "welch_t",
                            "welch_p")} | {"test": pl.Utf8}  # fmt: skip


def fio_ops(fio_jobs: pl.DataFrame) -> float:
    """Total ops/s of a run: read + write (+ trim) IOPS summed over jobs."""
    return float(fio_jobs.filter(pl.col("direction").is_in(["read", "write", "trim"]))["iops"].sum())


def tracing_overhead(runs: pl.DataFrame, ops: dict[str, float], n_boot: int = 4000, seed: int = 0) -> pl.DataFrame:
    """One row per configuration and capture batch (STRATUM), for each configuration with traced and untraced runs
    (in any batch); `arms` says whether the batch holds both (BOTH, the only rows with an overhead) or one."""
    if "mount_options" not in runs.columns:
        runs = runs.with_columns(mount_options=pl.lit(""))
    if STRATUM not in runs.columns:  # a sheet without batches is one batch
        runs = runs.with_columns(pl.lit("").alias(STRATUM))
    runs = with_groups(runs.with_columns(pl.col("mount_options", STRATUM).fill_null("")))
    df = runs.select(*CONFIG, STRATUM, "run_id", "traced").with_columns(
        ops=pl.col("run_id").replace_strict(ops, default=None))
    df = df.filter(pl.col("ops").is_not_null())
    # configurations the question is about: traced and untraced runs exist, whichever batches hold them
    both = df.group_by(CONFIG).agg(pl.col("traced").any() & (~pl.col("traced")).any()).filter("traced")
    df = df.join(both.select(CONFIG), on=CONFIG, how="semi", nulls_equal=True)  # commitlog is null outside Cassandra
    rows = [_stratum(dict(zip((*CONFIG, STRATUM), key, strict=True)), g, n_boot, seed)
            for key, g in df.group_by([*CONFIG, STRATUM], maintain_order=True)]
    return pl.DataFrame(rows, schema=SCHEMA)


def _stratum(key: dict, g: pl.DataFrame, n_boot: int, seed: int) -> dict:
    tr = g.filter(pl.col("traced"))["ops"].to_numpy()
    un = g.filter(~pl.col("traced"))["ops"].to_numpy()
    mean = lambda x: float(x.mean()) if x.size else None  # noqa: E731
    row = key | {"arms": BOTH if tr.size and un.size else TRACED_ONLY if tr.size else UNTRACED_ONLY,
                 "n_traced": int(tr.size), "n_untraced": int(un.size), "traced_ops_s": mean(tr),
                 "untraced_ops_s": mean(un), "overhead": None, "overhead_lo": None, "overhead_hi": None,
                 "welch_t": None, "welch_p": None, "test": TEST}  # fmt: skip
    if row["arms"] != BOTH:
        return row
    ratio = lambda t, u: 1 - t.mean(axis=-1) / u.mean(axis=-1)  # noqa: E731
    ov, lo, hi = bootstrap_ci(ratio, [tr, un], n_boot=n_boot, seed=seed)
    t, p = welch(tr, un) if tr.size > 1 and un.size > 1 else (float("nan"), float("nan"))
    return row | {"overhead": ov, "overhead_lo": lo, "overhead_hi": hi, "welch_t": t, "welch_p": p}


def pooled_overhead(arms: list[tuple[np.ndarray, np.ndarray]], n_boot: int = 4000, seed: int = 0, level: float = 0.95):
    """Mean over configurations of 1 - mean(traced)/mean(untraced), with a stratified percentile bootstrap (each
    arm of each configuration resampled on its own): (overhead, lo, hi). One configuration gives its own."""
    rng = np.random.default_rng(seed)
    arms = [(np.asarray(t, float), np.asarray(u, float)) for t, u in arms]
    point = float(np.mean([1 - t.mean() / u.mean() for t, u in arms]))
    reps = np.zeros(n_boot)
    for t, u in arms:
        tb = t[rng.integers(0, t.size, (n_boot, t.size))].mean(axis=1)
        ub = u[rng.integers(0, u.size, (n_boot, u.size))].mean(axis=1)
        reps += 1 - tb / ub
    reps /= len(arms)
    a = (1 - level) / 2
    return point, float(np.quantile(reps, a)), float(np.quantile(reps, 1 - a))


def trace_cost(trace: Path, events: Path) -> dict:
    """Bytes of the raw trace (as stored and uncompressed) per second of trace and per event."""
    stored = Path(trace).stat().st_size
    raw = 0
    with open_binary(trace) as f:
        while chunk := f.read(1 << 22):
            raw += len(chunk)
    from blkscope.parts import events_files

    lf = pl.scan_parquet(events_files([events]))
    s = lf.select(n=pl.len(), t0=pl.col("time_ns").min(), t1=pl.col("time_ns").max()).collect()
    n, t0, t1 = s.row(0)
    dur = (t1 - t0) / 1e9 if n else float("nan")
    return {
        "events": int(n), "duration_s": dur, "stored_bytes": stored, "raw_bytes": raw,
        "raw_bytes_per_s": raw / dur if dur else np.nan, "stored_bytes_per_s": stored / dur if dur else np.nan,
        "raw_bytes_per_event": raw / n if n else np.nan, "events_per_s": n / dur if dur else np.nan,
    }  # fmt: skip
