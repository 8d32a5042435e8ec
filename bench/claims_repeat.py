"""The claims table, again and again on one built tree's inputs: its bytes must not change (issue R item 5).

  python bench/claims_repeat.py TREE [--runs 5] [--shuffles 3] [--out /tmp/claims-repeat]

TREE is a checkout after `make all` (read only). `blkscope claims` runs --runs times, each in a process of its own,
with the rule's inputs (the per-run fof and extents tables found by glob, not checked against their manifests),
writing OUT/claims-N.{csv,parquet}; then claims.evaluate runs in this process --shuffles times on the same tables
with every table's rows shuffled and cut into chunks (and once as read). Prints the distinct sha256 of the CLI's
CSVs, of its Parquet files and of the in-process CSVs, and exits 1 when a group has more than one.
POLARS_MAX_THREADS as the caller sets it (Snakemake's jobs run with 1; by hand, one per core)."""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path


def command(tree: Path, out: Path) -> list[str]:
    a = tree / "data/processed/analysis"
    fof = sorted(str(p.relative_to(tree)) for p in tree.glob("data/processed/*/frequency/fof.ssd-study.parquet"))
    ext = sorted(str(p.relative_to(tree)) for p in tree.glob("data/processed/*/extents/extents.parquet"))
    return [sys.executable, "-m", "blkscope", "claims", "--runs", "config/runs.tsv",
            "--iostat", f"{a}/iostat_summary.parquet", "--metrics", f"{a}/workload_metrics.parquet",
            "--overhead", f"{a}/overhead.parquet", "--zipf", f"{a}/zipf_cover.parquet", "--fof", *fof,
            "--extents", *ext, "--metadata", f"{a}/metadata_vs_data.parquet", "--ycsb-phases",
            f"{a}/ycsb_phases.parquet", "--plan", "config/claims_plan.yaml", "--steady-state",
            f"{a}/steady_state.parquet", "-o", f"{out}.parquet", "--csv", f"{out}.csv"]  # fmt: skip


def shuffled(tables: dict, seed: int) -> dict:
    import polars as pl

    def one(t):
        if t is None or t.height == 0:
            return t
        t = t.sample(fraction=1.0, shuffle=True, seed=seed)
        return pl.concat([t[i:i + 97] for i in range(0, t.height, 97)], rechunk=False)
    return {k: one(t) for k, t in tables.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--shuffles", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("/tmp/claims-repeat"))
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for old in a.out.glob("claims-*.*"):
        old.unlink()
    tree = a.tree.resolve()
    for i in range(a.runs):
        subprocess.run(command(tree, a.out / f"claims-{i}"), cwd=tree, check=True)
    csv = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(a.out.glob("claims-*.csv"))}
    pq = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(a.out.glob("claims-*.parquet"))}
    mem: dict[str, str] = {}
    if a.shuffles:
        from blkscope.cli import build_parser
        from blkscope.cli.paper import _claims_tables
        from blkscope.paper import claims_plan
        from blkscope.paper.claims import evaluate

        args = build_parser("claims").parse_args(command(tree, a.out / "x")[3:])
        os.chdir(tree)  # the command's relative paths
        tables, plan = _claims_tables(args), claims_plan.load(args.plan)
        for s in range(-1, a.shuffles):  # -1: as read
            body = evaluate(shuffled(tables, s) if s >= 0 else tables, plan).write_csv().encode()
            mem[f"shuffle-{s}" if s >= 0 else "as read"] = hashlib.sha256(body).hexdigest()
    for name, digests in (("csv", csv), ("parquet", pq), ("in-process csv", mem)):
        groups: dict[str, list[str]] = {}
        for k, v in digests.items():
            groups.setdefault(v, []).append(k)
        print(f"{name}: {len(digests)} outputs, {len(groups)} distinct")
        for v, ks in groups.items():
            print(f"  {v[:16]} {', '.join(ks)}")
    return 0 if all(len(set(d.values())) <= 1 for d in (csv, pq, mem)) else 1


if __name__ == "__main__":
    sys.exit(main())
