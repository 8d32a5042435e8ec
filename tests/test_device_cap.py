"""The device cap's syntax and its writes into the kernel's interfaces, on a fake cgroup tree (the real one: see
test_device_cap_root.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from blkscope.capture import signals, throttle
from blkscope.capture.throttle import CapError, capped, parse


def test_parse_takes_io_max_syntax():
    assert parse("wiops=500 wbps=20M") == {"wiops": 500, "wbps": 20 << 20}
    assert parse("riops=10,rbps=4k") == {"riops": 10, "rbps": 4096}
    assert parse("") == {} and parse(None) == {}


@pytest.mark.parametrize(
    "bad, why",
    [("wiops=5k", "plain count"), ("wbps=0", "positive"), ("wiops=1 wiops=2", "twice"), ("iops=5", "KEY=N")],
)
def test_parse_refuses_with_the_reason(bad, why):
    with pytest.raises(CapError, match=why):
        parse(bad)


def _v1(root: Path) -> Path:
    blkio = root / "blkio"
    blkio.mkdir(parents=True)
    for name in throttle.V1_FILES.values():
        (blkio / f"blkio.throttle.{name}_device").write_text("")
    return blkio


def test_v1_sets_then_removes_every_limit(tmp_path):
    blkio = _v1(tmp_path)
    with capped("/dev/loopX", {"wiops": 500, "rbps": 1 << 20}, root=tmp_path, dev="7:3") as cap:
        assert throttle.active("7:3", tmp_path) == {"wiops": 500, "rbps": 1 << 20}
        assert (blkio / "blkio.throttle.write_iops_device").read_text() == "7:3 500\n"
    assert cap.removed and cap.info()["interface"] == "cgroup-v1-blkio"
    assert throttle.active("7:3", tmp_path) == {}
    assert (blkio / "blkio.throttle.read_bps_device").read_text() == "7:3 0\n"


@pytest.mark.parametrize("exc", [RuntimeError("workload failed"), signals.Interrupted(2)])
def test_v1_removed_after_a_failure_or_a_signal(tmp_path, exc):
    _v1(tmp_path)
    with pytest.raises(type(exc)), capped("/dev/loopX", {"wiops": 7}, root=tmp_path, dev="7:3"):
        raise exc
    assert throttle.active("7:3", tmp_path) == {}


def test_v1_a_limit_the_kernel_did_not_take_is_an_error_and_is_undone(tmp_path):
    blkio = _v1(tmp_path)
    wbps = blkio / "blkio.throttle.write_bps_device"
    wbps.unlink()
    wbps.mkdir()  # a write the kernel refuses
    with pytest.raises(CapError, match="write_bps_device"), capped("/d", {"wiops": 5, "wbps": 9}, tmp_path, "7:3"):
        pass
    assert throttle.active("7:3", tmp_path) == {}


def test_v2_uses_a_child_group_and_leaves_it(tmp_path, monkeypatch):
    v2 = tmp_path / "unified"
    v2.mkdir()
    (v2 / "cgroup.controllers").write_text("cpu io memory\n")
    (v2 / "cgroup.subtree_control").write_text("")
    (v2 / "cgroup.procs").write_text("")
    real_mkdir = Path.mkdir

    def mkdir(self, *a, **k):  # a real cgroup directory comes with its files
        real_mkdir(self, *a, **k)
        for f in ("io.max", "cgroup.procs"):
            (self / f).touch()

    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(Path, "rmdir", lambda self: [p.unlink() for p in self.iterdir()] and None or None)
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text("0::/\n")  # in the root group
    monkeypatch.setattr(throttle, "PROC_CGROUP", proc)
    with capped("/dev/loopX", {"wiops": 500}, root=tmp_path, dev="7:3") as cap:
        group = v2 / throttle.V2_GROUP
        assert (group / "io.max").read_text() == "7:3 wiops=500\n"
        assert (v2 / "cgroup.subtree_control").read_text() == "+io\n"
        assert (group / "cgroup.procs").read_text().strip().isdigit()
    assert cap.interface == "cgroup-v2-io.max" and cap.removed
    assert (v2 / "cgroup.procs").read_text().strip().isdigit()  # the process went back to the root group
    assert not any(group.iterdir())
    # from a group of its own, the process goes back there, not to the root
    (v2 / "cgroup.procs").write_text("")
    home = v2 / "user.slice" / "session-1.scope"
    home.mkdir(parents=True)
    proc.write_text("0::/user.slice/session-1.scope\n")
    with capped("/dev/loopX", {"wbps": 1 << 20}, root=tmp_path, dev="7:3") as cap:
        assert (group / "cgroup.procs").read_text().strip() == str(os.getpid())
    assert (home / "cgroup.procs").read_text().strip() == str(os.getpid()) and cap.removed
    assert (v2 / "cgroup.procs").read_text() == "" and cap.info()["home_group"] == "/user.slice/session-1.scope"


def test_no_interface_is_one_clear_error(tmp_path):
    with pytest.raises(CapError, match="neither cgroup v1 blkio nor a cgroup v2 io controller"):
        throttle.interface(tmp_path)
