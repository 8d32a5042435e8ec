"""Each run's steady-state window (issue P item 1): where its warm-up ends, how long the window after it is, and
whether that window is long enough to call the run steady. The rule is fixed here, before the batches it judges:

Warm-up: MSER-5 (White 1997; White, Cobb and Spratt 2000) on the run's per-second throughput
(blkscope.analysis.load.per_second says which log). The samples are cut into batches of BATCH seconds (a remainder at
the end is left out of the batches, not of the window); for each truncation d of the first half of the batches
(d = 0 .. floor(b/2)), MSER(d) = sum over the batches after d of (Z_j - their mean)^2 / (b - d)^2, the squared
standard error of the mean that truncation leaves; the window starts at the d that minimises it (the smallest
of ties). A minimum at the end of the search (the first half) says the run settled late or never: no window.
Fewer than MIN_BATCHES batches: no detection, the whole run is the window (too short to be steady anyway).

Clock: the longest periodic clock that shapes the run's I/O, from the runs sheet and kernel defaults (run.yaml
records no sysctls in today's runs): the kernel flusher writes dirty pages older than vm.dirty_expire_centisecs
(3000: 30 s) and every run's filesystem has buffered metadata; the filesystem's own: ext4's jbd2 commit (5 s,
mount option commit=N), xfs's log worker (fs.xfs.xfssyncd_centisecs 3000: 30 s), btrfs's transaction commit
(30 s, commit=N), f2fs's checkpoint interval (cp_interval, 60 s); Cassandra's periodic commitlog sync (runs
sheet commitlog_sync_period_ms, Cassandra's default 10 s). RocksDB's flushes and compactions follow the data,
not a clock, and no run keeps RocksDB's LOG, so none is observed.

Steady: a window of at least MIN_WINDOW_S and at least CLOCK_MULTIPLE times the clock. A shorter run stays in
the dataset as its own condition (steady false, and `why`).

Times are seconds from the first per-second sample (YCSB: the measured phase's first status line). A run whose
capture kept a window of its trace (run.yaml `tracer.window`: offset_s and length_s after the workload started)
has it in the same time (`trace_start_s`, `trace_end_s`: shifted by the time from run.yaml's workload_start_utc
to the log's first sample, where the log has wall-clock times, YCSB's; else unshifted) and `trace_in_window`: the
kept trace lies inside the steady window (the claims plan's scale measures read only such a trace).

Rates over the window: `ops_s`, the mean of the window's samples (in the series' unit), and for YCSB each
operation's completions a second (`read_ops_s`, `update_ops_s`: per_second.ycsb_ops), which the claims' scale rows
read (Cassandra against RocksDB per operation; tracing's cost on runs without a read-only phase).

A run under a memory cap (runs-sheet memory_cap) has its cap, its data and their ratio
(blkscope.analysis.characterise.cache_sweep.cache_facts): `data_over_cap` of YCSB's records x record size (fieldcount x
fieldlength: the payload, as the claims plan states it), `stored_over_cap` of the loaded image's allocated bytes
(what the filesystem holds: the binding's serialised records, ~1.17 KB each with key and field names, RocksDB's
files and the filesystem's own metadata). The scale regime is steady and a ratio >= DATA_OVER_CAP
(scale_regime(), on data_over_cap unless told otherwise).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl

from blkscope import yamlio
from blkscope.analysis.characterise.cache_sweep import cache_facts, listed
from blkscope.analysis.load.per_second import YCSB_OPS, Series, series

BATCH = 5  # seconds a batch (MSER-5)
MIN_BATCHES = 4  # fewer: MSER is not applied
MIN_WINDOW_S = 60
CLOCK_MULTIPLE = 3
FLUSHER = ("kernel flusher (dirty_expire_centisecs) 30 s", 30.0)
FS_CLOCKS = {  # filesystem -> (what, seconds, mount option that sets it)
    "ext4": ("ext4 jbd2 commit", 5.0, "commit"),
    "xfs": ("xfs log worker (xfssyncd_centisecs)", 30.0, None),
    "btrfs": ("btrfs transaction commit", 30.0, "commit"),
    "f2fs": ("f2fs checkpoint (cp_interval)", 60.0, None),
}
COMMITLOG_DEFAULT_MS = 10_000
CASSANDRA = ("cassandra", "cassandra-ycsb", "cassandra-cql")
DATA_OVER_CAP = 10  # the scale regime's data: at least 10x the memory cap (issue P item 2)
RUN_COLUMNS = ["run_id", "workload", "job", "filesystem", "testbed", "traced", "repeat", "batch", "runtime_s",
               "memory_cap"]
SCHEMA = {
    "measure": pl.Utf8, "samples": pl.Int64, "run_s": pl.Float64, "window_start_s": pl.Float64,
    "window_end_s": pl.Float64, "window_s": pl.Float64, "rule": pl.Utf8, "warmup_recorded_s": pl.Float64,
    "clock": pl.Utf8, "clock_s": pl.Float64, "required_s": pl.Float64, "steady": pl.Boolean, "why": pl.Utf8,
    "trace_start_s": pl.Float64, "trace_end_s": pl.Float64, "trace_in_window": pl.Boolean,
    "memory_cap_bytes": pl.Int64, "data_bytes": pl.Float64, "data_over_cap": pl.Float64,
    "stored_bytes": pl.Int64, "stored_over_cap": pl.Float64, "ops_s": pl.Float64,
    **{f"{op.lower()}_ops_s": pl.Float64 for op in YCSB_OPS},
}  # fmt: skip


def mser(values: np.ndarray, batch: int = BATCH) -> tuple[int, bool] | None:
    """(the window's first sample, whether the minimum is at the search limit) by MSER-`batch`; None when there are
    fewer than MIN_BATCHES batches."""
    b = values.size // batch
    if b < MIN_BATCHES:
        return None
    z = values[: b * batch].reshape(b, batch).mean(axis=1)
    limit = b // 2
    stat = np.array([np.var(z[d:]) / (b - d) for d in range(limit + 1)])  # sum sq / (b-d)^2 = var / (b-d)
    # ties (a constant run: all 0 up to rounding) go to the earliest truncation
    eps = 1e-12 * max(float(np.mean(z * z)), np.finfo(float).tiny)
    d = int(np.flatnonzero(stat <= stat.min() + eps)[0])
    return d * batch, d == limit and limit > 0


def clock(row: dict) -> tuple[str, float]:
    """The longest periodic clock that shapes a run's I/O (the module's docstring), from its runs-sheet row."""
    clocks = [FLUSHER]
    fs = FS_CLOCKS.get(row.get("filesystem") or "")
    if fs:
        what, s, opt = fs
        m = re.search(rf"(?:^|,){opt}=(\d+)", row.get("mount_options") or "") if opt else None
        clocks.append((f"{what} ({m.group(1)} s, mount option)", float(m.group(1))) if m else (f"{what} {s:g} s", s))
    if row.get("workload") in CASSANDRA:
        ms = row.get("commitlog_sync_period_ms") or COMMITLOG_DEFAULT_MS
        clocks.append((f"Cassandra commitlog sync {ms / 1000:g} s", ms / 1000))
    return max(clocks, key=lambda c: c[1])


def judge(s: Series | None, row: dict, warmup_recorded_s: float | None = None) -> dict:
    """One run's row of the table (SCHEMA's columns)."""
    what, clock_s = clock(row)
    required = max(MIN_WINDOW_S, CLOCK_MULTIPLE * clock_s)
    need = f"{required:g} s (>= {MIN_WINDOW_S} s and {CLOCK_MULTIPLE} x {what})"
    out = {"warmup_recorded_s": warmup_recorded_s, "clock": what, "clock_s": clock_s, "required_s": required}
    if s is None:
        return out | {"measure": None, "samples": 0, "run_s": None, "window_start_s": None, "window_end_s": None,
                      "window_s": None, "rule": None, "steady": False,
                      "why": "no per-second throughput (no workload interval log, no iostat reports)"}
    n = s.values.size
    found = mser(s.values)
    if found is None:
        start, rule, late = 0, f"whole run (< {MIN_BATCHES} batches of {BATCH} s: MSER-{BATCH} not applied)", False
    else:
        (start, late), rule = found, f"MSER-{BATCH} on {s.measure}"
    window = float(n - start)
    unsettled = f"MSER-{BATCH}'s minimum at the end of its search (the first half), {start} s of {n} s"
    if window < required:  # the first reason: a run this short cannot be steady whatever its warm-up
        why = f"too short: window {window:g} s < {need}" + (f"; {unsettled}" if late else "")
    elif late:
        why = f"no steady state: {unsettled}"
    else:
        why = f"steady: window {window:g} s >= {need}"
    return out | {"measure": s.measure, "samples": n, "run_s": s.run_s, "window_start_s": float(start),
                  "window_end_s": float(n), "window_s": window, "rule": rule,
                  "steady": bool(not late and window >= required), "why": why} | _rates(s, start)


def _rates(s: Series, start: int) -> dict:
    """The window's mean rate (`ops_s`, in the series' unit: YCSB ops/s, MiB/s, KiB/s) and, for YCSB, each
    operation's (read_ops_s, update_ops_s: completions a second), over the samples from `start` on."""
    out = {"ops_s": float(s.values[start:].mean()) if s.values.size > start else None}
    for op in YCSB_OPS:
        v = (s.per_op or {}).get(op.lower())
        out[f"{op.lower()}_ops_s"] = float(v[start:].mean()) if v is not None and v.size > start else None
    return out


