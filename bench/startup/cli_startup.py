"""Start-up of the command line and of Snakemake's no-op in two trees, interleaved (issue S: the verbs by topic).

    python bench/startup/cli_startup.py A_TREE B_TREE [--repeats 15] [--no-snakemake]

Each tree is a checkout (its src/ on PYTHONPATH) in which the main job has run, so its `snakemake --cores 2 all`
is a no-op and its modules are compiled (the Snakefile's onstart). Per round, A and B in alternating order:
`python -m blkscope --help`, `blkscope ingest --help`, `blkscope zipf --help` (wall and CPU of the process), the
first two also cold (no cached bytecode: an empty PYTHONPYCACHEPREFIX, so every module compiles, the standard
library's too); in the first five rounds Snakemake's no-op. First the number of blkscope modules each command loads.
Run it with the machine to itself (/work/locks/quiet)."""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = {"--help": ["--help"], "ingest --help": ["ingest", "--help"], "zipf --help": ["zipf", "--help"]}
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def env(tree: Path, cold: str | None = None) -> dict[str, str]:
    e = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    return e | ({"PYTHONPYCACHEPREFIX": cold} if cold else {})


def timed(cmd: list[str], tree: Path, cwd: Path | None = None, cold: str | None = None) -> tuple[float, float]:
    """(wall, CPU user + sys) of the command in ms."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env(tree, cold), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        raise SystemExit(f"{' '.join(cmd)} in {tree}: exit {p.returncode}: {p.stderr[-500:]}")
    return wall * 1000, (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000


def modules_loaded(tree: Path, args: list[str]) -> int:
    code = ("import sys, contextlib, io\nfrom blkscope.cli import main\nwith contextlib.suppress(SystemExit), "
            f"contextlib.redirect_stdout(io.StringIO()): main({args!r})\n"
            "print(len([m for m in sys.modules if m.startswith('blkscope')]))")
    return int(subprocess.run([sys.executable, "-c", code], env=env(tree), capture_output=True, text=True,
                              check=True).stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs=2, type=Path)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--no-snakemake", action="store_true")
    a = ap.parse_args()
    trees = {str(t): t.resolve() for t in a.trees}
    for name, tree in trees.items():
        for c, args in CLI.items():
            print(f"{name} {c}: {modules_loaded(tree, args)} blkscope modules loaded")
    res: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as cold:
        for i in range(a.repeats):
            order = list(trees.items()) if i % 2 == 0 else list(trees.items())[::-1]
            for name, tree in order:
                for c, args in CLI.items():
                    res.setdefault((name, c), []).append(timed([sys.executable, "-m", "blkscope", *args], tree))
                for c in ("--help", "ingest --help"):
                    res.setdefault((name, f"{c} (cold)"), []).append(
                        timed([sys.executable, "-m", "blkscope", *CLI[c]], tree, cold=cold))
            if i < 5 and not a.no_snakemake:
                for name, tree in order:
                    res.setdefault((name, "snakemake no-op"), []).append(
                        timed([SNAKEMAKE, "--cores", "2", "all"], tree, cwd=tree))
    for (name, c), v in sorted(res.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        w, cpu = [x[0] for x in v], [x[1] for x in v]
        print(f"{c:22} {name}: n={len(v)} wall median {statistics.median(w):.1f} ms ({min(w):.1f}-{max(w):.1f}), "
              f"CPU median {statistics.median(cpu):.1f} ms ({min(cpu):.1f}-{max(cpu):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
