"""Same outputs? Compare the workflow outputs of several checkouts (bench/dag/run.sh): every table under
data/processed (Parquet as frames, ingest.json without its timing-free paths), the analysis CSVs, the generated
LaTeX and the SVG figures. Usage: compare.py DIR DIR..."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import polars as pl

PATTERNS = ["data/processed/**/*.parquet", "data/processed/**/*.json", "data/processed/analysis/*.csv",
            "paper/generated/numbers/*.tex", "paper/generated/tables/*.tex", "paper/generated/figures/*.tex",
            "paper/generated/figures/*.svg"]


def digest(path: Path) -> str:
    if path.suffix == ".parquet":  # bytes may differ by writer metadata; the frame must not
        df = pl.read_parquet(path)
        return f"{df.shape} {df.schema} {df.hash_rows(seed=0).sum()}"
    if path.suffix == ".json":
        return hashlib.sha256(json.dumps(json.loads(path.read_text()), sort_keys=True).encode()).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def outputs(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): digest(p) for pat in PATTERNS for p in sorted(root.glob(pat))}


def main(dirs: list[str]) -> int:
    ref_dir, *others = map(Path, dirs)
    ref = outputs(ref_dir)
    print(f"{ref_dir}: {len(ref)} output files")
    bad = 0
    for d in others:
        got = outputs(d)
        missing, extra = sorted(ref.keys() - got.keys()), sorted(got.keys() - ref.keys())
        differ = sorted(k for k in ref.keys() & got.keys() if ref[k] != got[k])
        print(f"{d}: {len(got)} files; missing {len(missing)}, extra {len(extra)}, differing {len(differ)}")
        for k in (missing + extra + differ)[:20]:
            print("   ", k)
        bad += len(missing) + len(extra) + len(differ)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
