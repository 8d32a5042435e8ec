"""The main job in two trees, interleaved, and their outputs compared (issue S's check: time and outputs unchanged).

    python bench/startup/main_job_ab.py A_TREE B_TREE OUT [--order ABBA] [--cores 2]

A_TREE and B_TREE are `git archive` exports with nothing generated. At each position of the order, a fresh copy of
the tree (OUT/run-N-X: one copy per run, so no run finds another's outputs) runs `snakemake --cores C all` with its
src/ on PYTHONPATH; the wall time, the CPU of everything under it (user + sys) and the 1-min load just before go to
OUT/runs.tsv as each run ends. Then the outputs (data/processed, paper/generated, paper/main.pdf,
notebooks/executed) of the first A run and the first B run are compared as bench/kill_resume.py compares a resumed
tree (bench/normalised.py: byte for byte, or without what two clean runs of one commit may differ in); the
differences go to OUT/outputs.diff. Run it with the machine to itself (/work/locks/quiet)."""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import kill_resume  # noqa: E402

OUTPUTS = ("data/processed/", "paper/generated/", "paper/main.pdf", "notebooks/executed/")


def run(tree: Path, cores: int, log: Path) -> tuple[int, float, float]:
    """(exit, wall s, CPU s of the job and everything under it)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    rc = kill_resume.job(tree, cores, log).wait()
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return rc, wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--order", default="ABBA")
    ap.add_argument("--cores", type=int, default=2)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    src = {"A": a.a.resolve(), "B": a.b.resolve()}
    first: dict[str, Path] = {}
    tsv = a.out / "runs.tsv"
    tsv.write_text(f"# A {src['A']}  B {src['B']}  order {a.order}  cores {a.cores}\n"
                   "position\tarm\tstart_utc\tload1_before\texit\twall_s\tcpu_s\n")  # fmt: skip
    for i, arm in enumerate(a.order, 1):
        load = Path("/proc/loadavg").read_text().split()[0]  # before the copy, which would raise it
        tree = a.out / f"run-{i}-{arm}"
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(src[arm], tree, symlinks=True)
        start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        rc, wall, cpu = run(tree, a.cores, a.out / f"run-{i}-{arm}.log")
        with tsv.open("a") as f:
            f.write(f"{i}\t{arm}\t{start}\t{load}\t{rc}\t{wall:.1f}\t{cpu:.1f}\n")
        print(f"{i} {arm} exit {rc} wall {wall:.1f} s cpu {cpu:.1f} s (load before {load})", flush=True)
        if rc:
            return 1
        first.setdefault(arm, tree)
    lines, other = kill_resume.differences(first["A"], first["B"])
    lines = [x for x in lines if x.split()[1].startswith(OUTPUTS)]
    other = [x for x in other if x.split()[-1].startswith(OUTPUTS)]
    (a.out / "outputs.diff").write_text("".join(f"{x}\n" for x in lines + other))
    print(f"outputs: {len(lines)} differ, {len(other)} not comparable (OUT/outputs.diff)")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
