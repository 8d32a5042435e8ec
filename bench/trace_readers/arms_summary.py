"""arms.sh's lines -> each arm's wall over all its runs and by placement of the two vCPUs (both probes over
APART_NS: apart; both under: together; else mixed): runs, median, range, and the median CPU (user + sys) where
the log has it (logs before 2026-12-01 have the wall only)."""

import collections
import pathlib
import statistics
import sys

APART_NS = 250  # as ab_summary.py's (it says why)

walls, cpus = collections.defaultdict(list), collections.defaultdict(list)
for line in pathlib.Path(sys.argv[1]).read_text().splitlines():
    if line.startswith("V "):
        arm, wall, *cpu, p0, p1 = line.split()[1:]
        a, b = int(p0) > APART_NS, int(p1) > APART_NS
        for key in (arm, "all"), (arm, "apart" if a and b else "together" if not (a or b) else "mixed"):
            walls[key].append(float(wall))
            if cpu:
                cpus[key].append(sum(map(float, cpu)))
for key, v in sorted(walls.items()):
    c = f", CPU {statistics.median(cpus[key]):.3f} s" if cpus[key] else ""
    wall = f"median {statistics.median(v):.3f} s ({min(v):.3f}-{max(v):.3f})"
    print(f"{key[0]:12s} {key[1]:9s} {len(v):3d} runs, {wall}{c}")
