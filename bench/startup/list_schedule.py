"""How long the main job's DAG takes on N CPUs if the work is all there is: a list schedule of its jobs.

    python bench/startup/list_schedule.py DAG.dot SNAKEMAKE.log [--cpus 2]

DAG.dot: `snakemake --cores 1 --forceall --dag dot all` in the tree; SNAKEMAKE.log: a finished run's log, for each
job's length (1-s resolution, so a job under a second counts 0.7 s) and threads. Prints the critical path and the
list schedule's length under three priority rules (bench/RESULTS.md, "the main job's cores")."""

from __future__ import annotations

import argparse
import collections
import functools
import heapq
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dag"))
from job_timeline import details  # noqa: E402


def log_jobs(path: str) -> dict[str, tuple[float, int]]:
    """'rule\\nwildcard: value' -> (seconds, threads), as the DAG's labels name jobs."""
    jobs = details(Path(path).read_text())
    return {j["rule"] + ("\n" + j["wildcards"].replace("=", ": ") if j["wildcards"] else ""):
            (max((j["end"] - j["start"]).seconds, 0.7), j["threads"]) for j in jobs}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dot")
    ap.add_argument("log")
    ap.add_argument("--cpus", type=int, default=2)
    a = ap.parse_args()
    known = log_jobs(a.log)
    label, succ, npred = {}, collections.defaultdict(list), collections.Counter()
    for line in Path(a.dot).read_text().splitlines():
        if m := re.match(r'\s*(\d+)\[label = "(.*?)"', line):
            label[m.group(1)] = m.group(2).replace("\\n", "\n")
        elif m := re.match(r"\s*(\d+) -> (\d+)", line):
            succ[m.group(1)].append(m.group(2))
            npred[m.group(2)] += 1
    length = {n: known.get(x, (1.0, 1))[0] for n, x in label.items()}
    threads = {n: known.get(x, (1.0, 1))[1] for n, x in label.items()}
    print(f"{sum(x not in known for x in label.values())} of {len(label)} jobs not in the log (counted 1 s)")

    @functools.cache
    def rest(n: str) -> float:  # the longest path from n's start to the end
        return length[n] + max((rest(s) for s in succ[n]), default=0.0)

    def schedule(priority) -> float:
        t, free, waiting, running, left = 0.0, a.cpus, [n for n in label if not npred[n]], [], dict(npred)
        while waiting or running:
            waiting.sort(key=priority, reverse=True)
            for n in [n for n in waiting if threads[n] <= a.cpus]:
                if threads[n] <= free:
                    free -= threads[n]
                    waiting.remove(n)
                    heapq.heappush(running, (t + length[n], n))
            t, n = heapq.heappop(running)
            free += threads[n]
            for s in succ[n]:
                left[s] -= 1
                if not left[s]:
                    waiting.append(s)
        return t

    work = sum(length[n] * threads[n] for n in label)
    print(f"critical path {max(map(rest, label)):.1f} s; work {work:.1f} thread-s ({work / a.cpus:.1f} s on {a.cpus})")
    for name, prio in (("longest path first", rest), ("longest job first", length.get), ("DAG order", lambda n: 0)):
        print(f"list schedule, {name}: {schedule(prio):.1f} s")


if __name__ == "__main__":
    main()
