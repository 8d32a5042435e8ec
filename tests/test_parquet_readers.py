"""Our Parquet writer's files (blkscope-native) read by DuckDB and by arrow-rs's `parquet` crate: every column
equals polars' reading, and the statistics (min, max, null count per row group) that both decode equal the
footer's, which equal the values' (tools/parquet-check/crosscheck.py).

Inputs: the four tracefs fixtures, the writer's own sample (every column kind, extreme unsigned values,
several row groups) and a few dataset runs, each ingested here by `blkscope ingest`.
BLKSCOPE_PARQUET_ALL_RUNS=1 checks every traced run of data/raw instead (174 runs, a few minutes).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope import native

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "trace").glob("tracefs_*.txt.zst"))
# a binary blktrace run (guest), two tracefs text runs (host); the largest host trace is ~300 k events
RUNS = ["guest-ext4-ycsb-workloada-zipfian-small-r1", "host-xfs-ycsb-workloada-zipfian-r2", "host-ext4-fio-randrw-r1"]


def _load():
    spec = importlib.util.spec_from_file_location("crosscheck", ROOT / "tools" / "parquet-check" / "crosscheck.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cc = _load()
ALL = {r: (k, fs) for r, k, fs in cc.traced_runs(ROOT / "data" / "raw")}
CHOSEN = sorted(ALL) if os.environ.get("BLKSCOPE_PARQUET_ALL_RUNS") else RUNS


@pytest.fixture(scope="module")
def checker():
    return cc.build_checker()


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    d = tmp_path_factory.mktemp("sample")
    subprocess.run([str(native.program()), "parquet-sample", "--out", str(d / "s.parquet"), "--report",
                    str(d / "r.json"), "--rows", "300007", "--row-group", "100000"], check=True)  # fmt: skip
    return d / "s.parquet"


@pytest.mark.parametrize("trace", FIXTURES, ids=lambda p: p.name)
def test_fixture_traces(trace, checker, tmp_path):
    s = cc.check(cc.ingest("ftrace", [trace], tmp_path), checker)
    assert s["rows"] > 1000 and s["chunks_with_stats"] > 0


@pytest.mark.parametrize("run", CHOSEN)
def test_dataset_runs(run, checker, tmp_path):
    kind, files = ALL[run]
    s = cc.check(cc.ingest(kind, files, tmp_path), checker)
    assert s["rows"] > 0


def test_writer_sample(sample, checker):
    s = cc.check(sample, checker)
    # 4 row groups x 16 integer columns with statistics (strings carry none), but for the last group's 7 rows,
    # which have no split_sector or pc_bytes value (sample.rs); pyarrow sees them only since column_orders
    assert (s["rows"], s["row_groups"], s["chunks_with_stats"]) == (300007, 4, 4 * 16 - 2)


def test_a_changed_value_or_statistic_is_found(sample, checker, tmp_path):
    df = pl.read_parquet(sample)
    bad = df.with_columns(pl.when(pl.int_range(pl.len()) == 123_456).then(0).otherwise(pl.col("pid")).alias("pid"))
    with pytest.raises(cc.Mismatch, match="column pid row 123456"):
        cc._same_frames(sample, "x", df, bad)
    sizes, stats = cc.intended_stats(sample, df)
    lo, hi, nulls = stats[2, "cgroup_id"]
    with pytest.raises(cc.Mismatch, match="row group 2 column cgroup_id: arrow-rs"):
        cc.check_arrow_rs(sample, df, sizes, {**stats, (2, "cgroup_id"): (lo, hi - 1, nulls)}, checker, tmp_path)
    with pytest.raises(cc.Mismatch, match="row group 2 column cgroup_id: DuckDB"):
        cc.check_duckdb(sample, df, sizes, {**stats, (2, "cgroup_id"): (lo, hi, nulls + 1)})
