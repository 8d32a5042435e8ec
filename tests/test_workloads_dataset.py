"""The committed sysbench, journal, YCSB and Cassandra runs (and untraced fio pairs) against the runs sheet:
every row has its raw files, run.yaml agrees with the row, nothing was lost by the tracer, and this share of
data/raw stays within its budget."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from blkscope import yamlio
from blkscope.capture import workloads
from blkscope.capture.order import waiting_runs
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
ORDER = ROOT / "config" / "capture_order.tsv"  # a batch is captured in this order, block by block
RAW = ROOT / "data" / "raw"
RUNS = load_runs(ROOT / "config" / "runs.tsv")
OURS = RUNS.filter(
    pl.col("testbed") == "loop",
    pl.col("workload").is_in(workloads.NAMES) | ((pl.col("workload") == "fio") & ~pl.col("traced")),
)
BUDGET = 25 << 20  # this share of the repository budget (Cassandra's: tests/test_manifest.py)
# Batches in the sheet that no run of has been captured yet (captured in their recorded order on a quiet
# machine): their rows wait; once one run of a batch is captured, every other must be.
OURS = OURS.filter(~pl.col("run_id").is_in(list(waiting_runs(RUNS, RAW, ORDER))))


def _check_output(d: Path, workload: str) -> None:
    if workload == "journal":
        doc = json.loads((d / "journal.json").read_text())
        assert doc["tool"] == "blkscope-journal" and doc["latency"]["write"]["count"] > 0
    elif workload == "sysbench":
        text = (d / "sysbench.txt").read_text()
        assert "Creating files for the test" in text and "total number of events" in text
    elif workload == "cassandra":  # the real cassandra-stress, finished, no errors; the node stopped by us
        for name in ("cstress-prepare.txt", "cstress.txt"):
            text = (d / name).read_text()
            assert "Total operation time" in text and "END" in text.splitlines()[-1:], name
            assert re.search(r"Total errors\s+:\s+0 ", text), name
    elif workload in ("ycsb", "cassandra-ycsb"):
        assert "[INSERT], Return=OK" in (d / "ycsb-load.txt").read_text()
        assert "[OVERALL], Throughput(ops/sec)" in (d / "ycsb-run.txt").read_text()
        if (d / "ycsb-read.txt").exists():
            assert "blkscope.phase=read" in (d / "ycsb-read.txt").read_text()
    else:
        assert all(j["error"] == 0 for j in json.loads((d / "fio.json").read_text())["jobs"])


@pytest.mark.parametrize("run_id", OURS["run_id"].to_list())
def test_run_complete(run_id):
    row = OURS.filter(pl.col("run_id") == run_id).row(0, named=True)
    d = RAW / run_id
    m = yamlio.load((d / "run.yaml").read_text())
    # the job's (a read-only phase adds its log); fio has no Workload class
    outputs = workloads.outputs("fio") if row["workload"] == "fio" else workloads.load(row, ROOT / "tools").outputs
    expected = {"iostat.json", "run.yaml", *outputs} | ({"trace.txt.zst"} if row["traced"] else set())
    if "extents" not in m["workload"]:  # captured before the runs recorded their files' extents (issue L)
        expected.discard("filefrag.txt")
    assert {p.name for p in d.iterdir()} == expected
    for key in ("workload", "job", "filesystem", "mkfs_options", "mount_options", "repeat", "runtime_s", "traced"):
        assert m["run"][key] == row[key], key
    assert m["teardown"] == "complete" and m["testbed"]["device"].startswith("/dev/loop")
    for opt in (row["mount_options"] or "").split(","):
        assert opt.split("=")[-1] in m["filesystem"]["mount_options_effective"] or opt == "data=ordered", opt
    for name, info in m["files"].items():
        assert (d / name).stat().st_size == info["bytes"], name
    if row["workload"] != "fio":
        assert m["workload"]["tool"] == row["workload"] and m["workload"]["version"]
    if row["traced"]:
        t = m["tracer"]
        assert t["overruns_total"] == 0 and t["dropped_total"] == 0 and t["events"] > 0
    else:
        assert m["tracer"]["name"] == "none"
    _check_output(d, row["workload"])


def test_budget():
    # the saturating batch and the Cassandra runs have budgets of their own (test_manifest)
    light = OURS.filter((pl.col("batch").fill_null("") == "") & (pl.col("workload") != "cassandra"))
    size = sum(p.stat().st_size for r in light["run_id"] for p in (RAW / r).iterdir())
    assert size <= BUDGET, f"{size / 2**20:.1f} MiB"
