"""The Parquet writer of blkscope-native, read back by polars and pyarrow: every column kind (dense,
nullable, sparse extras, dictionary strings) over several row groups and pages, value for value against
the formulas of native/src/sample.rs recomputed here."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from blkscope import native
from blkscope.readers.trace_text import EVENT_COLUMNS, EVENT_EXTRAS
from blkscope.schemas import EVENTS

ROWS, GROUP = 300_007, 100_000  # 4 row groups, the last short; pages of 2^17 rows cut inside groups


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    d = tmp_path_factory.mktemp("native")
    out, rep = d / "s.parquet", d / "r.json"
    subprocess.run([str(native.program()), "parquet-sample", "--out", str(out), "--report", str(rep),
                    "--rows", str(ROWS), "--row-group", str(GROUP)], check=True)  # fmt: skip
    return out, json.loads(rep.read_text())


def expected() -> pl.DataFrame:
    i = np.arange(ROWS, dtype=np.int64)
    actions = np.array(["Q", "G", "I", "D", "C", "P", "U", "m"])
    a = actions[(i * 7 + i // 3) % 8]
    nosec = np.isin(a, ["P", "U", "m"])

    def opt(vals, mask, dtype):
        s = pl.Series(vals, dtype=dtype)
        return s.set(pl.Series(~mask), None) if (~mask).any() else s

    return pl.DataFrame({
        "dev_major": np.where(i % 1000 == 999, 259, 7).astype(np.uint32),
        "dev_minor": (i % 3).astype(np.uint32),
        "cpu": (i // 100_000 % 4).astype(np.uint32),
        "seq": i + 1,
        "time_ns": i * 1733 - 5000 + (i % 17) * 3,
        "pid": (np.uint64(2**32 - 1) - (i % 5).astype(np.uint64)).astype(np.uint32),
        "action": a,
        "rwbs": np.where(i % 2 == 0, "WS", "R"),
        "sector": opt(i * 2_654_435_761 % (1 << 40), ~nosec, pl.Int64),
        "nsectors": opt(i % 256, ~nosec, pl.Int64),
        "error": opt(-(i % 3), a == "C", pl.Int32),
        "process": opt(np.char.add("proc-", (i % 37).astype(str)), i % 11 != 0, pl.Utf8),
        "remap_dev_major": opt(np.full(ROWS, 8), i % 5 == 0, pl.UInt32),
        "remap_dev_minor": opt(16 + i % 2, i % 5 == 0, pl.UInt32),
        "remap_sector": opt(i * 8 - 1, i % 5 == 0, pl.Int64),
        "split_sector": opt(i + 4, i % 97 == 0, pl.Int64),
        "unplug_count": opt(i % 9, a == "U", pl.Int64),
        "pc_bytes": opt(np.full(ROWS, 512), i % 1001 == 0, pl.Int64),
        "cdb": opt(np.full(ROWS, "2a00000008000008"), i % 1001 == 0, pl.Utf8),
        "message": opt(np.char.add(np.char.add("cfq", (i % 4).astype(str)), " insert"), (a == "m") & (i % 2 == 0),
                       pl.Utf8),
        "cgroup_id": opt(np.uint64(2**64 - 1) - i.astype(np.uint64), i % 13 == 0, pl.UInt64),
    })  # fmt: skip


def test_polars_reads_every_value(sample):
    out, rep = sample
    assert rep["rows"] == {"events": ROWS}
    got = pl.read_parquet(out)
    assert got.columns == EVENT_COLUMNS
    want = expected()
    for c in EVENT_COLUMNS:
        assert got[c].dtype == {**EVENTS, **EVENT_EXTRAS}[c], c
        assert got[c].equals(want[c], check_names=False), c
    assert pq.ParquetFile(out).metadata.num_row_groups == 4


def test_pyarrow_reads_the_same(sample):
    out, _ = sample
    t = pq.read_table(out)
    assert pl.from_arrow(t).equals(pl.read_parquet(out))


def test_statistics_prune_correctly(sample):
    out, _ = sample
    lf = pl.scan_parquet(out)
    for expr in (pl.col("time_ns") > 400_000_000, pl.col("cpu") == 2, pl.col("pid") > 2**31,
                 pl.col("cgroup_id") < 2**63, pl.col("sector").is_null()):  # fmt: skip
        assert lf.filter(expr).select(pl.len()).collect().item() == pl.read_parquet(out).filter(expr).height


def test_empty_table_is_valid(tmp_path):
    out, rep = tmp_path / "e.parquet", tmp_path / "r.json"
    subprocess.run([str(native.program()), "parquet-sample", "--out", str(out), "--report", str(rep),
                    "--rows", "0"], check=True)  # fmt: skip
    df = pl.read_parquet(out)
    assert df.height == 0 and df.columns == EVENT_COLUMNS
