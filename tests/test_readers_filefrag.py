"""The filefrag reader on real `filefrag -v` output: the capture's own (tests/fixtures/filefrag, see its README)
and output made at test time on files written here, and on damage."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers.detect import detect

FIX = Path(__file__).parent / "fixtures" / "filefrag"
FIXTURES = sorted(FIX.glob("*.txt"))


def _ingest(tmp_path: Path, path: Path, kind: str = "auto") -> pl.DataFrame:
    out = tmp_path / "out"
    run_ingest(kind, [path], out)
    return pl.read_parquet(out / "extents.parquet")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_captured_output_one_row_per_file(tmp_path, path):
    assert detect([path]) == "filefrag"
    df = _ingest(tmp_path, path)
    text = path.read_text()
    sizes = [int(s) for s in re.findall(r"^File size of \S+ is (\d+) ", text, re.MULTILINE)]
    counts = [int(c) for c in re.findall(r"^\S+: (\d+) extents? found$", text, re.MULTILINE)]
    assert df["bytes"].to_list() == sizes and df["extents"].to_list() == counts
    assert set(df["dir"]) == {"commitlog", "data"}  # a Cassandra run's files, relative to the mountpoint
    nonempty = df.filter(pl.col("bytes") > 0)
    assert (nonempty["extents"] >= 1).all() and (df["extent_records"] >= df["extents"]).all()
    assert df["fs_magic"].n_unique() == 1


@pytest.mark.requires("filefrag")
def test_output_made_here(tmp_path):
    d = tmp_path / "files"
    (d / "sub").mkdir(parents=True)
    (d / "one").write_bytes(os.urandom(300_000))
    (d / "empty").write_bytes(b"")
    with open(d / "sub" / "holes", "wb") as f:  # two written stretches 8 MiB apart: at least two records
        f.write(os.urandom(8192))
        f.seek(8 << 20)
        f.write(os.urandom(8192))
    subprocess.run(["sync"], check=True)
    names = ["one", "empty", "sub/holes"]
    raw = subprocess.run(["filefrag", "-v", *names], cwd=d, capture_output=True, text=True, check=True).stdout
    (tmp_path / "filefrag.txt").write_text(raw)
    df = _ingest(tmp_path, tmp_path / "filefrag.txt")
    assert df["path"].to_list() == names and df["dir"].to_list() == ["", "", "sub"]
    assert df["bytes"].to_list() == [(d / n).stat().st_size for n in names]
    one, empty, holes = df.iter_rows(named=True)
    assert empty["extents"] == 0 and empty["extent_records"] == 0
    assert one["extents"] >= 1 and holes["extent_records"] >= 2
    assert df["fs_magic"][0] == re.search(r"Filesystem type is: (\w+)", raw).group(1).lower()


SAMPLE = """Filesystem type is: ef53
File size of data/a is 300000 (74 blocks of 4096 bytes)
 ext:     logical_offset:        physical_offset: length:   expected: flags:
   0:        0..      73:   39981591..  39981664:     74:             last,eof
data/a: 1 extent found
File size of commitlog/b is 0 (0 blocks of 4096 bytes)
commitlog/b: 0 extents found
"""


def test_sample_reads(tmp_path):
    (tmp_path / "f.txt").write_text(SAMPLE)
    df = _ingest(tmp_path, tmp_path / "f.txt", kind="filefrag")
    assert df.rows() == [("data/a", "data", 300000, 4096, 1, 1, "ef53"), ("commitlog/b", "commitlog", 0, 4096, 0, 0,
                                                                             "ef53")]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        (SAMPLE.replace("data/a: 1 extent found\n", ""), "line 2", "no 'extents found' line for 'data/a'"),
        (SAMPLE.rsplit("commitlog/b:", 1)[0], "line 6", "cut file"),
        (SAMPLE.replace("data/a: 1 extent", "data/x: 1 extent"), "line 5", "count for 'data/x'"),
        (SAMPLE.replace(" ext:", "filefrag: data/a: FIEMAP failed\n ext:"), "line 3", "not a filefrag -v line"),
    ],
    ids=["count-missing", "cut", "wrong-file", "foreign-line"],
)
def test_damage_names_the_line(tmp_path, text, where, what):
    (tmp_path / "f.txt").write_text(text)
    with pytest.raises(InputError) as e:
        _ingest(tmp_path, tmp_path / "f.txt", kind="filefrag")
    assert where in str(e.value) and what in str(e.value) and "f.txt" in str(e.value)
