"""What the device cap (throttle.py) and the memory cap (memcap.py) both need of the host's cgroups: reading a
control file that may be absent, and which hierarchy offers a controller."""

from __future__ import annotations

from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def read(path: Path) -> str:
    """A control file's text; "" when it is absent or unreadable (a hierarchy the host does not mount)."""
    try:
        return path.read_text()
    except OSError:
        return ""


def offered(root: Path, v1_file: str, controller: str) -> str | None:
    """`v1` when the v1 hierarchy has `v1_file` (e.g. memory/memory.limit_in_bytes), `v2` when a v2 hierarchy
    (`root` or `root/unified`) lists `controller`, else None."""
    if (root / v1_file).exists():
        return "v1"
    if any(controller in read(v2 / "cgroup.controllers").split() for v2 in (root, root / "unified")):
        return "v2"
    return None
