"""One hardware run at a time on a host. The tracefs blk tracer, trace_pipe and current_tracer are global, so
anything that traces or formats devices here (captures, and test fixtures made with the real tools) must hold
/tmp/blkscope-hw.lock: in Python `with hardware_lock():`, in a shell `flock /tmp/blkscope-hw.lock CMD`."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_PATH = Path("/tmp/blkscope-hw.lock")


@contextmanager
def hardware_lock(path: Path = LOCK_PATH, timeout_s: float = 1800) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        deadline = time.monotonic() + timeout_s
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{path}: held by another hardware run for over {timeout_s:.0f} s") from None
                if not told:
                    print(f"blkscope: waiting for {path} (another hardware run)", file=sys.stderr, flush=True)
                    told = True
                time.sleep(0.5)
        yield
    finally:
        os.close(fd)  # closing releases the flock
