"""The teardown ledger and its sweep (capture/ledger.py, capture/watchdog.py) without hardware: a ledger as a
capture writes it, of a dead process, with real processes carrying its token, real run directories, one
directory that is not the capture's. The hardware case (mounts, loop devices, tracer, caps) is
tests/test_capture_kill_root.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from blkscope.capture import ledger, watchdog


@pytest.fixture
def book_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(ledger, "LEDGER_DIR", tmp_path / "ledgers")
    return tmp_path / "ledgers"


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def _write(book_dir: Path, pid: int, entries: list[dict], boot: str | None = None) -> Path:
    book_dir.mkdir(exist_ok=True)
    path = book_dir / f"{pid}-1.jsonl"
    head = {"pid": pid, "start": 1, "boot": boot or ledger.boot_id(), "utc": "x", "argv": []}
    path.write_text("".join(json.dumps(e) + "\n" for e in [head, *entries]) + '{"kind": "tra')  # cut by the kill
    return path


def _marked_sleep(path: Path) -> subprocess.Popen:
    """A process of the dead capture (a workload it started), found only by the token in its environment."""
    return subprocess.Popen(["sleep", "60"], env={**os.environ, ledger.TOKEN: str(path)}, start_new_session=True)


def test_a_dead_captures_processes_and_directories_are_swept(tmp_path, book_dir):
    pid = _dead_pid()
    raw, work = tmp_path / "raw", tmp_path / "work"
    partial = raw / f".r1.partial-{pid}-abc"
    rundir, foreign, guest = work / f"run-{pid}-xyz", work / f"run-{pid + 1}-xyz", work / f"guest-{pid}-q"
    for d in (partial, rundir, foreign, guest):
        d.mkdir(parents=True)
    (partial / "trace.txt").write_text("half a trace")
    (rundir / "backing.img").write_bytes(b"\0" * 4096)
    (rundir / "mnt").mkdir()
    path = _write(book_dir, pid, [{"kind": "staging", "dir": str(raw), "prefix": f".r1.partial-{pid}-"},
                                  {"kind": "loop", "workdir": str(work), "prefix": f"run-{pid}-"},
                                  {"kind": "guest", "dir": str(work), "prefix": f"guest-{pid}-"}])  # fmt: skip
    child = _marked_sleep(path)
    try:
        assert watchdog.sweep_stale() == [path]
        assert child.wait(timeout=5) == -9, "the capture's process was not killed"
    finally:
        child.kill()
    assert not path.exists() and not partial.exists() and not rundir.exists() and not guest.exists()
    assert foreign.exists(), "a directory of another capture was removed"


def test_an_entry_that_is_not_the_captures_is_refused_and_the_ledger_kept(tmp_path, book_dir):
    pid = _dead_pid()
    (tmp_path / "run-1-a").mkdir()
    memcg = {"kind": "memcg", "group": str(tmp_path / "user.slice"), "interface": "x"}
    path = _write(book_dir, pid, [{"kind": "loop", "workdir": str(tmp_path), "prefix": "run-1-"}, memcg])
    with pytest.raises(RuntimeError, match=r"could not be undone: .*not a memory group blkscope makes.*not this"):
        watchdog.sweep_stale()
    assert path.exists() and (tmp_path / "run-1-a").exists()


def test_after_a_reboot_only_directories_are_swept(tmp_path, book_dir):
    pid = _dead_pid()
    (tmp_path / f"run-{pid}-a").mkdir()
    tracer = {"kind": "tracer", "device": "loop0", "saved": {}, "root": str(tmp_path / "no-tracefs")}
    path = _write(book_dir, pid, [{"kind": "loop", "workdir": str(tmp_path), "prefix": f"run-{pid}-"}, tracer],
                  boot="an-earlier-boot")  # fmt: skip
    assert watchdog.sweep_stale() == [path]  # the tracer entry, tried, would fail: its tracefs does not exist
    assert not (tmp_path / f"run-{pid}-a").exists()


def test_a_live_captures_ledger_is_left_alone(book_dir):
    me = os.getpid()
    path = _write(book_dir, me, [{"kind": "staging", "dir": "/", "prefix": f".x.partial-{me}-"}])
    path.write_text(path.read_text().replace('"start": 1', f'"start": {ledger.start_time(me)}'))
    assert watchdog.sweep_stale() == [] and path.exists()


def test_an_open_ledger_marks_children_and_closes(book_dir):
    with ledger.opened() as path:
        ledger.note("staging", dir="/tmp", prefix="p")
        seen = subprocess.run(["sh", "-c", f'echo "${ledger.TOKEN}"'], capture_output=True, text=True).stdout
        assert seen.strip() == str(path)
        head, entries = ledger.read(path)
        assert head["pid"] == os.getpid() and head["start"] == ledger.start_time(os.getpid())
        assert entries == [{"kind": "staging", "dir": "/tmp", "prefix": "p"}]
        dogs = [d for d in Path("/proc").iterdir() if d.name.isdigit() and _is_watchdog(d, path)]
        assert len(dogs) == 1
    assert not path.exists() and ledger.TOKEN not in os.environ
    assert not dogs[0].exists(), "the watchdog outlived its closed ledger"


def _is_watchdog(d: Path, path: Path) -> bool:
    try:
        argv = (d / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return argv[:4] == [sys.executable.encode(), b"-m", b"blkscope.capture.watchdog", str(path).encode()]
