"""Ratios from ab_binary.sh's log: per set, blkparse's median wall over each step's median, and the worst
pairing (blkparse's fastest run over the step's slowest). One table per run of ab_binary.sh in the log (each
starts with its `seed` line). `--cpu`: CPU seconds (user + sys) instead of wall, for a loaded machine, where wall
follows the other work on the core (blkparse's 25 s of system calls most). `--compact`: the ratios only, a set a
line, and per step the sets under issue 43's targets (25x on one core, 40x on two).
Usage: python ab_summary.py LOG [--cpu] [--compact]"""

import statistics
import sys
from collections import defaultdict
from pathlib import Path

STEPS = ["before1", "after1", "before2", "after2"]


CPU = "--cpu" in sys.argv[2:]
COMPACT = "--compact" in sys.argv[2:]
WHAT = "CPU" if CPU else "wall"
TARGET = {"1": 25, "2": 40}  # issue 43 item 2, by the step's cores


def ratios(bp: list[float], v: list[float]) -> tuple[float, float]:
    """blkparse's median over the step's median, and the worst pairing: blkparse's fastest over the step's slowest."""
    return statistics.median(bp) / statistics.median(v), min(bp) / max(v)


def table(runs: dict[str, dict[str, list[float]]]) -> None:
    print(f"| set | blkparse {WHAT} (s) | " + " | ".join(f"{s} {WHAT} (s): ratio median / worst" for s in STEPS) + " |")
    print("|---|---|" + "---|" * len(STEPS))
    for name, r in runs.items():
        bp = r["blkparse"]
        cells = []
        for s in STEPS:
            ratio, worst = ratios(bp, r[s])
            cells.append(f"{', '.join(f'{x:.2f}' for x in r[s])}: **{ratio:.1f}x** / {worst:.1f}x")
        print(f"| {name} | {', '.join(f'{x:.2f}' for x in bp)} | " + " | ".join(cells) + " |")


def compact(runs: dict[str, dict[str, list[float]]]) -> None:
    print(f"| set | blkparse {WHAT} median (s) | " + " | ".join(f"{s}: median / worst" for s in STEPS) + " |")
    print("|---|---|" + "---|" * len(STEPS))
    medians: dict[str, list[float]] = {s: [] for s in STEPS}
    for name, r in runs.items():
        bp, cells = r["blkparse"], []
        for s in STEPS:
            ratio, worst = ratios(bp, r[s])
            medians[s].append(ratio)
            cells.append(f"{ratio:.1f}x / {worst:.1f}x")
        print(f"| {name} | {statistics.median(bp):.2f} | " + " | ".join(cells) + " |")
    for s in STEPS:
        v, t = medians[s], TARGET[s[-1]]
        print(f"{s}: medians {min(v):.1f}-{max(v):.1f}x, their median {statistics.median(v):.1f}x; "
              f"{sum(x < t for x in v)} of {len(v)} sets under {t}x")


sections: list[dict[str, dict[str, list[float]]]] = []
for line in Path(sys.argv[1]).read_text().splitlines():
    t = line.split()
    if t and t[0] == "seed":
        sections.append(defaultdict(lambda: defaultdict(list)))
    elif t and t[0] == "TIME":
        sections[-1][t[1]][t[2]].append(float(t[4]) + float(t[5]) if CPU else float(t[3]))
for runs in sections:
    print(f"\n{len(runs)} sets")
    (compact if COMPACT else table)(runs)
