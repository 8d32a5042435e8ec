"""The scatter-gather rules (workflow/rules/parts.smk) on the local executor: two real runs (tracefs text and
a binary blktrace set) analysed once ingested whole and once split into 3 part jobs each give equal latency
stages, queue depth (summary, distribution, series), seeks and access-frequency tables."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNS = ["host-ext4-fio-randrw-r1", "guest-f2fs-fio-randrw-r1"]
TARGETS = [
    "data/processed/analysis/latency.parquet",
    "data/processed/analysis/queue_depth.parquet",
    "data/processed/analysis/seek.parquet",
    # the per-run access-frequency tables, through the manifests that declare them (blkscope.datasets)
    "data/processed/datasets/access_frequency.cover.tsv",
    "data/processed/datasets/frequency.tsv",  # page_frequency: host fio runs only
]
TABLES = [
    "analysis/latency.parquet", "analysis/queue_depth.parquet", "analysis/queue_depth_dist.parquet",
    "analysis/queue_depth_series.parquet", "analysis/seek.parquet", "analysis/seek_hist.parquet",
    *[f"{r}/frequency/{t}.parquet" for r in RUNS for t in ("fof.cover", "rank.cover")],
    *[f"{RUNS[0]}/frequency/{t}.parquet" for t in ("rank", "pages")],
]  # fmt: skip


def _workflow(work: Path, extra_config: str | None) -> Path:
    work.mkdir()
    for item in ["Snakefile", "workflow", "config", "profiles"]:
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, work / item)
    for r in RUNS:
        shutil.copytree(ROOT / "data/raw" / r, work / "data/raw" / r)
    runs = pl.read_csv(ROOT / "config/runs.tsv", separator="\t")
    runs.filter(pl.col("run_id").is_in(RUNS)).write_csv(work / "config/runs.tsv", separator="\t")
    cmd = ["snakemake", "--cores", "2"]
    if extra_config:
        (work / "split.yaml").write_text(extra_config)
        cmd += ["--configfile", "split.yaml"]
    proc = subprocess.run([*cmd, "--", *TARGETS], cwd=work, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work / "data/processed"


def test_split_runs_give_the_whole_answers(tmp_path):
    if not all((ROOT / "data/raw" / r / "run.yaml").exists() for r in RUNS):
        pytest.skip("embedded runs not in this checkout")
    whole = _workflow(tmp_path / "whole", None)  # default config: these small runs are ingested whole
    split = _workflow(tmp_path / "split", "trace_parts:\n  parts: 3\n  min_bytes: 0\n")
    assert not list(whole.glob("*/trace_parts")) and (whole / RUNS[0] / "trace" / "events.parquet").exists()
    for r in RUNS:
        doc = json.loads((split / r / "trace_parts" / "parts.json").read_text())
        assert len(doc["parts"]) == 3 and not (split / r / "trace" / "events.parquet").exists()
        assert not (split / r / "trace_parts" / "trace.txt").exists()  # the decompressed text is temp()
    for t in TABLES:
        a, b = pl.read_parquet(whole / t), pl.read_parquet(split / t)
        assert a.height > 0 and a.equals(b), t
