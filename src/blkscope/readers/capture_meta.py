"""What the capture recorded next to a trace: the run.yaml that `blkscope capture` writes beside the trace files
(data/raw/<run>/run.yaml for data/raw/<run>/trace.txt.zst or data/raw/<run>/blktrace/). Its tracer section has
the events the tracer itself dropped (blktrace's "dropped", tracefs overruns): lost before any reader saw them,
so a reader can only report them."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    from pathlib import Path


def find_run_yaml(inputs: list[str | Path]) -> str | None:
    """The run.yaml beside the first input (or beside its directory), if any. On str paths: a trace's ingest
    does without pathlib (blkscope.io)."""
    for p in map(os.fspath, inputs):
        base = p if os.path.isdir(p) else os.path.dirname(p)
        for d in (base, os.path.dirname(base)):
            if os.path.isfile(meta := os.path.join(d, "run.yaml")):
                return meta
    return None


def record_drops(inputs: list[str | Path], report) -> None:
    """trace.dropped_events (and its source) from the capture's run.yaml; a warning when events were lost."""
    meta = find_run_yaml(inputs)
    if meta is None:
        report.trace.setdefault("dropped_events", None)
        return
    from blkscope import yamlio

    with open(meta) as f:
        tracer = (yamlio.load(f.read()) or {}).get("tracer") or {}
    dropped = tracer.get("dropped_total")
    report.trace["dropped_events"] = dropped
    report.trace["dropped_events_source"] = meta
    if dropped:
        report.warn(f"{meta}: the tracer dropped {dropped} events during the capture (not in the trace)")
