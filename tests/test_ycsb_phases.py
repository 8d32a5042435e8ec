"""Each YCSB phase's ops/s past its warm-up, on a real capture's logs (YCSB on a Cassandra node here: the load,
workload A and read-only phases of one run, tests/fixtures/ycsb) and on status lines made to order."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import yaml

from blkscope.analysis.summaries.ycsb_phases import steady, ycsb_phases
from blkscope.ingest import run_ingest
from blkscope.runs import run_id_of

FIX = Path(__file__).parent / "fixtures" / "ycsb" / "run_workloadc_cassandra_phase_read.txt"


def _lines(phase: str, counts: list[int]) -> pl.DataFrame:
    return pl.DataFrame({"phase": [phase] * len(counts), "elapsed_s": [float(i) for i in range(len(counts))],
                         "operations": counts})  # fmt: skip


def test_rate_between_the_warm_up_and_the_last_full_second():
    # 100 ops/s for 10 s after a slow start; at 11 s the partial last second, at 12 s the report after it
    counts = [0, 5, 20, 120, 220, 320, 420, 520, 620, 720, 820, 850, 850]
    row = steady(_lines("run", counts), {"run": 3}).row(0, named=True)
    assert (row["seconds"], row["operations"], row["ops_s_steady"]) == (7.0, 700, 100.0)
    assert steady(_lines("run", counts), {})["ops_s_steady"][0] == 820 / 10  # no warm-up recorded: from 0 s
    assert steady(_lines("run", counts), {"run": 30})["ops_s_steady"][0] is None  # nothing left past it


def test_lines_sharing_a_second_in_any_order_give_one_answer():
    """The last two status lines of a phase share their elapsed second (as YCSB prints them): the answer is the
    log's order's, whatever order the rows come in (it changed between two runs of the main job)."""
    counts = [0, 100, 200, 300, 400, 500, 560, 600]
    lines = _lines("run", counts).with_columns(elapsed_s=pl.Series([0.0, 1, 2, 3, 4, 5, 6, 6]))
    want = steady(lines, {"run": 1})
    assert want.row(0, named=True)["operations"] == 460  # from 1 s to the line before the last, in the same second
    for seed in range(20):
        assert steady(lines.sample(fraction=1.0, shuffle=True, seed=seed), {"run": 1}).equals(want), seed


def test_on_a_captured_phase(tmp_path):
    proc, raw = tmp_path / "proc" / "r1" / "ycsb", tmp_path / "raw" / "r1"
    run_ingest("ycsb", [FIX], proc)
    raw.mkdir(parents=True)
    (raw / "run.yaml").write_text(yaml.safe_dump({"workload": {"options": {"warmup_s": {"read": 30}}}}))
    runs = pl.DataFrame({"run_id": ["r1"], "database": ["cassandra"], "workload": ["cassandra-ycsb"], "job": ["j"],
                         "filesystem": ["ext4"], "traced": [False], "repeat": [1]})  # fmt: skip
    df = ycsb_phases([proc / "ycsb_series.parquet"], tmp_path / "raw", runs, run_id_of)
    row = df.row(0, named=True)
    assert (df.height, row["phase"], row["warmup_s"]) == (1, "read", 30.0)
    printed = {int(ln.split(" sec: ")[0].split()[-1]): int(ln.split(" sec: ")[1].split()[0])
               for ln in FIX.read_text().splitlines() if " sec: " in ln}  # fmt: skip
    last_full = max(t for t in printed if printed[t] > printed.get(t - 1, -1)) - 1
    assert row["operations"] == printed[last_full] - printed[30] and row["seconds"] == last_full - 30
    assert ycsb_phases([], tmp_path / "raw", runs, run_id_of).is_empty()
