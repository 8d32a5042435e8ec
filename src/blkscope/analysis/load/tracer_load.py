"""The tracer's own cost as load rises: events per second, bytes per event and events lost, per traced run and
per (workload, load level), read from what the capture recorded in run.yaml (the tracer's own counters: events
read from trace_pipe, bytes read, ring-buffer overruns and drops) and the workload's time window.

Lost events: tracefs counts events overwritten in a full ring buffer (`overrun`) and events it could not
commit (`dropped_events` + `commit_overrun`) separately, so both add up; blktrace reports its relay-buffer
losses once (the guest capture records the same number under both names), so it counts once.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import polars as pl

from blkscope import yamlio
from blkscope.analysis.load.machine_load import loadavg
from blkscope.analysis.stats.uncertainty import mean_ci
from blkscope.analysis.summaries.run_groups import with_groups

SCHEMA = {"run_id": pl.Utf8, "tracer": pl.Utf8, "events": pl.Int64, "bytes": pl.Int64, "duration_s": pl.Float64,
          "events_per_s": pl.Float64, "bytes_per_event": pl.Float64, "lost_events": pl.Int64,
          "lost_share": pl.Float64, "loadavg_1m": pl.Float64}  # fmt: skip


def _utc(s) -> datetime | None:
    return datetime.fromisoformat(str(s).replace("Z", "+00:00")) if s else None


def run_cost(run_id: str, run_yaml: Path) -> dict:
    meta = yamlio.load(Path(run_yaml).read_text()) or {}
    tr = meta.get("tracer") or {}
    events = tr.get("read_events_total", tr.get("events"))
    nbytes = tr.get("bytes_read")
    t0, t1 = _utc(meta.get("workload_start_utc")), _utc(meta.get("workload_end_utc"))
    dur = (t1 - t0).total_seconds() if t0 and t1 else None
    over, drop = tr.get("overruns_total"), tr.get("dropped_total")
    if over is None and drop is None:
        lost = None
    elif tr.get("name") == "tracefs-blk":
        lost = (over or 0) + (drop or 0)
    else:
        lost = max(over or 0, drop or 0)
    return {
        "run_id": run_id, "tracer": tr.get("name"), "events": events, "bytes": nbytes, "duration_s": dur,
        "events_per_s": events / dur if events is not None and dur else None,
        "bytes_per_event": nbytes / events if nbytes is not None and events else None,
        "lost_events": lost, "lost_share": lost / (lost + events) if lost is not None and events else None,
        "loadavg_1m": loadavg(meta),
    }  # fmt: skip


def per_run(run_ids: list[str], raw: Path, runs: pl.DataFrame, iostat: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per traced run, with its configuration, load level and (if given) iostat util and aqu-sz means."""
    df = pl.DataFrame([run_cost(r, Path(raw) / r / "run.yaml") for r in run_ids], schema=SCHEMA, orient="row")
    meta = with_groups(runs).select("run_id", "workload", "job", "filesystem", "testbed", "load")
    out = meta.join(df, on="run_id", how="inner")
    if iostat is not None and iostat.height:
        io = iostat.filter(pl.col("metric").is_in(["util_pct", "aqu_sz", "r_s", "w_s"])).pivot(
            on="metric", index="run_id", values="mean", aggregate_function="mean")
        io = io.rename({c: f"iostat_{c}" for c in io.columns if c != "run_id"})
        out = out.join(io, on="run_id", how="left")
    return out.sort("workload", "load", "filesystem", "run_id")


def by_load(cost: pl.DataFrame) -> pl.DataFrame:
    """Per (workload, load level): mean events/s, bytes/event and lost share over runs, with t intervals."""
    rows = []
    for (w, load), g in cost.group_by("workload", "load", maintain_order=True):
        row = {"workload": w, "load": load, "runs": g.height, "lost_events": int(g["lost_events"].fill_null(0).sum())}
        for col in ("events_per_s", "bytes_per_event", "lost_share", "iostat_util_pct", "iostat_aqu_sz"):
            if col in g.columns:
                m, lo, hi = mean_ci(g[col].drop_nulls().to_numpy())
                row |= {col: m, f"{col}_lo": lo, f"{col}_hi": hi}
        rows.append(row)
    return pl.DataFrame(rows).sort("workload", "load") if rows else pl.DataFrame()
