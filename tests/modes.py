"""Outputs follow the umask: a file 0666 and a directory 0777 less the umask of the process that wrote it (0644 and
0755 under the usual 022), whatever temporary file or directory it was written through (blkscope.io.follow_umask)."""

from __future__ import annotations

import stat
from pathlib import Path


def off_umask(paths: list[Path], umask: int) -> list[str]:
    """Every file and directory under paths (each included) whose permission bits differ from what the umask gives;
    "path mode" lines, empty when all follow it."""
    want = {True: 0o777 & ~umask, False: 0o666 & ~umask}
    bad = []
    for top in paths:
        for p in [top, *top.rglob("*")] if top.is_dir() else [top]:
            mode = p.lstat()
            if stat.S_ISLNK(mode.st_mode):
                continue
            if stat.S_IMODE(mode.st_mode) != want[stat.S_ISDIR(mode.st_mode)]:
                bad.append(f"{p} {stat.S_IMODE(mode.st_mode):o}")
    return bad
