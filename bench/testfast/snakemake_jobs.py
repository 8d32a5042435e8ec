"""Each job of a Snakemake run from its log (.snakemake/log/*.snakemake.log): start and end in seconds from the
run's first job (the log's whole-second stamps), its rule; then how many seconds ran 0, 1, 2, ... jobs at once.
Usage: python bench/testfast/snakemake_jobs.py LOG [--by-length]"""

from __future__ import annotations

import collections
import datetime
import re
import sys
from pathlib import Path

STAMP = re.compile(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]")


def jobs(text: str) -> list[tuple[int, int, str]]:
    ts = rule = None
    start, end = {}, {}
    for line in text.splitlines():
        if m := STAMP.match(line):
            ts = datetime.datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
        elif m := re.match(r"(?:local)?rule (\S+):", line):
            rule = m.group(1)
        elif (m := re.match(r"\s+jobid: (\d+)", line)) and rule:
            start[m.group(1)], rule = (rule, ts), None
        elif m := re.match(r"Finished jobid: (\d+)", line):
            end[m.group(1)] = ts
    t0 = min(t for _, t in start.values())
    return sorted(((t - t0).seconds, (end[j] - t0).seconds, r) for j, (r, t) in start.items() if j in end)


def main() -> None:
    rows = jobs(Path(sys.argv[1]).read_text())
    for a, b, r in sorted(rows, key=lambda x: x[0] - x[1]) if "--by-length" in sys.argv else rows:
        print(f"{a:5d} {b:5d} {b - a:4d} {r}")
    running = collections.Counter(t for a, b, _ in rows for t in range(a, b))
    last = max(b for _, b, _ in rows)
    print("seconds with N jobs running:", dict(sorted(collections.Counter(running[t] for t in range(last)).items())))


if __name__ == "__main__":
    main()
