"""A recorded random order for capturing runs of the runs sheet: repeats of all configurations interleaved, so
that drift of the machine's speed does not line up with one configuration. Writes one run_id a line, headed by
the seed and the command that made it; `scripts/capture_in_order.sh FILE` captures in that order.

    python scripts/capture_order.py --runs config/runs.tsv --match cassandra --seed 20261124 -o FILE

The file goes under config/ (data/raw holds only run directories and the manifest)."""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

import polars as pl


def config_of(run_id: str) -> str:
    return re.sub(r"-r\d+$", "", run_id)


def order(run_ids: list[str], seed: int) -> tuple[list[str], int]:
    """Shuffled with seed; reshuffled (seed+1, ...) until no configuration's repeats are all consecutive.
    Returns the order and the seed that gave it."""
    for s in range(seed, seed + 1000):
        ids = sorted(run_ids)
        random.Random(s).shuffle(ids)
        if not any_consecutive(ids):
            return ids, s
    raise RuntimeError("no order without consecutive repeats in 1000 seeds")


def any_consecutive(ids: list[str]) -> bool:
    pos: dict[str, list[int]] = {}
    for i, r in enumerate(ids):
        pos.setdefault(config_of(r), []).append(i)
    return any(len(p) > 1 and p[-1] - p[0] == len(p) - 1 for p in pos.values())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=Path, default=Path("config/runs.tsv"))
    p.add_argument("--match", required=True, help="regular expression on run_id")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("-o", "--out", type=Path, required=True)
    a = p.parse_args(argv)
    ids = [r for r in pl.read_csv(a.runs, separator="\t")["run_id"].to_list() if re.search(a.match, r)]
    ids, used = order(ids, a.seed)
    cmd = " ".join(["python scripts/capture_order.py", *(argv if argv is not None else sys.argv[1:])])
    head = f"# capture order: {len(ids)} runs, random.Random(seed).shuffle of the sorted run_ids, seed {used}\n"
    a.out.write_text(head + f"# made by: {cmd}\n" + "\n".join(ids) + "\n")
    print(f"{a.out}: {len(ids)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
