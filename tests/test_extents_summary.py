"""Extents per MiB by file class, from a real capture's filefrag output (tests/fixtures/filefrag)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope.analysis.summaries.extents_summary import extents_summary
from blkscope.ingest import run_ingest
from blkscope.runs import run_id_of

FIX = Path(__file__).parent / "fixtures" / "filefrag" / "cassandra-ycsb-ext4.txt"


def test_classes_and_ratios(tmp_path):
    table = tmp_path / "proc" / "r1" / "extents"
    run_ingest("filefrag", [FIX], table)
    ext = pl.read_parquet(table / "extents.parquet")
    runs = pl.DataFrame({"run_id": ["r1", "r2"], "filesystem": ["ext4", "xfs"], "workload": ["cassandra-ycsb"] * 2,
                         "job": ["j"] * 2, "traced": [True, False], "repeat": [1, 1]})  # fmt: skip
    df = extents_summary([table / "extents.parquet"], runs, run_id_of)
    assert df["run_id"].unique().to_list() == ["r1"] and set(df["class"]) == {"commitlog", "sstable", "other"}
    nonempty = ext.filter(pl.col("bytes") > 0)
    assert df["files"].sum() == nonempty.height and df["extents"].sum() == nonempty["extents"].sum()
    sst = df.filter(pl.col("class") == "sstable").row(0, named=True)
    data = nonempty.filter(pl.col("path").str.ends_with("-Data.db"))
    assert sst["files"] == data.height and sst["max_extents"] == data["extents"].max()
    assert abs(sst["extents_per_mib"] - data["extents"].sum() / (data["bytes"].sum() / 2**20)) < 1e-9
    assert extents_summary([], runs, run_id_of).is_empty()  # no run recorded extents yet: an empty table
