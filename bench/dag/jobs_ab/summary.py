"""CPU seconds (user + sys) per job and arm of measure.sh's table: mean, min, max, the load seen; each set's sum."""

from __future__ import annotations

import statistics as st
import sys
from pathlib import Path

rows = [line.split("\t") for line in Path(sys.argv[1]).read_text().splitlines() if not line.startswith("#")]
jobs: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
sets: dict[tuple[str, str], float] = {}
for k, arm, job, user, sys_, wall, load in rows:
    cpu = float(user) + float(sys_)
    jobs.setdefault((arm, job), []).append((cpu, float(wall), float(load)))
    sets[arm, k] = sets.get((arm, k), 0.0) + cpu
for (arm, job), v in sorted(jobs.items()):
    cpu, wall, load = zip(*v, strict=True)
    print(f"{arm}\t{job}\tCPU-s {st.mean(cpu):.1f} ({min(cpu):.1f}-{max(cpu):.1f}, n {len(cpu)})\t"
          f"wall {st.mean(wall):.1f} s\t1-min load {min(load):.2f}-{max(load):.2f}")
for arm in ("before", "after"):
    per_set = [round(c, 1) for (a, _), c in sets.items() if a == arm]
    print(f"{arm}: sets {per_set}")
