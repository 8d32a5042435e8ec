"""The guest testbed for real: one tiny f2fs run in qemu (boot, mkfs, blktrace, 2 s of fio, power off), and a
run interrupted while qemu runs. Both must leave no qemu and no image file behind. Needs root (like every
hardware run) and qemu; the guest kernel and initramfs are built first when build/guest lacks them (the
guest_build rule's command: a Debian kernel download and about 10 s; fixture `guest_build` of tests/conftest.py).
Each run waits for /tmp/blkscope-hw.lock."""

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

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root"),
    pytest.mark.requires("qemu-system-x86_64"),
]


def _sheet(tmp_path: Path, runtime_s: int, workload: str = "fio", job: str = "randrw") -> tuple[Path, str]:
    row = {
        "run_id": "guest-tiny",
        "study": "test",
        "database": "none",
        "workload": workload,
        "job": job,
        "filesystem": "f2fs",
        "mkfs_options": "-f -q",
        "mount_options": "noatime",
        "testbed": "guest",
        "tracer": "auto",
        "traced": True,
        "repeat": 1,
        "device_mb": 256,
        "runtime_s": runtime_s,
    }
    path = tmp_path / "runs.tsv"
    pl.DataFrame([row]).write_csv(path, separator="\t")
    return path, row["run_id"]


def _cmd(sheet: Path, run_id: str, out: Path, work: Path) -> list[str]:
    return [sys.executable, "-m", "blkscope.cli", "capture", "--runs", str(sheet), "--run-id", run_id,
            "-o", str(out), "--workdir", str(work), "--config", "none", "--fio-dir", str(ROOT / "config/fio"),
            "--tools-dir", str(ROOT / "tools")]


def _assert_clean(work: Path) -> None:
    assert not list(work.glob("guest-*")), "an image directory was left behind"
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert str(work) not in ps, "a qemu with this run's images is still running"


def test_tiny_guest_capture(tmp_path, guest_build):
    sheet, run_id = _sheet(tmp_path, runtime_s=2)
    out, work = tmp_path / "raw" / run_id, tmp_path / "work"
    env = {**os.environ, "BLKSCOPE_GUEST_BUILD": str(guest_build)}
    subprocess.run(_cmd(sheet, run_id, out, work), check=True, timeout=240, cwd=tmp_path, env=env)
    assert sorted(p.name for p in out.iterdir()) == ["blktrace", "dmesg.txt.zst", "fio.json", "iostat.json",
                                                     "run.yaml"]
    meta = yaml.safe_load((out / "run.yaml").read_text())
    assert meta["testbed"]["kind"] == "guest" and meta["testbed"]["emulated"] is True
    assert meta["tracer"]["name"] == "blktrace" and meta["run"]["tracer_requested"] == "auto"
    assert meta["tracer"]["events"] > 0 and meta["tracer"]["dropped_total"] == 0
    assert meta["kernel"] == yaml.safe_load((guest_build / "manifest.json").read_text())["kernel_release"]
    assert meta["fio"]["ios"]["read"] > 0 and meta["iostat"]["samples"] >= 1
    assert "f2fs" in meta["filesystem"]["type"] and "noatime" in meta["filesystem"]["mount_options_effective"]
    cpu_files = sorted(p.name for p in (out / "blktrace").iterdir())
    assert cpu_files == [f"vda.blktrace.{c}.zst" for c in range(meta["guest"]["cpus"])]
    ingest = tmp_path / "ingest"
    subprocess.run([sys.executable, "-m", "blkscope.cli", "ingest", str(out / "blktrace"), "-o", str(ingest)],
                   check=True, timeout=120)
    assert (ingest / "events.parquet").stat().st_size > 0
    _assert_clean(work)


@pytest.mark.parametrize("workload, job, output", [("sysbench", "rndrw", "sysbench.txt"), ("journal", "sparse-reader",
                                                                                          "journal.json")])
def test_tiny_guest_workload(tmp_path, guest_build, workload, job, output):
    """sysbench (in the initramfs) and the journal writer (built here, carried on the exchange disk)."""
    sheet, run_id = _sheet(tmp_path, runtime_s=2, workload=workload, job=job)
    out, work = tmp_path / "raw" / run_id, tmp_path / "work"
    env = {**os.environ, "BLKSCOPE_GUEST_BUILD": str(guest_build)}
    subprocess.run(_cmd(sheet, run_id, out, work), check=True, timeout=480, cwd=tmp_path, env=env)
    assert sorted(p.name for p in out.iterdir()) == sorted(["blktrace", "dmesg.txt.zst", "iostat.json", output,
                                                            "run.yaml"])
    meta = yaml.safe_load((out / "run.yaml").read_text())
    assert meta["tracer"]["events"] > 0 and meta["tracer"]["dropped_total"] == 0
    assert meta["workload"]["tool"] == workload and meta["tools"][workload]
    if workload == "journal":  # the writer's own JSON, with per-write latencies from the guest
        assert meta["journal"]["write"]["count"] > 0 and meta["journal"]["read"]["count"] > 0
    else:  # sysbench's run report follows its prepare output in the same file
        text = (out / output).read_text()
        assert "Creating file test_file.15" in text and "reads/s:" in text and "total time:" in text
    _assert_clean(work)


def test_guest_interrupted_leaves_nothing_behind(tmp_path, guest_build):
    sheet, run_id = _sheet(tmp_path, runtime_s=30)
    out, work = tmp_path / "raw" / run_id, tmp_path / "work"
    log = tmp_path / "capture.log"
    env = {**os.environ, "BLKSCOPE_GUEST_BUILD": str(guest_build)}
    with open(log, "w") as f:
        p = subprocess.Popen(_cmd(sheet, run_id, out, work), stderr=f, cwd=tmp_path, env=env)
    deadline = time.monotonic() + 120  # includes waiting for the hardware lock
    while "qemu-system-x86_64" not in log.read_text():
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    time.sleep(3)  # the guest is booting
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=60) == 130, log.read_text()
    assert not out.exists() and not list(out.parent.glob(".*partial*")), "partial output left behind"
    _assert_clean(work)
