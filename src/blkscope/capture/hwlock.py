"""One hardware run at a time on a host. The tracefs blk tracer, trace_pipe and current_tracer are global, so
anything that traces or formats devices here (captures, and test fixtures made with the real tools) must hold
/tmp/blkscope-hw.lock: in Python `with hardware_lock():`, in a shell `flock /tmp/blkscope-hw.lock CMD`.
`build_lock(file)` is the same flock on one build's own file (a Maven project's pom.xml, a build directory), so
that two processes (two pytest workers, two Snakemake jobs) never build into one target at once."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_PATH = Path("/tmp/blkscope-hw.lock")


def hardware_lock(path: Path = LOCK_PATH, timeout_s: float = 1800):
    return _flock(path, "another hardware run", timeout_s, os.O_RDWR | os.O_CREAT)


def build_lock(path: Path, timeout_s: float = 1800):
    """An existing file (or directory) held exclusively while one process checks and builds what it stands for."""
    return _flock(path, "another build", timeout_s, os.O_RDONLY)


@contextmanager
def _flock(path: Path, holder: str, timeout_s: float, flags: int) -> Iterator[None]:
    fd = os.open(path, flags, 0o666)
    try:
        deadline = time.monotonic() + timeout_s
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{path}: held by {holder} for over {timeout_s:.0f} s") from None
                if not told:
                    print(f"blkscope: waiting for {path} ({holder})", file=sys.stderr, flush=True)
                    told = True
                time.sleep(0.5)
        yield
    finally:
        os.close(fd)  # closing releases the flock
