"""The manifest of the embedded dataset: every raw file, its run's configuration, size and sha256.

Written by `blkscope manifest` after captures (data/raw/MANIFEST.tsv, committed with the data), so a reader of
the dataset sees the grid it covers without opening any run, and a test proves the files are the ones listed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl

COLUMNS = ["run_id", "testbed", "filesystem", "workload", "job", "traced", "repeat", "file", "bytes", "sha256"]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def build(raw: Path, runs: pl.DataFrame) -> pl.DataFrame:
    rows = []
    meta = {r["run_id"]: r for r in runs.iter_rows(named=True)}
    for run_dir in sorted(p for p in raw.iterdir() if p.is_dir() and p.name in meta):
        m = meta[run_dir.name]
        for f in sorted(p for p in run_dir.rglob("*") if p.is_file() and not p.name.startswith(".")):
            rows.append({**{k: m[k] for k in COLUMNS[:7]}, "file": str(f.relative_to(raw)),
                         "bytes": f.stat().st_size, "sha256": sha256(f)})  # fmt: skip
    return pl.DataFrame(rows).select(COLUMNS) if rows else pl.DataFrame(schema=dict.fromkeys(COLUMNS, pl.Utf8))
