"""Bootstrap replicate means from `blkscope-native boot-means` (native/src/boot.rs), bit-identical to numpy's
`x[rng.integers(0, n, (n_boot, n), dtype=np.int32)].mean(axis=1)`: drawing and gathering the index arrays in
numpy was ~50 of the ~64 CPU-s of `blkscope latency`, which bootstraps ~6,000 samples a job.

One co-process per Python process, started on first use (so in each spawned -j worker, and again after a fork,
whose child must not share the parent's pipes) and closed at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import subprocess

import numpy as np

from blkscope import native

_proc: subprocess.Popen | None = None
_pid = 0


@functools.cache
def _state(seed: int) -> tuple[int, int, int, int]:
    """default_rng(seed)'s PCG64 state, inc and 32-bit buffer: numpy's seeding stays numpy's."""
    s = np.random.default_rng(seed).bit_generator.state
    return s["state"]["state"], s["state"]["inc"], s["has_uint32"], s["uinteger"]


def _program() -> subprocess.Popen:
    global _proc, _pid
    if _proc is None or _pid != os.getpid():
        _proc = subprocess.Popen([str(native.program()), "boot-means"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        _pid = os.getpid()
    return _proc


@atexit.register
def close() -> None:
    """End this process's co-process (end of input is its signal to exit)."""
    global _proc
    if _proc is not None and _pid == os.getpid():
        with contextlib.suppress(BrokenPipeError):  # it failed: boot_means reports that
            _proc.stdin.close()
        _proc.wait()
        _proc.stdout.close()
    _proc = None


def boot_means(x: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """The n_boot means of resamples of x (float64, 2 values at least) drawn by np.random.default_rng(seed)."""
    state, inc, has32, buf = _state(seed)
    lo64 = (1 << 64) - 1
    head = np.array([n_boot, x.size, state >> 64, state & lo64, inc >> 64, inc & lo64, has32, buf], "<u8")
    proc = _program()
    try:
        proc.stdin.write(head.tobytes())
        proc.stdin.write(np.ascontiguousarray(x, "<f8").tobytes())
        proc.stdin.flush()
        out = proc.stdout.read(8 * n_boot)
    except BrokenPipeError:
        out = b""
    if len(out) != 8 * n_boot:
        proc.kill()
        code = proc.wait()
        close()
        raise RuntimeError(f"blkscope-native boot-means failed (exit {code}) on {x.size} values")
    return np.frombuffer(out, "<f8")