def trace_window(run_yaml: Path, s: Series | None) -> tuple[float, float] | None:
    """The kept trace window of a run (the module's docstring) in its series' time; None when none was kept."""
    if not run_yaml.exists() or "offset_s:" not in (text := run_yaml.read_text()):  # most runs: no parse
        return None
    meta = yamlio.load(text) or {}
    w = (meta.get("tracer") or {}).get("window") or {}
    if w.get("offset_s") is None or w.get("length_s") is None:
        return None
    shift = 0.0
    if s is not None and s.start is not None and meta.get("workload_start_utc"):
        started = datetime.fromisoformat(str(meta["workload_start_utc"]).replace("Z", "+00:00"))
        shift = (s.start - started).total_seconds()
    start = float(w["offset_s"]) - shift
    return start, start + float(w["length_s"])


def _in_window(row: dict, trace: tuple[float, float] | None) -> dict:
    if trace is None:
        return {"trace_start_s": None, "trace_end_s": None, "trace_in_window": None}
    inside = bool(row["steady"] and row["window_start_s"] <= trace[0] and trace[1] <= row["window_end_s"])
    return {"trace_start_s": trace[0], "trace_end_s": trace[1], "trace_in_window": inside}


def _capped(r: dict, raw: Path | None) -> dict:
    """A memory-capped run's cap, data and their ratio (nulls for a run without a cap)."""
    out = dict.fromkeys(["memory_cap_bytes", "data_bytes", "data_over_cap", "stored_bytes", "stored_over_cap"])
    if not (raw and r.get("memory_cap") and Path(raw, r["run_id"], "run.yaml").exists()):
        return out
    f = cache_facts(Path(raw, r["run_id"], "run.yaml"))
    cap, data, stored = f["memory_cap_bytes"], f["data_bytes"], f["image_bytes"]
    return {"memory_cap_bytes": cap, "data_bytes": data, "data_over_cap": data / cap if cap and data else None,
            "stored_bytes": stored, "stored_over_cap": stored / cap if cap and stored else None}


