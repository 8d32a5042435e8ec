"""The teardown ledger: what a capture has set up, on disk, so that a capture killed with SIGKILL (which no
`finally` survives) can still be undone by someone else (watchdog.py).

record.staged() opens the ledger, LEDGER_DIR/<pid>-<start time>.jsonl, for the whole run. Before a module sets a
thing up it appends one line naming it (`note`): the staging directory (record), a loop testbed's run directory
(loop), the guest's image directory (guest/testbed), the memory group (memcap), the device cap (throttle), the
blk tracer with the settings it replaces (tracefs). Each line is fsynced before the step it names, so the ledger
never lags the host. The capture's own teardown runs as before; when it is over the ledger is closed (the file
removed). A ledger still open while its capture is dead means a teardown never ran.

Processes are not listed one by one (a JVM or qemu starts more, in process groups of their own): every child of
the capture inherits TOKEN in its environment, by which the watchdog finds and kills them. The first line holds
the capture's pid, its start time (a reused pid is not the capture) and the boot id (after a reboot the kernel
state a ledger names is gone; only its files remain)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

# Not /run: a reboot clears the kernel state a ledger names, but not the run directories and backing files.
LEDGER_DIR = Path(os.environ.get("BLKSCOPE_LEDGER_DIR", "/var/lib/blkscope/ledgers"))
TOKEN = "BLKSCOPE_LEDGER"  # in every child's environment: the open ledger's path
_open: dict[str, Path | None] = {"path": None}


def boot_id() -> str:
    return Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat); None when it is gone or
    dead (a zombie its parent has not reaped yet: its teardown will never run)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else int(fields[19])


def read(path: Path) -> tuple[dict, list[dict]]:
    """(head, entries). A line cut short by the kill (the last one) is dropped: its step had not begun."""
    lines = []
    for line in path.read_text().splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            break
    return lines[0], lines[1:]


def found() -> list[tuple[Path, dict]]:
    """Every ledger here with its head; one closed meanwhile is not listed."""
    out = []
    for path in sorted(LEDGER_DIR.glob("*.jsonl")):
        try:
            out.append((path, read(path)[0]))
        except FileNotFoundError:
            continue
    return out


def alive(head: dict) -> bool:
    return head["boot"] == boot_id() and start_time(head["pid"]) == head["start"]


def note(kind: str, **what) -> None:
    """Name a thing about to be set up (no-op outside a capture: tests and tools use the modules directly)."""
    path = _open["path"]
    if path is not None:
        _append(path, {"kind": kind, **what})


def _append(path: Path, entry: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(entry, default=str) + "\n")
        f.flush()
        os.fsync(f.fileno())


@contextmanager
def opened() -> Iterator[Path]:
    """This process's ledger, open for the block, with its watchdog (python -m blkscope.capture.watchdog) in a
    session of its own, so a kill of the capture's process group does not reach it."""
    LEDGER_DIR.mkdir(parents=True, exist_ok=True)
    pid, start = os.getpid(), start_time(os.getpid())
    path = LEDGER_DIR / f"{pid}-{start}.jsonl"  # the start time too: a dead capture's ledger under a reused pid stays
    head = {"pid": pid, "start": start, "boot": boot_id(), "utc": datetime.now(UTC).isoformat()}
    tmp = path.with_suffix(".tmp")
    _append(tmp, {**head, "argv": sys.argv})
    tmp.replace(path)  # a ledger is never seen without its head (a sweep would take it for a dead capture's)
    env = {k: v for k, v in os.environ.items() if k != TOKEN}  # the watchdog must not find itself
    cmd = [sys.executable, "-m", "blkscope.capture.watchdog", str(path)]
    watchdog = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                start_new_session=True)  # fmt: skip
    os.environ[TOKEN], _open["path"] = str(path), path
    try:
        yield path
    finally:
        os.environ.pop(TOKEN, None)
        _open["path"] = None
        path.unlink(missing_ok=True)  # closed: the capture's own teardown has run
        watchdog.terminate()  # nothing left for it (it sweeps only for a dead capture); no wait for its poll
        watchdog.wait()
