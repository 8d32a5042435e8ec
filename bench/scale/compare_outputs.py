"""Compare the tables of two scale-bench configurations: `python compare_outputs.py OUT1 OUT2 [GLOB...]`: every
Parquet file of OUT1 matching a GLOB (default analysis/*.parquet and run/frequency/*.parquet, run.sh's layout)
against the same path under OUT2. Exit 1 if any differs or is missing."""

import sys
from pathlib import Path

import polars as pl

a, b = Path(sys.argv[1]), Path(sys.argv[2])
globs = sys.argv[3:] or ["analysis/*.parquet", "run/frequency/*.parquet"]
files = [f for g in globs for f in sorted(a.glob(g))]
if not files:
    sys.exit(f"compare_outputs: no table matches {' '.join(globs)} under {a}")
same = True
for f in files:
    other = b / f.relative_to(a)
    x = pl.read_parquet(f)
    eq = other.exists() and x.equals(pl.read_parquet(other))
    same &= eq
    verdict = "IDENTICAL" if eq else "DIFFERENT" if other.exists() else "MISSING"
    print(f"# {f.relative_to(a)}: {x.height} rows, {verdict}")
print(f"# answers of {a} and {b}: {'IDENTICAL' if same else 'DIFFERENT'}")
sys.exit(0 if same else 1)
