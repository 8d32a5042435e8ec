"""Same tables? Every <run>/char-A/*.parquet (analysis/char-A/ too) of a main_job.sh workspace against char-B's
(the schema, and polars equals: row order, values; null and NaN as written). Usage: compare_tables.py WS TAG_A TAG_B
`same` and `verdicts` are the table comparison of the other benches too (bench/scale/compare_outputs.py,
bench/zipf/same_tables.py, mrc_ab_check.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl


def same(x: pl.DataFrame, y: pl.DataFrame) -> bool:
    # equals alone ignores dtypes (Float32 against Float64 is equal): the schemas too
    return x.schema == y.schema and x.equals(y, null_equal=True)


def verdicts(left: dict[str, Path], right: dict[str, Path]) -> dict[str, str]:
    """Per table name on either side, in sorted order: IDENTICAL, DIFFERENT, or MISSING (on one side only)."""
    return {
        k: "MISSING" if k not in left or k not in right
        else "IDENTICAL" if same(pl.read_parquet(left[k]), pl.read_parquet(right[k])) else "DIFFERENT"
        for k in sorted(left.keys() | right.keys())
    }  # fmt: skip


def main(ws: str, a: str, b: str) -> int:
    root = Path(ws) / "data" / "processed"
    left = {p.relative_to(root).as_posix().replace(f"/char-{a}/", "/"): p for p in root.glob(f"*/char-{a}/*.parquet")}
    right = {p.relative_to(root).as_posix().replace(f"/char-{b}/", "/"): p for p in root.glob(f"*/char-{b}/*.parquet")}
    v = verdicts(left, right)
    missing, differ = ([k for k, x in v.items() if x == what] for what in ("MISSING", "DIFFERENT"))
    print(f"{len(left)} tables of {a}, {len(right)} of {b}: {len(missing)} in one only, {len(differ)} differ")
    for k in (missing + differ)[:20]:
        print("   ", k)
    return 1 if missing or differ or not left else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
