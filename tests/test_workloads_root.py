"""sysbench and journal captures for real (root, loop device, tracefs blk tracer), 2-3 s each: outputs, run.yaml
and teardown. Skipped unless root with gcc, sysbench and the capture tools; waits for /tmp/blkscope-hw.lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import yaml

from blkscope.capture import tracefs
from blkscope.ingest import run_ingest

ROOT = Path(__file__).resolve().parents[1]
TRACEFS = Path("/sys/kernel/tracing")
TOOLS = ("gcc", "sysbench", "iostat", "losetup", "mkfs.ext4", "mount", "umount")

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root"),
    pytest.mark.requires(*TOOLS),
    pytest.mark.skipif(not tracefs.blk_available(), reason="needs the tracefs blk tracer"),
]

CASES = {  # run id: (workload, job, traced, runtime_s, outputs)
    "t-journal": ("journal", "sparse-reader", True, 2, ["iostat.json", "journal.json", "run.yaml", "trace.txt.zst"]),
    "t-sysbench": ("sysbench", "rndrw", False, 3, ["iostat.json", "run.yaml", "sysbench.txt"]),
}


def _capture(tmp_path: Path, run_id: str) -> Path:
    workload, job, traced, runtime_s, _ = CASES[run_id]
    row = {"run_id": run_id, "study": "test", "database": "none", "workload": workload, "job": job,
           "filesystem": "ext4", "mkfs_options": "-F -q", "mount_options": "noatime", "testbed": "loop",
           "tracer": "tracefs-blk" if traced else "none", "traced": traced, "repeat": 1, "device_mb": 256,
           "runtime_s": runtime_s}  # fmt: skip
    sheet, out, work = tmp_path / "runs.tsv", tmp_path / "raw" / run_id, tmp_path / "work"
    pl.DataFrame([row]).write_csv(sheet, separator="\t")
    cmd = [sys.executable, "-m", "blkscope.cli", "capture", "--runs", str(sheet), "--run-id", run_id, "-o", str(out),
           "--workdir", str(work), "--config", "none", "--tools-dir", str(ROOT / "tools")]  # fmt: skip
    subprocess.run(cmd, check=True, timeout=180, cwd=tmp_path)
    assert str(work) not in Path("/proc/self/mounts").read_text(), "a mount was left behind"
    loops = subprocess.run(["losetup", "--list", "--noheadings", "--output", "BACK-FILE"], capture_output=True,
                           text=True, check=True).stdout  # fmt: skip
    assert str(work) not in loops and not list(work.glob("run-*")), "loop device or backing file left behind"
    assert (TRACEFS / "current_tracer").read_text().strip() == "nop"
    return out


@pytest.mark.parametrize("run_id", sorted(CASES))
def test_quick_capture(tmp_path, run_id):
    out = _capture(tmp_path, run_id)
    workload, job, traced, _, outputs = CASES[run_id]
    assert sorted(p.name for p in out.iterdir()) == outputs
    meta = yaml.safe_load((out / "run.yaml").read_text())
    assert meta["teardown"] == "complete" and meta["workload"]["tool"] == workload and meta["workload"]["job"] == job
    assert meta["workload"]["version"] and meta["workload"]["options"]
    assert (meta["tracer"]["name"] == "tracefs-blk") == traced
    if traced:
        assert meta["tracer"]["events"] > 0 and meta["tracer"]["overruns_total"] == 0
    raw = out / outputs[1 if workload == "journal" else 2]
    tables = {"journal": "journal_summary", "sysbench": "sysbench_fileio"}[workload]
    run_ingest("auto", [raw], tmp_path / "ingested")
    df = pl.read_parquet(tmp_path / "ingested" / f"{tables}.parquet")
    if workload == "journal":
        doc = json.loads(raw.read_text())
        assert doc["options"]["reader"] and doc["latency"]["write"]["count"] == 2 * 2000
        assert set(df["op"]) == {"write", "fdatasync", "read"}
    else:
        assert df.height == 1 and df["threads"].item() == 4 and df["total_events"].item() > 0
