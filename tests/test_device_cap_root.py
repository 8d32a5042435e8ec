"""The device cap for real: a capped capture on a loop device (the cap recorded in run.yaml, the device busy and
queued behind it, the cap gone afterwards), and a capped capture killed midway (cap, loop devices and mounts gone)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
import yaml
from test_capture_root import _assert_clean, _cmd, _sheet, pytestmark  # noqa: F401 - same skips

from blkscope.capture import throttle

CAP = "riops=40 wiops=40"  # the job asks for 100 + 100 per second


def _capped_sheet(tmp_path: Path, runtime_s: int) -> tuple[Path, str]:
    sheet, run_id = _sheet(tmp_path, runtime_s)
    pl.read_csv(sheet, separator="\t").with_columns(device_cap=pl.lit(CAP)).write_csv(sheet, separator="\t")
    return sheet, run_id


def _no_loop_caps() -> None:
    for name in throttle.V1_FILES.values():
        text = Path(f"/sys/fs/cgroup/blkio/blkio.throttle.{name}_device").read_text()
        assert not [line for line in text.splitlines() if line.startswith("7:")], f"a cap was left behind: {text}"


@pytest.mark.skipif(not Path("/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device").exists(), reason="no blkio")
def test_capped_capture_records_the_cap_and_makes_the_device_the_bottleneck(tmp_path):
    sheet, run_id = _capped_sheet(tmp_path, runtime_s=3)
    out, work = tmp_path / "raw" / run_id, tmp_path / "work"
    subprocess.run(_cmd(sheet, run_id, out, work), check=True, timeout=180, cwd=tmp_path)
    meta = yaml.safe_load((out / "run.yaml").read_text())
    cap = meta["device_cap"]
    assert cap["requested"] == CAP and cap["limits"] == {"riops": 40, "wiops": 40} and cap["removed"]
    assert cap["interface"] == "cgroup-v1-blkio" and cap["device"] == meta["testbed"]["medium"]
    assert cap["device"] != meta["testbed"]["device"]  # the medium under the traced device, not the device
    ios = meta["fio"]["ios"]
    assert (ios["read"] + ios["write"]) / 3 < 1.5 * 80  # held near the cap, not the 200/s the job asks for
    dev = Path(meta["testbed"]["device"]).name
    stats = json.loads((out / "iostat.json").read_text())["sysstat"]["hosts"][0]["statistics"]
    disks = [d for s in stats for d in s["disk"] if d["disk_device"] == dev and d["r/s"] + d["w/s"] > 0]
    assert max(d["util"] for d in disks) >= 80 and max(d["aqu-sz"] for d in disks) > 1, disks
    _no_loop_caps()
    _assert_clean(work)


def _capped_capture_in_its_workload(tmp_path: Path) -> tuple[subprocess.Popen, Path, Path, Path]:
    """A 30-s capped capture started and let run until its workload (fio) has started: (process, log, out, work)."""
    sheet, run_id = _capped_sheet(tmp_path, runtime_s=30)
    out, work = tmp_path / "raw" / run_id, tmp_path / "work"
    log = tmp_path / "capture.log"
    with open(log, "w") as f:
        p = subprocess.Popen(_cmd(sheet, run_id, out, work), stderr=f, cwd=tmp_path)
    deadline = time.monotonic() + 90
    while "fio --output-format=json" not in log.read_text():
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    time.sleep(1)
    assert throttle.active(_medium_of_cap()) == {"riops": 40, "wiops": 40}, "the cap is not in place"
    return p, log, out, work


@pytest.mark.skipif(not Path("/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device").exists(), reason="no blkio")
def test_capped_capture_killed_midway_removes_the_cap(tmp_path):
    p, log, out, work = _capped_capture_in_its_workload(tmp_path)
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=60) == 130, log.read_text()
    assert not out.exists()
    _no_loop_caps()
    _assert_clean(work)


@pytest.mark.skipif(not Path("/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device").exists(), reason="no blkio")
def test_capped_capture_whose_workload_fails_removes_the_cap(tmp_path):
    """An ordinary failure, not a signal to the capture: its workload dies midway under the cap (fio killed)."""
    p, log, out, work = _capped_capture_in_its_workload(tmp_path)
    subprocess.run(["pkill", "-KILL", "-f", f"fio --output-format=json.*{tmp_path}"], check=True)
    code = p.wait(timeout=60)
    assert code not in (0, 130), log.read_text()  # failed, and not as an interrupt
    assert "fio" in log.read_text().splitlines()[-1], log.read_text()  # the error names the workload
    assert not out.exists()
    _no_loop_caps()
    _assert_clean(work)


def _medium_of_cap() -> str:
    """major:minor of the one loop device that holds a cap now."""
    lines = [line for line in Path("/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device").read_text().splitlines()
             if line.startswith("7:")]
    assert len(lines) == 1, lines
    return lines[0].split()[0]
