"""The runs sheet (config/runs.tsv) and run directories."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope.errors import InputError

REQUIRED = ("run_id", "study", "workload", "job", "filesystem", "testbed", "tracer", "traced", "repeat")


def load_runs(path: str | Path) -> pl.DataFrame:
    text = {c: pl.Utf8 for c in ("mkfs_options", "mount_options", "run_id", "batch")}
    df = pl.read_csv(path, separator="\t", schema_overrides=text)
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise InputError(path, "line 1", f"runs sheet lacks column(s) {', '.join(missing)}")
    dup = df.filter(pl.col("run_id").is_duplicated())["run_id"].unique().to_list()
    if dup:
        raise InputError(path, None, f"duplicate run_id(s): {', '.join(dup)}")
    return df


def run_id_of(path: str | Path) -> str:
    """Run id of a file under <processed_dir>/<run_id>/<stage>/<file>."""
    return Path(path).parent.parent.name
