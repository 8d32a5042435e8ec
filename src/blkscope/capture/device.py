"""Testbed: a real block device, formatted and mounted for one run. Only a whole disk named in config
`capture: allowed_devices` is ever touched, and only when nothing uses it (no mount of it or its partitions, no
holder such as device-mapper or md, no swap on it). Teardown unmounts on success, error and SIGINT/SIGTERM;
the data on the device is of course gone: that is what allow-listing it means."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from blkscope.capture.filesystem import commands, finish_teardown, mounted_at
from blkscope.capture.safety import SYS_BLOCK, UnsafeDevice, check_device
from blkscope.capture.sh import CommandFailed, sh


@dataclass
class DeviceFs:
    fstype: str
    device: str
    rundir: Path
    mountpoint: Path
    mkfs_cmd: list[str]
    mount_cmd: list[str]
    allowed_because: str = ""
    mount_options_effective: str | None = None

    @property
    def name(self) -> str:
        return os.path.basename(os.path.realpath(self.device))

    def testbed_meta(self, backing_fs: str | None = None) -> dict:
        d = SYS_BLOCK / self.name
        return {
            "kind": "device",
            "device": self.device,
            "allowed_because": self.allowed_because,
            "size_bytes": int(_read(d / "size") or 0) * 512,
            "model": _read(d / "device" / "model"),
            "rotational": _read(d / "queue" / "rotational"),
            "scheduler": _read(d / "queue" / "scheduler"),
            "logical_block_size": _read(d / "queue" / "logical_block_size"),
        }


def allowed(device: str | None, allowed_devices: list[str]) -> str:
    """Why the runs sheet's device may be formatted; raises UnsafeDevice unless config allow-lists it."""
    if not device:
        raise UnsafeDevice("testbed device needs a device (runs sheet column `device`)")
    return check_device(device, ours=None, allowed=allowed_devices)


def check_free(device: str, sys_block: Path = SYS_BLOCK, mounts: str | None = None, swaps: str | None = None) -> None:
    """Refuse a device that is not a whole disk, or that anything mounts, holds or swaps on."""
    real = os.path.realpath(device)
    name = os.path.basename(real)
    if not (sys_block / name).is_dir():
        raise UnsafeDevice(f"{device}: not a whole disk in {sys_block} (partitions are not supported)")
    parts = {name, *(p.name for p in (sys_block / name).glob(f"{name}*") if (p / "partition").exists())}
    mounts = Path("/proc/self/mounts").read_text() if mounts is None else mounts
    used = sorted({ln.split()[1] for ln in mounts.splitlines() if ln and os.path.basename(ln.split()[0]) in parts})
    if used:
        raise UnsafeDevice(f"{device}: in use: mounted at {', '.join(used)}")
    holders = [h.name for p in parts for h in (sys_block / name / ("" if p == name else p) / "holders").glob("*")]
    if holders:
        raise UnsafeDevice(f"{device}: in use: held by {', '.join(sorted(holders))}")
    swaps = (Path("/proc/swaps").read_text() if Path("/proc/swaps").exists() else "") if swaps is None else swaps
    if any(os.path.basename(ln.split()[0]) in parts for ln in swaps.splitlines()[1:] if ln.strip()):
        raise UnsafeDevice(f"{device}: in use as swap")


def plan_steps(device: str | None, allowed: list[str]) -> list[str]:
    """The dry run's testbed steps (they check nothing on the host: a dry run touches nothing)."""
    return [
        f"check {device} is in config capture: allowed_devices ({', '.join(allowed) or 'none allowed'}), "
        "a whole disk, not mounted, held or swapped on; refuse otherwise",
        f"(every byte on {device} is lost: the run formats it)",
    ]


allowed_ = allowed  # the name `allowed` is device_filesystem's parameter


@contextmanager
def device_filesystem(
    workdir: Path,
    *,
    device: str | None,
    fstype: str,
    size_mb: int | None = None,
    mkfs_options: str = "",
    mount_options: str = "",
    allowed: list[str] | None = None,
) -> Iterator[DeviceFs]:
    because = allowed_(device, allowed or [])  # raises unless allow-listed
    real = os.path.realpath(device)
    if not stat.S_ISBLK(os.stat(real).st_mode):
        raise UnsafeDevice(f"{device}: not a block device")
    check_free(device)
    workdir.mkdir(parents=True, exist_ok=True)
    rundir = Path(tempfile.mkdtemp(prefix="dev-", dir=workdir))
    mnt = rundir / "mnt"
    mkfs_cmd, mount_cmd = commands(fstype, mkfs_options, mount_options, device, mnt)
    fs = DeviceFs(fstype, device, rundir, mnt, mkfs_cmd, mount_cmd, because)
    try:
        mnt.mkdir()
        sh(mkfs_cmd)
        sh(mount_cmd)
        fs.mount_options_effective = mounted_at(mnt)
        yield fs
    finally:
        finish_teardown(_teardown, fs)


def _teardown(fs: DeviceFs) -> list[str]:
    errors: list[str] = []
    if fs.mountpoint.exists() and mounted_at(fs.mountpoint) is not None:
        try:
            sh(["umount", str(fs.mountpoint)])
        except CommandFailed as e:
            errors.append(str(e))
    if not errors:
        fs.mountpoint.rmdir() if fs.mountpoint.exists() else None
        fs.rundir.rmdir()
    return errors


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None
