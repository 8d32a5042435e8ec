"""YCSB reader: real YCSB 0.17.0 BasicDB outputs (tools/ycsb/make_fixtures.sh) and the shared samples."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers import ycsb

FIX = Path(__file__).parent / "fixtures" / "ycsb"
SAMPLES = samples.SAMPLES / "ycsb"
FINISHED = sorted(FIX.glob("*.txt")) + [p for p in samples.files("ycsb") if "nosummary" not in p.name]


def ingest(path: Path, tmp_path: Path, kind: str = "ycsb") -> tuple[pl.DataFrame, pl.DataFrame]:
    out = tmp_path / "out"
    run_ingest(kind, [path], out)
    return pl.read_parquet(out / "ycsb_summary.parquet"), pl.read_parquet(out / "ycsb_series.parquet")


def printed(path: Path) -> list[tuple[str, str, str]]:
    return [m.groups() for line in path.read_text().splitlines() if (m := re.match(r"^\[(.+?)\], (.+), (.+)$", line))]


@pytest.mark.parametrize("path", FINISHED, ids=lambda p: p.name)
def test_summary_equals_printed(path: Path, tmp_path: Path) -> None:
    summary, _ = ingest(path, tmp_path, kind="auto")
    lines = printed(path)
    assert summary.height == len(lines)
    thr = [float(v) for s, m, v in lines if s == "OVERALL" and m == "Throughput(ops/sec)"]
    assert summary.filter((pl.col("section") == "OVERALL") & (pl.col("metric") == "Throughput(ops/sec)"))[
        "value"].to_list() == thr
    ops = {s: float(v) for s, m, v in lines if m == "Operations"}
    got = dict(summary.filter(pl.col("metric") == "Operations").select("section", "value").iter_rows())
    assert got == ops


def test_phases_and_hyphenated_sections(tmp_path: Path) -> None:
    load, _ = ingest(FIX / "load_workloada_basicdb.txt", tmp_path / "l")
    assert load["phase"].unique().to_list() == ["load"] and "INSERT" in load["section"].to_list()
    run, _ = ingest(FIX / "run_workloadf_histogram.txt", tmp_path / "r")
    assert run["phase"].unique().to_list() == ["run"]
    assert "READ-MODIFY-WRITE" in run["section"].to_list()
    intended, _ = ingest(FIX / "run_workloada_target_intended.txt", tmp_path / "i")
    assert {"Intended-READ", "Intended-UPDATE"} <= set(intended["section"])


def test_status_lines_become_series(tmp_path: Path) -> None:
    path = FIX / "run_workloada_target_intended.txt"
    _, series = ingest(path, tmp_path)
    status = [ln for ln in path.read_text().splitlines() if re.search(r" sec: \d+ operations;", ln)]
    assert series.select("time", "operations").unique().height == len(status)
    for ln in status:
        ops = int(re.search(r"sec: (\d+) operations", ln).group(1))
        for sec, count in re.findall(r"\[([\w-]+): Count=(\d+),", ln):
            got = series.filter(
                (pl.col("operations") == ops) & (pl.col("section") == sec) & (pl.col("stat") == "Count"))
            assert got["value"].to_list() == [float(count)]
    # YCSB prints ∞ before a rate exists: that status line's rate is null, the printed rates are kept
    assert "∞" in status[0] and series.filter(pl.col("time") == series["time"][0])["ops_per_s"].is_null().all()
    rates = re.findall(r"; ([\d.]+) current ops/sec", "\n".join(status))
    assert sorted(series["ops_per_s"].drop_nulls().unique().to_list()) == sorted({float(r) for r in rates})


def test_run_without_overall_is_an_error(tmp_path: Path) -> None:
    path = SAMPLES / "pkb_ycsb090_redis_exceptions_nosummary.txt"
    with pytest.raises(InputError) as e:
        run_ingest("auto", [path], tmp_path / "out")
    assert "did not finish" in e.value.message and e.value.where.startswith("line ")
    assert not (tmp_path / "out").exists()


def test_old_histogram_buckets_and_numeric_returns(tmp_path: Path) -> None:
    summary, _ = ingest(SAMPLES / "pkb_ycsb01_basicdb_histogram.txt", tmp_path)
    upd = summary.filter(pl.col("section") == "UPDATE")
    assert upd.filter(pl.col("metric") == "Return=0")["value"].to_list() == [531.0]
    assert upd.filter(pl.col("metric") == ">1000").height == 1
    assert upd.filter(pl.col("metric") == "0")["value"].to_list() == [530.0]


def test_sniff() -> None:
    for p in FIX.glob("*.txt"):
        assert ycsb.sniff(p.read_bytes()[:65536])
    assert not ycsb.sniff(b"sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n")


def test_a_named_phase_is_kept(tmp_path: Path) -> None:
    """blkscope's read-only phase (workload C after workload A, here on Cassandra through tools/ycsb-cassandra) is
    a `-t` run like workload A's: `-p blkscope.phase=read` on its command line names it."""
    path = FIX / "run_workloadc_cassandra_phase_read.txt"
    summary, series = ingest(path, tmp_path)
    assert set(summary["phase"]) == {"read"} and set(series["phase"]) == {"read"}
    assert set(summary["section"]) >= {"OVERALL", "READ"} and "UPDATE" not in set(summary["section"])
    plain = tmp_path / "plain.txt"  # the same log without the name: a run phase, as any YCSB -t log
    plain.write_text(path.read_text().replace(" -p blkscope.phase=read", ""))
    assert set(ingest(plain, tmp_path / "p")[0]["phase"]) == {"run"}
