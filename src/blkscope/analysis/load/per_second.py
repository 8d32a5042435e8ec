"""Each run's throughput second by second, from the finest log it has (issue P: the steady-state detector reads it).

The workload's own log where it reports every second, else the device's:
  ycsb, cassandra-ycsb  YCSB status lines of the measured phase (`run`, workload A): the difference of the running
                        operation count between consecutive lines, per second. Lines after the last full second (the
                        partial final second, where the count still grew once more, and shutdown) are left out, as
                        analysis/summaries/ycsb_phases.py leaves them out.
  cassandra             cassandra-stress's 1-s intervals (`total` rows) of the last round (the run's thread count;
                        a thread-count sweep's earlier rounds are other loads).
  sysbench              sysbench's 1-s intervals: read + write MiB/s.
  fio, journal, other   iostat's 1-s reports of the run's device: read + write KiB/s (the since-boot report
                        dropped). fio's JSON has no per-second log here, nor has the journal writer's.
A Series holds the samples (one a second), the seconds the measured phase ran as its log says (`run_s`), and
where the log says it (YCSB's status lines carry the wall clock, UTC here) when its first sample began.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import polars as pl

# workload -> (stage directory, table, what a sample is): the workload's own per-second log
WORKLOAD_SERIES = {
    "ycsb": ("ycsb", "ycsb_series", "YCSB ops/s (phase run)"),
    "cassandra-ycsb": ("ycsb", "ycsb_series", "YCSB ops/s (phase run)"),
    "cassandra": ("cstress", "cstress_intervals", "cassandra-stress ops/s"),
    "sysbench": ("sysbench", "sysbench_intervals", "sysbench read+write MiB/s"),
}
IOSTAT = ("iostat", "iostat", "iostat read+write KiB/s")
YCSB_PHASE = "run"
YCSB_OPS = ("READ", "UPDATE")  # workload A's operations, each with its own rate over a run's steady window


@dataclass(frozen=True)
class Series:
    measure: str  # what a sample is, e.g. "YCSB ops/s (phase run)"
    values: np.ndarray  # one sample a second, in order
    run_s: float  # how long the measured phase ran, as its log says
    start: datetime | None = None  # the wall-clock time of the first sample's start (UTC), where the log has it
    per_op: dict[str, np.ndarray] | None = None  # YCSB: each operation's completions a second, sample for sample


def ycsb_start(df: pl.DataFrame, phase: str = YCSB_PHASE) -> datetime | None:
    """The wall-clock time (UTC) of a YCSB phase's first status line (`2026-11-24 10:27:26:982`)."""
    if "time" not in df.columns:
        return None
    g = df.filter((pl.col("phase") == phase) & pl.col("time").is_not_null()).sort("elapsed_s")
    if g.is_empty():
        return None
    return datetime.strptime(g["time"][0], "%Y-%m-%d %H:%M:%S:%f").replace(tzinfo=UTC)


def _full_seconds(df: pl.DataFrame, phase: str) -> tuple[pl.DataFrame, float]:
    """A YCSB phase's status lines (elapsed_s, operations) up to its last full second, in order, and its length
    (the last status line's elapsed seconds)."""
    # the running count orders lines that share an elapsed second (YCSB's last lines do)
    g = (df.filter(pl.col("phase") == phase).select("elapsed_s", "operations").unique()
         .sort("elapsed_s", "operations"))  # fmt: skip
    run_s = float(g["elapsed_s"].max() or 0.0) if g.height else 0.0
    if g.height < 2:
        return g.clear(), run_s
    grew = np.flatnonzero(np.diff(g["operations"].to_numpy()) > 0) + 1  # lines at which the count grew
    last = grew[-2] if grew.size >= 2 else 0  # the last full second: the line before the last growth
    return g.head(last + 1), run_s


def ycsb(df: pl.DataFrame, phase: str = YCSB_PHASE) -> tuple[np.ndarray, float]:
    """A YCSB phase's ops in each full second, and its length (the last status line's elapsed seconds)."""
    g, run_s = _full_seconds(df, phase)
    if g.height < 2:
        return np.array([]), run_s
    t, ops = g["elapsed_s"].to_numpy().astype(float), g["operations"].to_numpy().astype(float)
    dt = np.diff(t)
    keep = dt > 0
    return np.diff(ops)[keep] / dt[keep], run_s


