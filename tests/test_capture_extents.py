"""The extents a run records at its end (capture/extents.py), with filefrag for real on this host's filesystem."""

from __future__ import annotations

from blkscope.capture import extents


def test_a_file_gone_before_filefrag_is_counted_not_fatal(tmp_path, monkeypatch):
    """The node still runs while its files' extents are read: a file listed can vanish before filefrag opens it."""
    (tmp_path / "mnt" / "data").mkdir(parents=True)
    for name in ("a.db", "b.db"):
        (tmp_path / "mnt" / "data" / name).write_bytes(b"x" * 8192)
    listed = ["data/a.db", "data/gone.db", "data/b.db"]  # gone.db: compacted away after the listing
    monkeypatch.setattr(extents, "files", lambda mnt, dirs: listed)
    (tmp_path / "out").mkdir()
    info = extents.record(tmp_path / "mnt", ("data",), tmp_path / "out")
    assert (info["files"], info["vanished"]) == (2, 1)
    log = (tmp_path / "out" / extents.LOG).read_text()
    assert "data/a.db" in log and "data/b.db" in log and "gone" not in log
    # nothing gone: every file listed is in the log and none is counted as vanished
    monkeypatch.setattr(extents, "files", lambda mnt, dirs: ["data/a.db", "data/b.db"])
    assert extents.record(tmp_path / "mnt", ("data",), tmp_path / "out")["vanished"] == 0
