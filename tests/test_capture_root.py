"""Hardware runs for real (root, loop devices, tracefs blk tracer): a tiny capture, and a capture killed midway
that must leave no mount, no loop device on our file and the tracer back at `nop`. Skipped unless root with
the tools. Both hold /tmp/blkscope-hw.lock inside `blkscope capture`, so they wait for other hardware users."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
import yaml
from modes import off_umask

from blkscope.capture import ledger, tracefs
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
TRACEFS = Path("/sys/kernel/tracing")
TOOLS = ("fio", "iostat", "losetup", "mkfs.ext4", "mount", "umount")

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root"),
    pytest.mark.requires(*TOOLS),
    pytest.mark.skipif(not tracefs.blk_available(), reason="needs the tracefs blk tracer"),
]


def _sheet(tmp_path: Path, runtime_s: int) -> tuple[Path, str]:
    """One ext4 randrw row of the real sheet, shrunk: a 128 MiB device and a short runtime."""
    row = load_runs(ROOT / "config/runs.tsv").filter(pl.col("filesystem") == "ext4", pl.col("job") == "randrw")
    row = row.head(1).with_columns(run_id=pl.lit("test-tiny"), device_mb=pl.lit(128), runtime_s=pl.lit(runtime_s))
    path = tmp_path / "runs.tsv"
    row.write_csv(path, separator="\t")
    return path, "test-tiny"


def _cmd(sheet: Path, run_id: str, out: Path, work: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "blkscope.cli",
        "capture",
        "--runs",
        str(sheet),
        "--run-id",
        run_id,
        "-o",
        str(out),
        "--workdir",
        str(work),
        "--config",
        "none",
        "--fio-dir",
        str(ROOT / "config/fio"),
    ]


def _assert_clean(work: Path) -> None:
    mounts = Path("/proc/self/mounts").read_text()
    assert str(work) not in mounts, "a mount was left behind"
    loops = subprocess.run(
        ["losetup", "--list", "--noheadings", "--output", "BACK-FILE"], capture_output=True, text=True, check=True
    ).stdout
    assert str(work) not in loops, "a loop device on our backing file was left behind"
    assert not list(work.glob("run-*")), "a backing file was left behind"
    assert (TRACEFS / "current_tracer").read_text().strip() == "nop"
    # a capture running meanwhile (test_slurm's, on another worker) has its ledger open: only dead ones count
    dead = [path for path, head in ledger.found() if not ledger.alive(head)]
    assert not dead, f"a dead capture's teardown ledger was left open: {dead}"


def test_tiny_capture(tmp_path):
    sheet, run_id = _sheet(tmp_path, runtime_s=2)
    out, work = tmp_path / "raw" / run_id, tmp_path / "work"
    # as root under umask 002: the run directory and its files 0775 / 0664, readable by whoever reads data/raw
    subprocess.run(_cmd(sheet, run_id, out, work), check=True, timeout=120, cwd=tmp_path, umask=0o002)
    assert sorted(p.name for p in out.iterdir()) == ["fio.json", "iostat.json", "run.yaml", "trace.txt.zst"]
    assert off_umask([out], 0o002) == []
    meta = yaml.safe_load((out / "run.yaml").read_text())
    assert meta["tracer"]["events"] > 0 and meta["tracer"]["overruns_total"] == 0
    assert meta["fio"]["ios"]["read"] > 0 and meta["iostat"]["samples"] >= 1
    # the machine's load around the workload, from /proc/loadavg
    load = meta["loadavg"]
    assert load["before"]["utc"] <= meta["workload_start_utc"] <= meta["workload_end_utc"] <= load["after"]["utc"]
    assert all(load[k]["1min"] >= 0 and load[k]["tasks"] >= load[k]["running"] >= 1 for k in ("before", "after"))
    _assert_clean(work)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_killed_midway_leaves_nothing_behind(tmp_path, sig):
    sheet, run_id = _sheet(tmp_path, runtime_s=30)
    out, work = tmp_path / "raw" / run_id, tmp_path / "work"
    log = tmp_path / "capture.log"
    with open(log, "w") as f:
        p = subprocess.Popen(_cmd(sheet, run_id, out, work), stderr=f, cwd=tmp_path)
    deadline = time.monotonic() + 90  # includes waiting for the hardware lock
    while "fio --output-format=json" not in log.read_text():  # the workload is running, the tracer is on
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    time.sleep(1)
    p.send_signal(sig)
    assert p.wait(timeout=60) == 130, log.read_text()
    assert not out.exists() and not list(out.parent.glob(".*partial*")), "partial output left behind"
    _assert_clean(work)


def test_tiny_capture_on_an_allow_listed_device(tmp_path):
    """The real-device testbed for real: a loop device this test attaches stands in for a spare disk. The capture
    formats, mounts, traces and unmounts it; the device itself is not ours to detach, so it stays attached."""
    backing = tmp_path / "disk.img"
    with open(backing, "wb") as f:
        f.truncate(128 << 20)
    dev = subprocess.run(["losetup", "--find", "--show", str(backing)], capture_output=True, text=True,
                         check=True).stdout.strip()  # fmt: skip
    try:
        sheet, run_id = _sheet(tmp_path, runtime_s=2)
        row = pl.read_csv(sheet, separator="\t").with_columns(testbed=pl.lit("device"), device=pl.lit(dev))
        row.write_csv(sheet, separator="\t")
        out, work = tmp_path / "raw" / run_id, tmp_path / "work"
        cmd = _cmd(sheet, run_id, out, work)
        refused = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert refused.returncode != 0 and f"{dev}: loop device not backed by this run's file" in refused.stderr
        assert not out.exists()
        subprocess.run([*cmd, "--allow-device", dev], check=True, timeout=120, cwd=tmp_path)
        meta = yaml.safe_load((out / "run.yaml").read_text())
        assert meta["testbed"]["kind"] == "device" and meta["testbed"]["device"] == dev
        assert meta["tracer"]["events"] > 0 and meta["fio"]["ios"]["read"] > 0
        assert os.path.basename(dev) not in Path("/proc/self/mounts").read_text(), "the device was left mounted"
        assert (TRACEFS / "current_tracer").read_text().strip() == "nop"
        assert str(backing) in subprocess.run(["losetup", "--list", "--noheadings", "--output", "BACK-FILE"],
                                              capture_output=True, text=True).stdout  # fmt: skip
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)
