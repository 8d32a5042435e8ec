"""Interrupted, resumed, identical: SIGKILL the main job at random moments, rerun it, compare the trees.

  python bench/kill_resume.py [--kills 10] [--seed S] [--cores 2] [--ref HEAD] [--out /var/tmp/blkscope-killresume]

The commit is exported (`git archive`: data/raw as committed, nothing generated) to OUT/tree and the main job
(`snakemake --cores C all`) runs there once, uninterrupted; the tree then moves to OUT/ref (one path for every run:
outputs may name their inputs' paths) and its wall time T bounds the kill moments. In a fresh export, round 0
is a second uninterrupted run (what differs between two clean runs is not the kills' doing), then each round
removes every output (`make clean` and Snakemake's records: a fresh clone), starts the job, SIGKILLs it and every
process under it (stopped first, so none forks on) at a moment drawn uniformly from [1 s, 0.95 T] (T the shorter
of the reference's and round 0's times; a round whose moment fell after the job's end is recorded, not counted),
and reruns it the way a user would (`snakemake --unlock`, then the same command; the profile reruns incomplete
jobs). Every file of the tree but Snakemake's own `.snakemake/` is compared with `ref/`, and its mode too: byte
for byte, or where a clean run changes some of its bytes (a PDF's dates, a notebook's timestamps, a manifest's
mtimes) without them (bench/normalised.py); timings and logs are listed as not comparable.
One line per round in OUT/rounds.tsv; the differing paths in OUT/round-N.diff. Exit 1 when a round differs from
`ref/` in a file that round 0 did not, or its rerun fails. Each call does the next `--steps` pending steps (the
reference run, round 0, the kill rounds; state in OUT/ref.json and OUT/rounds.tsv), so on the shared machine one
step at a time runs under /work/locks/cpu: `bench/kill_resume.sh` repeats the calls until all are done."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import normalised

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ["data/processed", "paper/generated", "paper/main.pdf", "notebooks/executed", ".snakemake"]


def export(ref: str, dest: Path) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def clean(tree: Path) -> None:
    for rel in OUTPUTS:
        p = tree / rel
        shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)
    for aux in tree.glob("paper/main.*"):
        if aux.suffix != ".tex":
            aux.unlink()


def env_for(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree / "src")}


def job(tree: Path, cores: int, log: Path) -> subprocess.Popen:
    return subprocess.Popen(["snakemake", "--cores", str(cores), "all"], cwd=tree, env=env_for(tree),
                            stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)


def descendants(pid: int) -> list[int]:
    """pid and every process under it (by parent pid, so also those that left its session)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def kill_tree(pid: int) -> int:
    """SIGSTOP the whole tree (until no new process appears), then SIGKILL it; the number of processes killed."""
    seen: set[int] = set()
    while True:
        tree = set(descendants(pid))
        for p in tree - seen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGSTOP)
        if tree <= seen:
            break
        seen |= tree
    for p in seen:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)
    return len(seen)


def run_to_end(tree: Path, cores: int, log: Path) -> tuple[int, float]:
    t0 = time.monotonic()
    subprocess.run(["snakemake", "--unlock", "all"], cwd=tree, env=env_for(tree), stdout=log.open("ab"),
                   stderr=subprocess.STDOUT, check=False)
    rc = job(tree, cores, log).wait()
    return rc, time.monotonic() - t0


def digest(tree: Path) -> dict[str, tuple[str, int]]:
    """Every file but .snakemake/: its sha256 and permission bits."""
    out = {}
    for p in sorted(tree.rglob("*")):
        rel = p.relative_to(tree).as_posix()
        if rel.startswith(".snakemake/") or rel == ".snakemake" or p.is_dir() or p.is_symlink():
            continue
        out[rel] = (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode & 0o7777)
    return out


def differences(ref_tree: Path, tree: Path) -> tuple[list[str], list[str]]:
    """Where `tree` differs from `ref_tree` (missing, extra, mode, and bytes after normalised.same), and the files
    whose bytes differ but which are not comparable (timings, logs)."""
    ref, got = digest(ref_tree), digest(tree)
    lines = [f"missing {k}" for k in sorted(ref.keys() - got.keys())]
    lines += [f"extra {k}" for k in sorted(got.keys() - ref.keys())]
    other = []
    for k in sorted(ref.keys() & got.keys()):
        if ref[k][0] != got[k][0]:
            ok, why = normalised.same(k, (ref_tree / k).read_bytes(), (tree / k).read_bytes())
            if ok is None:
                other.append(f"{normalised.NOT_COMPARABLE} {k}")
            elif not ok:
                lines.append(f"bytes {k} ({why})")
        if ref[k][1] != got[k][1]:
            lines.append(f"mode {k} {ref[k][1]:o} {got[k][1]:o}")
    return lines, other


