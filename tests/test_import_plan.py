"""Importing a run plans that run's jobs alone (issue T1): `snakemake -n all` lists its ingest, its analyses, its
figure data and its pages, and no job of the study (tables, claims, figures, notebooks) nor of the paper.

The plan is Snakemake's, on a copy of the workflow with four embedded runs (a traced and an untraced host fio run,
a host YCSB run, a guest run) brought up to date by `snakemake --touch` (every output made empty first, then
touched in the DAG's order, with Snakemake's records): what `snakemake all` leaves behind as far as the plan
reads it (paths, mtimes, records), in seconds instead of minutes. The imported run is a real blktrace set
(../shared/samples). tests/test_workflow_e2e.py checks the same after a real run of the whole workflow."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
import samples
from plans import planned, snakemake

from blkscope.cli import main
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
RUNS = ["host-ext4-fio-randrw-r1", "host-ext4-fio-randrw-untraced-r1", "host-xfs-ycsb-workloada-zipfian-r2",
        "guest-f2fs-fio-randrw-r1"]  # fmt: skip
KEKS = samples.files("blktrace-bin/influx_keks", "keks.blktrace.*")


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """The workflow with RUNS, every output up to date."""
    for item in ["Snakefile", "workflow", "config", "profiles", "notebooks", "paper"]:
        src = ROOT / item
        skip = shutil.ignore_patterns("generated", "executed", "main.pdf", "imported.tsv")
        (shutil.copytree(src, tmp_path / item, ignore=skip) if src.is_dir() else shutil.copy2(src, tmp_path / item))
    load_runs(ROOT / "config/runs.tsv").filter(pl.col("run_id").is_in(RUNS)).write_csv(
        tmp_path / "config/runs.tsv", separator="\t")  # fmt: skip
    for r in RUNS:
        shutil.copytree(ROOT / "data/raw" / r, tmp_path / "data/raw" / r)
    for outputs in planned(tmp_path).values():
        for f in outputs:
            (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / f).touch()
    snakemake(tmp_path, "--touch", "all")
    assert planned(tmp_path) == {}, "the touched workspace is not up to date"
    return tmp_path


def test_importing_a_run_plans_its_jobs_alone(built: Path, monkeypatch) -> None:
    monkeypatch.chdir(built)
    before = {p: p.stat().st_mtime_ns for p in (built / "config").iterdir()}
    assert main(["import", "lab-keks-r1", "--filesystem", "ext4", "--job", "keks", "--trace", *map(str, KEKS)]) == 0
    # the runs sheet is as it was; the run's row is in the sheet of imported runs
    assert {p: p.stat().st_mtime_ns for p in before} == before
    assert load_runs(built / "config/imported.tsv")["run_id"].to_list() == ["lab-keks-r1"]

    plan = planned(built)
    own = "_imported_lab_keks_r1"
    others = {rule: outs for rule, outs in plan.items() if not rule.endswith(own)}
    # besides the run's own jobs: its run explorer (a rule of every run) and the target
    assert sorted(others) == ["all", "notebook_run_explorer"], others
    assert others["notebook_run_explorer"] == ["notebooks/executed/run_lab-keks-r1.ipynb"]
    ingest, views = f"ingest{own}", [f"{r}{own}" for r in ("access_frequency", "zipf", "latency", "seek", "reuse",
                                                              "characterise_views", "figdata_views",
                                                              "notebook_all_setups")]  # fmt: skip
    assert {ingest, *views} <= set(plan), sorted(plan)
    assert plan[ingest] == ["data/processed/datasets/ingest_imported_lab_keks_r1.tsv"]
    # its figure data, all of it in one job: the miss-ratio curve and the rank-frequency among them
    figdata = "data/processed/imported/lab-keks-r1/figures"
    assert {f"{figdata}/miss_ratio_curve.parquet", f"{figdata}/rank_frequency.parquet"} <= set(plan[views[6]])
    assert plan[f"notebook_all_setups{own}"] == ["notebooks/executed/imported_lab-keks-r1.ipynb"]
    # its tables in a directory of its own; none in the study's
    assert all(f.startswith(("data/processed/imported/lab-keks-r1/", "notebooks/executed/"))
               for r in views for f in plan[r]), plan  # fmt: skip
    # the paper: nothing to do
    assert planned(built, "paper/main.pdf") == {}
