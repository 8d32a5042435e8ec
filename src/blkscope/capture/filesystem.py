"""Formatting and mounting, shared by the host testbeds (loop.py, device.py): the mkfs/mount commands, what is
mounted where, and a teardown that is shielded from signals and reports what it could not undo."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from blkscope.capture import signals


class TeardownError(RuntimeError):
    pass


def commands(fstype: str, mkfs_options: str, mount_options: str, device: str, mountpoint: Path):
    mkfs = [f"mkfs.{fstype}", *shlex.split(mkfs_options or ""), device]
    mount = ["mount", "-t", fstype, *(["-o", mount_options] if mount_options else []), device, str(mountpoint)]
    return mkfs, mount


def mounted_at(mountpoint: Path) -> str | None:
    """Mount options of whatever is mounted at mountpoint (from /proc/self/mounts), None when nothing is."""
    target = os.path.realpath(mountpoint)
    for line in Path("/proc/self/mounts").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[1].encode().decode("unicode_escape") == target:
            return parts[3]
    return None


def finish_teardown(undo, fs) -> None:
    """Run `undo(fs)` shielded from further signals; a failed step is an error unless one is already raised."""
    with signals.deferred():
        errors = undo(fs)
    if errors:
        msg = "teardown incomplete: " + "; ".join(errors)
        if sys.exc_info()[0] is None:
            raise TeardownError(msg)
        print(f"blkscope: {msg}", file=sys.stderr)
