"""arms.sh's lines -> each arm's wall by placement of the two vCPUs (both probes over 150 ns: apart; both
under: together; else mixed): runs, median, range."""

import collections
import pathlib
import statistics
import sys

walls = collections.defaultdict(list)
for line in pathlib.Path(sys.argv[1]).read_text().splitlines():
    if line.startswith("V "):
        _, arm, wall, p0, p1 = line.split()
        a, b = int(p0) > 150, int(p1) > 150
        walls[arm, "apart" if a and b else "together" if not (a or b) else "mixed"].append(float(wall))
for (arm, where), v in sorted(walls.items()):
    print(f"{arm:10s} {where:9s} {len(v):3d} runs, median {statistics.median(v):.3f} s ({min(v):.3f}-{max(v):.3f})")
