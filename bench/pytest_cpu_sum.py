"""Sum bench/pytest_cpu.py's lines per module (or per test with --tests): CPU s, wall s, tests; largest first.
Usage: python bench/pytest_cpu_sum.py OUT_PREFIX [--tests] [N]"""

import collections
import glob
import sys


def main() -> None:
    prefix, args = sys.argv[1], sys.argv[2:]
    per_test = "--tests" in args
    n = int(next((a for a in args if a.isdigit()), "40"))
    cpu: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for path in glob.glob(f"{prefix}.*"):
        with open(path) as f:
            lines = f.read().splitlines()
        for line in lines:
            nodeid, wall, self_, child = line.split("\t")
            key = nodeid if per_test else nodeid.split("::")[0]
            row = cpu[key]
            row[0] += float(self_) + float(child)
            row[1] += float(wall)
            row[2] += float(child)
            row[3] += 1
    total = sum(r[0] for r in cpu.values())
    print(f"total CPU {total:.1f} s over {sum(r[3] for r in cpu.values())} tests")
    print("cpu_s\tchildren_s\twall_s\ttests\tname")
    for key, (c, w, ch, k) in sorted(cpu.items(), key=lambda kv: -kv[1][0])[:n]:
        print(f"{c:.1f}\t{ch:.1f}\t{w:.1f}\t{k}\t{key}")


if __name__ == "__main__":
    main()
