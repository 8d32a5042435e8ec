"""The memory cap for real with a Cassandra-shaped workload: a node that lives from prepare() to stop() (the
measured run's client beside it, outside the group), started inside the cap from a copy of an image that an
uncapped node loaded, quiesced and stopped. A capped run records the cap and the node's peak, removes the group and
leaves no JVM; a capture interrupted while the capped node runs, or whose node dies under the cap, leaves no group,
JVM, mount or loop device. The workload's own job at 20,000 records (`workloada-zipfian-capped-small`).

The module's captures share one work directory (fixture `capped`), so its image is loaded once: by the first
capped run, whose run.yaml says so; the interrupted ones start from copies of it (a load is a node's start, 20,000
inserts and a drain: most of each capture's time)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
import yaml
import zstandard
from test_cassandra_root import _command, _jvm_options_recorded, _nothing_left, pytestmark  # noqa: F401 - same skips
from test_memory_cap_root import PEAK_SLACK, _no_groups, needs_memcg

from blkscope.capture import memcap
from blkscope.capture.workloads.cassandra import NO_MEMLOCK

CAP = "768M"
JOB = "workloada-zipfian-capped-small"
LOAD_LOGS = ["ycsb-load.txt", "cassandra-load.yaml", "cassandra-load-node.log.zst"]


def _sheet(tmp_path: Path, run_id: str, runtime_s: int, traced: bool = True) -> Path:
    row = {"run_id": run_id, "study": "test", "database": "cassandra", "workload": "cassandra-ycsb", "job": JOB,
           "filesystem": "ext4", "mkfs_options": "-F -q", "mount_options": "noatime", "testbed": "loop",
           "tracer": "tracefs-blk" if traced else "none", "traced": traced, "repeat": 1, "device_mb": 1024,
           "runtime_s": runtime_s, "memory_cap": CAP}  # fmt: skip
    sheet = tmp_path / f"{run_id}.tsv"
    pl.DataFrame([row]).write_csv(sheet, separator="\t")
    return sheet


@pytest.fixture(scope="module")
def capped(tmp_path_factory) -> tuple[Path, dict]:
    """The first capped run of the module's work directory (it makes the image): (its base directory, run.yaml)."""
    base = tmp_path_factory.mktemp("cassandra-memcap")
    subprocess.run(_command(base, _sheet(base, "t-cap", 8), "t-cap"), check=True, timeout=1200, cwd=base)
    return base, yaml.safe_load((base / "raw" / "t-cap" / "run.yaml").read_text())


