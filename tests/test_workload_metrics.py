"""workload_metrics on real tool output: each workload's ops/s equals what the tool printed."""

import json
import re
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.analysis.summaries.workload_metrics import run_metrics
from blkscope.ingest import run_ingest

FIX = Path(__file__).parent / "fixtures"


def _table(tmp_path, kind, files, table):
    run_ingest(kind, [FIX / f for f in files], tmp_path / kind)
    return pl.read_parquet(tmp_path / kind / f"{table}.parquet")


def _metric(df, name):
    return df.filter(pl.col("metric") == name)["value"].item()


def test_fio_ops_is_read_plus_write_iops(tmp_path):
    m = run_metrics("r", "fio", _table(tmp_path, "fio", ["fio/randrw_libaio_qd4.json"], "fio_jobs"))
    doc = json.loads((FIX / "fio/randrw_libaio_qd4.json").read_text())
    want = sum(j["read"]["iops"] + j["write"]["iops"] + j.get("trim", {}).get("iops", 0) for j in doc["jobs"])
    assert _metric(m, "ops_s") == pytest.approx(want)
    assert _metric(m, "read_lat_mean_us") == pytest.approx(doc["jobs"][0]["read"]["lat_ns"]["mean"] / 1e3)


def test_sysbench_ops_is_reads_plus_writes_per_second(tmp_path):
    f = "sysbench/rndrw_prepare_run_cleanup_1020.txt"
    m = run_metrics("r", "sysbench", _table(tmp_path, "sysbench", [f], "sysbench_fileio"))
    text = (FIX / f).read_text()
    reads = float(re.search(r"reads/s:\s+([\d.]+)", text).group(1))
    writes = float(re.search(r"writes/s:\s+([\d.]+)", text).group(1))
    assert _metric(m, "ops_s") == pytest.approx(reads + writes)
    assert _metric(m, "lat_p95_us") == pytest.approx(1e3 * float(re.search(r"95th percentile:\s+([\d.]+)", text)[1]))


def test_ycsb_ops_is_run_phase_overall_throughput(tmp_path):
    files = ["ycsb/load_workloada_basicdb.txt", "ycsb/run_workloada_basicdb_status.txt"]
    m = run_metrics("r", "ycsb", _table(tmp_path, "ycsb", files, "ycsb_summary"))
    text = (FIX / files[1]).read_text()
    want = float(re.search(r"\[OVERALL\], Throughput\(ops/sec\), ([\d.]+)", text).group(1))
    assert _metric(m, "ops_s") == pytest.approx(want)
    assert _metric(m, "read_p99_us") == pytest.approx(
        float(re.search(r"\[READ\], 99thPercentileLatency\(us\), ([\d.]+)", text).group(1))
    )


def test_journal_ops_and_tail_latencies(tmp_path):
    m = run_metrics("r", "journal", _table(tmp_path, "journal", ["journal/sparse.json"], "journal_summary"))
    assert _metric(m, "ops_s") > 0
    assert _metric(m, "write_max_us") >= _metric(m, "write_p9999_us") >= _metric(m, "write_p99_us")
    assert _metric(m, "write_mean_us") <= _metric(m, "write_max_us")


SAMPLES = samples.SAMPLES / "cassandra-stress"


def test_cassandra_metrics_are_the_last_rounds_results_in_us(tmp_path):
    """2.1 layout (no units: ms) from the hand-made fixture; the real 3.11 auto-thread sample when present."""
    f = "cstress/handmade_cs21_layout_crlf_driver_error.txt"
    m = run_metrics("r", "cassandra", _table(tmp_path, "cassandra-stress", [f], "cstress_summary"))
    assert _metric(m, "ops_s") == 6667 and _metric(m, "lat_p99_us") == pytest.approx(5200)
    assert _metric(m, "lat_max_us") == pytest.approx(31000) and _metric(m, "errors") == 1
    sample = SAMPLES / "cs311_user_profile_ru_locale_autothreads.txt"
    if not sample.exists():
        pytest.skip(f"{sample} absent")
    run_ingest("cassandra-stress", [sample], tmp_path / "s")
    summary = pl.read_parquet(tmp_path / "s" / "cstress_summary.parquet")
    m = run_metrics("s", "cassandra", summary)
    last = summary.filter((pl.col("round") == summary["round"].max()) & pl.col("op").is_null())
    assert summary["round"].max() > 0  # auto mode: several rounds, the last one counts
    assert _metric(m, "ops_s") == last.filter(pl.col("metric") == "Op rate")["value"].item()
    assert _metric(m, "lat_p95_us") == pytest.approx(
        1e3 * last.filter(pl.col("metric") == "Latency 95th percentile")["value"].item())
