"""Ratios from ab_binary.sh's log: per set, blkparse's median wall over each step's median, and the worst
pairing (blkparse's fastest run over the step's slowest). Usage: python ab_summary.py LOG"""

import statistics
import sys
from collections import defaultdict

STEPS = ["before1", "after1", "before2", "after2"]

runs: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
for line in open(sys.argv[1]):
    t = line.split()
    if t and t[0] == "TIME":
        runs[t[1]][t[2]].append(float(t[3]))
print("| set | blkparse wall (s) | " + " | ".join(f"{s} wall (s), ratio median / worst" for s in STEPS) + " |")
print("|---|---|" + "---|" * len(STEPS))
for name, r in runs.items():
    bp = r["blkparse"]
    cells = []
    for s in STEPS:
        v = r[s]
        if not v:
            cells.append("-")
            continue
        ratio = statistics.median(bp) / statistics.median(v)
        worst = min(bp) / max(v)
        cells.append(f"{', '.join(f'{x:.3f}' for x in v)}: **{ratio:.1f}x** / {worst:.1f}x")
    print(f"| {name} | {', '.join(f'{x:.2f}' for x in bp)} | " + " | ".join(cells) + " |")
