"""What tracing costs: throughput lost to tracing (paired traced / untraced runs) and trace volume.

Overhead for a configuration (workload, job, filesystem, mount options, testbed, load level, Cassandra commitlog
mode: ext4 data=writeback is not plain ext4) is 1 - mean(traced ops/s) / mean(untraced
ops/s) over its repeats; its 95% interval is a percentile bootstrap that resamples the repeats of each arm
separately; Welch's t test on ops/s gives the p-value; n of each arm is reported. With 2-3 repeats per arm the
bootstrap has few distinct resamples, so the interval is coarse: the n columns say so.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.stats.uncertainty import bootstrap_ci, welch
from blkscope.analysis.summaries.run_groups import with_groups
from blkscope.readers.textio import open_binary

# a configuration: saturating and light runs, and Cassandra's commitlog modes, are never pooled
CONFIG = ("workload", "job", "filesystem", "mount_options", "testbed", "load", "commitlog")


def fio_ops(fio_jobs: pl.DataFrame) -> float:
    """Total ops/s of a run: read + write (+ trim) IOPS summed over jobs."""
    return float(fio_jobs.filter(pl.col("direction").is_in(["read", "write", "trim"]))["iops"].sum())


def tracing_overhead(runs: pl.DataFrame, ops: dict[str, float], n_boot: int = 4000, seed: int = 0) -> pl.DataFrame:
    """One row per configuration that has both traced and untraced runs."""
    if "mount_options" not in runs.columns:
        runs = runs.with_columns(mount_options=pl.lit(""))
    runs = with_groups(runs.with_columns(pl.col("mount_options").fill_null("")))
    df = runs.select(*CONFIG, "run_id", "traced").with_columns(ops=pl.col("run_id").replace_strict(ops, default=None))
    df = df.filter(pl.col("ops").is_not_null())
    rows = []
    for key, g in df.group_by(list(CONFIG), maintain_order=True):
        tr = g.filter(pl.col("traced"))["ops"].to_numpy()
        un = g.filter(~pl.col("traced"))["ops"].to_numpy()
        if not (tr.size and un.size):
            continue
        ratio = lambda t, u: 1 - t.mean(axis=-1) / u.mean(axis=-1)  # noqa: E731
        ov, lo, hi = bootstrap_ci(ratio, [tr, un], n_boot=n_boot, seed=seed)
        t, p = welch(tr, un) if tr.size > 1 and un.size > 1 else (float("nan"), float("nan"))
        rows.append(dict(zip(CONFIG, key, strict=True)) | {
            "n_traced": int(tr.size), "n_untraced": int(un.size), "traced_ops_s": float(tr.mean()),
            "untraced_ops_s": float(un.mean()), "overhead": ov, "overhead_lo": lo, "overhead_hi": hi,
            "welch_t": t, "welch_p": p, "test": "Welch t on ops/s; bootstrap CI of 1 - traced/untraced",
        })  # fmt: skip
    schema = {c: pl.Utf8 for c in CONFIG}
    return pl.DataFrame(rows) if rows else pl.DataFrame(schema=schema)


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
