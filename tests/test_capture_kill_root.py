"""A capture SIGKILLed midway, part by part: the workload (fio), and the capture process itself (its teardown
ledger's watchdog undoes what it set up; with the watchdog killed too, `blkscope capture-sweep` does). Nothing may
stay behind (mounts, loop devices on the run's file, the tracer, the device cap, the memory group, the capture's
processes) and no run directory may enter the output. Root and the tracefs blk tracer, as
tests/test_capture_root.py (whose sheet and checks these reuse); each capture holds /tmp/blkscope-hw.lock. On the
shared machine run it under /work/locks/quiet."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from test_capture_root import TOOLS, TRACEFS, _assert_clean, _cmd, _sheet

from blkscope.capture import ledger, memcap, throttle, tracefs

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


def _start_until_traced(tmp_path: Path, **row) -> tuple[subprocess.Popen, Path, Path, Path]:
    """A 30-s capture (its row's columns replaced by `row`), returned once its workload runs with the tracer on."""
    sheet, run_id = _sheet(tmp_path, runtime_s=30)
    if row:
        pl.read_csv(sheet, separator="\t").with_columns(**{k: pl.lit(v) for k, v in row.items()}).write_csv(
            sheet, separator="\t"
        )
    out, work, log = tmp_path / "raw" / run_id, tmp_path / "work", tmp_path / "capture.log"
    with open(log, "w") as f:
        p = subprocess.Popen(_cmd(sheet, run_id, out, work), stderr=f, cwd=tmp_path)
    deadline = time.monotonic() + 90  # includes waiting for the hardware lock
    while "fio --output-format=json" not in log.read_text():
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    # and fio's job process, which fio forks after its start-up (seconds later on a loaded machine): a fio killed
    # before then leaves that job, in a session of its own, waiting for a parent that is gone
    while list(_pids_under(p.pid).values()).count("fio") < 2:
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


CAPS = {"memory_cap": "64M", "device_cap": "wiops=5000"}  # a memory group and a blk-throttle cap, both up


def _everything_up(tmp_path: Path) -> tuple[subprocess.Popen, Path, Path, Path, dict]:
    """A capped capture with its workload running: its mount, loop devices (the capped medium under the
    filesystem's), tracer, device cap and memory group all up. Also returns the ledger's cap entry (and its path)."""
    p, out, work, log = _start_until_traced(tmp_path, **CAPS)
    [book] = ledger.LEDGER_DIR.glob(f"{p.pid}-*.jsonl")
    _, entries = ledger.read(book)
    assert [e["kind"] for e in entries] == ["staging", "loop", "memcg", "cap", "tracer"], entries
    cap = {**entries[3], "ledger": book}
    assert throttle.active(cap["majmin"]) == {"wiops": 5000}
    assert [g.name for g in memcap.leftovers()] == [f"{memcap.PREFIX}{p.pid}"]
    assert (TRACEFS / "current_tracer").read_text().strip() == "blk"
    return p, out, work, log, cap


def _assert_nothing_left(p: subprocess.Popen, out: Path, work: Path, cap: dict, children: dict) -> None:
    assert not out.exists(), "a run directory entered the output"
    assert not list(out.parent.glob(".*partial*")), "a partial run was left beside the output"
    _assert_clean(work)
    assert throttle.active(cap["majmin"]) == {}, "the device cap stayed"
    assert not memcap.leftovers(), "the memory group stayed"
    deadline = time.monotonic() + 10  # the watchdog itself exits just after it closed the ledger
    while [c for c in children if Path(f"/proc/{c}").exists()] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [c for c in children if Path(f"/proc/{c}").exists()], "processes of the capture live on"
    assert not cap["ledger"].exists(), "the ledger was not closed"


def _wait_gone(path: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def _watchdog_of(book: Path) -> int:
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                argv = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"blkscope.capture.watchdog" in argv and str(book).encode() in argv:
                return int(d.name)
    raise AssertionError(f"no watchdog for {book}")


def test_capture_killed_midway_leaves_nothing(tmp_path):
    """SIGKILL of the capture process with everything up: its watchdog undoes the ledger within seconds."""
    p, out, work, log, cap = _everything_up(tmp_path)
    children = _pids_under(p.pid)
    assert "fio" in children.values(), children
    try:
        p.kill()
        p.wait(timeout=30)
        _wait_gone(cap["ledger"], 60)
        assert f"capture {p.pid} died with its ledger open" in log.read_text(), log.read_text()
        _assert_nothing_left(p, out, work, cap, children)
    finally:
        _tear_down_by_hand(work, p.pid, children)


def test_capture_and_its_watchdog_killed_are_swept(tmp_path):
    """Both killed (say, the machine's OOM killer or a kill -9 of every blkscope process): `blkscope
    capture-sweep`, which every capture also runs before it starts, undoes the ledger."""
    p, out, work, log, cap = _everything_up(tmp_path)
    book = cap["ledger"]
    children = _pids_under(p.pid)
    try:
        os.kill(_watchdog_of(book), signal.SIGKILL)
        p.kill()
        p.wait(timeout=30)
        time.sleep(1)
        assert book.exists() and Path("/proc/self/mounts").read_text().count(str(work)) == 1, "nothing to sweep"
        swept = subprocess.run([sys.executable, "-m", "blkscope.cli", "capture-sweep"], capture_output=True,
                               text=True, timeout=120)  # fmt: skip
        assert swept.returncode == 0 and "ledger(s) of dead captures swept" in swept.stderr, swept.stderr
        _assert_nothing_left(p, out, work, cap, children)
    finally:
        _tear_down_by_hand(work, p.pid, children)


def _tear_down_by_hand(work: Path, pid: int, children: dict[int, str]) -> None:
    """What a failed test leaves, removed without the code under test, so the rest of the suite finds the host
    clean (no-ops when the sweep worked)."""
    for c in children:
        if Path(f"/proc/{c}").exists():
            os.kill(c, signal.SIGKILL)
    for line in reversed(Path("/proc/self/mounts").read_text().splitlines()):
        if str(work) in line.split()[1]:
            subprocess.run(["umount", "-l", line.split()[1]], check=False)
    loops = subprocess.run(["losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE"],
                           capture_output=True, text=True).stdout  # fmt: skip
    media = [line.split()[0] for line in loops.splitlines() if str(work) in line]
    upper = [line.split()[0] for line in loops.splitlines() if line.split()[-1] in media]
    for dev in [*upper, *media]:  # the filesystem's device before the medium under it
        subprocess.run(["losetup", "-d", dev], check=False)
    for group in memcap.leftovers():
        if group.name == f"{memcap.PREFIX}{pid}":
            group.rmdir()
    (TRACEFS / "current_tracer").write_text("nop\n")