def steady_state(runs: pl.DataFrame, processed: Path, run_ids: list[str],
                 ycsb_phases: pl.DataFrame | None = None, raw: Path | None = None) -> pl.DataFrame:
    """The table: one row per listed run (runs-sheet columns, then SCHEMA's). `ycsb_phases` (its table) gives the
    warm-up the capture recorded for YCSB's run phase, shown beside the detector's; `raw` (data/raw) each run's
    run.yaml, for a kept trace window."""
    sheet = listed(runs, run_ids)
    recorded = {}
    if ycsb_phases is not None and ycsb_phases.height:
        ph = ycsb_phases.filter(pl.col("phase") == "run")
        recorded = dict(zip(ph["run_id"], ph["warmup_s"], strict=True))
    got = series(processed, sheet)
    rows = []
    for r in sheet.iter_rows(named=True):
        row = judge(got[r["run_id"]], r, recorded.get(r["run_id"]))
        trace = trace_window(Path(raw, r["run_id"], "run.yaml"), got[r["run_id"]]) if raw and r["traced"] else None
        rows.append(row | _in_window(row, trace) | _capped(r, raw))
    cols = [c for c in RUN_COLUMNS if c in sheet.columns]
    return pl.concat([sheet.select(cols), pl.DataFrame(rows, schema=SCHEMA, orient="row")], how="horizontal")


# -- what the claims and the paper's run table read -----------------------------------------------------------


def with_window(runs: pl.DataFrame, table: pl.DataFrame) -> pl.DataFrame:
    """`runs` (any table with run_id) with each run's window, its `steady` flag and `why` (false and "not in the
    steady-state table" for a run the table lacks)."""
    cols = ["run_s", "window_start_s", "window_s", "required_s", "steady", "why"]
    out = runs.join(table.select("run_id", *cols), on="run_id", how="left", maintain_order="left")
    return out.with_columns(pl.col("steady").fill_null(False),
                            pl.col("why").fill_null("not in the steady-state table"))  # fmt: skip


def steady_only(t: pl.DataFrame, table: pl.DataFrame) -> pl.DataFrame:
    """The rows of `t` (with run_id) whose run is steady: a claim about the steady state reads only these."""
    return t.join(table.filter(pl.col("steady")).select("run_id"), on="run_id", how="semi", maintain_order="left")


def scale_regime(t: pl.DataFrame, table: pl.DataFrame, ratio: str = "data_over_cap") -> pl.DataFrame:
    """The rows of `t` whose run is in the studies' scale regime: steady, and data >= DATA_OVER_CAP x its memory
    cap by `ratio` (data_over_cap or stored_over_cap; the claims plan's `scale` condition; a trace-based measure
    also wants trace_in_window)."""
    keep = table.filter(pl.col("steady") & (pl.col(ratio).fill_null(0) >= DATA_OVER_CAP))
    return t.join(keep.select("run_id"), on="run_id", how="semi", maintain_order="left")
