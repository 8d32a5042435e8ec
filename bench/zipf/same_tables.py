"""Compare two trees' zipf tables (A.MODE / B.MODE .parquet and .csv in one directory, as bench/zipf/cpu_ab.sh
writes them): equal as Parquet (bench/characterise/compare_tables.py's comparison: schema and values), byte for
byte as CSV, else per column the rows that differ and the largest absolute and relative difference.
python bench/zipf/same_tables.py OUT"""

import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "characterise"))
from compare_tables import same  # noqa: E402

out = sys.argv[1]
for m in ("cover", "ssd-study"):
    a, b = pl.read_parquet(f"{out}/A.{m}.parquet"), pl.read_parquet(f"{out}/B.{m}.parquet")
    same_csv = Path(f"{out}/A.{m}.csv").read_bytes() == Path(f"{out}/B.{m}.csv").read_bytes()
    print(f"{m}: {a.height} rows, {a.width} columns; Parquet equal: {same(a, b)}; CSV byte-identical: {same_csv}")
    for c in a.columns:
        x, y = a[c], b[c]
        if x.equals(y):
            continue
        if x.dtype.is_float():
            xa, ya = x.to_numpy(), y.to_numpy()
            f = np.isfinite(xa) & np.isfinite(ya)
            d = np.abs(xa - ya)[f]
            n = int(np.sum(~((xa == ya) | (np.isnan(xa) & np.isnan(ya)))))
            rel = (d / np.maximum(np.abs(xa[f]), 1e-300)).max()
            print(f"  {c}: {n} rows differ, max abs {d.max():.3g}, max rel {rel:.3g}")
        else:
            print(f"  {c}: {int((x != y).sum())} rows differ")
