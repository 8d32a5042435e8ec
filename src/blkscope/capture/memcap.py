"""A memory cap: a cgroup that holds the workload's processes (the database process or JVM, and YCSB's JVM when
RocksDB is embedded in it) and so the page cache they fault in, set before the workload starts and always
removed, also on failure and SIGINT/SIGTERM (as throttle.py does for device caps).

Measured here (2026-11-27, cgroup v1): a 64 MiB `memory.limit_in_bytes` held a reader's page cache at 64 MiB while
it read a 400 MiB file; page cache of files on the loop-mounted filesystem is charged to the group of the process
that faults it in; with the loop device's `--direct-io=on` the host does not cache the backing file a second time.
A JVM's heap counts inside the cap with its page cache: the workload sizes its heap inside it.

Two kernel interfaces, chosen by what the host mounts:
- cgroup v1 `memory` (/sys/fs/cgroup/memory): a child group `blkscope-mem-<pid>`, `memory.limit_in_bytes`; the
  peak is `memory.max_usage_in_bytes`, limit hits `memory.failcnt`, OOM kills `memory.oom_control`'s `oom_kill`.
- cgroup v2 `memory.max` where the unified hierarchy has the memory controller: the same group, `memory.max`,
  the peak `memory.peak`, `memory.events` (max, oom, oom_kill).
Only the workload's processes join the group (`wrap()`: a shell that writes its own pid into the group's
cgroup.procs, then execs the command, so the child and everything it starts are inside from their first page);
the capture itself, its tracer reader and iostat stay outside, and their files are not charged to the workload.
Teardown: the group's statistics are read, any task still in it is moved to the parent group, the group is
removed (the kernel moves its remaining page-cache charges to the parent)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from blkscope.capture import cgroup, ledger, record, signals

CGROUP = cgroup.CGROUP
PREFIX = "blkscope-mem-"
_SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
MIN_BYTES = 16 << 20  # below this a JVM cannot start: a typo, not a cap
# memory.stat keys kept in run.yaml (v1 name -> v2 name): the page cache and the anonymous memory (heap, RocksDB)
STAT_KEYS = {"total_cache": "file", "total_rss": "anon", "total_mapped_file": "file_mapped",
             "total_dirty": "file_dirty", "total_writeback": "file_writeback"}  # fmt: skip


WRAPPER = ("sh", "-c", 'echo $$ > "$0" && exec "$@"')  # then the group's cgroup.procs, then the command


def tool(cmd) -> str:
    """The program a (possibly wrapped) command runs, for messages: `java`, not the wrapper's `sh`."""
    cmd = list(cmd)
    return cmd[len(WRAPPER) + 1] if tuple(cmd[: len(WRAPPER)]) == WRAPPER and len(cmd) > len(WRAPPER) + 1 else cmd[0]


class MemCapError(RuntimeError):
    """The cap could not be set (no interface, bad syntax, the kernel refused it)."""


def parse(text: str | None) -> int:
    """`384M` -> 402653184 bytes (k/M/G: powers of 1024; an optional trailing `iB`/`B`); empty or None -> 0 (no cap)."""
    t = (text or "").strip()
    if not t:
        return 0
    m = re.fullmatch(r"(\d+)\s*([kKmMgG]?)(?:i?B)?", t)
    if not m:
        raise MemCapError(f"memory cap {text!r}: not N[k|M|G] (e.g. 384M)")
    value = int(m.group(1)) * _SUFFIX[m.group(2).lower()]
    if value < MIN_BYTES:
        raise MemCapError(f"memory cap {text!r}: {value} bytes is below {MIN_BYTES >> 20} MiB")
    return value


def interface(root: Path = CGROUP) -> str:
    """`cgroup-v1-memory` or `cgroup-v2-memory.max`; MemCapError when the host offers neither."""
    found = cgroup.offered(root, "memory/memory.limit_in_bytes", "memory")
    if found:
        return "cgroup-v1-memory" if found == "v1" else "cgroup-v2-memory.max"
    raise MemCapError(f"no memory controller under {root}: neither cgroup v1 memory nor a cgroup v2 memory.max")


@dataclass
class MemCap:
    """What was set, where, what the group used, and whether it was removed: the run.yaml `memory_cap` block."""

    limit_bytes: int
    interface: str
    group: Path
    removed: bool = False
    errors: list[str] = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    snapshots: dict = field(default_factory=dict)
    moved_out: list[int] = field(default_factory=list)

    @property
    def v1(self) -> bool:
        return self.interface == "cgroup-v1-memory"

    @property
    def procs(self) -> Path:
        return self.group / "cgroup.procs"

    def wrap(self, cmd: list[str]) -> list[str]:
        """cmd, started inside the group: the shell joins it, then becomes cmd (exec), so no page escapes."""
        return [*WRAPPER, str(self.procs), *cmd]

    def snapshot(self, name: str) -> dict:
        """The group's usage now (e.g. at the end of the measured phase, before the JVM exits), kept by name."""
        self.snapshots[name] = {"utc": record.utc(), **usage(self)}
        return self.snapshots[name]

    def info(self) -> dict:
        return {"limit_bytes": self.limit_bytes, "limit_mib": round(self.limit_bytes / (1 << 20), 1),
                "interface": self.interface, "group": str(self.group), **self.stats,
                **({"snapshots": self.snapshots} if self.snapshots else {}),
                "tasks_moved_out": self.moved_out, "removed": self.removed,
                **({"removal_errors": self.errors} if self.errors else {})}  # fmt: skip


