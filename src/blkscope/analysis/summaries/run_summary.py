"""One row per run: what was captured and what the workload and the device reported."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope import yamlio
from blkscope.analysis.popularity.frequency import hot_share


def _events_stats(events: Path) -> dict:
    from blkscope.parts import events_files

    parts = events.parent.parent / "trace_parts" / "parts.json"  # a split trace (workflow/rules/parts.smk)
    lf = pl.scan_parquet(events_files([parts if parts.exists() and not events.exists() else events]))
    s = lf.select(
        events=pl.len(),
        completions=(pl.col("action") == "C").sum(),
        duration_s=(pl.col("time_ns").max() - pl.col("time_ns").min()) / 1e9,
        sectors_completed=pl.when(pl.col("action") == "C").then(pl.col("nsectors")).otherwise(0).sum(),
    ).collect()
    return s.row(0, named=True)


def _fio_stats(jobs: Path) -> dict:
    df = pl.read_parquet(jobs)
    agg = df.group_by("direction").agg(pl.col("iops").sum(), pl.col("bw_kib_s").sum())
    out = {"fio_read_iops": 0.0, "fio_write_iops": 0.0, "fio_read_kib_s": 0.0, "fio_write_kib_s": 0.0}
    for row in agg.iter_rows(named=True):
        if row["direction"] in ("read", "write"):
            out[f"fio_{row['direction']}_iops"] = float(row["iops"] or 0.0)
            out[f"fio_{row['direction']}_kib_s"] = float(row["bw_kib_s"] or 0.0)
    return out


def _iostat_stats(iostat: Path) -> dict:
    df = pl.read_parquet(iostat)
    if "since_boot" in df.columns:
        df = df.filter(~pl.col("since_boot").fill_null(False))
    s = df.select(
        iostat_samples=pl.col("sample").n_unique(),
        iostat_w_s=pl.col("w_s").mean(),
        iostat_r_s=pl.col("r_s").mean(),
        iostat_aqu_sz=pl.col("aqu_sz").mean(),
        iostat_util_pct=pl.col("util_pct").mean(),
    )
    return s.row(0, named=True)


def _overruns(run_yaml: Path) -> int | None:
    meta = yamlio.load(run_yaml.read_text()) or {}
    tracer = meta.get("tracer") or {}
    for key in ("overruns_total", "overruns"):
        for d in (tracer if isinstance(tracer, dict) else {}, meta):
            v = d.get(key)
            if isinstance(v, int):
                return v
    return None


def lost_events(ingest_json: Path) -> int | None:
    """Events the tracer lost, from a trace's ingest.json: the tracer's own count (run.yaml's dropped_total,
    carried into trace.dropped_events) and what the trace itself shows (tracefs `[LOST n EVENTS]` lines,
    blktrace sequence gaps). Both see the same loss from two sides, so the larger is taken; None when the
    capture recorded no count and the trace cannot show one."""
    if not ingest_json.exists():
        return None
    import json

    trace = json.loads(ingest_json.read_text()).get("trace") or {}
    seen = sum(int(n) for n in (trace.get("lost_events") or {}).values())
    seen += sum(int(g.get("missing", 0)) for g in (trace.get("sequence_gaps") or {}).values())
    dropped = trace.get("dropped_events")
    if dropped is None and "lost_events" not in trace and "sequence_gaps" not in trace:
        return None
    return max(int(dropped or 0), seen)


def summarize(run_id: str, processed: Path, raw: Path, pages: Path | None = None) -> dict:
    row: dict = {"run_id": run_id}
    row.update(_events_stats(processed / run_id / "trace" / "events.parquet"))
    row.update(_fio_stats(processed / run_id / "fio" / "fio_jobs.parquet"))
    row.update(_iostat_stats(processed / run_id / "iostat" / "iostat.parquet"))
    row["trace_overruns"] = _overruns(raw / run_id / "run.yaml")
    report = processed / run_id / "trace" / "ingest.json"
    split = processed / run_id / "trace_parts" / "parts.json"  # a split trace: losses summed over its parts
    row["lost_events"] = lost_events(split if split.exists() and not report.exists() else report)
    if pages is not None:
        hs = hot_share(pl.read_parquet(pages)).filter(pl.col("op") == "all")
        row["pages_touched"] = int(hs["pages"][0]) if hs.height else 0
        row["top1pct_share"] = float(hs["top_share"][0]) if hs.height else None
    return row


def run_summary(run_ids: list[str], runs: pl.DataFrame, processed: Path, raw: Path) -> pl.DataFrame:
    rows = []
    for r in run_ids:
        pages = processed / r / "frequency" / "pages.parquet"
        rows.append(summarize(r, processed, raw, pages if pages.exists() else None))
    df = pl.DataFrame(rows, infer_schema_length=None)
    meta = runs.select("run_id", "filesystem", "workload", "job", "repeat", "testbed", "tracer")
    return meta.join(df, on="run_id", how="inner").sort("filesystem", "job", "repeat")
