"""Whether the sets of ab_binary.sh's logs differ in speed ratio, or only its runs do (issue 43 item 2: "every set").
Per log and step (before1 ... after2): y = log(blkparse's wall / the step's wall) for each set and round, paired by
round (a set's r-th blkparse with its r-th run of the step, minutes apart at most). Prints
- the rounds' spread within a set (sd of y), and of the sets' medians of their rounds;
- a permutation test of a set effect: the variance of the sets' means of y against the same with the values dealt
  to sets at random (PERMUTATIONS times); p = the share of deals at least as spread. A large p: the sets' ratios
  differ no more than the rounds', and a set's place among the others is chance;
- the common ratio (exp of the mean of y) with the 2.5-97.5 % of its mean over sets resampled with replacement;
- how often a run of this design (its rounds, ratio of the medians) would show every set at or over the target if
  every set's ratio were the common one, the rounds drawn from the observed within-set deviations, and the common
  ratio at which half of such runs would.
With several logs, also the correlation between logs of the sets' median ratios (sets in both logs): near 0, a set
under the target in one run is not the slow one in the next.
Usage: python ab_noise.py LOG... [--step after1,after2]"""

import math
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from ab_log import TARGET, Runs, sections

PERMUTATIONS = 2000
SIMULATIONS = 2000


def load(path: Path) -> Runs:
    """{set: {step: [wall, ...]}} over the log's runs of ab_binary.sh, in its order (rounds in order)."""
    runs: Runs = defaultdict(lambda: defaultdict(list))
    for part, _ in sections(path):
        for name, steps in part.items():
            for step, walls in steps.items():
                runs[name][step].extend(walls)
    return runs


def paired(runs, step: str) -> dict[str, list[float]]:
    """{set: [log(blkparse_r / step_r) for each round r]}."""
    return {s: [math.log(b / v) for b, v in zip(r["blkparse"], r[step], strict=True)] for s, r in runs.items()}


def median_ratios(runs, step: str) -> dict[str, float]:
    return {s: math.log(statistics.median(r["blkparse"]) / statistics.median(r[step])) for s, r in runs.items()}


def spread_of_means(groups: list[list[float]]) -> float:
    return statistics.pvariance([statistics.fmean(g) for g in groups])


def permutation_p(groups: list[list[float]], rng: random.Random) -> float:
    observed = spread_of_means(groups)
    pool = [y for g in groups for y in g]
    sizes = [len(g) for g in groups]
    hits = 0
    for _ in range(PERMUTATIONS):
        rng.shuffle(pool)
        dealt, at = [], 0
        for n in sizes:
            dealt.append(pool[at:at + n])
            at += n
        hits += spread_of_means(dealt) >= observed
    return (hits + 1) / (PERMUTATIONS + 1)


def all_sets_pass(runs, step: str, target: float, rng: random.Random) -> tuple[float, float]:
    """Share of simulated runs of this design with every set's ratio of medians at or over `target`, every set's
    blkparse and step at the common ratio, the rounds' logs drawn from the observed deviations from their set's mean
    (blkparse's and the step's apart, as the ratio of medians takes them); and the common ratio at which half of
    such runs would (target over the median of the runs' lowest set)."""
    dev_b = [math.log(x) - statistics.fmean(map(math.log, r["blkparse"])) for r in runs.values() for x in r["blkparse"]]
    dev_v = [math.log(x) - statistics.fmean(map(math.log, r[step])) for r in runs.values() for x in r[step]]
    common = statistics.fmean(median_ratios(runs, step).values())
    rounds = min(len(r[step]) for r in runs.values())
    lowest = [min(statistics.median(rng.choice(dev_b) for _ in range(rounds))
                  - statistics.median(rng.choice(dev_v) for _ in range(rounds)) for _ in runs)
              for _ in range(SIMULATIONS)]
    share = sum(common + low >= math.log(target) for low in lowest) / SIMULATIONS
    return share, target * math.exp(-statistics.median(lowest))


def main() -> None:
    args = sys.argv[1:]
    steps = ["after1", "after2"]
    if "--step" in args:
        i = args.index("--step")
        steps = args[i + 1].split(",")
        del args[i:i + 2]
    rng = random.Random(43)
    logs = {Path(a).name: load(Path(a)) for a in args}
    for name, runs in logs.items():
        print(f"{name}: {len(runs)} sets")
        for step in steps:
            y = paired(runs, step)
            groups = list(y.values())
            within = math.sqrt(statistics.fmean(statistics.variance(g) for g in groups))
            meds = list(median_ratios(runs, step).values())
            means = [statistics.fmean(g) for g in groups]
            boot = sorted(statistics.fmean(rng.choices(means, k=len(means))) for _ in range(2000))
            target = TARGET[step[-1]]
            share, needed = all_sets_pass(runs, step, target, rng)
            lo, hi = math.exp(min(meds)), math.exp(max(meds))
            p = permutation_p(groups, rng)
            print(f"  {step}: rounds' sd of log ratio within a set {within:.3f}; sets' medians {lo:.1f}-{hi:.1f}x, "
                  f"sd {statistics.stdev(meds):.3f}; set effect p = {p:.2f}; common ratio "
                  f"{math.exp(statistics.fmean(means)):.1f}x ({math.exp(boot[50]):.1f}-{math.exp(boot[1949]):.1f}x); "
                  f"every set >= {target}x in {100 * share:.0f} % of simulated runs of this design (half of them "
                  f"at a common {needed:.1f}x)")
    names = list(logs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            sets = sorted(set(logs[a]) & set(logs[b]))
            if len(sets) < 3:
                continue
            for step in steps:
                x, y = median_ratios(logs[a], step), median_ratios(logs[b], step)
                print(f"{a} ~ {b}, {step}: correlation of the {len(sets)} sets' median ratios "
                      f"{statistics.correlation([x[s] for s in sets], [y[s] for s in sets]):+.2f}")


if __name__ == "__main__":
    main()
