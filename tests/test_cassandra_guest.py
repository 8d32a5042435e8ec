"""The guest's Cassandra steps (capture/workloads/cassandra_guest.py) run by busybox sh, as the guest's init runs
them: the cassandra.yaml they write, the wait for the node's CQL port (ready, or the node gone), the stop by PID
and the milestones in times.txt. Real processes stand where the node would be; the node itself runs in
tests/test_cassandra_guest_root.py and in the guest."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from blkscope.capture.workloads import cassandra_guest as cg
from blkscope.capture.workloads import cassandra_node

pytestmark = pytest.mark.requires("busybox")  # the guest's shell
OPTIONS = {"commitlog_compression": "LZ4", "commitlog_segment_mb": 32, "commitlog_sync_period_ms": 10000,
           "commitlog_disk_access_mode": "standard"}  # fmt: skip


def _sh(lines: list[str], tmp_path: Path, timeout: float = 30) -> subprocess.CompletedProcess:
    """The lines as one script, with the PID file moved into tmp_path, run by busybox sh -e."""
    script = tmp_path / "step.sh"
    script.write_text("\n".join(ln.replace(cg.PIDFILE, str(tmp_path / "node.pid")) for ln in lines) + "\n")
    return subprocess.run(["busybox", "sh", "-e", str(script)], capture_output=True, text=True, timeout=timeout)


def _start(cmd: str, tmp_path: Path) -> str:
    return f"sh -c {cmd!r} > /dev/null 2>&1 & echo $! > {tmp_path / 'node.pid'}"


def test_prepare_writes_the_nodes_yaml_with_the_guests_ports_and_timeouts(tmp_path):
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    out.mkdir()
    steps = cg.prepare_steps(str(mnt), str(out), OPTIONS, ["java", "site.ycsb.Client", "-load"])
    (line,) = [s for s in steps if s.startswith("printf")]
    assert _sh([line], tmp_path).returncode == 0
    cfg = yaml.safe_load((out / "cassandra.yaml").read_text())
    assert cfg == {**cassandra_node.config(mnt, OPTIONS, cg.PORTS), **cg.NODE_SETTINGS}
    assert cfg["commitlog_directory"] == f"{mnt}/commitlog" and cfg["native_transport_port"] == 9042
    assert cfg["commitlog_compression"] == [{"class_name": "LZ4Compressor"}]
    # the node starts in the background before the wait, the load only once the port is open
    order = [next(i for i, s in enumerate(steps) if key in s) for key in ("mark node_start", "CassandraDaemon",
             cg.READY, "mark node_ready", "site.ycsb.Client", "mark load_end")]  # fmt: skip
    assert order == sorted(order)
    assert next(s for s in steps if "CassandraDaemon" in s).endswith("< /dev/null &")
    # the payload's runtime needs its own libraries (libz, ...) before any java starts
    assert steps[0] == f"export LD_LIBRARY_PATH={cg.PAYLOAD}/native"


def test_wait_ready_returns_once_the_log_says_so(tmp_path):
    log = tmp_path / "node.log"
    line = f"INFO [main] PipelineConfigurator.java:148 - {cg.READY} on /127.0.0.1:9042"
    node = f"sleep 0.5; echo '{line}' >> {log}; sleep 20"
    t0 = time.monotonic()
    p = _sh([*cg.functions(str(tmp_path)), f": > {log}", _start(node, tmp_path), cg.wait_ready(str(log))], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert 0.5 <= time.monotonic() - t0 < 10
    subprocess.run(["kill", (tmp_path / "node.pid").read_text().strip()])


def test_wait_ready_fails_at_once_when_the_node_exits(tmp_path):
    """A node that died before its port opened fails the step with its log's last lines, also while it is a
    zombie its shell has not reaped yet."""
    log = tmp_path / "node.log"
    t0 = time.monotonic()
    p = _sh([*cg.functions(str(tmp_path)), f": > {log}", _start(f"echo 'ERROR bad yaml' >> {log}; exit 3", tmp_path),
             cg.wait_ready(str(log))], tmp_path)  # fmt: skip
    assert p.returncode == 1 and time.monotonic() - t0 < 10
    assert "the node exited before its CQL port opened" in p.stdout and "ERROR bad yaml" in p.stdout


def test_finish_stops_the_node_and_marks_the_time(tmp_path):
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    for d in ("commitlog", "data"):
        (mnt / d).mkdir(parents=True)
    (mnt / "commitlog" / "CommitLog-8-1.log").write_bytes(b"x" * 8192)
    out.mkdir()
    steps = cg.finish_steps(str(mnt), str(out))
    if shutil.which("filefrag") is None:
        steps = [s for s in steps if "filefrag" not in s]
    t0 = time.monotonic()
    p = _sh([_start("trap 'exit 0' TERM; while :; do sleep 0.1; done", tmp_path), *steps], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert time.monotonic() - t0 < 10  # stopped by SIGTERM, not after STOP_TIMEOUT_S
    pid = (tmp_path / "node.pid").read_text().strip()
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    name, utc, uptime = (out / "times.txt").read_text().split()
    assert name == "node_stopped" and utc.endswith("Z") and float(uptime) > 0
    if shutil.which("filefrag"):
        assert "commitlog/CommitLog-8-1.log" in (out / "filefrag.txt").read_text()
