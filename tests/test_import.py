"""`blkscope import`: users' own logs (../shared/samples, read there) become runs with their provenance, in a sheet
of their own beside the runs sheet, or are refused with the file and line and nothing written. The workflow on
imported runs: tests/test_workflow_e2e.py."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest
import samples
import yaml

from blkscope.capture.manifest import build
from blkscope.run_logs import sources
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = samples.SAMPLES
KEKS = samples.files("blktrace-bin/influx_keks", "keks.blktrace.*")


@pytest.fixture
def repo(tmp_path) -> Path:
    """A project with two of our runs: its sheet and manifest, and their raw directories."""
    for d in ("config", "data/raw"):
        (tmp_path / d).mkdir(parents=True)
    ours = ["host-ext4-fio-randrw-r1", "host-xfs-ycsb-workloada-zipfian-r2"]
    load_runs(ROOT / "config/runs.tsv").filter(pl.col("run_id").is_in(ours)).write_csv(
        tmp_path / "config/runs.tsv", separator="\t")  # fmt: skip
    for r in ours:
        shutil.copytree(ROOT / "data/raw" / r, tmp_path / "data/raw" / r)
    manifest = pl.read_csv(ROOT / "data/raw/MANIFEST.tsv", separator="\t").filter(pl.col("run_id").is_in(ours))
    manifest.write_csv(tmp_path / "data/raw/MANIFEST.tsv", separator="\t")
    return tmp_path


def blkscope_import(repo: Path, *args: object) -> subprocess.CompletedProcess:
    return subprocess.run(["blkscope", "import", *map(str, args)], cwd=repo, capture_output=True, text=True)


def test_a_blktrace_set_and_a_ycsb_log_become_runs(repo):
    ours = (repo / "config/runs.tsv").read_bytes()
    # a trace alone: workload `other` (no workload log blkscope reads), unless stated
    p = blkscope_import(repo, "lab-ext4-keks-r1", "--filesystem", "ext4", "--job", "keks",
                        "--mount-options", "noatime", "--origin", "isotopp/blktrace_to_influx", "--trace", *KEKS)
    assert p.returncode == 0, p.stderr
    ycsb = SAMPLES / "ycsb/ycsb0170_redis_workloada_run.txt"
    p = blkscope_import(repo, "lab-xfs-redis-a-r1", "--filesystem", "xfs", "--job", "workloada", "--database",
                        "redis", "--log", ycsb, "--iostat", SAMPLES / "iostat/pkb_iostat_json_sysstat12_ts.json")
    assert p.returncode == 0, p.stderr

    # the runs sheet (the embedded dataset, which the paper reads) is left as it was; the rows join their own sheet,
    # with its columns
    assert (repo / "config/runs.tsv").read_bytes() == ours
    runs = load_runs(repo / "config/imported.tsv")
    assert runs.columns == load_runs(repo / "config/runs.tsv").columns
    assert runs["run_id"].to_list() == ["lab-ext4-keks-r1", "lab-xfs-redis-a-r1"]
    keks = runs.filter(pl.col("run_id") == "lab-ext4-keks-r1").row(0, named=True)
    assert (keks["testbed"], keks["tracer"], keks["traced"], keks["mount_options"], keks["workload"]) == (
        "external", "blktrace", True, "noatime", "other")
    redis = runs.filter(pl.col("run_id") == "lab-xfs-redis-a-r1").row(0, named=True)
    assert (redis["workload"], redis["database"], redis["traced"]) == ("ycsb", "redis", False)  # from the log

    meta = yaml.safe_load((repo / "data/raw/lab-ext4-keks-r1/run.yaml").read_text())["imported"]
    assert meta["origin"] == "isotopp/blktrace_to_influx" and meta["statements"]["filesystem"] == "ext4"
    assert meta["rows_read"] == {"blktrace:events": 2398}  # blkparse -i keks (SOURCES.md)
    for f, src in zip(meta["files"], KEKS, strict=True):
        assert f["source"] == str(src.resolve()) and f["stored"] == f"blktrace/{src.name}"  # ../shared may be a link
        assert f["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
        assert (repo / "data/raw/lab-ext4-keks-r1" / f["stored"]).read_bytes() == src.read_bytes()
    got = {s: (k, [f.name for f in fs]) for s, k, fs in sources(repo / "data/raw", "lab-xfs-redis-a-r1", "ycsb")}
    assert got == {"iostat": ("iostat", ["iostat.json"]), "ycsb": ("ycsb", ["ycsb-run.txt"])}
    assert sources(repo / "data/raw", "lab-ext4-keks-r1", "other")[0][:2] == ("trace", "blktrace")

    # the manifest lists exactly the files on disk, ours and the imported ones
    manifest = pl.read_csv(repo / "data/raw/MANIFEST.tsv", separator="\t")
    now = build(repo / "data/raw", pl.concat([load_runs(repo / "config/runs.tsv"), runs], how="diagonal_relaxed"))
    assert sorted(now.select("file", "bytes", "sha256").rows()) == sorted(manifest.select("file", "bytes",
                                                                                           "sha256").rows())


@pytest.mark.parametrize(("args", "message"), [
    (["--filesystem", "ext4", "--job", "a", "--log", "ycsb/pkb_ycsb090_redis_exceptions_nosummary.txt"],
     r"pkb_ycsb090_redis_exceptions_nosummary.txt: line \d+: this YCSB run did not finish"),
    (["--filesystem", "zfs", "--job", "a", "--log", "ycsb/ycsb0170_redis_workloada_run.txt"],
     "filesystem: 'zfs' is not one of"),
    (["--filesystem", "ext4", "--job", "a", "--iostat", "ycsb/ycsb0170_redis_workloada_run.txt"],
     "ycsb0170_redis_workloada_run.txt: reads as ycsb, not as an iostat log"),
    (["--filesystem", "ext4", "--job", "a", "--workload", "fio", "--log", "ycsb/ycsb0170_redis_workloada_run.txt"],
     "--workload fio, but the log given is a ycsb log"),
    (["--filesystem", "ext4", "--job", "a", "--workload", "other"], "nothing to import"),
])  # fmt: skip
def test_refused_with_the_reason_and_nothing_written(repo, args, message):
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    p = blkscope_import(repo, "lab-bad-r1", *[SAMPLES / a if (SAMPLES / a).is_file() else a for a in args])
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert re.search(message, p.stderr), p.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_a_run_id_is_never_taken_twice(repo):
    args = ["--filesystem", "ext4", "--workload", "other", "--job", "keks", "--trace", *KEKS]
    assert blkscope_import(repo, "host-ext4-fio-randrw-r1", *args).stderr.endswith("already in the runs sheet\n")
    assert blkscope_import(repo, "lab-r1", *args).returncode == 0
    shutil.rmtree(repo / "data/raw/lab-r1")  # the sheet of imported runs alone knows it now
    p = blkscope_import(repo, "lab-r1", *args)
    assert p.returncode == 2 and p.stderr.endswith("imported.tsv: run 'lab-r1' is already in the runs sheet\n")
    (repo / "data/raw/lab-r2").mkdir()
    assert "is never overwritten" in blkscope_import(repo, "lab-r2", *args).stderr
