"""cassandra-stress reader: the shared ru_RU sample (real) and a hand-written 2.1-layout edge case."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.ingest import run_ingest
from blkscope.readers import cassandra_stress

FIX = Path(__file__).parent / "fixtures" / "cstress"
SAMPLE = (samples.SAMPLES / "cassandra-stress"
          / "cs311_user_profile_ru_locale_autothreads.txt")


def ingest(path: Path, tmp_path: Path, kind: str = "cassandra-stress") -> tuple[pl.DataFrame, pl.DataFrame]:
    out = tmp_path / "out"
    run_ingest(kind, [path], out)
    return pl.read_parquet(out / "cstress_intervals.parquet"), pl.read_parquet(out / "cstress_summary.parquet")


def ru(s: str) -> float:
    return float(s.replace("\u00a0", "").replace(" ", "").replace(",", "."))


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


def test_round_without_results_keeps_its_intervals_flagged(tmp_path: Path) -> None:
    text = (FIX / "handmade_cs21_layout_crlf_driver_error.txt").read_bytes()
    cut = tmp_path / "handmade_cut.txt"
    cut.write_bytes(text[: text.index(b"Results:")])
    out = tmp_path / "out"
    rep = run_ingest("cassandra-stress", [cut], out)
    intervals = pl.read_parquet(out / "cstress_intervals.parquet")
    assert intervals["total_ops"].to_list() == [4512, 11034, 20000]
    assert intervals["complete"].to_list() == [False] * 3
    assert pl.read_parquet(out / "cstress_summary.parquet").height == 0
    assert any("line 5" in w and "did not finish" in w for w in rep.warnings)


# What a cassandra-stress log looks like when the node dies during a round: the driver's exceptions follow
# the last interval rows and no Results block comes (cassandra-stress's Operation.error wording).
DRIVER_DIED = (
    "java.io.IOException: Operation x10 on key(s) [4c50323338]: Error executing: (NoHostAvailableException): "
    "All host(s) tried for query failed (tried: localhost/127.0.0.1:9042 "
    "(com.datastax.driver.core.exceptions.TransportException: [localhost/127.0.0.1:9042] Cannot connect))\n"
    "\tat org.apache.cassandra.stress.Operation.error(Operation.java:127)\n"
    "\tat org.apache.cassandra.stress.Operation.timeWithRetry(Operation.java:105)\n"
)


def test_server_died_in_last_round_keeps_finished_rounds(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines(keepends=True)
    last = max(i for i, ln in enumerate(lines) if ln.startswith("Running ["))
    rows_end = max(i for i, ln in enumerate(lines) if ln.startswith("total,")) + 1
    cut = tmp_path / "handmade_cs311_server_died_last_round.txt"
    cut.write_text("".join(lines[:rows_end]) + DRIVER_DIED)
    whole_i, whole_s = ingest(SAMPLE, tmp_path / "whole")
    out = tmp_path / "out"
    rep = run_ingest("auto", [cut], out)
    intervals = pl.read_parquet(out / "cstress_intervals.parquet")
    summary = pl.read_parquet(out / "cstress_summary.parquet")
    last_round = whole_i["round"].max()
    # every finished round is whole; the cut round's interval rows are there, flagged
    assert summary.equals(whole_s.filter(pl.col("round") < last_round))
    assert intervals.drop("complete").equals(whole_i.drop("complete"))
    assert intervals.filter(~pl.col("complete"))["round"].unique().to_list() == [last_round]
    assert intervals.filter(pl.col("complete")).height == whole_i.filter(pl.col("round") < last_round).height
    assert whole_i["complete"].all()
    assert [w for w in rep.warnings if "did not finish" in w and f"line {last + 1}" in w]


def test_last_line_without_line_end(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines(keepends=True)
    end = max(i for i, ln in enumerate(lines) if ln.startswith("Total operation time")) + 1
    whole_i, whole_s = ingest(SAMPLE, tmp_path / "whole")
    # the log stops at its last Results line, without a line end (as saved by an editor): all data
    unterminated = tmp_path / "handmade_cs311_no_final_newline.txt"
    unterminated.write_text("".join(lines[:end]).rstrip("\n"))
    rep = run_ingest("cassandra-stress", [unterminated], tmp_path / "a")
    assert pl.read_parquet(tmp_path / "a" / "cstress_summary.parquet").equals(whole_s)
    assert not rep.warnings and rep.extra["last_line_without_line_end"] == {str(unterminated): end}
    # cut inside its last interval row: the row is dropped with a warning, the rounds before are kept
    rows_end = max(i for i, ln in enumerate(lines) if ln.startswith("total,")) + 1
    cut = tmp_path / "handmade_cs311_cut_in_row.txt"
    cut.write_text("".join(lines[: rows_end - 1]) + lines[rows_end - 1][:40])
    rep = run_ingest("cassandra-stress", [cut], tmp_path / "b")
    got = pl.read_parquet(tmp_path / "b" / "cstress_intervals.parquet")
    assert got.height == whole_i.height - 1
    assert any(f"line {rows_end}: last line has no line end" in w for w in rep.warnings)


def test_sniff() -> None:
    assert cassandra_stress.sniff((FIX / "handmade_cs21_layout_crlf_driver_error.txt").read_bytes())
    assert not cassandra_stress.sniff(b"YCSB Client 0.17.0\n")


def test_dataset_logs_ingest_without_warnings(tmp_path: Path) -> None:
    """Every cassandra-stress log the project captured (prepare and measured run, the thread sweep) reads with no
    warning: every round whole, every interval row complete; a cut copy (handmade_) keeps its finished rounds."""
    raw = Path(__file__).resolve().parents[1] / "data" / "raw"
    logs = sorted(raw.glob("host-*-cassandra-*/cstress*.txt"))
    if not logs:
        pytest.skip("no Cassandra runs in this checkout")
    for log in logs:
        out = tmp_path / log.parent.name / log.stem
        rep = run_ingest("cassandra-stress", [log], out)
        assert not rep.warnings, (log, rep.warnings)
        assert pl.read_parquet(out / "cstress_intervals.parquet")["complete"].all(), log
    sweep = next(p for p in logs if "write-threads" in str(p) and p.name == "cstress.txt")
    lines = sweep.read_text().splitlines(keepends=True)
    cut_at = [i for i, ln in enumerate(lines) if ln.startswith("Running WRITE with 54 threads")][0] + 6
    cut = tmp_path / "handmade_sweep_cut_in_last_round.txt"
    cut.write_text("".join(lines[:cut_at]))
    rep = run_ingest("cassandra-stress", [cut], tmp_path / "cut")
    s = pl.read_parquet(tmp_path / "cut" / "cstress_summary.parquet")
    assert sorted(s["threads"].unique().to_list()) == [4, 8, 16, 24, 36]
    assert any("did not finish" in w for w in rep.warnings)


def test_a_value_wider_than_its_column_still_separates(tmp_path: Path) -> None:
    """A real log of the capped batch: the stderr column's `-31.25567` follows `17.0,` with no space."""
    log = Path(__file__).resolve().parents[1] / "data/raw/host-ext4-cassandra-write-capped-none-untraced-r3/cstress.txt"
    if not log.exists():
        pytest.skip("the capped batch is not in this checkout")
    rep = run_ingest("cassandra-stress", [log], tmp_path)
    assert not rep.warnings
    t = pl.read_parquet(tmp_path / "cstress_intervals.parquet").filter(pl.col("total_ops") == 59819)
    assert t.height == 1 and t["op_s"][0] == 5046 and t["time_s"][0] == 17.0 and t["errors"][0] == 0
