"""fio JSON reader: numbers checked against the fixture decoded independently with json."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers import fio

FIX = Path(__file__).parent / "fixtures" / "fio"
SAMPLES = samples.SAMPLES / "fio-json"
REAL = sorted(FIX.glob("*.json"))


def ingest(path: Path, tmp_path: Path, kind: str = "fio") -> tuple[pl.DataFrame, dict]:
    out = tmp_path / "out"
    run_ingest(kind, [path], out)
    return pl.read_parquet(out / "fio_jobs.parquet"), json.loads((out / "ingest.json").read_text())


def fio_doc(path: Path) -> dict:
    """The JSON object, found the plain way: from the first line that is exactly '{'."""
    lines = path.read_text().splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.rstrip() == "{")
    return json.loads("".join(lines[start:]))


def row(df: pl.DataFrame, job: int, name: str, direction: str) -> dict:
    r = df.filter((pl.col("jobname") == name) & (pl.col("direction") == direction))
    return r.row(job if r.height > 1 else 0, named=True)


def check_against_json(df: pl.DataFrame, doc: dict) -> None:
    jobs = doc["jobs"]
    expected_rows = 0
    for j in jobs:
        k = [x for x in jobs if x["jobname"] == j["jobname"]].index(j)  # json+ repeats a name per job
        moved = [d for d in ("read", "write", "trim") if j[d]["total_ios"] > 0]
        # a job that moved nothing keeps the direction its rw names (these fixtures use plain read/write)
        expected = moved or [j["job options"]["rw"].removeprefix("rand")]
        got = df.filter(pl.col("jobname") == j["jobname"])
        assert set(got["direction"]) == set(expected)
        for d in expected:
            expected_rows += 1
            sec = j[d]
            r = row(df, k, j["jobname"], d)
            assert r["iops"] == sec["iops"]
            assert r["bw_kib_s"] == pytest.approx(sec["bw_bytes"] / 1024)
            assert r["runtime_ms"] == sec["runtime"]
            assert r["error"] == j["error"]
            assert r["lat_mean_ns"] == sec["lat_ns"]["mean"]
            pct = sec["clat_ns"].get("percentile")
            if pct:
                assert (r["clat_p50_ns"], r["clat_p99_ns"], r["clat_p9999_ns"]) == (
                    pct["50.000000"], pct["99.000000"], pct["99.990000"])
    assert df.height == expected_rows


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_rows_match_json(path: Path, tmp_path: Path) -> None:
    df, rep = ingest(path, tmp_path)
    doc = fio_doc(path)
    check_against_json(df, doc)
    assert rep["versions"]["fio"] == doc["fio version"]


def test_job_options_and_both_directions(tmp_path: Path) -> None:
    df, _ = ingest(FIX / "randrw_libaio_qd4.json", tmp_path)
    assert sorted(df["direction"]) == ["read", "write"]
    assert df["rw"].unique().to_list() == ["randrw"] and df["bs"].unique().to_list() == ["4k"]
    assert df["iodepth"].unique().to_list() == [4]


def test_failed_job_kept_with_its_error(tmp_path: Path) -> None:
    df, rep = ingest(FIX / "two_jobs_one_fails.json", tmp_path)
    bad = df.filter(pl.col("jobname") == "bad")
    assert bad.height == 1 and bad["error"][0] == 1 and bad["direction"][0] == "write" and bad["iops"][0] == 0
    assert df.filter(pl.col("jobname") == "good")["error"].to_list() == [0]
    assert any("err=1" in w for w in rep["warnings"])  # the text fio printed before the JSON


def test_group_reporting_and_numjobs(tmp_path: Path) -> None:
    df, _ = ingest(FIX / "randwrite_group_reporting.json", tmp_path)
    assert df.height == 1 and df["numjobs"][0] == 2
    df2, _ = ingest(FIX / "randread_2jobs_jsonplus.json", tmp_path)
    assert df2.height == 2 and df2["jobname"].unique().to_list() == ["r1"]


@pytest.mark.parametrize("name", ["pkb_fio214_sample_result.json", "fioplot_fio333_error22_textprefix.json",
                                  "fioplot_fio334_randread_qd1.json"])
def test_shared_samples_iops_per_job_and_direction(name: str, tmp_path: Path) -> None:
    path = SAMPLES / name
    df, _ = ingest(path, tmp_path, kind="auto")
    doc = fio_doc(path)
    usec = "clat_ns" not in doc["jobs"][0]["read"]
    for j in doc["jobs"]:
        moved = [d for d in ("read", "write", "trim") if j[d]["iops"] > 0]
        got = df.filter(pl.col("jobname") == j["jobname"])
        if moved:
            assert sorted(got["direction"]) == sorted(moved)
        for d in moved:
            r = got.filter(pl.col("direction") == d).row(0, named=True)
            assert r["iops"] == j[d]["iops"]
            clat = j[d]["clat" if usec else "clat_ns"]
            assert r["clat_p99_ns"] == clat["percentile"]["99.000000"] * (1000 if usec else 1)
        assert got["error"].unique().to_list() == [j["error"]]


def test_empty_file_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(InputError, match="empty file"):
        run_ingest("fio", [empty], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_text_only_file_is_an_error(tmp_path: Path) -> None:
    p = tmp_path / "t.json"
    p.write_text("fio: pid=0, err=1/file:filesetup.c:150, func=unlink, error=Operation not permitted\n")
    with pytest.raises(InputError, match="no JSON object"):
        run_ingest("fio", [p], tmp_path / "out")


def test_truncated_json_names_line_and_byte(tmp_path: Path) -> None:
    text = (FIX / "randrw_libaio_qd4.json").read_text()
    p = tmp_path / "cut.json"
    p.write_text(text[: len(text) // 2])
    with pytest.raises(InputError) as e:
        run_ingest("fio", [p], tmp_path / "out")
    assert e.value.path == str(p) and "byte offset" in e.value.where


def test_other_json_is_not_fio(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text('{"sysstat": {"hosts": []}}\n')
    with pytest.raises(InputError, match="fio version"):
        run_ingest("fio", [p], tmp_path / "out")


def test_sniff() -> None:
    assert fio.sniff((FIX / "error_eperm_text_before.json").read_bytes()[:65536])
    assert not fio.sniff(b'{"sysstat": {\n')
