"""A capture SIGKILLed midway, part by part: the workload (fio), and the capture process itself. Nothing may stay
behind (mounts, loop devices on the run's file, the tracer) and no run directory may enter the output. Root and the
tracefs blk tracer, as tests/test_capture_root.py (whose sheet and checks these reuse); each capture holds
/tmp/blkscope-hw.lock. On the shared machine run it under /work/locks/quiet."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_capture_root import TOOLS, TRACEFS, _assert_clean, _cmd, _sheet

from blkscope.capture import tracefs

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root"),
    pytest.mark.requires(*TOOLS),
    pytest.mark.skipif(not tracefs.blk_available(), reason="needs the tracefs blk tracer"),
]


def _pids_under(pid: int) -> dict[int, str]:
    """Every process under pid (by parent pid), with its command name."""
    parent, comm = {}, {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
            parent[int(d.name)], comm[int(d.name)] = int(rest[1]), name
    found, todo = {}, [pid]
    while todo:
        p = todo.pop()
        for child, ppid in parent.items():
            if ppid == p and child not in found:
                found[child] = comm[child]
                todo.append(child)
    return found


def _start_until_traced(tmp_path: Path) -> tuple[subprocess.Popen, Path, Path, Path]:
    """A 30-s capture, returned once its workload runs with the tracer on."""
    sheet, run_id = _sheet(tmp_path, runtime_s=30)
    out, work, log = tmp_path / "raw" / run_id, tmp_path / "work", tmp_path / "capture.log"
    with open(log, "w") as f:
        p = subprocess.Popen(_cmd(sheet, run_id, out, work), stderr=f, cwd=tmp_path)
    deadline = time.monotonic() + 90  # includes waiting for the hardware lock
    while "fio --output-format=json" not in log.read_text():
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    time.sleep(1)
    return p, out, work, log


def test_workload_killed_midway_fails_the_run_and_leaves_nothing(tmp_path):
    p, out, work, log = _start_until_traced(tmp_path)
    fio = [pid for pid, name in _pids_under(p.pid).items() if name == "fio"]
    assert fio, "no fio under the capture"
    for pid in fio:
        os.kill(pid, signal.SIGKILL)
    assert p.wait(timeout=120) not in (0, None), log.read_text()
    assert "fio exit" in log.read_text()
    assert not out.exists() and not list(out.parent.glob(".*partial*")), "a partial run was left"
    _assert_clean(work)


def _tear_down_by_hand(work: Path) -> None:
    """What a SIGKILLed capture leaves, removed so the rest of the suite finds the host clean."""
    for line in reversed(Path("/proc/self/mounts").read_text().splitlines()):
        if str(work) in line.split()[1]:
            subprocess.run(["umount", "-l", line.split()[1]], check=False)
    loops = subprocess.run(["losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE"],
                           capture_output=True, text=True).stdout  # fmt: skip
    for line in loops.splitlines():
        if str(work) in line:
            subprocess.run(["losetup", "-d", line.split()[0]], check=False)
    (TRACEFS / "tracing_on").write_text("1\n")
    (TRACEFS / "current_tracer").write_text("nop\n")


@pytest.mark.xfail(strict=True, reason="a SIGKILLed capture cannot tear down itself, and no later capture or "
                   "command sweeps what it left (mounts, loop device, the blk tracer on); issue R, p-cap")  # fmt: skip
def test_capture_killed_midway_leaves_nothing(tmp_path):
    p, out, work, log = _start_until_traced(tmp_path)
    children = _pids_under(p.pid)
    p.kill()
    p.wait(timeout=30)
    try:
        time.sleep(2)  # its children notice or not
        assert not out.exists(), "a run directory entered the output"
        assert not list(out.parent.glob(".*partial*")), "a partial run was left beside the output"
        _assert_clean(work)
        assert not [c for c in children if Path(f"/proc/{c}").exists()], "processes of the capture live on"
    finally:
        for c in children:
            if Path(f"/proc/{c}").exists():
                os.kill(c, signal.SIGKILL)
        _tear_down_by_hand(work)
