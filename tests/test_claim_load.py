"""The machine's load beside the claims (blkscope.paper.claim_load): each run's load before its workload, read from
real run.yaml files, and the arms each judged row's verdict read, compared by rule."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from test_claims import _runs, _tables

from blkscope import yamlio
from blkscope.analysis.load.machine_load import before
from blkscope.paper import claim_load as cl
from blkscope.paper.claims import evaluate

RAW = Path(__file__).resolve().parents[1] / "data" / "raw"


def _yaml(run: str) -> dict:
    return yamlio.load((RAW / run / "run.yaml").read_text())


def test_the_load_read_is_the_one_before_the_workload_not_after_it():
    with_both = [r.name for r in sorted(RAW.iterdir()) if (r / "run.yaml").exists()
                 and "after" in (_yaml(r.name).get("loadavg") or {})][:20]
    assert with_both, "data/raw holds no run.yaml with a load before and after its workload"
    t = before(with_both, RAW)
    for r in t.iter_rows(named=True):
        rec = _yaml(r["run_id"])["loadavg"]
        assert r["loadavg_1m"] == rec["before"]["1min"]
    # the two differ somewhere, so reading `after` would give other numbers
    assert any(_yaml(r)["loadavg"]["before"]["1min"] != _yaml(r)["loadavg"]["after"]["1min"] for r in with_both)


def test_every_run_without_a_load_record_was_captured_before_the_first_with_one():
    """The paper says the runs without a load are those captured before run.yaml recorded it."""
    ids = sorted(r.name for r in RAW.iterdir() if (r / "run.yaml").exists())
    t = before(ids, RAW)
    assert t.height == len(ids)

    def start(run: str) -> str:
        m = _yaml(run)
        return str(m.get("start_utc") or (m.get("timing") or {}).get("workload_start") or "")

    none = t.filter(pl.col("loadavg_1m").is_null())["run_id"].to_list()
    some = t.filter(pl.col("loadavg_1m").is_not_null())["run_id"].to_list()
    assert none and some
    assert max(start(r) for r in none) < min(start(r) for r in some)


def _arms(loads: dict[str, list[float]], row: str = "S9-x") -> tuple[pl.DataFrame, pl.DataFrame]:
    arms = [(row, f"{a}{i}", a) for a, v in loads.items() for i in range(len(v))]
    load = [(f"{a}{i}", x) for a, v in loads.items() for i, x in enumerate(v)]
    return (pl.DataFrame(arms, schema=["claim_id", "run_id", "arm"], orient="row"),
            pl.DataFrame(load, schema={"run_id": pl.Utf8, "loadavg_1m": pl.Float64}, orient="row"))


def test_arms_whose_load_differs_are_found_and_the_higher_named_first():
    arms, load = _arms({"traced": [8.0, 8.4, 7.9, 8.2, 8.1], "untraced": [2.0, 2.2, 1.9, 2.1, 2.05]})
    r = cl.compare("S9-x", arms.join(load, on="run_id"))
    assert r["arm_a"] == "traced" and r["load_a"] == 8.1 and r["load_b"] == 2.05 and r["differs"]
    assert r["diff"] == pytest.approx(6.05) and 0 < r["lo"] <= r["diff"] <= r["hi"]
    arms, load = _arms({"ext4": [2.0, 5.0, 3.0], "xfs": [4.0, 2.5, 3.5]})
    r = cl.compare("S9-x", arms.join(load, on="run_id"))
    assert r["differs"] is False and r["lo"] <= 0 <= r["hi"]
    # a run without a record counts as unrecorded, not as a load; one arm alone: medians, no comparison
    arms, load = _arms({"ext4": [2.0, 3.0], "xfs": [np.nan]})
    r = cl.compare("S9-x", arms.join(load.with_columns(pl.col("loadavg_1m").fill_nan(None)), on="run_id"))
    assert r["unrecorded"] == 1 and r["n_arms"] == 2 and r["differs"] is None and r["load_a"] == 2.5
    assert r["unrecorded_runs"] == " ".join(arms.filter(pl.col("arm") == "xfs")["run_id"])


def test_the_arms_are_those_the_verdict_read():
    ids = [(f"{fs}{t}{i}", "ycsb", "workloada-sat", fs, t == "t") for fs in ("ext4", "btrfs") for t in ("t", "u")
           for i in range(3)]
    m = [(r[0], "ops_s", 1000.0 * (0.7 if r[4] else 1.0) + 20 * i) for i, r in enumerate(ids)]
    runs = _runs(ids)
    arms: list[pl.DataFrame] = []
    out = evaluate(_tables(runs, m), None, arms)
    got = pl.concat(arms)
    trace = got.filter(pl.col("claim_id") == "S1-trace")
    assert sorted(trace.filter(pl.col("arm") == "traced")["run_id"]) == sorted(r[0] for r in ids if r[4])
    assert sorted(trace.filter(pl.col("arm") == "untraced")["run_id"]) == sorted(r[0] for r in ids if not r[4])
    btrfs = got.filter(pl.col("claim_id") == "S1-trace-btrfs")  # btrfs's configuration alone
    assert set(btrfs["run_id"]) == {r[0] for r in ids if r[3] == "btrfs"}
    assert out.height == len({*out["claim_id"]})  # the claims table is as it was: one row per claim


def _table(**rows) -> pl.DataFrame:
    base = dict.fromkeys(cl.SCHEMA)
    return pl.DataFrame([base | {"claim_id": k} | v for k, v in rows.items()], schema=cl.SCHEMA, orient="row")


def test_the_sentence_is_phrased_by_rule():
    assert cl.sentence(_table()).endswith("has no judged row to read.")
    same = {"arm_a": "xfs", "arm_b": "ext4", "load_a": 2.0, "load_b": 1.9, "diff": 0.1, "differs": False,
            "n_arms": 2, "unrecorded": 0}
    s = cl.sentence(_table(**{"S2-ops": same, "S2-lz4": same}))
    assert "the arms of none of the two judged rows with two recorded arms differ in it" in s and "differs" not in s
    assert cl.short(_table(**{"S2-ops": same})) == ("the arms of the one judged row with two recorded arms do not "
                                                    "differ in it")
    far = same | {"arm_a": "traced", "arm_b": "untraced", "load_a": 8.0, "load_b": 2.0, "diff": 6.0, "differs": True}
    one = {"n_arms": 1, "unrecorded": 0}
    old = {"n_arms": 2, "unrecorded": 6, "unrecorded_runs": "r1 r2 r3 r4 r5 r6", "unrecorded_early": True}
    # one arm recorded, the other not: its medians stand, so it is not "every run"; its unrecorded runs are S4-reader's
    half = {"n_arms": 2, "unrecorded": 2, "unrecorded_runs": "r1 r2", "arm_a": "ext4", "load_a": 2.0,
            "unrecorded_early": True}
    t = _table(**{"S1-trace": far, "S2-ops": same, "S1-zipf": one, "S4-reader": old, "S4-mean": half})
    s = cl.sentence(t)
    # one row: its difference, not a maximum over one value (review: "by at most 3.39" for a single row)
    assert "in one of the two judged rows with two recorded arms the arms' load differs, by 6.00: S1-trace" in s
    assert cl.short(t) == ("the arms of one of the two judged rows with two recorded arms differ in it, by 6.00 "
                           "(S1-trace)")
    assert "differ in it, by at most 6.00 (S1-trace and S2-lz4)" in cl.short(_table(**{"S1-trace": far,
                                                                                     "S2-lz4": far}))
    # a database arm as its makers write it (review: "rocksdb 7.79 against cassandra 4.40")
    dbs = cl.sentence(_table(**{"S1-cass-read-scale": far | {"arm_a": "rocksdb", "arm_b": "cassandra"}}))
    assert "S1-cass-read-scale (RocksDB 8.00 against Cassandra 2.00)" in dbs
    # ten rows or more: counts in digits throughout
    many = _table(**{f"S{i}": same for i in range(10)}, **{"S1-trace": far})
    assert cl.short(many).startswith("the arms of 1 of the 11 judged rows")
    assert "S1-trace (traced 8.00 against untraced 2.00)" in s
    # a run two rows read counts once (r1, r2 are S4-reader's and S4-mean's)
    assert "six were captured before run.yaml recorded the load" in s and "every run of S4-reader." in s
    assert "S4-mean" not in s.split("every run of")[1]
    # a run without a load that started after the first run with one (an imported run): not called early
    late = cl.sentence(_table(**{"S4-reader": old | {"unrecorded_early": False}}))
    assert "six were without a load in their run.yaml and enter no median" in late and "captured before" not in late
    assert "S1-zipf has no two arms" in s
    m = cl.macros(t)
    assert m["ClaimLoadDiffer"] == "one" and m["ClaimLoadCompared"] == "two" and m["ClaimLoadMaxDiff"] == "6.00"


def test_judged_rows_are_the_headlines():
    c = pl.DataFrame({"claim_id": ["a", "b", "c", "d"],
                      "verdict": ["inconclusive", "outside the study's condition: in memory", "not tested (no runs)",
                                  "does not"],
                      "verdict_planned": [None, "does not", None, None], "same_as": [None, None, None, "a"]})
    assert cl.judged(c) == ["a", "b"]


def test_a_load_of_zero_is_a_reading_not_a_missing_one():
    from blkscope.analysis.load.machine_load import loadavg

    assert loadavg({"loadavg": 0.0}) == 0.0 and loadavg({"load_average": {"before": {"1min": 0.0}}}) == 0.0
    assert loadavg({"loadavg": None, "loadavg_start": "1.5 1.2 1.0"}) == 1.5 and loadavg({}) is None


def test_runs_without_a_load_are_early_only_if_they_started_before_the_first_with_one():
    arms = pl.DataFrame({"claim_id": ["S9-x"] * 4, "run_id": ["a1", "a2", "b1", "b2"], "arm": ["a", "a", "b", "b"]})
    loads = pl.DataFrame({"run_id": ["a1", "a2", "b1", "b2"], "loadavg_1m": [None, 1.0, 2.0, 3.0],
                          "start_utc": ["2026-11-20T01:00Z", "2026-11-21T01:00Z", "2026-11-22T01:00Z",
                                        "2026-11-23T01:00Z"]})
    claims = pl.DataFrame({"claim_id": ["S9-x"], "verdict": ["does not"]})
    t = cl.table(claims, arms, loads)
    assert t["unrecorded"][0] == 1 and t["unrecorded_early"][0] is True
    late = loads.with_columns(start_utc=pl.Series(["2026-11-24T01:00Z", "2026-11-21T01:00Z", "2026-11-22T01:00Z",
                                                   "2026-11-23T01:00Z"]))
    assert cl.table(claims, arms, late)["unrecorded_early"][0] is False
    unknown = loads.with_columns(start_utc=pl.Series([None, "2026-11-21T01:00Z", "2026-11-22T01:00Z",
                                                      "2026-11-23T01:00Z"]))
    assert cl.table(claims, arms, unknown)["unrecorded_early"][0] is False
    assert cl.table(claims, arms, loads.with_columns(loadavg_1m=pl.lit(1.0)))["unrecorded_early"][0] is None


def test_the_command_writes_macros_table_and_csv_from_real_run_yamls(tmp_path):
    """`python -m blkscope.paper.claim_load` on two real runs with a load and one without (captured earlier): the
    table, its csv and the macros agree, and the sentence counts the one run without a load as early."""
    ids = sorted(r.name for r in RAW.iterdir() if (r / "run.yaml").exists())
    loads = before(ids, RAW)
    some = loads.filter(pl.col("loadavg_1m").is_not_null())["run_id"].to_list()[:2]
    none = loads.filter(pl.col("loadavg_1m").is_null())["run_id"].to_list()[:1]
    assert len(some) == 2 and none
    pl.DataFrame({"claim_id": ["S9-x"], "verdict": ["does not"]}).write_parquet(tmp_path / "claims.parquet")
    pl.DataFrame({"claim_id": ["S9-x"] * 3, "run_id": [*some, *none], "arm": ["a", "b", "b"]}).write_parquet(
        tmp_path / "arms.parquet")
    out, table, csv = tmp_path / "load.tex", tmp_path / "load.parquet", tmp_path / "load.csv"
    assert cl.main(["--claims", str(tmp_path / "claims.parquet"), "--arms", str(tmp_path / "arms.parquet"),
                    "--raw", str(RAW), "-o", str(out), "--table", str(table), "--csv", str(csv)]) == 0
    t = pl.read_parquet(table)
    assert t["unrecorded"].to_list() == [1] and t["unrecorded_early"].to_list() == [True] and t["n_arms"][0] == 2
    assert pl.read_csv(csv)["claim_id"].to_list() == ["S9-x"]
    tex = out.read_text()
    assert r"\newcommand{\ClaimLoadJudged}{one}" in tex and "one was captured before run.yaml recorded the load" in tex
