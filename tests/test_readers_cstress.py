"""cassandra-stress reader: the shared ru_RU sample (real) and a hand-written 2.1-layout edge case."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers import cassandra_stress

FIX = Path(__file__).parent / "fixtures" / "cstress"
SAMPLE = (Path(__file__).resolve().parents[2] / "shared" / "samples" / "cassandra-stress"
          / "cs311_user_profile_ru_locale_autothreads.txt")


def ingest(path: Path, tmp_path: Path, kind: str = "cassandra-stress") -> tuple[pl.DataFrame, pl.DataFrame]:
    out = tmp_path / "out"
    run_ingest(kind, [path], out)
    return pl.read_parquet(out / "cstress_intervals.parquet"), pl.read_parquet(out / "cstress_summary.parquet")


def ru(s: str) -> float:
    return float(s.replace("\u00a0", "").replace(" ", "").replace(",", "."))


@pytest.mark.skipif(not SAMPLE.exists(), reason="../shared/samples absent")
def test_ru_locale_sample_op_rate_per_round(tmp_path: Path) -> None:
    intervals, summary = ingest(SAMPLE, tmp_path, kind="auto")
    text = SAMPLE.read_text()
    threads = [int(t) for t in re.findall(r"^Running \S.* with (\d+) threads", text, re.MULTILINE)]
    rates = [ru(v) for v in re.findall(r"^Op rate\s+:\s+([\d\u00a0 ]+) op/s", text, re.MULTILINE)]
    got = summary.filter((pl.col("metric") == "Op rate") & pl.col("op").is_null()).sort("round")
    assert got["value"].to_list() == rates and got["threads"].to_list() == threads
    pk = [ru(v) for v in re.findall(r"^Partition rate\s+:\s+([\d\u00a0 ]+) pk/s", text, re.MULTILINE)]
    assert summary.filter((pl.col("metric") == "Partition rate") & pl.col("op").is_null())["value"].to_list() == pk
    gc = [ru(v) for v in re.findall(r"^Total GC memory\s+:\s+([\d,]+) GiB", text, re.MULTILINE)]
    assert summary.filter((pl.col("metric") == "Total GC memory") & (pl.col("unit") == "GiB"))[
        "value"].to_list() == gc
    rows = [ln for ln in text.splitlines() if ln.startswith("total,")]
    assert intervals.height == len(rows)
    for ln, got_row in zip(rows, intervals.iter_rows(named=True), strict=True):
        vals = re.split(r",\s+", ln)[1:]
        assert got_row["total_ops"] == int(vals[0]) and got_row["mean_ms"] == ru(vals[4])
        assert got_row["time_s"] == ru(vals[10]) and got_row["errors"] == int(vals[12])


def test_crlf_driver_error_and_unitless_results(tmp_path: Path) -> None:
    path = FIX / "handmade_cs21_layout_crlf_driver_error.txt"
    intervals, summary = ingest(path, tmp_path, kind="auto")
    assert intervals["total_ops"].to_list() == [4512, 11034, 20000]
    assert intervals["errors"].to_list() == [0, 1, 1]
    op = summary.filter(pl.col("metric") == "op rate")
    assert op["value"].to_list() == [6667.0, 6667.0] and op["op"].to_list() == [None, "WRITE"]
    assert summary.filter(pl.col("metric") == "Total operation time")["value"].to_list() == [3.0]


def test_round_without_results_is_an_error(tmp_path: Path) -> None:
    text = (FIX / "handmade_cs21_layout_crlf_driver_error.txt").read_bytes()
    cut = tmp_path / "cut.txt"
    cut.write_bytes(text[: text.index(b"Results:")])
    with pytest.raises(InputError) as e:
        run_ingest("cassandra-stress", [cut], tmp_path / "out")
    assert "did not finish" in e.value.message and e.value.where == "line 5"


def test_sniff() -> None:
    assert cassandra_stress.sniff((FIX / "handmade_cs21_layout_crlf_driver_error.txt").read_bytes())
    assert not cassandra_stress.sniff(b"YCSB Client 0.17.0\n")
