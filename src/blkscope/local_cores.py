"""A local run's thread budget: the CPUs it may use, plus what its largest job's threads need beyond one CPU.

`snakemake --cores 8 all` on a 2-CPU machine ran up to 8 jobs at once: their polars pools, native threads and caches
then share 2 CPUs for nothing: 294-316 CPU-s against 263-274 at a budget of 2, the wall no different (bench/RESULTS.md,
"the main job's cores").
Snakemake's --cores is a maximum, so a local run takes min(--cores, CPUs + T - 1), T the most threads any job to run
takes: a T-thread job then starts once one CPU is free instead of idling the others until all T are (and the
scheduler refuses a job that needs more than the budget)."""

import os
import sys


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask: taskset, a cgroup's cpuset), not the host's count."""
    return len(os.sched_getaffinity(0))


def budget(cores: int, cpus: int, job_threads: list[int]) -> int:
    """The thread budget for `cores` asked on `cpus` CPUs, given the threads of the jobs to run."""
    return min(cores, cpus + max(job_threads, default=1) - 1)


def cap(workflow) -> int:
    """Lower the scheduler's `_cores` to budget(); returns it. Call from onstart (the scheduler exists by then)."""
    scheduler = workflow.scheduler
    cores = scheduler.global_resources["_cores"]
    # each job's threads as Snakemake evaluated them (a rule's callable too), already within --cores
    threads = [int(job.threads) for job in workflow.dag.needrun_jobs()]
    n = usable_cpus()
    new = budget(cores, n, threads)
    if new < cores:
        # resources is the free budget: nothing runs yet, so it equals global_resources here
        scheduler.global_resources["_cores"] = scheduler.resources["_cores"] = new
        cpus_, threads_ = f"CPU{'' if n == 1 else 's'}", f"thread{'' if new == 1 else 's'}"
        print(f"blkscope: --cores {cores} on {n} usable {cpus_}: at most {new} {threads_} at once", file=sys.stderr)
    return new
