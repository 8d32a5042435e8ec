"""The memory cap for real: a capped YCSB-on-RocksDB capture on a loop device that starts from a loaded image
(the cap set, its peak recorded in run.yaml, the group gone afterwards; the copy's sha256 equal to the image's;
the trace cut to its window), and capped captures whose workload fails midway or that are interrupted (group,
loop devices and mounts gone)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
import yaml
import zstandard
from test_capture_root import ROOT, _assert_clean, _cmd, pytestmark  # noqa: F401 - same skips
from test_cassandra_root import _jvm_options_recorded

from blkscope.capture import memcap
from blkscope.runs import load_runs

CAP = "192M"
JOB = "workloada-zipfian-buffered-sat-small"
needs_memcg = pytest.mark.skipif(
    not Path("/sys/fs/cgroup/memory/memory.limit_in_bytes").exists(), reason="no cgroup v1 memory controller"
)
# how far v1's recorded peak may pass the limit: charges the kernel may not fail (page tables, __GFP_NOFAIL) are
# forced past it; seen once here, one page over (CI of 2df7e6b: 201,330,688 against 201,326,592). A charge batch.
PEAK_SLACK = 64 * 4096


def _sheet(tmp_path: Path, runtime_s: int, traced: bool = True) -> tuple[Path, str]:
    """One ext4 row of the real sheet's capped batch, shrunk to the small job: 256 MiB device, a short run."""
    row = load_runs(ROOT / "config/runs.tsv").filter(pl.col("filesystem") == "ext4", pl.col("memory_cap").is_not_null())
    row = row.head(1).with_columns(run_id=pl.lit("test-memcap"), job=pl.lit(JOB), device_mb=pl.lit(256),
                                   runtime_s=pl.lit(runtime_s), memory_cap=pl.lit(CAP), traced=pl.lit(traced),
                                   tracer=pl.lit("tracefs-blk" if traced else "none"), batch=pl.lit(""))  # fmt: skip
    path = tmp_path / "runs.tsv"
    row.write_csv(path, separator="\t")
    return path, "test-memcap"


def _capture(tmp_path: Path, runtime_s: int, traced: bool = True) -> tuple[list[str], Path, Path]:
    sheet, run_id = _sheet(tmp_path, runtime_s, traced)
    out, work = tmp_path / "raw" / run_id, tmp_path / "work"
    return [*_cmd(sheet, run_id, out, work), "--tools-dir", str(ROOT / "tools")], out, work


def _no_groups() -> None:
    assert not memcap.leftovers(), f"a memory group was left behind: {memcap.leftovers()}"


@needs_memcg
def test_capped_capture_from_an_image_records_the_cap_and_removes_it(tmp_path):
    cmd, out, work = _capture(tmp_path, runtime_s=8)
    subprocess.run(cmd, check=True, timeout=600, cwd=tmp_path)
    meta = yaml.safe_load((out / "run.yaml").read_text())
    mem = meta["memory_cap"]
    assert mem["requested"] == CAP and mem["limit_bytes"] == 192 << 20 and mem["removed"]
    assert mem["interface"] == "cgroup-v1-memory" and not Path(mem["group"]).exists()
    # the JVM ran inside: the group's peak is its heap and page cache, and never above the limit
    assert 32 << 20 < mem["max_usage_bytes"] <= mem["limit_bytes"] + PEAK_SLACK, mem
    assert mem["snapshots"]["workload_end"]["stat"]["total_cache"] > 0, mem  # the page cache it faulted in
    img = meta["image"]
    assert img["made_by_this_run"] and img["copy_sha256"] == img["sha256"] and img["copy_matches_image"]
    assert (out / "ycsb-load.txt").read_text().count("[INSERT], Operations") == 1  # the image's load log
    _jvm_options_recorded(meta, [meta["workload"]["commands"]["run"], img["key"]["load_command"]])
    w = meta["tracer"]["window"]
    lines = zstandard.ZstdDecompressor().stream_reader((out / "trace.txt.zst").open("rb")).read().splitlines()
    times = [float(ln.split()[2]) for ln in lines]
    assert times and w["start_monotonic_s"] <= min(times) and max(times) < w["end_monotonic_s"]
    assert w["kept"] == len(lines) == meta["tracer"]["events"] and w["before"] + w["after"] > 0, w
    _no_groups()
    _assert_clean(work)

    # a second run of the same configuration copies the same image instead of loading again
    again = out.with_name("test-memcap-2")
    subprocess.run([*cmd[: cmd.index("-o") + 1], str(again), *cmd[cmd.index("-o") + 2 :]], check=True,
                   timeout=600, cwd=tmp_path)  # fmt: skip
    img2 = yaml.safe_load((again / "run.yaml").read_text())["image"]
    assert not img2["made_by_this_run"] and img2["copy_sha256"] == img["sha256"] and img2["path"] == img["path"]
    _no_groups()


def _capped_capture_in_its_run_phase(tmp_path: Path) -> tuple[subprocess.Popen, Path, Path, Path]:
    """A 60-s capped capture let run until its YCSB run phase is inside the group: (process, log, out, work)."""
    cmd, out, work = _capture(tmp_path, runtime_s=60, traced=False)
    log = tmp_path / "capture.log"
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stderr=f, cwd=tmp_path)
    deadline = time.monotonic() + 300
    while not _jvms_in_groups():
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    return p, log, out, work


def _jvms_in_groups() -> list[int]:
    return [int(pid) for g in memcap.leftovers() for pid in (g / "cgroup.procs").read_text().split()]


@needs_memcg
def test_capped_capture_whose_workload_fails_removes_the_group(tmp_path):
    p, log, out, work = _capped_capture_in_its_run_phase(tmp_path)
    for pid in _jvms_in_groups():  # the workload dies under the cap, as an OOM kill would end it
        subprocess.run(["kill", "-KILL", str(pid)], check=False)
    code = p.wait(timeout=120)
    assert code not in (0, 130), log.read_text()
    assert "java exit" in log.read_text().splitlines()[-1], log.read_text()
    assert not out.exists()
    _no_groups()
    _assert_clean(work)


@needs_memcg
def test_capped_capture_interrupted_removes_the_group(tmp_path):
    p, log, out, work = _capped_capture_in_its_run_phase(tmp_path)
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=120) == 130, log.read_text()
    assert not out.exists()
    _no_groups()
    _assert_clean(work)
