"""The machine's load as each capture recorded it in run.yaml: the one reader of it (the tracer-cost table and the
claims' load diagnostic read it here).

The capture records /proc/loadavg just before and just after the workload (blkscope.capture.record.load_average).
The `after` value counts the workload's own threads (its database, fio or sysbench workers and the tracer), so it
measures the run as much as the machine; `before` is what else the machine was doing when the run started, and is
the value read here.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope import yamlio


def loadavg(meta: dict) -> float | None:
    """The 1-minute load average the capture recorded before the workload (a number, or /proc/loadavg's text), if
    any."""
    for d in (meta, meta.get("host") or {}):
        # the first key recorded: a load of 0.0 is a reading, not a missing one
        v = next((d[k] for k in ("loadavg", "load_average", "loadavg_start") if d.get(k) is not None), None)
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, str) and v.split():
            return float(v.split()[0])
        if isinstance(v, dict):
            v = v.get("before", v)  # record.load_average: {before: {1min, ...}, after: {...}}
            x = v.get("1min", v.get("1m", v.get("load1"))) if isinstance(v, dict) else v
            return float(x) if x is not None else None
        if isinstance(v, list) and v:
            return float(v[0])
    return None


def before(run_ids: list[str], raw: Path) -> pl.DataFrame:
    """Per run of `run_ids` with a run.yaml under `raw`: its 1-minute load average before the workload (null where
    the capture recorded none; the earliest captures did not) and when the run started (start_utc, ISO text; null
    where unrecorded), so that whether the runs without a load are the early ones is read, not assumed."""
    rows = []
    for r in run_ids:
        f = Path(raw) / r / "run.yaml"
        if f.exists():
            meta = yamlio.load(f.read_text()) or {}
            start = meta.get("start_utc") or (meta.get("timing") or {}).get("workload_start")
            rows.append((r, loadavg(meta), str(start) if start else None))
    return pl.DataFrame(rows, schema={"run_id": pl.Utf8, "loadavg_1m": pl.Float64, "start_utc": pl.Utf8},
                        orient="row")
