"""The scatter-gather rules (workflow/rules/parts.smk) on the local executor: two real runs (tracefs text and
a binary blktrace set) analysed once ingested whole and once split into 3 part jobs each give equal latency
stages, queue depth (summary, distribution, series), seeks and access-frequency tables."""

from __future__ import annotations

import json
import os
import shutil
import signal
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


def _start(work: Path, extra_config: str | None, log: Path) -> subprocess.Popen:
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
    with open(log, "w") as f:
        return subprocess.Popen([*cmd, "--", *TARGETS], cwd=work, stdout=f, stderr=subprocess.STDOUT,
                                start_new_session=True)  # fmt: skip


def test_split_runs_give_the_whole_answers(tmp_path):
    if not all((ROOT / "data/raw" / r / "run.yaml").exists() for r in RUNS):
        pytest.skip("embedded runs not in this checkout")
    # the two runs at once: each DAG is mostly a chain (one job at a time on two cores), the other fills the gaps
    # whole: the default config, under which these small runs are ingested whole
    configs = {"whole": None, "split": "trace_parts:\n  parts: 3\n  min_bytes: 0\n"}
    procs = {}
    try:
        for name, config in configs.items():
            procs[name] = _start(tmp_path / name, config, tmp_path / f"{name}.log")
        for name, p in procs.items():
            assert p.wait(timeout=900) == 0, (tmp_path / f"{name}.log").read_text()[-4000:]
    finally:
        for p in procs.values():
            if p.poll() is None:  # Snakemake and the jobs it started
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    whole, split = tmp_path / "whole/data/processed", tmp_path / "split/data/processed"
    assert not list(whole.glob("*/trace_parts")) and (whole / RUNS[0] / "trace" / "events.parquet").exists()
    for r in RUNS:
        doc = json.loads((split / r / "trace_parts" / "parts.json").read_text())
        assert len(doc["parts"]) == 3 and not (split / r / "trace" / "events.parquet").exists()
        assert not (split / r / "trace_parts" / "trace.txt").exists()  # the decompressed text is temp()
    for t in TABLES:
        a, b = pl.read_parquet(whole / t), pl.read_parquet(split / t)
        assert a.height > 0 and a.equals(b), t
