"""The memory cap's group on the host's real cgroup v1 memory controller (root): a process started through
wrap() runs inside it and its page cache is held at the limit; the group is removed after an error, a process
still in it moved out first. And the trace window's cut, on a real captured trace."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import zstandard

from blkscope.capture import memcap
from blkscope.capture.tracefs import cut_window

ROOT = Path(__file__).resolve().parents[1]
needs_memcg = pytest.mark.skipif(
    os.geteuid() != 0 or not Path("/sys/fs/cgroup/memory/memory.limit_in_bytes").exists(),
    reason="needs root and the cgroup v1 memory controller",
)


@pytest.mark.parametrize(("text", "want"), [("384M", 384 << 20), ("1G", 1 << 30), ("65536k", 64 << 20),
                                            ("512MiB", 512 << 20), ("", 0), (None, 0)])  # fmt: skip
def test_parse(text, want):
    assert memcap.parse(text) == want


@pytest.mark.parametrize(("text", "says"), [("384 MB x", "not N"), ("1M", "below 16 MiB"), ("-5M", "not N")])
def test_parse_refuses(text, says):
    with pytest.raises(memcap.MemCapError, match=says):
        memcap.parse(text)


@needs_memcg
def test_a_wrapped_reader_is_held_at_the_limit(tmp_path):
    data = tmp_path / "data.bin"
    with open(data, "wb") as f:  # 160 MiB that the reader faults into the page cache
        for _ in range(160):
            f.write(os.urandom(1 << 20))
        f.flush()
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)  # out of the cache (charged to the writer)
    with memcap.capped(64 << 20, name=f"test-{os.getpid()}") as cap:
        out = subprocess.run(cap.wrap(["sh", "-c", f"cat /proc/self/cgroup; cat {data} > /dev/null"]),
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
        assert f"memory:/{cap.group.name}" in out
        during = cap.snapshot("after_read")
    assert cap.removed and not cap.group.exists()
    assert 32 << 20 < cap.stats["max_usage_bytes"] <= 64 << 20, cap.stats  # 160 MiB read, 64 MiB held
    assert cap.stats["failcnt"] > 0 and during["stat"]["total_cache"] > 16 << 20, (cap.stats, during)


@needs_memcg
def test_the_group_goes_after_an_error_and_a_straggler_is_moved_out():
    p = None
    with pytest.raises(RuntimeError, match="workload failed"), memcap.capped(64 << 20, name=f"t-{os.getpid()}") as cap:
        p = subprocess.Popen(cap.wrap(["sleep", "60"]))
        while str(p.pid) not in (cap.group / "cgroup.procs").read_text().split():
            pass
        raise RuntimeError("workload failed")
    try:
        assert cap.removed and not cap.group.exists() and cap.moved_out == [p.pid]
        assert p.poll() is None and cap.group.name not in Path(f"/proc/{p.pid}/cgroup").read_text()
    finally:
        p.kill()
        p.wait()


def test_cut_window_keeps_the_window_and_counts_the_rest(tmp_path):
    raw = tmp_path / "trace.txt"
    src = ROOT / "data/raw/host-ext4-ycsb-workloada-zipfian-sat-r1/trace.txt.zst"
    raw.write_bytes(zstandard.ZstdDecompressor().stream_reader(src.open("rb")).read())
    lines = raw.read_bytes().splitlines(keepends=True)
    times = [float(ln.split()[2]) for ln in lines]
    start, end = times[0] + 0.5, times[0] + 1.0
    raw.write_bytes(b"dd Q RS 1796524 + 238 [Thread-13]\n" + b"".join(lines) + b"  7,1    1 172")  # reader's edges
    counts = cut_window(raw, start, end)
    kept = raw.read_bytes().splitlines()
    assert counts["kept"] == len(kept) == sum(start <= t < end for t in times) > 0
    assert counts["before"] == sum(t < start for t in times) and counts["after"] == sum(t >= end for t in times)
    assert counts["partial"] == 2
    assert all(start <= float(ln.split()[2]) < end for ln in kept)
