"""arms.sh's lines -> each arm's wall over all its runs and by placement of the two vCPUs (both probes over
APART_NS: apart; both under: together; else mixed): runs, median, range, and the median CPU (user + sys) where
the log has it (logs before 2026-12-01 have the wall only). Then arms against each other round by round
(arms.sh runs every arm once a round): the median and quartiles of the per-round wall ratios, and of the CPU
ratios. This host's speed drifts by up to 1.5x over minutes; a ratio within a round cancels the drift that two
medians keep. Usage: arms_summary.py LOG [ARM/BASE...]; without pairs, every arm against the one arms.sh's command
line names first"""

import collections
import pathlib
import statistics
import sys

APART_NS = 250  # as ab_summary.py's (it says why)

walls, cpus = collections.defaultdict(list), collections.defaultdict(list)
lines = pathlib.Path(sys.argv[1]).read_text().splitlines()
# arms.sh's first line ends with its arguments NAME=NATIVE...: their names in that order, else as first seen
order = [w.split("=")[0] for w in lines[0].split() if "=" in w] if lines and lines[0].startswith("load") else []
for line in lines:
    if line.startswith("V "):
        arm, wall, *cpu, p0, p1 = line.split()[1:]
        a, b = int(p0) > APART_NS, int(p1) > APART_NS
        order += [arm] if arm not in order else []
        for key in (arm, "all"), (arm, "apart" if a and b else "together" if not (a or b) else "mixed"):
            walls[key].append(float(wall))
            if cpu:
                cpus[key].append(sum(map(float, cpu)))
for key, v in sorted(walls.items()):
    c = f", CPU {statistics.median(cpus[key]):.3f} s" if cpus[key] else ""
    if cpus[key] and key[1] == "all":  # on two CPUs, a run of one thread (the probe said busy) uses about its wall
        c += f", {sum(u < 1.1 * w for u, w in zip(cpus[key], v, strict=True))} under 1.1x the wall in CPU"
    wall = f"median {statistics.median(v):.3f} s ({min(v):.3f}-{max(v):.3f})"
    print(f"{key[0]:12s} {key[1]:9s} {len(v):3d} runs, {wall}{c}")


def paired(d, arm, base):
    """Per-round ratios arm / base of d's runs, as median (quartiles); a log cut short: the rounds both finished."""
    r = [b / a for a, b in zip(d[base, "all"], d[arm, "all"], strict=False)]
    if not r:
        return None
    q = statistics.quantiles(r, n=4) if len(r) > 1 else r * 3
    return len(r), f"{q[1]:.3f} ({q[0]:.3f}-{q[2]:.3f})"


pairs = [a.split("/") for a in sys.argv[2:]] or [(arm, order[0]) for arm in order[1:]]
for arm, base in pairs:
    w = paired(walls, arm, base)
    if w is None:
        print(f"{arm} / {base}: no rounds of both in the log")
        continue
    c = paired(cpus, arm, base)
    print(f"{arm} / {base}: {w[0]} rounds, wall ratio {w[1]}" + (f", CPU ratio {c[1]}" if c else ""))
