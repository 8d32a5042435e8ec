"""Background children (iostat, fio): started in their own process group, stopped politely, then firmly."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


def start(cmd: Sequence[str], stdout: Path | None, env: Mapping[str, str] | None = None) -> subprocess.Popen:
    print("+ " + shlex.join(cmd) + (f" > {stdout}" if stdout else "") + " &", file=sys.stderr, flush=True)
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL  # noqa: SIM115 - closed by the child's exit
    try:
        # Own process group: a terminal Ctrl-C reaches blkscope only; blkscope then stops children in order.
        return subprocess.Popen(list(cmd), stdout=out, stderr=subprocess.PIPE, env=env, process_group=0)
    finally:
        if stdout:
            out.close()


def stop(p: subprocess.Popen, sig: int = signal.SIGINT, grace_s: float = 15) -> int:
    """Send sig (SIGINT lets iostat close its JSON and fio write its report), then SIGKILL after grace_s."""
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return p.returncode


def stderr_tail(p: subprocess.Popen, lines: int = 5) -> str:
    if p.stderr is None:
        return ""
    text = p.stderr.read().decode(errors="replace").strip().splitlines()
    return " | ".join(text[-lines:])
