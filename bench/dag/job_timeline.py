"""Each job of a Snakemake run, from its log: start and end (seconds from the first job) and length, in start order.
Usage: python bench/dag/job_timeline.py .snakemake/log/<run>.snakemake.log (second resolution: the log's own)."""

from __future__ import annotations

import re
import sys
from datetime import datetime
from pathlib import Path

STAMP = re.compile(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]")


def jobs(log: str) -> list[tuple[datetime, datetime, str]]:
    ts, cur, start, rule, out = None, None, {}, {}, []
    for line in log.splitlines():
        if m := STAMP.match(line):
            ts = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
        elif m := re.match(r"(?:local)?rule (\S+):", line):
            cur = m.group(1)
        elif (m := re.match(r"\s+jobid: (\d+)", line)) and cur:
            start[m.group(1)], rule[m.group(1)], cur = ts, cur, None
        elif (m := re.match(r"Finished jobid: (\d+)", line)) and m.group(1) in start:
            out.append((start[m.group(1)], ts, rule[m.group(1)]))
    return sorted(out)


if __name__ == "__main__":
    done = jobs(Path(sys.argv[1]).read_text())
    t0 = done[0][0] if done else None
    for s, e, r in done:
        print(f"{(s - t0).seconds:4d} {(e - t0).seconds:4d} {(e - s).seconds:3d} {r}")
