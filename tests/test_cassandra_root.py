"""Cassandra captures for real (root, loop device, tracefs blk tracer): a node from tools/cassandra's Maven jars
driven for a few seconds by the tiny CQL client (runs on every fresh machine), traced, ingested, torn down; a
capture interrupted while the node runs leaves no JVM, mount or loop device; and, when an Apache Cassandra source
tree or a cassandra-stress is configured, the same with the real cassandra-stress (skipped with the reason
otherwise). Each waits for /tmp/blkscope-hw.lock like every hardware run."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
import yaml

from blkscope.capture import tracefs
from blkscope.capture.workloads import cassandra_stress
from blkscope.ingest import run_ingest

ROOT = Path(__file__).resolve().parents[1]
TRACEFS = Path("/sys/kernel/tracing")
TOOLS = ("java", "mvn", "iostat", "losetup", "mkfs.ext4", "mount", "umount")

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root"),
    pytest.mark.requires(*TOOLS),
    pytest.mark.skipif(not tracefs.blk_available(), reason="needs the tracefs blk tracer"),
]


def _sheet(tmp_path: Path, run_id: str, workload: str, job: str, traced: bool, runtime_s: int) -> Path:
    row = {"run_id": run_id, "study": "test", "database": "cassandra", "workload": workload, "job": job,
           "filesystem": "ext4", "mkfs_options": "-F -q", "mount_options": "noatime", "testbed": "loop",
           "tracer": "tracefs-blk" if traced else "none", "traced": traced, "repeat": 1, "device_mb": 1024,
           "runtime_s": runtime_s, "commitlog_compression": "LZ4"}  # fmt: skip
    sheet = tmp_path / "runs.tsv"
    pl.DataFrame([row]).write_csv(sheet, separator="\t")
    return sheet


def _command(tmp_path: Path, sheet: Path, run_id: str) -> list[str]:
    return [sys.executable, "-m", "blkscope.cli", "capture", "--runs", str(sheet), "--run-id", run_id,
            "-o", str(tmp_path / "raw" / run_id), "--workdir", str(tmp_path / "work"), "--config", "none",
            "--tools-dir", str(ROOT / "tools")]  # fmt: skip


def _nothing_left(work: Path) -> None:
    assert str(work) not in Path("/proc/self/mounts").read_text(), "a mount was left behind"
    loops = subprocess.run(["losetup", "--list", "--noheadings", "--output", "BACK-FILE"], capture_output=True,
                           text=True, check=True).stdout  # fmt: skip
    assert str(work) not in loops and not list(work.glob("run-*")), "loop device or backing file left behind"
    jvms = [p for p in Path("/proc").glob("[0-9]*") if str(work) in _cmdline(p)]
    assert not jvms, f"processes left running on the run's filesystem: {[_cmdline(p)[:120] for p in jvms]}"
    assert (TRACEFS / "current_tracer").read_text().strip() == "nop"


def _jvm_options_recorded(meta: dict, commands: list[str]) -> None:
    """The suite's JVM options (tests/conftest.py: $BLKSCOPE_JVM_OPTS) in run.yaml and on each JVM's command."""
    opts = shlex.split(os.environ.get("BLKSCOPE_JVM_OPTS", ""))
    assert meta["workload"]["jvm_options"] == opts
    for cmd in commands:
        assert shlex.join(opts) in cmd, cmd


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _captured(tmp_path: Path, run_id: str, workload: str, job: str, logs: list[str], runtime_s: int = 5
              ) -> tuple[Path, dict]:  # fmt: skip
    """A traced capture run to its end: nothing left behind, exactly the node's files, `logs` and the frame's."""
    sheet = _sheet(tmp_path, run_id, workload, job, True, runtime_s)
    subprocess.run(_command(tmp_path, sheet, run_id), check=True, timeout=900, cwd=tmp_path)
    _nothing_left(tmp_path / "work")
    out = tmp_path / "raw" / run_id
    node = ["cassandra-node.log.zst", "cassandra.yaml", "filefrag.txt", "iostat.json", "run.yaml", "trace.txt.zst"]
    assert sorted(p.name for p in out.iterdir()) == sorted(node + logs)
    return out, yaml.safe_load((out / "run.yaml").read_text())


def test_cql_client_run_traced_ingested_torn_down(tmp_path):
    out, meta = _captured(tmp_path, "t-cql", "cassandra-cql", "insert", ["cql-load.txt"])
    assert meta["teardown"] == "complete" and meta["workload"]["tool"] == "cassandra-cql"
    assert meta["cassandra-cql"]["rows"] > 0 and meta["cassandra-cql"]["errors"] == 0
    node = meta["workload"]["node"]
    assert node["exit_code"] is not None and node["start_s"] > 0
    assert any("resolved to: standard" in line for line in node["commitlog_access"])  # LZ4: standard I/O
    assert meta["workload"]["version"]["cassandra"].startswith("5.0.")
    _jvm_options_recorded(meta, [node["command"], meta["workload"]["commands"]["run"]])
    assert meta["loadavg"]["before"]["1min"] >= 0 and meta["loadavg"]["after"]["utc"]
    assert meta["tracer"]["events"] > 0 and meta["tracer"]["overruns_total"] == 0
    conf = yaml.safe_load((out / "cassandra.yaml").read_text())
    assert conf["commitlog_compression"] == [{"class_name": "LZ4Compressor"}]
    run_ingest("auto", [out / "trace.txt.zst"], tmp_path / "trace")
    events = pl.read_parquet(tmp_path / "trace" / "events.parquet")
    assert events.height == meta["tracer"]["events"] and (events["action"] == "C").any()
    run_ingest("iostat", [out / "iostat.json"], tmp_path / "iostat")
    assert pl.read_parquet(tmp_path / "iostat" / "iostat.parquet").height > 0
    _extents_recorded(out, meta, tmp_path)


def _extents_recorded(out: Path, meta: dict, tmp_path: Path) -> pl.DataFrame:
    """filefrag.txt lists the node's commitlog and data files, as they were at the end of the run."""
    run_ingest("auto", [out / "filefrag.txt"], tmp_path / "extents")
    ext = pl.read_parquet(tmp_path / "extents" / "extents.parquet")
    assert ext.height == meta["workload"]["extents"]["files"] and set(ext["dir"]) == {"commitlog", "data"}
    assert (ext.filter(pl.col("bytes") > 0)["extents"] >= 1).all() and ext["fs_magic"].to_list()[0] == "ef53"
    segments = ext.filter(pl.col("path").str.starts_with("commitlog/CommitLog-"))
    assert segments.height and segments["bytes"].sum() > 0  # taken while the node ran: its segments in use
    return ext


