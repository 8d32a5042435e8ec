"""The allow-list: a hardware run formats only a loop device backed by a file blkscope created for that run, or a
device named in config `capture: allowed_devices`. Anything else (e.g. /dev/vda, the host's disk) is refused."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

SYS_BLOCK = Path("/sys/block")


class UnsafeDevice(ValueError):
    """A device the configuration does not allow a run to touch."""


def loop_backing_file(name: str, sys_block: Path = SYS_BLOCK) -> Path | None:
    """Backing file of /dev/<name> (a loop device), or None when it has none."""
    try:
        text = (sys_block / name / "loop" / "backing_file").read_text().strip()
    except OSError:
        return None
    return Path(text.removesuffix(" (deleted)")) if text else None


def check_device(device: str, *, ours: Path | None, allowed: Iterable[str] = (), sys_block: Path = SYS_BLOCK) -> str:
    """Return why `device` may be used, or raise UnsafeDevice. `ours` is the backing file this run created."""
    real = os.path.realpath(device)
    if real in {os.path.realpath(a) for a in allowed}:
        return "allow-listed in config capture: allowed_devices"
    name = os.path.basename(real)
    if re.fullmatch(r"loop\d+", name):
        backing = loop_backing_file(name, sys_block)
        if ours is not None and backing is not None and os.path.realpath(backing) == os.path.realpath(ours):
            return f"loop device backed by this run's file {ours}"
        raise UnsafeDevice(f"{device}: loop device not backed by this run's file ({backing or 'no backing file'})")
    raise UnsafeDevice(
        f"{device}: refused: not a loop device created by blkscope and not in config capture: allowed_devices"
    )