def usage(cap: MemCap) -> dict:
    """Current and peak usage, limit hits, OOM events and the page-cache / anonymous split of the group."""
    g = cap.group
    if cap.v1:
        oom = _keyed(cgroup.read(g / "memory.oom_control"))
        out = {"usage_bytes": _int(g / "memory.usage_in_bytes"),
               "max_usage_bytes": _int(g / "memory.max_usage_in_bytes"), "failcnt": _int(g / "memory.failcnt"),
               "oom_kill": oom.get("oom_kill", 0), "under_oom": oom.get("under_oom", 0)}  # fmt: skip
        stat = _keyed(cgroup.read(g / "memory.stat"))
        out["stat"] = {k: stat.get(k, 0) for k in STAT_KEYS}
        return out
    events = _keyed(cgroup.read(g / "memory.events"))
    stat = _keyed(cgroup.read(g / "memory.stat"))
    return {"usage_bytes": _int(g / "memory.current"), "max_usage_bytes": _int(g / "memory.peak"),
            "failcnt": events.get("max", 0), "oom": events.get("oom", 0), "oom_kill": events.get("oom_kill", 0),
            "stat": {v1: stat.get(v2, 0) for v1, v2 in STAT_KEYS.items()}}  # fmt: skip


@contextmanager
def capped(limit_bytes: int, root: Path = CGROUP, name: str | None = None) -> Iterator[MemCap]:
    """A memory group of `limit_bytes` for the block; removal runs on success, error and signals."""
    kind = interface(root)
    base = root / "memory" if kind == "cgroup-v1-memory" else _v2_root(root)
    cap = MemCap(limit_bytes, kind, base / (name or f"{PREFIX}{os.getpid()}"))
    try:
        ledger.note("memcg", group=cap.group, interface=kind)
        _set(cap, base)
        yield cap
    finally:
        with signals.deferred():
            cap.errors = _remove(cap, base)
            cap.removed = not cap.errors


def _set(cap: MemCap, base: Path) -> None:
    if cap.group.exists():
        raise MemCapError(f"{cap.group} exists already (a capture left it? see `blkscope capture` cleanup)")
    if not cap.v1 and "memory" not in cgroup.read(base / "cgroup.subtree_control").split():
        _write(base / "cgroup.subtree_control", "+memory")
    cap.group.mkdir()
    if cap.v1:
        _write(cap.group / "memory.limit_in_bytes", str(cap.limit_bytes))
        got = _int(cap.group / "memory.limit_in_bytes")
    else:
        _write(cap.group / "memory.max", str(cap.limit_bytes))
        if (cap.group / "memory.swap.max").exists():
            _write(cap.group / "memory.swap.max", "0")  # v1 without memsw limits RAM only; no swap here either
        got = _int(cap.group / "memory.max")
    if got != cap.limit_bytes:  # the kernel rounds to pages: ask for whole pages
        raise MemCapError(f"{cap.group}: asked for {cap.limit_bytes} bytes, the kernel holds {got}")


def _remove(cap: MemCap, base: Path) -> list[str]:
    errors: list[str] = []
    if not cap.group.exists():
        return errors
    try:
        cap.stats = usage(cap)
    except (OSError, ValueError) as e:
        errors.append(f"{cap.group}: reading its statistics: {e}")
    for attempt in range(10):
        pids = [int(p) for p in cgroup.read(cap.procs).split()]
        if not pids:
            break
        for pid in pids:  # a JVM that outlived the workload's stop(): out of the cap, never killed here
            try:
                _write(base / "cgroup.procs", str(pid))
                cap.moved_out.append(pid)
            except MemCapError as e:
                if attempt == 9:
                    errors.append(str(e))
        time.sleep(0.1)
    for attempt in range(10):
        try:
            cap.group.rmdir()
            break
        except OSError as e:  # EBUSY while an exiting task is still listed
            if attempt == 9:
                errors.append(f"{cap.group}: rmdir: {e.strerror or e}")
            time.sleep(0.2)
    return errors


def sweep(group: Path, kind: str) -> list[str]:
    """Remove the group of a capture that died (watchdog.py). Its tasks, that capture's workload, are killed
    first: moved out, they would run on uncapped and unwatched."""
    cap = MemCap(0, kind, group)
    for pid in cgroup.read(cap.procs).split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    return _remove(cap, group.parent)


def leftovers(root: Path = CGROUP) -> list[Path]:
    """Groups of earlier captures still present (a capture killed with SIGKILL cannot clean up)."""
    try:
        kind = interface(root)
    except MemCapError:
        return []
    base = root / "memory" if kind == "cgroup-v1-memory" else _v2_root(root)
    return sorted(base.glob(f"{PREFIX}*"))


def _v2_root(root: Path) -> Path:
    return root if "memory" in cgroup.read(root / "cgroup.controllers").split() else root / "unified"


def _keyed(text: str) -> dict[str, int]:
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().lstrip("-").isdigit():
            out[key] = int(value)
    return out


def _int(path: Path) -> int:
    text = cgroup.read(path).strip()
    return int(text) if text.isdigit() else 0


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text + "\n")
    except OSError as e:
        raise MemCapError(f"{path}: writing {text!r} failed: {e.strerror or e}") from e
