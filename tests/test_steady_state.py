"""The steady-state window of real embedded runs (data/raw), ingested here: a Cassandra node under YCSB whose
throughput climbs for its first minute (a later window start), a journal writer at a fixed rate read through
iostat (start 0), a 2-s YCSB run (too short to detect anything), and the clocks the runs sheet gives."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import yaml

from blkscope.analysis.load import per_second
from blkscope.analysis.load import steady_state as ss
from blkscope.cli import main
from blkscope.io import table_note
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
RAW, RUNS = ROOT / "data" / "raw", ROOT / "config" / "runs.tsv"
SLOW = "host-ext4-cassandra-ycsb-workloada-c-zipfian-sat-r1"  # YCSB on Cassandra: the JVMs warm for a minute
FLAT = "host-ext4-journal-none-60s-untraced-r1"  # 2,000 512-byte writes a second for 60 s
SHORT = "host-ext4-ycsb-workloada-zipfian-sat-r1"  # RocksDB, 2 s
F2FS = "guest-f2fs-fio-randrw-r1"
CASSANDRA = "host-btrfs-cassandra-write-capped-lz4-r1"
INGEST = {SLOW: [("ycsb", "ycsb", ["ycsb-load.txt", "ycsb-run.txt", "ycsb-read.txt"])],
          FLAT: [("iostat", "iostat", ["iostat.json"])],
          SHORT: [("ycsb", "ycsb", ["ycsb-load.txt", "ycsb-run.txt"]), ("iostat", "iostat", ["iostat.json"])]}


@pytest.fixture(scope="module")
def processed(tmp_path_factory) -> Path:
    if not all((RAW / r / "run.yaml").exists() for r in INGEST):
        pytest.skip("embedded runs not in this checkout")
    proc = tmp_path_factory.mktemp("processed")
    for run, logs in INGEST.items():
        for stage, kind, files in logs:
            assert main(["ingest", "--kind", kind, *[str(RAW / run / f) for f in files], "-o",
                         str(proc / run / stage)]) == 0  # fmt: skip
    return proc


@pytest.fixture(scope="module")
def sheet() -> pl.DataFrame:
    return load_runs(RUNS)


def _row(sheet: pl.DataFrame, run: str) -> dict:
    return sheet.filter(pl.col("run_id") == run).row(0, named=True)


def test_a_slow_start_moves_the_window_start_later(processed, sheet):
    got = per_second.series(processed, sheet.filter(pl.col("run_id") == SLOW))[SLOW]
    assert got.measure.startswith("YCSB") and got.values.size >= 200
    row = ss.judge(got, _row(sheet, SLOW))
    start = int(row["window_start_s"])
    assert start > 0 and start % ss.BATCH == 0 and row["rule"].startswith("MSER-5")
    v = got.values
    assert v[:10].mean() < 0.5 * v[start:].mean()  # its first seconds are the slow ones the window leaves out
    assert row["steady"] and row["window_s"] == v.size - start >= row["required_s"]


def test_a_constant_run_starts_at_zero(processed, sheet):
    got = per_second.series(processed, sheet.filter(pl.col("run_id") == FLAT))[FLAT]
    assert got.measure.startswith("iostat") and got.values.size >= 60
    body = got.values[:-1]  # the last report is the second after the writer stopped
    assert body.std() < 0.05 * body.mean()  # the run really is flat
    row = ss.judge(got, _row(sheet, FLAT))
    assert row["window_start_s"] == 0 and row["rule"].startswith("MSER-5")
    # 61 s is a minute, but not three times the flusher's 30 s
    assert not row["steady"] and row["why"].startswith("too short") and row["required_s"] == 90


def test_the_detector_follows_the_data_not_the_position(processed, sheet):
    """The flat run's samples with the slow run's first minute put in front: the start moves past that minute's
    slow part."""
    flat = per_second.series(processed, sheet.filter(pl.col("run_id") == FLAT))[FLAT].values[:-1]
    slow = per_second.series(processed, sheet.filter(pl.col("run_id") == SLOW))[SLOW].values[:30]
    joined = np.concatenate([slow / slow.max() * flat.min(), flat])  # a climb to the flat level
    start, late = ss.mser(joined)
    assert 0 < start <= 30 and not late
    assert ss.mser(flat) == (0, False)


def test_a_two_second_run_is_too_short_for_the_detector(processed, sheet):
    got = per_second.series(processed, sheet.filter(pl.col("run_id") == SHORT))[SHORT]
    assert got.measure.startswith("YCSB") and got.values.size <= 3
    assert ss.mser(got.values) is None
    row = ss.judge(got, _row(sheet, SHORT))
    assert (row["window_start_s"], row["steady"]) == (0, False) and row["rule"].startswith("whole run")
    assert row["why"].startswith(f"too short: window {got.values.size} s < 90 s")


@pytest.mark.parametrize("run, clock, seconds", [
    (F2FS, "f2fs checkpoint", 60.0), (CASSANDRA, "kernel flusher", 30.0), (FLAT, "kernel flusher", 30.0)])
def test_the_longest_clock_from_the_runs_sheet(sheet, run, clock, seconds):
    what, s = ss.clock(_row(sheet, run))
    assert what.startswith(clock) and s == seconds


def test_mount_option_and_commitlog_set_the_clock(sheet):
    row = _row(sheet, CASSANDRA)
    assert row["commitlog_sync_period_ms"] == 10_000  # the sheet's: below the flusher's 30 s
    assert ss.clock(row | {"commitlog_sync_period_ms": 45_000}) == ("Cassandra commitlog sync 45 s", 45.0)
    btrfs = _row(sheet, CASSANDRA) | {"mount_options": "noatime,commit=120"}
    assert ss.clock(btrfs) == ("btrfs transaction commit (120 s, mount option)", 120.0)


def test_the_verb_writes_a_row_for_every_run(processed, tmp_path):
    out = tmp_path / "steady.parquet"
    runs = [SLOW, FLAT, SHORT, CASSANDRA]  # CASSANDRA's logs are not ingested here
    assert main(["steady-state", "--runs", str(RUNS), "--processed", str(processed), "-o", str(out),
                 "--csv", str(tmp_path / "steady.csv"), *runs]) == 0  # fmt: skip
    df = pl.read_parquet(out)
    assert df["run_id"].to_list() == [r for r in load_runs(RUNS)["run_id"] if r in runs]  # sheet order
    by = {r["run_id"]: r for r in df.iter_rows(named=True)}
    assert by[SLOW]["steady"] and not by[FLAT]["steady"] and not by[SHORT]["steady"]
    assert not by[CASSANDRA]["steady"] and by[CASSANDRA]["why"].startswith("no per-second throughput")
    assert pl.read_csv(tmp_path / "steady.csv").height == 4
    assert ss.steady_only(df, df)["run_id"].to_list() == [SLOW]
    assert ss.with_window(df.select("run_id").vstack(pl.DataFrame({"run_id": ["elsewhere"]})), df).filter(
        pl.col("run_id") == "elsewhere")["why"][0] == "not in the steady-state table"


def test_the_verb_refuses_a_run_not_in_the_sheet(processed, tmp_path, capsys):
    out = tmp_path / "steady.parquet"
    assert main(["steady-state", "--runs", str(RUNS), "--processed", str(processed), "-o", str(out),
                 "no-such-run"]) == 2  # fmt: skip
    assert "no-such-run" in capsys.readouterr().err and not out.exists()
    assert main(["steady-state", "--runs", str(RUNS), "--processed", str(processed), "-o", str(out)]) == 0
    assert pl.read_parquet(out).is_empty() and table_note(out) == "no runs given"


def test_a_kept_trace_window_inside_the_steady_window(processed, sheet, tmp_path):
    """SLOW's run.yaml with a kept trace window added by hand (as the capture of issue P records one): the window
    is moved into the series' time (the YCSB run phase's first status line comes a little after the workload
    started: its JVM starts first), and it lies inside the steady window only when it starts past the warm-up."""
    meta = yaml.safe_load((RAW / SLOW / "run.yaml").read_text())
    got = per_second.series(processed, sheet.filter(pl.col("run_id") == SLOW))[SLOW]
    started = datetime.fromisoformat(meta["workload_start_utc"].replace("Z", "+00:00"))
    shift = (got.start - started).total_seconds()
    assert 0 < shift < 5  # the JVM's start
    row = ss.judge(got, _row(sheet, SLOW))
    for offset, inside in ((shift + row["window_start_s"] + 10, True), (shift + 1, False)):
        made = tmp_path / "raw" / SLOW / "run.yaml"
        made.parent.mkdir(parents=True, exist_ok=True)
        meta["tracer"]["window"] = {"offset_s": offset, "length_s": 15}
        made.write_text(yaml.safe_dump(meta))  # hand-made: a real run.yaml with a window it did not keep
        start, end = ss.trace_window(made, got)
        assert start == pytest.approx(offset - shift) and end == pytest.approx(start + 15)
        df = ss.steady_state(sheet, processed, [SLOW], raw=tmp_path / "raw")
        assert df["trace_in_window"][0] is inside
    assert ss.trace_window(RAW / SLOW / "run.yaml", got) is None  # what it recorded: no window kept


@pytest.mark.parametrize("cap_mib, scale", [(16, True), (64, False)])
def test_the_scale_regime_wants_data_ten_times_the_cap(processed, sheet, tmp_path, cap_mib, scale):
    """SLOW (3e8 bytes of records) as if it had run under a memory cap (a real run.yaml with the capture's
    memory_cap block added by hand, and the runs-sheet column): steady, and in the scale regime only when its data
    is at least 10x the cap."""
    meta = yaml.safe_load((RAW / SLOW / "run.yaml").read_text())
    meta["memory_cap"] = {"requested": f"{cap_mib}M", "limit_bytes": cap_mib << 20}
    meta["image"] = {"allocated_bytes": 20 * (cap_mib << 20)}  # as if it had started from a loaded image
    made = tmp_path / "raw" / SLOW / "run.yaml"
    made.parent.mkdir(parents=True)
    made.write_text(yaml.safe_dump(meta))  # hand-made: a real run.yaml with a cap it did not run under
    capped = sheet.with_columns(memory_cap=pl.when(pl.col("run_id") == SLOW).then(pl.lit(f"{cap_mib}M")))
    df = ss.steady_state(capped, processed, [SLOW, FLAT], raw=tmp_path / "raw")
    row = df.row(0, named=True)
    records = meta["workload"]["options"]["recordcount"] * 1000  # 10 fields of 100 bytes
    assert row["steady"] and row["data_over_cap"] == pytest.approx(records / (cap_mib << 20))
    assert df["data_over_cap"][1] is None  # FLAT ran without a cap
    assert ss.scale_regime(df, df)["run_id"].to_list() == ([SLOW] if scale else [])
    assert row["stored_over_cap"] == 20 and ss.scale_regime(df, df, "stored_over_cap")["run_id"].to_list() == [SLOW]


def test_each_operations_rate_adds_up_to_the_runs_and_sits_on_its_samples(processed, sheet):
    """YCSB workload A on Cassandra: a status line's [READ: Count=..] and [UPDATE: Count=..] count the operations
    completed since the line before, so over each second they add up to the running count's difference (sample for
    sample: a count read one line early or late would not), and the window's read share is workload A's half."""
    df = pl.read_parquet(processed / SLOW / "ycsb" / "ycsb_series.parquet")
    values, _ = per_second.ycsb(df)
    ops = per_second.ycsb_ops(df)
    assert set(ops) == {"read", "update"} and all(v.size == values.size for v in ops.values())
    both, on = ops["read"] + ops["update"], values > 0  # the client's first seconds complete nothing
    assert both[~on].sum() == 0 and on.sum() > 200
    off = np.abs(both - values)[on] / values[on]
    assert np.median(off) < 0.02
    late = on[:-1] & on[1:]
    shifted = np.abs(both[1:] - values[:-1])[late] / values[:-1][late]  # one sample late
    assert np.median(shifted) > 2 * np.median(off)
    got = per_second.series(processed, sheet.filter(pl.col("run_id") == SLOW))[SLOW]
    row = ss.judge(got, _row(sheet, SLOW))
    start = int(row["window_start_s"])
    assert row["ops_s"] == pytest.approx(values[start:].mean())
    assert row["read_ops_s"] + row["update_ops_s"] == pytest.approx(row["ops_s"], rel=0.02)
    assert 0.45 < row["read_ops_s"] / row["ops_s"] < 0.55
    flat = ss.judge(per_second.series(processed, sheet.filter(pl.col("run_id") == FLAT))[FLAT], _row(sheet, FLAT))
    assert flat["read_ops_s"] is None and flat["update_ops_s"] is None and flat["ops_s"] > 0  # iostat: KiB/s only
