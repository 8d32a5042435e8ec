"""CPU seconds per job of a running `snakemake`: python bench/dag/sample_cpu.py PID OUT.json (ends with PID).

Every 0.1 s it reads the CPU time of each process under PID; at the end it sums them per job: the command of the
nearest `sh -c` ancestor (a job's shell; for a command line Snakemake writes to a script, the script's first
characters), or `snakemake(main)` for the process itself. Processes shorter than 0.1 s are missed."""

import collections
import json
import sys
import time

import psutil


def job_of(p: psutil.Process, root: int) -> str:
    try:
        chain = [p, *p.parents()]
    except psutil.Error:
        return "other"
    for q in chain:
        if q.pid == root:
            return "snakemake(main)"
        try:
            c = q.cmdline()
        except psutil.Error:
            continue
        if len(c) >= 3 and c[0].endswith("sh") and c[1] == "-c":
            return c[2][:160]
        if len(c) == 2 and c[0].endswith("sh") and c[1].endswith(".sh"):  # a long command, run from a script
            try:
                with open(c[1]) as f:
                    return f.read()[:160]
            except OSError:
                continue
    return "other"


def main(pid: int, out: str) -> None:
    root = psutil.Process(pid)
    last: dict[int, list] = {}  # pid -> [job, CPU seconds at the last sample]
    while root.is_running():
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            break
        for p in procs:
            try:
                t = p.cpu_times()
                if p.pid not in last:  # its job once: walking the parents at every sample cost ~10 % of a core
                    last[p.pid] = [job_of(p, pid), 0.0]
                last[p.pid][1] = t.user + t.system
            except psutil.Error:
                pass
        time.sleep(0.1)
    per_job: dict[str, float] = collections.defaultdict(float)
    for job, cpu in last.values():
        per_job[job] += cpu
    with open(out, "w") as f:
        json.dump(sorted(per_job.items(), key=lambda x: -x[1]), f, indent=0)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
