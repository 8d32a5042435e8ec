"""The fixed cost of `blkscope ingest --kind blktrace SET` around its native program, in two trees, interleaved
(issue 43 item 2: the issue times the whole command against blkparse).

    python bench/startup/ingest_start.py A_TREE B_TREE [--set /var/tmp/B/bin/tiled] [--rounds 15] [--whole 10]

1. Start to native: BLKSCOPE_NATIVE is a script that writes `date +%s.%N` and exits (the ingest then fails: no
   report); the time from the command's start to that stamp, one core (`taskset -c 0`), `--rounds` per tree.
2. The whole command with the real blkscope-native (BLKSCOPE_NATIVE, else A_TREE's release build) on one core and on
   two, `--whole` per tree, a fresh -o each run; every run's events.parquet and ingest.json byte-equal to a first
   (warm-up) run of A.
Each tree's src/ is compiled first (the machine sets PYTHONDONTWRITEBYTECODE, so both read bytecode). Run under
/work/locks/cpu twice nested (both cores) or /work/locks/quiet."""

from __future__ import annotations

import argparse
import compileall
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BLKSCOPE = str(Path(sys.executable).with_name("blkscope"))


def ingest(tree: Path, native: str, cpus: str, inputs: str, out: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "BLKSCOPE_NATIVE": native}
    t = time.time()
    subprocess.run(["taskset", "-c", cpus, BLKSCOPE, "ingest", "--kind", "blktrace", inputs, "-o", str(out)], env=env,
                   stderr=subprocess.DEVNULL)  # fmt: skip
    return t


def show(what: str, ms: dict[Path, list[float]]) -> None:
    for tree, v in ms.items():
        print(
            f"{what:26s} {str(tree):24s} median {statistics.median(v):6.1f} ms  range {min(v):.1f}-{max(v):.1f}"
            f"  (n={len(v)})"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs=2, type=Path)
    ap.add_argument("--set", default="/var/tmp/B/bin/tiled", help="the blktrace set (prefix, directory or files)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--whole", type=int, default=10)
    a = ap.parse_args()
    trees = [t.resolve() for t in a.trees]
    native = os.environ.get("BLKSCOPE_NATIVE") or str(trees[0] / "native/target/release/blkscope-native")
    for t in trees:
        compileall.compile_dir(t / "src", quiet=1)
    with tempfile.TemporaryDirectory(prefix="ingest-start-") as tmp:
        d = Path(tmp)
        stamp, fake = d / "stamp", d / "fake.sh"
        fake.write_text(f"#!/bin/sh\ndate +%s.%N > {stamp}\n")
        fake.chmod(0o755)
        start: dict[Path, list[float]] = {t: [] for t in trees}
        for i in range(a.rounds):
            for t in trees if i % 2 == 0 else trees[::-1]:
                t0 = ingest(t, str(fake), "0", a.set, d / "out")
                start[t].append((float(stamp.read_text()) - t0) * 1000)
        show("start to native, 1 core", start)
        ref = d / "ref"
        ingest(trees[0], native, "0,1", a.set, ref)
        for cpus in ("0", "0,1"):
            whole: dict[Path, list[float]] = {t: [] for t in trees}
            for i in range(a.whole):
                for t in trees if i % 2 == 0 else trees[::-1]:
                    out = d / f"out{i}"
                    t0 = ingest(t, native, cpus, a.set, out)
                    whole[t].append((time.time() - t0) * 1000)
                    for f in ("events.parquet", "ingest.json"):
                        if not filecmp.cmp(ref / f, out / f, shallow=False):
                            raise SystemExit(f"{t}: {f} differs from the first run's")
                    shutil.rmtree(out)
            show(f"whole, cpus {cpus}", whole)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
