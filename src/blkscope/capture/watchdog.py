"""Undo what a dead capture set up, from its ledger (ledger.py): the watchdog each capture starts, and the sweep
a capture (and `blkscope capture-sweep`) runs under the hardware lock before it touches the host.

`python -m blkscope.capture.watchdog LEDGER` polls the capture's pid twice a second (/proc/PID/stat: its start
time, and not a zombie). When the capture has died with its ledger open, the watchdog takes the hardware lock and
sweeps: it SIGKILLs every process carrying the ledger's token in its environment (fio, iostat, a JVM and whatever
it started, qemu), then undoes the ledger's entries newest first, each the way the capture's own teardown would
(loop.teardown, memcap, throttle, tracefs), and each only when it is still the capture's: directories whose names
carry its pid, loop devices backed by its run file (safety.check_device, inside loop.teardown), memory groups with
memcap's prefix, a device cap only on a loop device over its run file. A ledger it cannot finish stays, and the
next capture refuses to start until it is swept (a host left half set up would bias, or break, every run after it)."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from blkscope.capture import hwlock, ledger

FILES_ONLY = ("staging", "guest", "loop")  # what survives a reboot: the kernel state of the others is gone with it


def watch(path: Path) -> int:
    """The watchdog: wait for the capture to die or close its ledger; sweep when it died with the ledger open."""
    head, _ = ledger.read(path)
    while path.exists() and ledger.alive(head):
        time.sleep(0.5)
    if not path.exists():
        return 0
    print(f"blkscope watchdog: capture {head['pid']} died with its ledger open; undoing {path}", file=sys.stderr)
    try:
        with hwlock.hardware_lock():  # a capture that takes it first sweeps the ledger itself (sweep_stale)
            return 1 if path.exists() and sweep(path) else 0
    except TimeoutError:
        return 1


def sweep_stale() -> list[Path]:
    """Sweep every ledger whose capture is dead (caller holds the hardware lock); RuntimeError when one cannot be
    finished. Returns the ledgers swept."""
    swept = []
    for path, head in ledger.found():
        if ledger.alive(head):  # this capture's own, or another's still running
            continue
        errors = sweep(path)
        if errors:
            raise RuntimeError(f"{path}: a dead capture's set-up could not be undone: {'; '.join(errors)} "
                               "(undo it by hand, then `blkscope capture-sweep`)")  # fmt: skip
        swept.append(path)
    return swept


def sweep(path: Path) -> list[str]:
    """Kill the capture's processes, undo its entries newest first; the ledger is removed when nothing failed."""
    head, entries = ledger.read(path)
    same_boot = head["boot"] == ledger.boot_id()
    errors = _kill_marked(str(path)) if same_boot else []
    for entry in reversed(entries):
        kind = entry["kind"]
        if same_boot or kind in FILES_ONLY:
            print(f"blkscope sweep: undo {kind} {entry}", file=sys.stderr, flush=True)
            try:
                errors += UNDO[kind](entry, head["pid"])
            except Exception as e:  # noqa: BLE001 - every entry is tried
                errors.append(f"{kind}: {e}")
    if errors:
        print(f"blkscope sweep: {path} kept: {'; '.join(errors)}", file=sys.stderr)
    else:
        path.unlink(missing_ok=True)
    return errors


def _kill_marked(token: str) -> list[str]:
    """SIGKILL every process whose environment holds the token, until none is left (a dying parent may fork)."""
    needle = f"\0{ledger.TOKEN}={token}\0".encode()
    pids: list[int] = []
    for _ in range(100):
        pids = list(_marked(needle))
        if not pids:
            return []
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
    return [f"processes of the capture still alive after SIGKILL: {pids}"]


def _marked(needle: bytes) -> Iterator[int]:
    me = os.getpid()
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != me:
            try:
                env = b"\0" + (d / "environ").read_bytes() + b"\0"
            except OSError:
                continue
            if needle in env:
                yield int(d.name)


def _ours(prefix: str, pid: int, start: str) -> str:
    """An entry's name prefix, refused unless it is the form its module makes and carries the capture's pid."""
    if not (prefix.startswith(start) and prefix.endswith(f"-{pid}-")):
        raise ValueError(f"prefix {prefix!r} is not {start}...-{pid}-: not this capture's")
    return glob.escape(prefix) + "*"


def _dirs(start: str):
    """The undo of a directory made with mkdtemp(prefix=...): the staging directory, the guest's images."""

    def undo(e: dict, pid: int) -> list[str]:
        for d in Path(e["dir"]).glob(_ours(e["prefix"], pid, start)):
            shutil.rmtree(d)
        return []

    return undo


def _loop(e: dict, pid: int) -> list[str]:
    from blkscope.capture.loop import LoopFs, teardown

    errors = []
    for rundir in Path(e["workdir"]).glob(_ours(e["prefix"], pid, "run-")):
        errors += teardown(LoopFs("", 0, [], [], rundir, rundir / "backing.img", rundir / "mnt"))
    return errors


def _memcg(e: dict, pid: int) -> list[str]:
    from blkscope.capture import memcap

    group = Path(e["group"])
    if not group.name.startswith(memcap.PREFIX):
        return [f"{group}: not a memory group blkscope makes; left alone"]
    return memcap.sweep(group, e["interface"]) if group.exists() else []


def _cap(e: dict, pid: int) -> list[str]:
    from blkscope.capture import throttle
    from blkscope.capture.safety import loop_backing_file

    backing = loop_backing_file(os.path.basename(os.path.realpath(e["device"])))
    if backing is None or not backing.parent.name.startswith(f"run-{pid}-"):
        return [f"{e['device']}: cap left alone: not a loop device on this capture's run file ({backing})"]
    cap = throttle.Cap(e["device"], e["majmin"], e["limits"], e["interface"])
    return throttle.remove(cap, Path(e["where"]))


def _tracer(e: dict, pid: int) -> list[str]:
    from blkscope.capture import tracefs

    tracefs.reset(e["device"], e["saved"], Path(e["root"]))
    return []


UNDO = {"staging": _dirs("."), "guest": _dirs("guest-"), "loop": _loop, "memcg": _memcg, "cap": _cap, "tracer": _tracer}

if __name__ == "__main__":
    sys.exit(watch(Path(sys.argv[1])))
