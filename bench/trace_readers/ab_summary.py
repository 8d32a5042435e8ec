"""Ratios from ab_binary.sh's log: per set, blkparse's median wall over each step's median, and the worst
pairing (blkparse's fastest run over the step's slowest). One table per run of ab_binary.sh in the log (each
starts with its `seed` line). `--cpu`: CPU seconds (user + sys) instead of wall, for a loaded machine, where wall
follows the other work on the core (blkparse's 25 s of system calls most). `--compact`: the ratios only, a set a
line, and per step the sets under issue 43's targets (25x on one core, 40x on two); when the log has cpu_pair.c's
probes (ab_binary.sh since 2026-11-30's seventh session), also how many runs had the two vCPUs apart (a probe over
ab_log.APART_NS before or after the run) and the ratios over the other runs.
Usage: python ab_summary.py LOG [--cpu] [--compact]"""

import statistics
import sys
from pathlib import Path

from ab_log import TARGET, sections

STEPS = ["before1", "after1", "before2", "after2"]


CPU = "--cpu" in sys.argv[2:]
COMPACT = "--compact" in sys.argv[2:]
WHAT = "CPU" if CPU else "wall"


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


def compact(runs: dict[str, dict[str, list[float]]], apart: dict[tuple[str, str], list[bool]] | None) -> None:
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
        summary(s, medians[s], TARGET[s[-1]])
    for s in STEPS if apart else []:
        n_apart = sum(sum(apart[name, s]) for name in runs)
        together = [ratios(r["blkparse"], kept)[0] for name, r in runs.items()
                    if (kept := [x for x, a in zip(r[s], apart[name, s], strict=True) if not a])]
        summary(f"{s}, the runs with the vCPUs together ({n_apart} of {sum(len(r[s]) for r in runs.values())} apart)",
                together, TARGET[s[-1]])


def summary(label: str, v: list[float], target: int) -> None:
    if not v:
        print(f"{label}: no runs")
        return
    print(f"{label}: medians {min(v):.1f}-{max(v):.1f}x, their median {statistics.median(v):.1f}x; "
          f"{sum(x < target for x in v)} of {len(v)} sets under {target}x")


for runs, apart in sections(Path(sys.argv[1]), CPU):
    print(f"\n{len(runs)} sets")
    compact(runs, apart) if COMPACT else table(runs)
