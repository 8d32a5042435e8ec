"""iostat beside the workload: `iostat -x -t -y -o JSON 1 DEV`, stopped with SIGINT so it closes its JSON.

S_TIME_FORMAT=ISO makes -t print ISO 8601 timestamps with the UTC offset instead of a locale date; -y drops the
since-boot report, so every sample covers the run."""

from __future__ import annotations

import json
import os
from pathlib import Path

from blkscope.capture import procs

ENV = {"S_TIME_FORMAT": "ISO", "LC_ALL": "C"}


def command(device: str, interval_s: int = 1) -> list[str]:
    return ["iostat", "-x", "-t", "-y", "-o", "JSON", str(interval_s), device]


class Iostat:
    def __init__(self, device: str, out: Path, interval_s: int = 1) -> None:
        self.cmd = command(device, interval_s)
        self.out = out
        self.proc = None
        self.info: dict = {"command": " ".join(self.cmd), "env": ENV}

    def __enter__(self) -> Iostat:
        self.proc = procs.start(self.cmd, self.out, env={**os.environ, **ENV})
        return self

    def __exit__(self, *exc) -> None:
        rc = procs.stop(self.proc)
        if exc[0] is None:
            self.info.update(check_json(self.out, rc, procs.stderr_tail(self.proc)))


def check_json(path: Path, rc: int, err: str = "") -> dict:
    """Valid, complete iostat JSON with at least one sample; returns sample count and device names."""
    try:
        doc = json.loads(path.read_text())
        stats = doc["sysstat"]["hosts"][0]["statistics"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        raise RuntimeError(f"{path}: iostat JSON invalid or incomplete (exit {rc}: {err}): {e}") from e
    if not stats:
        raise RuntimeError(f"{path}: iostat wrote no samples (exit {rc}: {err})")
    devices = sorted({d["disk_device"] for s in stats for d in s.get("disk", [])})
    return {"samples": len(stats), "devices": devices, "exit_code": rc}