def test_ycsb_binding_against_a_real_node(tmp_path):
    """tools/ycsb-cassandra drives a node through every operation CoreWorkload has (read, update, scan, insert),
    in the three phases (load, run traced, read-only after tracing), each into its log, all ingested."""
    # 10 s: a cold client's first operations take seconds here
    logs = ["ycsb-load.txt", "ycsb-run.txt", "ycsb-read.txt"]
    out, meta = _captured(tmp_path, "t-ycsb", "cassandra-ycsb", "smoke", logs, runtime_s=10)
    assert meta["teardown"] == "complete" and meta["workload"]["version"]["ycsb_java_driver"].startswith("4.")
    assert meta["workload"]["load"]["insert_operations"] == 2000 and meta["cassandra-ycsb"]["overall_throughput"] > 0
    assert meta["workload"]["read"]["read_operations"] > 0 and meta["tracer"]["events"] > 0
    _jvm_options_recorded(meta, [meta["workload"]["node"]["command"], *meta["workload"]["commands"].values()])
    run_ingest("ycsb", [out / n for n in ("ycsb-load.txt", "ycsb-run.txt", "ycsb-read.txt")], tmp_path / "ycsb")
    summary = pl.read_parquet(tmp_path / "ycsb" / "ycsb_summary.parquet")
    ok = summary.filter(pl.col("metric") == "Return=OK").select("phase", "section", "value")
    got = {(p, s) for p, s, v in ok.iter_rows() if v > 0}
    assert got == {("load", "INSERT"), ("run", "READ"), ("run", "UPDATE"), ("run", "SCAN"), ("run", "INSERT"),
                   ("read", "READ")}  # fmt: skip
    assert not summary.filter(pl.col("section").str.ends_with("-FAILED") | pl.col("metric").str.starts_with(
        "Return=") & (pl.col("metric") != "Return=OK")).height, "an operation failed"  # fmt: skip
    # every update and insert reached the node: the reads found what the load and run wrote
    assert not summary.filter(pl.col("metric") == "Return=NOT_FOUND").height
    _extents_recorded(out, meta, tmp_path)


def test_interrupted_while_the_node_runs_leaves_nothing(tmp_path):
    sheet = _sheet(tmp_path, "t-cut", "cassandra-cql", "insert", True, 120)
    log = tmp_path / "capture.log"
    with open(log, "wb") as f:
        p = subprocess.Popen(_command(tmp_path, sheet, "t-cut"), stdout=f, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 600  # the lock may be held by another run; the node takes 10-30 s to start
        while "org.blkscope.cassandra.CqlLoad" not in log.read_text(errors="replace"):
            assert p.poll() is None, log.read_text()[-2000:]
            assert time.monotonic() < deadline, "the load never started"
            time.sleep(0.5)
        time.sleep(3)  # the node is up and under load
        p.send_signal(signal.SIGINT)  # as Ctrl-C
        assert p.wait(timeout=180) != 0
    finally:
        if p.poll() is None:
            p.kill()
    _nothing_left(tmp_path / "work")
    assert not (tmp_path / "raw" / "t-cut").exists(), "an interrupted run published a directory"
    assert "kill -TERM" in log.read_text(), "the node was not stopped by its PID"


def test_cassandra_stress_run(tmp_path):
    why = cassandra_stress.why_missing({})
    if why:
        print(f"skipped: {why}")
        pytest.skip(why)
    sheet = _sheet(tmp_path, "t-cstress", "cassandra", "write", False, 5)
    subprocess.run(_command(tmp_path, sheet, "t-cstress"), check=True, timeout=900, cwd=tmp_path)
    _nothing_left(tmp_path / "work")
    out = tmp_path / "raw" / "t-cstress"
    meta = yaml.safe_load((out / "run.yaml").read_text())
    assert meta["cassandra"]["op_rate"] > 0 and meta["cassandra"]["errors"] == 0
    stress = meta["workload"]["cassandra_stress"]
    assert stress.get("source_commit") or stress.get("binary")
    report = run_ingest("cassandra-stress", [out / "cstress.txt"], tmp_path / "cstress")
    assert not report.warnings
    assert pl.read_parquet(tmp_path / "cstress" / "cstress_summary.parquet").height > 0
