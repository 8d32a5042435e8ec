"""What the capture recorded next to a trace: the run.yaml that `blkscope capture` writes beside the trace files
(data/raw/<run>/run.yaml for data/raw/<run>/trace.txt.zst or data/raw/<run>/blktrace/). Its tracer section has
the events the tracer itself dropped (blktrace's "dropped", tracefs overruns): lost before any reader saw them,
so a reader can only report them."""

from __future__ import annotations

from pathlib import Path


def find_run_yaml(inputs: list[Path]) -> Path | None:
    """The run.yaml beside the first input (or beside its directory), if any."""
    for p in map(Path, inputs):
        base = p if p.is_dir() else p.parent
        for d in (base, base.parent):
            if (d / "run.yaml").is_file():
                return d / "run.yaml"
    return None


def record_drops(inputs: list[Path], report) -> None:
    """trace.dropped_events (and its source) from the capture's run.yaml; a warning when events were lost."""
    meta = find_run_yaml(inputs)
    if meta is None:
        report.trace.setdefault("dropped_events", None)
        return
    from blkscope import yamlio

    tracer = (yamlio.load(meta.read_text()) or {}).get("tracer") or {}
    dropped = tracer.get("dropped_total")
    report.trace["dropped_events"] = dropped
    report.trace["dropped_events_source"] = str(meta)
    if dropped:
        report.warn(f"{meta}: the tracer dropped {dropped} events during the capture (not in the trace)")
