"""A local run's thread budget, never above the CPUs it may use.

`snakemake --cores 8 all` on a 2-CPU machine ran up to 8 jobs at once: their polars pools, native threads and caches
then share 2 CPUs and the DAG took ~50 CPU-s more than at `--cores 2` (bench/RESULTS.md, "the main job's cores").
Snakemake's --cores is a maximum, so a local run takes min(--cores, CPUs + T - 1), T the largest rule's threads: a
T-thread job then starts once one CPU is free instead of idling the others until all T are (and the scheduler
refuses a job that needs more than the budget)."""

import os
import sys


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask: taskset, a cgroup's cpuset), not the host's count."""
    return len(os.sched_getaffinity(0))


def budget(cores: int, cpus: int, rule_threads: list[int]) -> int:
    """The thread budget for `cores` asked on `cpus` CPUs, given the rules' fixed thread counts."""
    return min(cores, cpus + max(rule_threads, default=1) - 1)


def cap(workflow, cpus: int | None = None) -> int:
    """Lower the scheduler's `_cores` to budget(); returns it. Call from onstart (the scheduler exists by then)."""
    scheduler = workflow.scheduler
    cores = scheduler.global_resources["_cores"]
    fixed = [t for r in workflow.rules if isinstance(t := r.resources.get("_cores"), int)]
    n = usable_cpus() if cpus is None else cpus
    new = budget(cores, n, fixed)
    if new < cores:
        # resources is the free budget: nothing runs yet, so it equals global_resources here
        scheduler.global_resources["_cores"] = scheduler.resources["_cores"] = new
        print(f"blkscope: --cores {cores} on {n} usable CPUs: at most {new} threads at once", file=sys.stderr)
    return new
