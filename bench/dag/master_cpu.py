"""The CPU of Snakemake's own process apart from its jobs': python bench/dag/master_cpu.py PID OUT.json (ends with PID).

Every 0.5 s it reads /proc/PID/stat: the process's own user and sys time (all its threads, those that have ended
included) and its reaped children's (cutime, cstime: every job's `bash -c` and what ran under it, once waited for),
and each live thread's. OUT.json: the last reading, a series (one reading every ~5 s, to see when the process spent
it: start-up, during the jobs, at the end), and how many threads were seen (Snakemake's benchmark timer starts one
per tick). Unlike sample_cpu.py, nothing is attributed by command lines, and no process is missed for being short."""

import json
import os
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def stat(path: str) -> list[str]:
    with open(path) as f:
        return f.read().rsplit(")", 1)[1].split()  # fields from the state on (the name may hold spaces)


def main(pid: int, out: str) -> None:
    t0 = time.monotonic()
    last = None
    series, threads = [], {}
    while True:
        try:
            s = stat(f"/proc/{pid}/stat")
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    ts = stat(f"/proc/{pid}/task/{tid}/stat")
                    threads[tid] = (int(ts[11]) + int(ts[12])) / TICK
                except OSError:
                    pass
        except OSError:
            break
        if s[0] == "Z":  # exited, not yet reaped: its last values are final
            last = s
            break
        last = s
        now = time.monotonic() - t0
        if not series or now - series[-1][0] >= 5:
            series.append([round(now, 1), *(int(x) / TICK for x in s[11:15])])
        time.sleep(0.5)
    utime, stime, cutime, cstime = (int(x) / TICK for x in last[11:15])
    with open(out, "w") as f:
        json.dump({"self_user": utime, "self_sys": stime, "children_user": cutime, "children_sys": cstime,
                   "wall": round(time.monotonic() - t0, 1), "threads_seen": len(threads),
                   "top_threads": sorted(threads.values(), reverse=True)[:10],
                   "series [t, user, sys, cuser, csys]": series}, f, indent=0)  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
