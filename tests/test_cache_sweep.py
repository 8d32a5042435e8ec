"""The cache sweep's table (blkscope.analysis.characterise.cache_sweep) from a real traced YCSB run on RocksDB
(data/raw), through the verbs the workflow runs: its cache (RocksDB's block cache: it read with O_DIRECT) against its
data, its skew and its miss ratios; the cache of real Cassandra runs on the host and in the guest; a memory-capped
run.yaml (made here from a real one, as the capture of issue P writes the block); and the empty table's note, which its
figure draws."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
import yaml

from blkscope.analysis.characterise.cache_sweep import EMPTY_NOTE, MIB, cache_facts, miss_at
from blkscope.cli import main
from blkscope.io import table_note

ROOT = Path(__file__).resolve().parents[1]
RAW, RUNS = ROOT / "data" / "raw", ROOT / "config" / "runs.tsv"
ROCKSDB = "host-ext4-ycsb-workloada-zipfian-sat-r1"
CASSANDRA = "host-xfs-cassandra-ycsb-workloada-c-zipfian-sat-r1"
GUEST = "guest-f2fs-cassandra-ycsb-workloada-zipfian-small-r1"


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> dict[str, Path]:
    if not (RAW / ROCKSDB / "trace.txt.zst").exists():
        pytest.skip("embedded runs not in this checkout")
    proc = tmp_path_factory.mktemp("processed")
    a, char = proc / "analysis", proc / ROCKSDB / "characterise"
    ev, fof = proc / ROCKSDB / "trace" / "events.parquet", proc / ROCKSDB / "frequency" / "fof.cover.parquet"
    verbs = [
        ["ingest", "--kind", "ftrace", str(RAW / ROCKSDB / "trace.txt.zst"), "-o", str(ev.parent)],
        ["access-frequency", str(ev), "--fof", str(fof)],
        ["zipf", str(fof), "--n-boot", "0", "-o", str(a / "zipf.parquet")],
        ["reuse", str(ev), "--shards-size", "8192", "--auto", "-o", str(char / "reuse.parquet"), "--mrc",
         str(char / "mrc.parquet")],
        ["metadata", str(ev), "-o", str(char / "metadata_hot.parquet")],
        ["metadata-vs-data", "--runs", str(RUNS), str(char / "metadata_hot.parquet"), "-o",
         str(a / "metadata_vs_data.parquet")],
    ]  # fmt: skip
    for v in verbs:
        assert main(v) == 0, v[0]
    return {"processed": proc, "zipf": a / "zipf.parquet", "metadata": a / "metadata_vs_data.parquet",
            "char": char}  # fmt: skip


def _sweep(tables, out: Path, *runs: str) -> int:
    return main(["cache-sweep", "--runs", str(RUNS), "--raw", str(RAW), "--processed", str(tables["processed"]),
                 "--zipf", str(tables["zipf"]), "--metadata", str(tables["metadata"]), "-o", str(out), *runs])


def test_a_rocksdb_run_against_its_block_cache(tables, tmp_path):
    assert _sweep(tables, tmp_path / "sweep.parquet", ROCKSDB) == 0
    row = pl.read_parquet(tmp_path / "sweep.parquet").row(0, named=True)
    meta = yaml.safe_load((RAW / ROCKSDB / "run.yaml").read_text())["workload"]["options"]
    data = meta["recordcount"] * meta["fieldcount"] * meta["fieldlength"]
    assert row["cache_kind"].startswith("RocksDB block cache") and row["directreads"]
    assert row["cache_bytes"] == meta["rocksdb.blockcachemb"] * MIB and row["data_bytes"] == data
    assert row["cache_to_data"] == pytest.approx(row["cache_bytes"] / data) and row["data_pages"] == data / 4096
    zipf = pl.read_parquet(tables["zipf"]).filter(pl.col("op") == "all")
    assert row["s"] == zipf["s"][0]
    md = pl.read_parquet(tables["metadata"])
    assert row["hot1_read"] == md.filter(pl.col("op") == "read")["hot_share"][0]
    assert row["meta_share"] == md.filter(pl.col("op") == "all")["meta_share"][0]
    # a bigger cache misses less; the touched pages are the reuse profile's
    assert 0 < row["miss_10pct"] <= row["miss_1pct"] <= 1
    reuse = pl.read_parquet(tables["char"] / "reuse.parquet")
    assert row["touched_pages"] == reuse.filter((pl.col("op") == "all") & (pl.col("class") == "all")
                                                & pl.col("of_record"))["distinct_pages"][0]  # fmt: skip


def test_miss_ratio_at_a_cache_is_the_curve_at_or_below_it(tables):
    mrc, reuse = (pl.read_parquet(tables["char"] / f"{t}.parquet") for t in ("mrc", "reuse"))
    got = miss_at(mrc, reuse, fractions=(0.05,))
    curve = mrc.filter((pl.col("op") == "all") & (pl.col("class") == "all") & (pl.col("method") == "exact"))
    at = curve.filter(pl.col("cache_pages") <= 0.05 * got["touched_pages"]).sort("cache_pages")["miss_ratio"][-1]
    assert got["miss_5pct"] == at
    assert miss_at(mrc, reuse.clear())["miss_10pct"] is None  # no profile of record: nothing to read


def test_what_caches_a_run_without_a_memory_cap():
    host, guest = cache_facts(RAW / CASSANDRA / "run.yaml"), cache_facts(RAW / GUEST / "run.yaml")
    assert host["cache_kind"] == "host memory (no cap)" and host["cache_to_data"] > 10  # the data in memory
    assert guest["cache_kind"] == "guest memory (no cap)" and guest["cache_bytes"] < host["cache_bytes"]


def test_a_memory_cap_is_the_cache(tmp_path):
    meta = yaml.safe_load((RAW / ROCKSDB / "run.yaml").read_text())
    meta["workload"]["options"]["rocksdb.directreads"] = False
    meta["memory_cap"] = {"requested": "384M", "limit_bytes": 384 * MIB, "max_usage_bytes": 380 * MIB}
    made = tmp_path / "handmade-capped-run.yaml"
    made.write_text(yaml.safe_dump(meta))
    got = cache_facts(made)
    assert (got["cache_kind"], got["cache_bytes"], got["memory_peak_bytes"]) == ("memory cap", 384 * MIB, 380 * MIB)
    assert got["cache_to_data"] == pytest.approx(384 * MIB / got["data_bytes"])


def test_no_sweep_run_says_why_and_so_does_its_figure(tables, tmp_path, capsys):
    out = tmp_path / "sweep.parquet"
    assert _sweep(tables, out) == 0
    assert pl.read_parquet(out).is_empty() and table_note(out) == EMPTY_NOTE
    assert main(["figure", "cache-sweep", str(out), "-o", str(tmp_path / "fig"), "--formats", "svg"]) == 0
    svg = (tmp_path / "fig.svg").read_text()
    assert "no sweep runs in the dataset yet" in svg and "memory" in capsys.readouterr().err
    assert _sweep(tables, tmp_path / "bad.parquet", "no-such-run") == 2 and not (tmp_path / "bad.parquet").exists()
