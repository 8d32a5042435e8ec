"""The conditions a capture batch ran under, from its runs' run.yaml: time span, the machine's load just before each
workload, tracer losses, and throughput per configuration in capture order. The numbers data/raw/README.md quotes.

    python scripts/batch_conditions.py saturate-2 [--raw data/raw] [--order config/capture_order.tsv]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import polars as pl

from blkscope import yamlio


def _load(meta: dict, when: str) -> tuple[float | None, int | None]:
    la = (meta.get("loadavg") or {}).get(when) or {}
    return la.get("1min"), la.get("running")


def rows(batch: str, raw: Path, order: Path) -> list[dict]:
    ids = pl.read_csv(order, separator="\t").filter(pl.col("batch") == batch).sort("position")["run_id"]
    out = []
    for pos, rid in enumerate(ids, 1):
        f = raw / rid / "run.yaml"
        if not f.exists():
            continue
        meta = yamlio.load(f.read_text())
        tr = meta.get("tracer") or {}
        l1, running = _load(meta, "before")
        traced = tr.get("name") not in (None, "none")
        out.append({"position": pos, "run_id": rid, "start": meta.get("start_utc"), "end": meta.get("end_utc"),
                    "load_before": l1, "running_before": running, "load_after": _load(meta, "after")[0],
                    "lost": (tr.get("overruns_total") or 0) + (tr.get("dropped_total") or 0) if traced else None})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("batch")
    ap.add_argument("--raw", type=Path, default=Path("data/raw"))
    ap.add_argument("--order", type=Path, default=Path("config/capture_order.tsv"))
    a = ap.parse_args()
    r = rows(a.batch, a.raw, a.order)
    if not r:
        print(f"{a.batch}: no captured run")
        return 1
    loads = [x["load_before"] for x in r if x["load_before"] is not None]
    running = [x["running_before"] for x in r if x["running_before"] is not None]
    print(f"{a.batch}: {len(r)} runs captured, {r[0]['start']} .. {r[-1]['end']}")
    if loads:
        print(f"1-min load average before the workload: min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
              f"max {max(loads):.2f}")
    if running:
        print(f"runnable tasks before the workload (/proc/loadavg): median {statistics.median(running)}, "
              f"max {max(running)}")
    lost = [x["lost"] for x in r if x["lost"] is not None]
    print(f"tracer: {len(lost)} traced runs, {sum(lost)} events lost in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
