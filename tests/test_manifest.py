"""The committed dataset is exactly what data/raw/MANIFEST.tsv lists, and covers the study's grid."""

from pathlib import Path

import polars as pl
import pytest

from blkscope.capture.manifest import build
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data/raw"


@pytest.fixture(scope="module")
def manifest() -> pl.DataFrame:
    return pl.read_csv(RAW / "MANIFEST.tsv", separator="\t")


def test_manifest_lists_exactly_the_files_on_disk(manifest):
    now = build(RAW, load_runs(ROOT / "config/runs.tsv"))
    key = ["file", "bytes", "sha256"]
    assert sorted(now.select(key).rows()) == sorted(manifest.select(key).rows())


def test_every_captured_run_is_in_the_manifest(manifest):
    captured = {p.parent.name for p in RAW.glob("*/run.yaml")}
    assert captured == set(manifest["run_id"])


WORKLOADS = ("fio", "sysbench", "journal", "ycsb")
# issue F's grid: ext4, xfs and btrfs on the host; f2fs (which the host kernel lacks) and the other three, for
# comparison, in the emulated guest; every workload traced and untraced, at least 3 repeats each
GRID = {"loop": ("ext4", "xfs", "btrfs"), "guest": ("f2fs", "ext4", "xfs", "btrfs")}


def test_grid_covered(manifest):
    runs = manifest.select("run_id", "testbed", "filesystem", "workload", "traced", "repeat").unique()
    for testbed, filesystems in GRID.items():
        for fs in filesystems:
            for workload in WORKLOADS:
                for traced in (True, False):
                    sel = runs.filter((pl.col("testbed") == testbed) & (pl.col("workload") == workload)
                                      & (pl.col("filesystem") == fs) & (pl.col("traced") == traced))
                    assert sel["repeat"].n_unique() >= 3, (testbed, fs, workload, traced)


def test_within_the_git_budget(manifest):
    assert manifest["bytes"].sum() < 50 * 1024 * 1024
