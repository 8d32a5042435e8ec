"""Sum bench/pytest_cpu.py's lines per module (or per test with --tests): CPU s, wall s, tests; largest first.
With --timeline: each module's worker, first start and last end (s after the first test's start), latest end
first: what ran in the suite's tail. Usage: python bench/pytest_cpu_sum.py OUT_PREFIX [--tests | --timeline] [N]"""

import collections
import glob
import sys


def main() -> None:
    prefix, args = sys.argv[1], sys.argv[2:]
    per_test = "--tests" in args
    n = int(next((a for a in args if a.isdigit()), "40"))
    cpu: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    spans: dict[str, list] = {}  # module -> [worker, first start, last end] (lines with a start column)
    for path in sorted(glob.glob(f"{prefix}.*")):
        worker = path.rsplit(".", 1)[-1]
        with open(path) as f:
            lines = f.read().splitlines()
        for line in lines:
            nodeid, wall, self_, child, *start = line.split("\t")
            key = nodeid if per_test else nodeid.split("::")[0]
            row = cpu[key]
            row[0] += float(self_) + float(child)
            row[1] += float(wall)
            row[2] += float(child)
            row[3] += 1
            if start:
                module, t0 = nodeid.split("::")[0], float(start[0])
                span = spans.setdefault(module, [worker, t0, t0 + float(wall)])
                span[1], span[2] = min(span[1], t0), max(span[2], t0 + float(wall))
    if "--timeline" in args:
        zero = min(s[1] for s in spans.values())
        print("worker\tstart_s\tend_s\tcpu_s\tmodule")
        for module, (worker, t0, t1) in sorted(spans.items(), key=lambda kv: -kv[1][2])[:n]:
            print(f"{worker}\t{t0 - zero:.0f}\t{t1 - zero:.0f}\t{cpu[module][0]:.1f}\t{module}")
        return
    total = sum(r[0] for r in cpu.values())
    print(f"total CPU {total:.1f} s over {sum(r[3] for r in cpu.values())} tests")
    print("cpu_s\tchildren_s\twall_s\ttests\tname")
    for key, (c, w, ch, k) in sorted(cpu.items(), key=lambda kv: -kv[1][0])[:n]:
        print(f"{c:.1f}\t{ch:.1f}\t{w:.1f}\t{k}\t{key}")


if __name__ == "__main__":
    main()
