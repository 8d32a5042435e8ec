"""Compare the analysis tables of the two scale-bench configurations: `python compare_outputs.py OUT1 OUT2`."""

import sys
from pathlib import Path

import polars as pl

a, b = Path(sys.argv[1]), Path(sys.argv[2])
same = True
for f in sorted(a.glob("analysis/*.parquet")) + sorted(a.glob("run/frequency/*.parquet")):
    x, y = pl.read_parquet(f), pl.read_parquet(b / f.relative_to(a))
    eq = x.equals(y)
    same &= eq
    print(f"# {f.relative_to(a)}: {x.height} rows, {'IDENTICAL' if eq else 'DIFFERENT'}")
print(f"# answers of 1 job and 2 parallel jobs: {'IDENTICAL' if same else 'DIFFERENT'}")
