"""A device cap: blk-throttle limits on one block device (requests/s and bytes/s, reads and writes), set for a run
and always removed, also on failure and SIGINT/SIGTERM.

Two kernel interfaces, chosen by what the host mounts:
- cgroup v1 `blkio` (preferred): `MAJ:MIN LIMIT` written into the ROOT group's `blkio.throttle.*_device` files
  limits every submitter of the device, writeback and the journal thread included; `MAJ:MIN 0` removes it.
- cgroup v2 `io.max`: the root cgroup has no io.max, so a child group `blkscope-cap` is made, `+io` enabled in the
  root's subtree_control, the limit written there, and the capture process moves into it (its children, the
  workload, inherit it; writeback follows the pages' owner group on filesystems with cgroup writeback). At the
  end the process moves back to the group it came from, the limit is set to `max` and the group is removed.

A cap is given in io.max syntax, e.g. `wiops=500 wbps=20971520` (keys riops, wiops, rbps, wbps; bps accepts
k/M/G suffixes, powers of 1024)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from blkscope.capture import cgroup, ledger, signals

CGROUP = cgroup.CGROUP
PROC_CGROUP = Path("/proc/self/cgroup")  # `0::/path`: the process's cgroup v2 group, where a v2 cap returns it
KEYS = ("riops", "wiops", "rbps", "wbps")
V1_FILES = {"riops": "read_iops", "wiops": "write_iops", "rbps": "read_bps", "wbps": "write_bps"}
V2_GROUP = "blkscope-cap"
_SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


class CapError(RuntimeError):
    """The cap could not be set (no interface, bad syntax, the kernel refused it)."""


def parse(text: str | None) -> dict[str, int]:
    """`wiops=500 wbps=20M` -> {"wiops": 500, "wbps": 20971520}; empty or None -> {} (no cap)."""
    caps: dict[str, int] = {}
    for item in (text or "").replace(",", " ").split():
        m = re.fullmatch(r"(riops|wiops|rbps|wbps)=(\d+)([kKmMgG]?)", item)
        if not m:
            raise CapError(f"device cap {text!r}: {item!r} is not KEY=N with KEY in {', '.join(KEYS)}")
        key, n, suffix = m.groups()
        if suffix and key.endswith("iops"):
            raise CapError(f"device cap {text!r}: {key} takes a plain count, not {n}{suffix}")
        if key in caps:
            raise CapError(f"device cap {text!r}: {key} given twice")
        value = int(n) * _SUFFIX[suffix.lower()]
        if value <= 0:
            raise CapError(f"device cap {text!r}: {key} must be positive (leave it out for no limit)")
        caps[key] = value
    return caps


def majmin(device: str) -> str:
    st = os.stat(device)
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"


def interface(root: Path = CGROUP) -> str:
    """Which interface this host offers: `cgroup-v1-blkio` or `cgroup-v2-io.max`; CapError when neither."""
    found = cgroup.offered(root, "blkio/blkio.throttle.write_iops_device", "io")
    if found:
        return "cgroup-v1-blkio" if found == "v1" else "cgroup-v2-io.max"
    raise CapError(f"no blk-throttle interface under {root}: neither cgroup v1 blkio nor a cgroup v2 io controller")


@dataclass
class Cap:
    """What was set, where, and whether it was removed: the run.yaml `device_cap` block."""

    device: str
    majmin: str
    limits: dict[str, int]
    interface: str
    files: list[str] = field(default_factory=list)
    removed: bool = False
    errors: list[str] = field(default_factory=list)
    home: str = ""  # v2: the group the process came from, relative to the v2 root

    def info(self) -> dict:
        return {"device": self.device, "majmin": self.majmin, "limits": dict(self.limits),
                "interface": self.interface, "files": list(self.files), "removed": self.removed,
                **({"home_group": "/" + self.home} if self.interface == "cgroup-v2-io.max" else {}),
                **({"removal_errors": self.errors} if self.errors else {})}  # fmt: skip


@contextmanager
def capped(device: str, limits: dict[str, int], root: Path = CGROUP, dev: str | None = None) -> Iterator[Cap]:
    """Cap `device` for the block; removal runs on success, error and signals (deferred, never cut short)."""
    cap = Cap(device, dev or majmin(device), dict(limits), interface(root))
    v1 = cap.interface == "cgroup-v1-blkio"
    where = root / "blkio" if v1 else _v2_root(root)
    try:
        ledger.note("cap", device=device, majmin=cap.majmin, limits=cap.limits, interface=cap.interface, where=where)
        (_set_v1 if v1 else _set_v2)(cap, where)
        yield cap
    finally:
        with signals.deferred():
            cap.errors = remove(cap, where)
            cap.removed = not cap.errors


def remove(cap: Cap, where: Path) -> list[str]:
    """Lift the cap (also one a dead capture set: watchdog.py); the errors, none when it is gone."""
    return (_remove_v1 if cap.interface == "cgroup-v1-blkio" else _remove_v2)(cap, where)


def active(majmin_: str, root: Path = CGROUP) -> dict[str, int]:
    """The limits the kernel holds for a device now (v1 root group), for checks and tests."""
    out = {}
    for key, name in V1_FILES.items():
        for line in cgroup.read(root / "blkio" / f"blkio.throttle.{name}_device").splitlines():
            dev, _, value = line.partition(" ")
            if dev == majmin_ and int(value) > 0:  # 0 is "no limit" (the kernel drops the line)
                out[key] = int(value)
    return out


def _set_v1(cap: Cap, blkio: Path) -> None:
    for key, value in cap.limits.items():
        path = blkio / f"blkio.throttle.{V1_FILES[key]}_device"
        cap.files.append(str(path))  # before the write: a half-done set is still undone
        _write(path, f"{cap.majmin} {value}")
    got = active(cap.majmin, blkio.parent)
    if got != cap.limits:
        raise CapError(f"{blkio}: asked for {cap.limits} on {cap.majmin}, the kernel holds {got}")


def _remove_v1(cap: Cap, blkio: Path) -> list[str]:
    errors = []
    # a Cap rebuilt from a ledger has no files yet: every key it asked for (writing 0 where none was set is harmless)
    for path in cap.files or [str(blkio / f"blkio.throttle.{V1_FILES[k]}_device") for k in cap.limits]:
        try:
            _write(Path(path), f"{cap.majmin} 0")
        except CapError as e:
            errors.append(f"{path}: {e}")
    left = active(cap.majmin, blkio.parent)
    if left:
        errors.append(f"{blkio}: {cap.majmin} still limited: {left}")
    return errors


def _v2_root(root: Path) -> Path:
    return (
        root
        if (root / "cgroup.controllers").exists() and "io" in cgroup.read(root / "cgroup.controllers")
        else (root / "unified")
    )


def _set_v2(cap: Cap, v2: Path) -> None:
    if "io" not in cgroup.read(v2 / "cgroup.subtree_control").split():
        _write(v2 / "cgroup.subtree_control", "+io")
    group = v2 / V2_GROUP
    cap.home = _home_group()
    group.mkdir(exist_ok=True)
    cap.files.append(str(group / "io.max"))
    _write(group / "io.max", f"{cap.majmin} " + " ".join(f"{k}={v}" for k, v in cap.limits.items()))
    _write(group / "cgroup.procs", str(os.getpid()))


def _remove_v2(cap: Cap, v2: Path) -> list[str]:
    errors = []
    group = v2 / V2_GROUP
    if not group.exists():
        return errors
    for step in (
        lambda: _write(v2 / cap.home / "cgroup.procs", str(os.getpid())),  # back where it came from first
        lambda: _write(group / "io.max", f"{cap.majmin} " + " ".join(f"{k}=max" for k in KEYS)),
        lambda: group.rmdir(),
    ):
        try:
            step()
        except (CapError, OSError) as e:
            errors.append(f"{group}: {e}")
    return errors


def _home_group() -> str:
    """The process's cgroup v2 group, relative to the v2 root ('' for the root group itself)."""
    for line in cgroup.read(PROC_CGROUP).splitlines():
        if line.startswith("0::"):
            return line[3:].strip().lstrip("/")
    return ""


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text + "\n")
    except OSError as e:
        raise CapError(f"{path}: writing {text!r} failed: {e.strerror or e}") from e
