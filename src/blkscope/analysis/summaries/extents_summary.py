"""Extents per MiB by filesystem (issue L, 4; the SSD study's claim that Cassandra's large files fragment on btrfs
under random writes): each run's `extents` table (filefrag -v at the end of the run) summed per file class.

Classes: `commitlog` (the segments), `sstable` (the `-Data.db` components, the large files) and `other` (the
sstables' small components and everything else under data/). Empty files are left out: they have no extents to
count. extents_per_mib is the class's extents over its MiB (so large files weigh by their size); max_extents is
the most fragmented file's count."""

from __future__ import annotations

from pathlib import Path

import polars as pl

RUN_COLUMNS = ["run_id", "filesystem", "workload", "job", "traced", "repeat"]


def file_class() -> pl.Expr:
    return (pl.when(pl.col("dir") == "commitlog").then(pl.lit("commitlog"))
            .when(pl.col("path").str.ends_with("-Data.db")).then(pl.lit("sstable"))
            .otherwise(pl.lit("other")))  # fmt: skip


def summarize(extents: pl.DataFrame) -> pl.DataFrame:
    """One run's table -> class, files, mib, extents, extents_per_mib, max_extents."""
    df = extents.filter(pl.col("bytes") > 0).with_columns(cls=file_class())
    out = df.group_by("cls").agg(
        files=pl.len().cast(pl.Int64),
        mib=pl.col("bytes").sum() / 2**20,
        extents=pl.col("extents").sum(),
        max_extents=pl.col("extents").max(),
    )
    return out.rename({"cls": "class"}).with_columns(extents_per_mib=pl.col("extents") / pl.col("mib")).sort("class")


def extents_summary(files: list[Path], runs: pl.DataFrame, run_id_of) -> pl.DataFrame:
    parts = [summarize(pl.read_parquet(f)).with_columns(run_id=pl.lit(run_id_of(f))) for f in files]
    cols = ["class", "files", "mib", "extents", "extents_per_mib", "max_extents"]
    if not parts:
        schema = {**{c: runs.schema[c] for c in RUN_COLUMNS}, "class": pl.Utf8, "files": pl.Int64,
                  "mib": pl.Float64, "extents": pl.Int64, "extents_per_mib": pl.Float64, "max_extents": pl.Int64}
        return pl.DataFrame(schema=schema)  # fmt: skip
    df = pl.concat(parts).join(runs.select(RUN_COLUMNS), on="run_id", how="inner")
    return df.select(*RUN_COLUMNS, *cols).sort("filesystem", "workload", "run_id", "class")
