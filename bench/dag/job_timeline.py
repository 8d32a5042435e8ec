"""Each job of a Snakemake run, from its log: start and end (seconds from the first job) and length, in start order.
Usage: python bench/dag/job_timeline.py .snakemake/log/<run>.snakemake.log (second resolution: the log's own)."""

from __future__ import annotations

import re
import sys
from datetime import datetime
from pathlib import Path

STAMP = re.compile(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]")


def details(log: str) -> list[dict]:
    """Each finished job: rule, wildcards (as the log prints them, "" for none), threads, start and end."""
    ts, cur, started, out = None, None, {}, []
    for line in log.splitlines():
        if m := STAMP.match(line):
            ts = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
        elif m := re.match(r"(?:local)?rule (\S+):", line):
            cur = {"rule": m.group(1), "wildcards": "", "threads": 1}
        elif (m := re.match(r"\s+jobid: (\d+)", line)) and cur:
            started[m.group(1)] = cur | {"start": ts}
            cur = started[m.group(1)]  # its wildcards and threads follow the jobid line
        elif cur and (m := re.match(r"\s+wildcards: (.*)", line)):
            cur["wildcards"] = m.group(1).strip()
        elif cur and (m := re.match(r"\s+threads: (\d+)", line)):
            cur["threads"] = int(m.group(1))
        elif (m := re.match(r"Finished jobid: (\d+)", line)) and m.group(1) in started:
            out.append(started[m.group(1)] | {"end": ts})
    return out


def jobs(log: str) -> list[tuple[datetime, datetime, str]]:
    return sorted((j["start"], j["end"], j["rule"]) for j in details(log))


if __name__ == "__main__":
    done = jobs(Path(sys.argv[1]).read_text())
    t0 = done[0][0] if done else None
    for s, e, r in done:
        print(f"{(s - t0).seconds:4d} {(e - t0).seconds:4d} {(e - s).seconds:3d} {r}")
