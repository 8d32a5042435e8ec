"""The writers that go through mkstemp (0600) or mkdtemp (0700) leave what open() and mkdir() would: 0666 / 0777
less the umask. (The workflow's and a capture's outputs as a whole: tests/test_workflow_e2e.py and
tests/test_capture_root.py.)"""

from __future__ import annotations

import os

import polars as pl
import pytest
from modes import off_umask

from blkscope.io import Report, follow_umask, run_reader, umask, write_atomic, write_text_atomic


@pytest.fixture(params=[0o022, 0o002, 0o077])
def mask(request):
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def test_umask_is_read_without_changing_it(mask):
    assert umask() == mask and umask() == mask


def test_atomic_writers_follow_the_umask(tmp_path, mask):
    write_atomic(pl.DataFrame({"a": [1]}), tmp_path / "t.parquet")
    write_atomic(pl.DataFrame({"a": [1]}), tmp_path / "t.csv")
    write_text_atomic("x\n", tmp_path / "n.tex")

    def reader(inputs, writer, report: Report):
        writer.write("events", pl.DataFrame({"a": [1]}))

    run_reader(reader, "handmade", [], tmp_path / "ingested")
    assert off_umask(list(tmp_path.iterdir()), mask) == []
    assert sorted(p.name for p in (tmp_path / "ingested").iterdir()) == ["events.parquet", "ingest.json"]


def test_follow_umask_on_a_directory(tmp_path, mask):
    d = tmp_path / "d"
    d.mkdir(mode=0o700)
    assert oct(follow_umask(d).stat().st_mode & 0o777) == oct(0o777 & ~mask)
