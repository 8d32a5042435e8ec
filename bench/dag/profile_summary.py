"""Sums py-spy's collapsed stacks of Snakemake's process (bench/dag/profile_master.sh's master.raw) into causes:
python bench/dag/profile_summary.py master.raw [RATE] [--top N]

Samples / RATE are seconds of a thread on a CPU (py-spy leaves idle threads out by default; --nonblocking can
catch a thread mid-update, so a few stacks are torn). A stack's cause is the first rule of CAUSES whose pattern is
in it (the order matters: a checksum under postprocess is "checksums", not "job postprocess"); then the top
functions by self samples (the stack's last frame) and by inclusive samples (once a stack)."""

import collections
import re
import sys

# (cause, regex over the joined stack), first match wins
CAUSES = [
    ("benchmark timer (psutil, every 0.5 s of a benchmarked job)", r"benchmark\.py"),
    ("input checksums (persistence)", r"\bchecksum\b"),
    ("ILP scheduler (pulp, cbc)", r"milp\.py|pulp"),
    ("input sizes for the scheduler", r"update_input_sizes"),
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
    total = 0
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(n)
            total += n
            fs = frames(stack)
            if fs and fs[0].startswith("thread ("):
                threads[fs[0]] += n
                fs = fs[1:]
            cause = next((c for c, rx in CAUSES if re.search(rx, stack)), "other")
            causes[cause] += n
            if fs:
                self_[fs[-1]] += n
            for fr in set(re.sub(r":\d+\)", ")", x) for x in fs):
                incl[fr] += n
    print(f"{total} samples = {total / rate:.1f} thread-CPU-s at {rate:g} Hz")
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
