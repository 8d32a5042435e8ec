"""Sums py-spy's collapsed stacks of Snakemake's process (bench/dag/profile_master.sh's master.raw) into causes:
python bench/dag/profile_summary.py master.raw [RATE] [--top N]

Samples / RATE are seconds of a thread that py-spy saw active: stacks that end in a blocking wait (IDLE) are left
out; a runnable thread waiting for a core still counts, so on a loaded machine these over-count CPU: read shares.
A stack's cause is the first rule of CAUSES whose pattern is in it (the order matters: a checksum under postprocess
is "checksums", not "job postprocess"); then the top functions by self samples (the stack's last frame) and by
inclusive samples (once a stack)."""

import collections
import re
import sys

# a stack whose last frame is one of these is a thread blocked, not running (--nonblocking cannot tell them apart)
IDLE = re.compile(
    r"^(Condition\.wait|Event\.wait|Thread\.start|EpollSelector\.select|Popen\._try_wait|_worker|Thread\.join"
    r"|Popen\.wait|select|sleep|Queue\.get|SimpleQueue\.get) "
)
# (cause, regex over the joined stack), first match wins
CAUSES = [
    ("benchmark timer (psutil, every 0.5 s of a benchmarked job)", r"benchmark\.py"),
    ("scheduler passes: input sizes of the ready jobs", r"update_input_sizes|job_selector.*async_run"),
    ("input checksums (persistence)", r"\bchecksum\b"),
    ("ILP scheduler (pulp, cbc) and the rest of job selection", r"milp\.py|pulp|job_selector"),
    ("job params/resources reset", r"reset_params_and_resources"),
    ("job postprocess (metadata, outputs)", r"postprocess|persistence"),
    ("dag.finish / update after a job", r"\(finish \(snakemake/dag\.py|update_needrun|update_ready|_update_group"),
    ("spawning the job's shell (fork/exec)", r"_execute_child|Popen"),
    ("formatting the shell command", r"\bformat\b.*shell\.py|shell\.py.*\bformat\b|format_files|_format"),
    ("logging", r"logging|logger"),
    ("parsing the workflow", r"parser\.py|compile|include"),
    ("DAG build", r"dag\.py"),
]


def frames(stack: str) -> list[str]:
    return stack.split(";")


def main(path: str, rate: float, top: int) -> None:
    causes: dict[str, int] = collections.Counter()
    threads: dict[str, int] = collections.Counter()
    self_: dict[str, int] = collections.Counter()
    incl: dict[str, int] = collections.Counter()
    total = idle = 0
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(n)
            fs = frames(stack)
            if IDLE.match(fs[-1]):
                idle += n
                continue
            if fs and fs[0].startswith("thread ("):
                threads[fs[0]] += n
                fs = fs[1:]
            total += n
            cause = next((c for c, rx in CAUSES if re.search(rx, stack)), "other" if fs else "no Python frame")
            causes[cause] += n
            if fs:
                self_[fs[-1]] += n
            for fr in set(re.sub(r":\d+\)", ")", x) for x in fs):
                incl[fr] += n
    print(f"{total} busy samples = {total / rate:.1f} thread-s at {rate:g} Hz ({idle / rate:.1f} more blocked)")
    print("\nby cause (first match in CAUSES):")
    for c, n in causes.most_common():
        print(f"  {n / rate:8.1f} s  {100 * n / total:5.1f} %  {c}")
    print("\nby thread:")
    for t, n in threads.most_common(top):
        print(f"  {n / rate:8.1f} s  {t}")
    print(f"\ntop {top} by self samples:")
    for fr, n in self_.most_common(top):
        print(f"  {n / rate:8.1f} s  {fr}")
    print(f"\ntop {top} by inclusive samples:")
    for fr, n in incl.most_common(top):
        print(f"  {n / rate:8.1f} s  {fr}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 30
    if "--top" in sys.argv:
        args.remove(str(n))
    main(args[0], float(args[1]) if len(args) > 1 else 50.0, n)
