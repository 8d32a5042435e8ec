"""Source.chunks: a trace read in time windows is the whole trace stably sorted by time (ties in file order),
each row group read once, also when row groups overlap in time (per-CPU runs) and are larger than a window."""

from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis import windows
from blkscope.cli import main

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "trace" / "tracefs_blk_classic_pipe.txt.zst"


@pytest.fixture(scope="module")
def per_cpu(tmp_path_factory) -> tuple[Path, pl.DataFrame]:
    """The real tracefs fixture rewritten per CPU (each CPU's events a run of row groups of 700 rows, so groups
    of different CPUs overlap in time) as two files: a trace split into parts."""
    tmp = tmp_path_factory.mktemp("win")
    assert main(["ingest", str(FIXTURE), "-o", str(tmp / "trace")]) == 0
    ev = pl.read_parquet(tmp / "trace" / "events.parquet").sort("cpu", maintain_order=True)
    half = ev.height // 2
    files = [tmp / "a.parquet", tmp / "b.parquet"]
    ev.head(half).write_parquet(files[0], row_group_size=700, statistics=True)
    ev.slice(half).write_parquet(files[1], row_group_size=700, statistics=True)
    assert pl.read_parquet_metadata(files[0]) is not None and ev["cpu"].n_unique() > 1
    return files, ev


@pytest.mark.parametrize("rows", [250, 1_000, 10**9])
def test_chunks_are_the_stable_time_sort_and_read_each_group_once(per_cpu, rows, monkeypatch):
    files, ev = per_cpu
    src = windows.Source(files)
    assert len(src.groups) > 4
    read = []
    for scan in list(src.scans):  # count the rows each window asks the files for
        monkeypatch.setattr(scan, "slice", lambda off, n, _s=scan.slice: (read.append(n), _s(off, n))[1])
    cols = ["sector", "action", (pl.col("nsectors") * 2).alias("twice")]
    got = pl.concat(list(src.chunks(cols, rows, where=pl.col("action") != "Q")))
    want = ev.filter(pl.col("action") != "Q").sort("time_ns", maintain_order=True)
    want = want.select("sector", "action", twice=pl.col("nsectors") * 2, time_ns="time_ns")
    assert got.equals(want)
    assert sum(read) == ev.height  # every row group once, whatever the window
    assert len(src.windows(rows)) > 1 or rows == 10**9
