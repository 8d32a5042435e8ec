"""Compare the tables of two scale-bench configurations: `python compare_outputs.py OUT1 OUT2 [GLOB...]`: every
Parquet file of OUT1 matching a GLOB (default analysis/*.parquet and run/frequency/*.parquet, run.sh's layout)
against the same path under OUT2 (bench/characterise/compare_tables.py's comparison: schema and values). Exit 1
if any differs or is missing."""

import sys
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "characterise"))
from compare_tables import verdicts  # noqa: E402

a, b = Path(sys.argv[1]), Path(sys.argv[2])
globs = sys.argv[3:] or ["analysis/*.parquet", "run/frequency/*.parquet"]
left = {f.relative_to(a).as_posix(): f for g in globs for f in a.glob(g)}
if not left:
    sys.exit(f"compare_outputs: no table matches {' '.join(globs)} under {a}")
v = verdicts(left, {k: b / k for k in left if (b / k).exists()})  # OUT1's tables only, as OUT2 may have more
for k, verdict in v.items():
    print(f"# {k}: {pl.scan_parquet(left[k]).select(pl.len()).collect().item()} rows, {verdict}")
same = all(x == "IDENTICAL" for x in v.values())
print(f"# answers of {a} and {b}: {'IDENTICAL' if same else 'DIFFERENT'}")
sys.exit(0 if same else 1)
