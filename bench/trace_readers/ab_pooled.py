"""Issue 43 item 2's per-set verdict over every round of ab_binary.sh that ran the same code (several logs pooled).
A run of 3 rounds misses about one set in 31 by noise alone on a noisy host (ab_noise.py); its rounds are each
interleaved, so pooling rounds of runs of the same builds keeps every comparison within a round.
Per set and round r: y_r = log(blkparse_r / geometric mean of the listed steps' r-th walls). The set's ratio is
exp(mean y) with a 95 % interval (percentiles of the mean over rounds resampled with replacement); a set is "over"
the target when the whole interval is, "under" when the whole interval is under, else "either". Also printed: the
ratio of medians over the pooled walls (ab_summary.py's measure, over more rounds).
Usage: python ab_pooled.py [--probes-under NS] LOG[:ONE[:TWO]]...   ONE, TWO: comma-separated steps of one and two
cores that ran the code judged (default before1,after1 and before2,after2; an empty list leaves that log out of that
judgement). --probes-under NS: only the steps whose two cpu_pair probes (just before and after) were both under NS
ns, i.e. the host ran both vCPUs at once around them; a set's round with no such step is left out."""

import math
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from ab_log import TARGET, sections

RESAMPLES = 4000


def rounds(path: Path, steps: list[str], probes_under: float | None = None) -> dict[str, list[tuple[float, float]]]:
    """{set: [(blkparse_r, geometric mean of the steps' r-th walls), ...]} of one log (with `probes_under`: of
    those of its steps whose probes were both under it, rounds with none left out)."""
    out = defaultdict(list)
    for runs, stalled in sections(path, apart_ns=probes_under or 0):
        if probes_under is not None and stalled is None:
            sys.exit(f"{path}: no cpu_pair probes in this log")
        for name, r in runs.items():
            for i, b in enumerate(r["blkparse"]):
                w = [r[s][i] for s in steps if probes_under is None or not stalled[name, s][i]]
                if w:
                    out[name].append((b, math.exp(statistics.fmean(map(math.log, w)))))
    return out


def interval(y: list[float], rng: random.Random) -> tuple[float, float]:
    means = sorted(statistics.fmean(rng.choices(y, k=len(y))) for _ in range(RESAMPLES))
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def judge(label: str, pooled: dict[str, list[tuple[float, float]]], target: int, rng: random.Random) -> None:
    print(f"\n{label}: target {target}x")
    print("| set | rounds | ratio (95 % interval) | ratio of medians | verdict |")
    print("|---|---|---|---|---|")
    verdicts = defaultdict(int)
    est = []
    ys = {name: [math.log(b / v) for b, v in pairs] for name, pairs in pooled.items()}
    for name, y in sorted(ys.items(), key=lambda kv: statistics.fmean(kv[1])):
        pairs = pooled[name]
        lo, hi = interval(y, rng)
        v = "over" if lo >= math.log(target) else "under" if hi < math.log(target) else "either"
        verdicts[v] += 1
        est.append(math.exp(statistics.fmean(y)))
        med = statistics.median(b for b, _ in pairs) / statistics.median(s for _, s in pairs)
        print(f"| {name} | {len(y)} | {est[-1]:.1f}x ({math.exp(lo):.1f}-{math.exp(hi):.1f}x) | {med:.1f}x | {v} |")
    print(f"{label}: {len(pooled)} sets, ratios {min(est):.1f}-{max(est):.1f}x; over {verdicts['over']}, "
          f"either {verdicts['either']}, under {verdicts['under']}")


def main() -> None:
    pooled: dict[str, dict[str, list[tuple[float, float]]]] = {"1": defaultdict(list), "2": defaultdict(list)}
    args = sys.argv[1:]
    probes_under = None
    if args[:1] == ["--probes-under"]:
        probes_under, args = float(args[1]), args[2:]
    for arg in args:
        path, *lists = arg.split(":")
        lists += ["before1,after1", "before2,after2"][len(lists):]
        for cores, steps in zip("12", lists, strict=True):
            if steps:
                for name, pairs in rounds(Path(path), steps.split(","), probes_under).items():
                    pooled[cores][name] += pairs
    rng = random.Random(43)
    for cores in "12":
        if pooled[cores]:
            judge("one core" if cores == "1" else "two cores", pooled[cores], TARGET[cores], rng)


if __name__ == "__main__":
    main()
