"""Real blktrace: which tracer a run gets (`tracer: auto`), and what blktrace's own summary says it lost.

blktrace needs debugfs (/sys/kernel/debug/block/<dev>); kernel lockdown refuses that on some hosts (this one:
"debugfs access is restricted"), where the tracefs blk tracer records the same events as text. Inside the
emulated guest there is no lockdown, so guest runs always get blktrace."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

DEBUGFS = Path("/sys/kernel/debug")
TRACERS = ("blktrace", "tracefs-blk", "none")
# The per-device summary blktrace prints when it stops, e.g. "  CPU  0:  2368 events,  112 KiB data" and
# "  Total:  5034 events (dropped 0),  237 KiB data".
_CPU = re.compile(r"^\s*CPU\s*(\d+):\s*(\d+) events,\s*(\d+) KiB data", re.M)
_TOTAL = re.compile(r"^\s*Total:\s*(\d+) events \(dropped (\d+)\),\s*(\d+) KiB data", re.M)


def host_blktrace_works(debugfs: Path = DEBUGFS) -> tuple[bool, str]:
    """Whether blktrace can run on this host, and why (not)."""
    if shutil.which("blktrace") is None:
        return False, "blktrace is not installed"
    block = debugfs / "block"
    try:
        os.listdir(block)
    except PermissionError:
        return False, f"{block}: permission denied (kernel lockdown restricts debugfs)"
    except OSError as e:
        return False, f"{block}: {e.strerror} (debugfs not mounted or no CONFIG_BLK_DEV_IO_TRACE)"
    return True, f"{block} is accessible"


def resolve(tracer: str, testbed: str, traced: bool, debugfs: Path = DEBUGFS) -> tuple[str, str]:
    """The tracer a run uses and why: `auto` becomes blktrace in the guest, tracefs-blk on the host."""
    if not traced:
        return "none", "untraced run"
    if tracer not in (*TRACERS, "auto"):
        raise ValueError(f"unknown tracer {tracer!r} (known: auto, {', '.join(TRACERS)})")
    if testbed == "guest":
        if tracer not in ("auto", "blktrace"):
            raise ValueError(f"the guest testbed traces with blktrace only, not {tracer!r}")
        return "blktrace", "guest kernel without lockdown: debugfs and blktrace work"
    if tracer != "auto":
        return tracer, "named in the runs sheet"
    ok, why = host_blktrace_works(debugfs)
    # Host runs record with the tracefs blk tracer (the same events as text; blktrace on the host is not wired
    # into capture yet); the reason says whether blktrace itself would have worked.
    return "tracefs-blk", (f"blktrace would work ({why}), but host capture uses tracefs" if ok else
                           f"blktrace unusable here: {why}")


def parse_summary(text: str) -> dict:
    """Events, KiB and dropped events per CPU and in total from blktrace's exit summary (one device)."""
    cpus = {int(c): {"events": int(e), "kib": int(k)} for c, e, k in _CPU.findall(text)}
    m = _TOTAL.search(text)
    if m is None:
        raise ValueError("blktrace summary has no 'Total: N events (dropped D)' line")
    events, dropped, kib = map(int, m.groups())
    return {"per_cpu": cpus, "events": events, "dropped": dropped, "kib": kib}