@needs_memcg
def test_capped_node_from_an_image_records_the_cap_and_removes_it(capped):
    tmp_path, meta = capped
    _nothing_left(tmp_path / "work")
    _no_groups()
    out = tmp_path / "raw" / "t-cap"
    node = ["cassandra-node.log.zst", "cassandra.yaml", "filefrag.txt", "iostat.json", "run.yaml", "trace.txt.zst"]
    assert sorted(p.name for p in out.iterdir()) == sorted([*node, "ycsb-run.txt", *LOAD_LOGS])
    mem = meta["memory_cap"]
    assert mem["requested"] == CAP and mem["limit_bytes"] == 768 << 20 and mem["removed"], mem
    assert not Path(mem["group"]).exists() and mem["oom_kill"] == 0, mem
    # the node's JVM ran inside (its heap alone is 192 MiB), and the client's did not: its 512 MiB heap and the
    # node's would not both fit under the peak the group saw
    assert 192 << 20 < mem["max_usage_bytes"] <= mem["limit_bytes"] + PEAK_SLACK, mem
    assert mem["snapshots"]["workload_end"]["stat"]["total_cache"] > 0, mem
    wl = meta["workload"]
    assert wl["node"]["command"].startswith("sh -c") and "-Xmx192m" in wl["node"]["command"]
    assert "sh -c" not in wl["commands"]["run"] and wl["node"]["exit_code"] is not None
    # the suite's JVM options on the capped node and the client, and on the image's load (its key's command)
    _jvm_options_recorded(meta, [wl["node"]["command"], wl["commands"]["run"], meta["image"]["key"]["load_command"]])
    # the node cannot lock its memory, as in a container (cassandra.NO_MEMLOCK): its mlockall fails and it goes on
    assert " ".join(NO_MEMLOCK) in wl["node"]["command"]
    log = zstandard.ZstdDecompressor().stream_reader((out / "cassandra-node.log.zst").open("rb")).read()
    assert b"Unable to lock JVM memory (ENOMEM)" in log and b"JNA mlockall successful" not in log
    conf = yaml.safe_load((out / "cassandra.yaml").read_text())
    assert conf["memtable_heap_space"] == "48MiB" and conf["file_cache_enabled"] is False
    assert any("DiskAccessMode is standard, indexAccessMode is standard" in x for x in wl["node"]["commitlog_access"])
    loaded = yaml.safe_load((out / "cassandra-load.yaml").read_text())
    assert "memtable_heap_space" not in loaded  # the loading node ran on Cassandra's defaults
    img = meta["image"]
    assert img["made_by_this_run"] and img["copy_sha256"] == img["sha256"] and img["copy_matches_image"]
    load = img["load"]
    assert load["insert_operations"] == 20_000 and load["node"]["pending_compactions_at_drain"] == 0, load
    assert meta["cassandra-ycsb"]["overall_throughput"] > 0
    # the node's I/O was traced and the window cut from it: the 2-s window may fall where the capped node did no
    # device I/O (the client's JVM still starting, reads from the page cache, commitlog syncs every 10 s), but the
    # sync after the run writes its updates back while the tracer is on
    w = meta["tracer"]["window"]
    assert w["kept"] + w["before"] + w["after"] + sum(w["lines_read_outside_margin"].values()) > 0, w
    kept = zstandard.ZstdDecompressor().stream_reader((out / "trace.txt.zst").open("rb")).read()
    assert kept.count(b"\n") == w["kept"], w

    # a second run copies the same image, and its node reads every record the load wrote
    again = subprocess.run(_command(tmp_path, _sheet(tmp_path, "t-cap-2", 8, traced=False), "t-cap-2"),
                           check=True, timeout=1200, cwd=tmp_path)  # fmt: skip
    assert again.returncode == 0
    meta2 = yaml.safe_load((tmp_path / "raw" / "t-cap-2" / "run.yaml").read_text())
    assert not meta2["image"]["made_by_this_run"] and meta2["image"]["copy_sha256"] == img["sha256"]
    run = (tmp_path / "raw" / "t-cap-2" / "ycsb-run.txt").read_text()
    assert "[READ], Return=OK" in run and "Return=NOT_FOUND" not in run
    _nothing_left(tmp_path / "work")
    _no_groups()


def _in_group(p: subprocess.Popen) -> list[int]:
    """The tasks in the memory group of the capture `p` (named by its pid; other captures' groups left alone)."""
    procs = memcap.CGROUP / "memory" / f"{memcap.PREFIX}{p.pid}" / "cgroup.procs"
    try:
        return [int(pid) for pid in procs.read_text().split()]
    except OSError:
        return []


def _capped_node_running(tmp_path: Path, run_id: str) -> tuple[subprocess.Popen, Path]:
    """A 20-s capped capture (from a copy of the image when the work directory has it) let run until its node is
    inside its group and its client runs."""
    log = tmp_path / f"{run_id}.log"
    with open(log, "wb") as f:
        p = subprocess.Popen(_command(tmp_path, _sheet(tmp_path, run_id, 20, traced=False), run_id), stdout=f,
                             stderr=subprocess.STDOUT, cwd=tmp_path)  # fmt: skip
    deadline = time.monotonic() + 1800  # the lock may be held; the image's load and the node's start take minutes
    while not (_in_group(p) and "site.ycsb.Client -t" in log.read_text(errors="replace")):
        assert p.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")[-3000:]
        time.sleep(0.5)
    time.sleep(3)
    return p, log


@needs_memcg
@pytest.mark.parametrize("how", ["sigint", "node-killed"])
def test_capped_node_interrupted_or_killed_leaves_nothing(capped, how):
    tmp_path, _ = capped  # the work directory whose image the first capped run made
    p, log = _capped_node_running(tmp_path, f"t-{how}")
    try:
        if how == "sigint":
            p.send_signal(signal.SIGINT)  # as Ctrl-C
        else:  # the node dies under the cap, as an OOM kill would end it
            for pid in _in_group(p):
                subprocess.run(["kill", "-KILL", str(pid)], check=False)
        code = p.wait(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    assert code != 0, log.read_text(errors="replace")[-3000:]
    if how == "node-killed":
        assert "java stopped: Cassandra exited (-9)" in log.read_text(errors="replace").splitlines()[-1]
    assert not (tmp_path / "raw" / f"t-{how}").exists(), "a failed run published a directory"
    _nothing_left(tmp_path / "work")
    _no_groups()
