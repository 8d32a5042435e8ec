"""tracefs mounted by two processes at once, as pytest-xdist's workers do when they import the root tests after a
boot (tracefs unmounted): both must see the blk tracer. The loser of that race used to get mount(8)'s "already
mounted" refusal and skip every root test of its worker on a machine's first run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from blkscope.capture import tracefs
from blkscope.capture.sh import CommandFailed

ROOT = Path(__file__).resolve().parents[1]
PROBE = ("import sys, pathlib; from blkscope.capture import tracefs; "
         "print(tracefs.blk_available(pathlib.Path(sys.argv[1])))")


def test_a_mount_another_process_won_is_no_failure(tmp_path, monkeypatch):
    def lost_race(cmd, **kw):  # the other process's mount lands between our look and our mount
        (tmp_path / "current_tracer").write_text("nop\n")
        raise CommandFailed(f"{' '.join(cmd)}: exit 32: nodev already mounted on {tmp_path}")

    monkeypatch.setattr(tracefs, "sh", lost_race)
    assert tracefs.ensure_mounted(tmp_path) is False


def test_a_mount_that_fails_alone_still_fails(tmp_path, monkeypatch):
    def refused(cmd, **kw):
        raise CommandFailed(f"{' '.join(cmd)}: exit 32: unknown filesystem type 'tracefs'")

    monkeypatch.setattr(tracefs, "sh", refused)
    with pytest.raises(CommandFailed, match="unknown filesystem"):
        tracefs.ensure_mounted(tmp_path)


@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
def test_two_processes_mounting_at_once_both_see_the_blk_tracer(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for i in range(12):  # main's code lost about 1 start in 10 here
        point = tmp_path / str(i)
        point.mkdir()
        try:
            procs = [subprocess.Popen([sys.executable, "-c", PROBE, str(point)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True) for _ in range(2)]  # fmt: skip
            assert [p.communicate(timeout=60)[0].strip() for p in procs] == ["True", "True"], f"start {i}"
        finally:
            while subprocess.run(["mountpoint", "-q", str(point)]).returncode == 0:
                subprocess.run(["umount", str(point)], check=True)
