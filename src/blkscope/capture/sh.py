"""Run host commands, echoing each one so a capture log shows exactly what was done."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence


class CommandFailed(RuntimeError):
    pass


def sh(cmd: Sequence[str], *, env: Mapping[str, str] | None = None, check: bool = True, timeout: float = 300) -> str:
    """Run cmd, return stdout (+stderr when stdout is empty). Children get their own process group so a
    terminal Ctrl-C reaches only blkscope, which then stops them in order."""
    print("+ " + shlex.join(cmd), file=sys.stderr, flush=True)
    p = subprocess.run(
        list(cmd), capture_output=True, text=True, env=dict(env) if env else None, timeout=timeout, process_group=0
    )
    if check and p.returncode != 0:
        msg = (p.stderr or p.stdout).strip().splitlines()
        raise CommandFailed(f"{shlex.join(cmd)}: exit {p.returncode}: {msg[-1] if msg else 'no output'}")
    return p.stdout if p.stdout.strip() else p.stderr


def version(cmd: Sequence[str]) -> str | None:
    """First non-empty output line of a version command, or None when the tool is missing."""
    try:
        p = subprocess.run(list(cmd), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in (p.stdout + "\n" + p.stderr).splitlines():
        if line.strip():
            return line.strip()
    return None