def ycsb_ops(df: pl.DataFrame, phase: str = YCSB_PHASE) -> dict[str, np.ndarray]:
    """Each operation's (YCSB_OPS) completions a second over ycsb()'s samples, sample for sample: a status line's
    `[READ: Count=...]` counts the reads completed since the line before (YCSB's interval histograms), so sample i
    (line i to line i+1) takes line i+1's count; an operation a line does not name counts 0 there."""
    g, _ = _full_seconds(df, phase)
    if g.height < 2 or "section" not in df.columns:
        return {}
    dt = np.diff(g["elapsed_s"].to_numpy().astype(float))
    keep = dt > 0
    counts = df.filter((pl.col("phase") == phase) & (pl.col("stat") == "Count"))
    out = {}
    for op in YCSB_OPS:
        c = counts.filter(pl.col("section") == op).group_by("elapsed_s", "operations").agg(pl.col("value").sum())
        n = g.join(c, on=["elapsed_s", "operations"], how="left", maintain_order="left")["value"]
        out[op.lower()] = n.fill_null(0).to_numpy().astype(float)[1:][keep] / dt[keep]
    return out


def cstress(df: pl.DataFrame) -> tuple[np.ndarray, float]:
    t = df.filter(pl.col("type") == "total")
    if t.is_empty():
        return np.array([]), 0.0
    t = t.filter(pl.col("round") == t["round"].max()).sort("time_s")
    return t["op_s"].to_numpy().astype(float), float(t["time_s"].max())


def sysbench(df: pl.DataFrame) -> tuple[np.ndarray, float]:
    df = df.sort("time_s")
    v = (df["reads_mib_s"].fill_null(0) + df["writes_mib_s"].fill_null(0)).to_numpy().astype(float)
    return v, float(df["time_s"].max() or 0.0)


READERS = {"ycsb_series": ycsb, "cstress_intervals": cstress, "sysbench_intervals": sysbench}
IOSTAT_COLUMNS = ["sample", "since_boot", "rkb_s", "wkb_s"]


def iostat_many(files: list[Path]) -> list[tuple[np.ndarray, float]]:
    """Each iostat table's per-report read + write KiB/s (one device a run here: the testbed's), in one read."""
    if not files:
        return []
    df = pl.read_parquet([str(f) for f in files], columns=[*IOSTAT_COLUMNS, "_file"], include_file_paths="_file",
                         glob=False, hive_partitioning=False)  # fmt: skip
    df = df.filter(~pl.col("since_boot").fill_null(False)).sort("_file", "sample", maintain_order=True)
    per = df.group_by("_file", maintain_order=True).agg(v=pl.col("rkb_s").fill_null(0) + pl.col("wkb_s").fill_null(0))
    got = {f: np.asarray(v, dtype=float) for f, v in per.iter_rows()}
    out = []
    for f in files:
        v = got.get(str(f), np.array([]))
        out.append((v, float(v.size)))  # 1-s reports: as many seconds as reports
    return out


def series(processed: Path, runs: pl.DataFrame) -> dict[str, Series | None]:
    """Every run's Series (None where it has neither log): the workload's per-second log where it has one with
    samples, else iostat's."""
    out: dict[str, Series | None] = {}
    fallback = []
    for run_id, workload in runs.select("run_id", "workload").iter_rows():
        stage, table, measure = WORKLOAD_SERIES.get(workload, (None, None, None))
        f = Path(processed, run_id, stage, f"{table}.parquet") if stage else None
        if f is not None and f.exists():
            df = pl.read_parquet(f)
            v, run_s = READERS[table](df)
            if v.size:
                ys = table == "ycsb_series"
                out[run_id] = Series(measure, v, run_s, ycsb_start(df) if ys else None, ycsb_ops(df) if ys else None)
                continue
        fallback.append(run_id)
    files = {r: Path(processed, r, IOSTAT[0], f"{IOSTAT[1]}.parquet") for r in fallback}
    have = [r for r in fallback if files[r].exists()]
    for r, (v, run_s) in zip(have, iostat_many([files[r] for r in have]), strict=True):
        out[r] = Series(IOSTAT[2], v, run_s) if v.size else None
    for r in fallback:
        out.setdefault(r, None)
    return out
