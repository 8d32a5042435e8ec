"""Run one command; print its wall time, CPU (user + sys of it and its children) and peak RSS of the whole
process tree (sampled every 20 ms: the latency verb's Python and blkscope-native replay run at once, and
/usr/bin/time's maximum is of the largest single process, not their sum).

Usage: python measure.py LABEL CMD...   -> one TSV line on stdout: label wall_s user_s sys_s tree_rss_mib max_rss_mib
"""

import contextlib
import os
import resource
import subprocess
import sys
import time

import psutil


def tree_rss(p: psutil.Process) -> int:
    total = 0
    for q in [p, *p.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += q.memory_info().rss
    return total


def main() -> None:
    label, cmd = sys.argv[1], sys.argv[2:]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd)
    ps, peak = psutil.Process(proc.pid), 0
    while proc.poll() is None:
        try:
            peak = max(peak, tree_rss(ps))
        except psutil.NoSuchProcess:
            break
        time.sleep(0.02)
    wall = time.perf_counter() - t
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{label}: exit {proc.returncode}: {' '.join(cmd)}")
    print(f"{label}\t{wall:.3f}\t{ru.ru_utime:.2f}\t{ru.ru_stime:.2f}\t{peak / 2**20:.0f}\t{ru.ru_maxrss / 1024:.0f}",
          flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