def make_ref(a, ref: Path, work: Path, seed: int) -> int:
    """The uninterrupted run: in OUT/tree, then moved to OUT/ref; its wall time and the seed go to OUT/ref.json."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", a.ref], check=True,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    export(a.ref, work)
    rc, t_ref = run_to_end(work, a.cores, a.out / "ref.log")
    if rc:
        print(f"the uninterrupted run failed (exit {rc}): {a.out / 'ref.log'}", file=sys.stderr)
        return 1
    shutil.rmtree(ref, ignore_errors=True)
    work.rename(ref)
    export(a.ref, work)
    files = len(digest(ref))
    state = {"commit": commit, "seed": seed, "cores": a.cores, "ref_s": round(t_ref, 1), "files": files}
    (a.out / "ref.json").write_text(json.dumps(state) + "\n")
    (a.out / "rounds.tsv").write_text(f"# {commit} seed {seed} cores {a.cores}; ref run {t_ref:.1f} s, {files} files\n"
                                      "round\tkill_at_s\tkilled_processes\trerun_exit\trerun_s\tfiles\tdiffering"
                                      "\tnew_vs_round0\tnot_comparable\n")  # fmt: skip
    print(f"ref: {commit} seed {seed}, {t_ref:.1f} s, {files} files", flush=True)
    return 0


def progress(rounds_tsv: str) -> tuple[int, int, float | None]:
    """From OUT/rounds.tsv: the next round's number, the kill rounds that killed the job (a round whose moment came
    after the job had ended killed nothing and tests nothing: it is recorded, not counted), and round 0's time."""
    rows = [line.split("\t") for line in rounds_tsv.splitlines()[2:] if line]
    round0 = next((float(r[4]) for r in rows if r[0] == "0"), None)
    return len(rows), sum(1 for r in rows if r[0] != "0" and int(r[2]) > 0), round0


def one_round(a, i: int, state: dict, ref: Path, work: Path, round0_s: float | None = None) -> bool:
    """Round i (0: uninterrupted; else killed at a moment drawn from the seed and i, before 0.95 of the shorter of
    the reference's and round 0's times: a reference timed on a loaded machine drew moments after the job's end),
    rerun, compared; True if it passed."""
    clean(work)
    log = a.out / f"round-{i}.log"
    log.unlink(missing_ok=True)
    at, killed = 0.0, 0
    if i:
        span = min(state["ref_s"], round0_s or state["ref_s"])
        at = random.Random(state["seed"] * 1000 + i).uniform(1.0, 0.95 * span)
        p = job(work, a.cores, log)
        try:
            p.wait(timeout=at)
            print(f"round {i}: the job ended before the kill at {at:.1f} s", file=sys.stderr)
        except subprocess.TimeoutExpired:
            killed = kill_tree(p.pid)
            p.wait()
    rc, took = run_to_end(work, a.cores, log)
    diff, other = differences(ref, work)
    (a.out / f"round-{i}.diff").write_text("".join(f"{d}\n" for d in diff + other))
    noise = set((a.out / "round-0.diff").read_text().splitlines())
    new = [d for d in diff if d not in noise]
    row = f"{i}\t{at:.1f}\t{killed}\t{rc}\t{took:.1f}\t{state['files']}\t{len(diff)}\t{len(new)}\t{len(other)}"
    with (a.out / "rounds.tsv").open("a") as f:
        f.write(row + "\n")
    print(row, flush=True)
    return not (rc or new)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=10, help="kill rounds in all (default 10)")
    ap.add_argument("--steps", type=int, default=1,
                    help="do at most this many of the pending steps (the reference run, round 0, the kill rounds) "
                         "and stop: a shared machine's CPU slot is held a few minutes at a time")  # fmt: skip
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--ref", default="HEAD")
    ap.add_argument("--out", type=Path, default=Path("/var/tmp/blkscope-killresume"))
    a = ap.parse_args()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # say who stopped a run on a shared machine
        signal.signal(sig, lambda n, _f: sys.exit(f"kill_resume: signal {signal.Signals(n).name} at {time.ctime()}"))
    a.out.mkdir(parents=True, exist_ok=True)
    ref, work = a.out / "ref", a.out / "tree"
    ok = True
    for _ in range(a.steps):
        if not (a.out / "ref.json").exists():
            seed = a.seed if a.seed is not None else random.SystemRandom().randrange(2**32)
            if make_ref(a, ref, work, seed):
                return 1
            continue
        state = json.loads((a.out / "ref.json").read_text())
        nxt, kills, round0_s = progress((a.out / "rounds.tsv").read_text())
        if nxt and kills >= a.kills:
            (a.out / "done").touch()
            print(f"all {a.kills} kill rounds done: {a.out / 'rounds.tsv'}")
            break
        ok &= one_round(a, nxt, state, ref, work, round0_s)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
