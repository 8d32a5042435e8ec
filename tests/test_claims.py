"""Claim verdicts on constructed tables: our interval against the claimed size, never only against zero."""

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

from blkscope.analysis import verdict as vd
from blkscope.paper.claims import CLAIMS, evaluate

METRIC_COLS = ["run_id", "workload", "job", "filesystem", "testbed", "traced", "repeat", "metric", "value"]


def _runs(rows: list[tuple]) -> pl.DataFrame:
    """runs sheet rows (run_id, workload, job, filesystem, traced[, extra columns])."""
    return pl.DataFrame(rows, schema=["run_id", "workload", "job", "filesystem", "traced"], orient="row").with_columns(
        testbed=pl.lit("loop"), mount_options=pl.lit("noatime"), repeat=pl.lit(1))


def _tables(runs: pl.DataFrame, metrics: list[tuple] = (), iostat: list[tuple] = (), zipf: pl.DataFrame = None):
    meta = runs.select("run_id", "workload", "job", "filesystem", "testbed", "traced", "repeat")
    m = pl.DataFrame(list(metrics), schema={"run_id": pl.Utf8, "metric": pl.Utf8, "value": pl.Float64}, orient="row")
    io = pl.DataFrame(list(iostat), schema={"run_id": pl.Utf8, "metric": pl.Utf8, "mean": pl.Float64}, orient="row")
    z = zipf if zipf is not None else pl.DataFrame(schema={"run_id": pl.Utf8, "op": pl.Utf8, "alpha": pl.Float64,
                                                             "p_gof": pl.Float64, "s": pl.Float64,
                                                             "s_lo": pl.Float64, "s_hi": pl.Float64})
    return {"runs": runs, "workload_metrics": meta.join(m, on="run_id"), "iostat_summary": meta.join(io, on="run_id"),
            "overhead": pl.DataFrame(), "zipf": z}


def _row(out: pl.DataFrame, cid: str) -> dict:
    return out.filter(pl.col("claim_id") == cid).row(0, named=True)


def test_verdict_rules_on_intervals():
    four = vd.comparable_ratio(4.0)
    assert (four.lo, four.hi) == (2.5, 7.0)
    assert vd.verdict(3.1, 4.9, four) == "replicates"
    assert vd.verdict(0.9, 1.2, four) == "does not"  # excludes the claimed size, though it may exclude 1 too
    assert vd.verdict(1.5, 3.0, four) == "inconclusive"
    assert vd.verdict(math.nan, 3.0, four) == "inconclusive"
    assert vd.verdict(1.2, 3.0, vd.more()) == "replicates" and vd.verdict(0.5, 0.9, vd.more()) == "does not"


def test_log_ratio_interval_is_welch_on_logs_and_tost_matches_the_90_percent_interval():
    a, b = np.array([400.0, 420.0, 410.0]), np.array([100.0, 104.0, 99.0])
    e = vd.log_ratio(a, b)
    ci = stats.ttest_ind(np.log(a), np.log(b), equal_var=False).confidence_interval(0.95)
    assert (e.lo, e.hi) == (pytest.approx(math.exp(ci.low)), pytest.approx(math.exp(ci.high)))
    assert e.value == pytest.approx(stats.gmean(a) / stats.gmean(b))
    x, y = np.array([1000.0, 1010.0, 995.0, 1005.0]), np.array([1002.0, 998.0, 1008.0, 1001.0])
    e = vd.log_ratio(x, y, level=0.90, margin=0.10)
    assert e.p_tost < 0.05  # equivalent within 10 %
    assert e.lo > 1 / 1.1 and e.hi < 1.1  # the 90 % interval lies inside the margin: the same decision


def test_plausible_power_law_with_small_exponent_does_not_replicate_zipf():
    runs = _runs([(f"y{i}", "ycsb", "workloada", "ext4", True) for i in range(3)])
    z = pl.DataFrame({"run_id": ["y0", "y1", "y2"], "op": ["all"] * 3, "alpha": [11.0, 11.2, 10.8],
                      "p_gof": [0.6, 0.4, 0.8], "s": [0.10, 0.09, 0.11], "s_lo": [0.08] * 3, "s_hi": [0.12] * 3})
    r = _row(evaluate(_tables(runs, zipf=z)), "S1-zipf")
    assert r["verdict"] == "does not" and "plausible (p >= 0.1) in 3" in r["measurement"]
    assert r["claimed"].startswith("s = 0.7-1.3") and r["hi"] < 0.7
    z2 = z.with_columns(s=pl.Series([0.95, 1.0, 1.05]))
    assert _row(evaluate(_tables(runs, zipf=z2)), "S1-zipf")["verdict"] == "replicates"


def test_equal_means_with_a_narrow_interval_replicate_the_same_claim():
    ids = [(f"{fs}{i}", "cassandra", "write-lz4", fs, False) for fs in ("ext4", "xfs") for i in range(4)]
    runs = _runs(ids)
    ops = [1000.0, 1010.0, 995.0, 1005.0, 1002.0, 998.0, 1008.0, 1001.0]
    r = _row(evaluate(_tables(runs, [(i[0], "ops_s", v) for i, v in zip(ids, ops, strict=True)])), "S2-lz4")
    assert r["verdict"] == "replicates" and r["p_tost"] < 0.05 and r["level"] == pytest.approx(0.90)
    # 30 % apart with a narrow interval: the same claim is refuted, not merely unproven
    ops2 = ops[:4] + [v * 1.3 for v in ops[4:]]
    r2 = _row(evaluate(_tables(runs, [(i[0], "ops_s", v) for i, v in zip(ids, ops2, strict=True)])), "S2-lz4")
    assert r2["verdict"] == "does not"
    # noisy: neither shown
    ops3 = [700.0, 1300.0, 1000.0, 900.0, 1200.0, 800.0, 1100.0, 1000.0]
    r3 = _row(evaluate(_tables(runs, [(i[0], "ops_s", v) for i, v in zip(ids, ops3, strict=True)])), "S2-lz4")
    assert r3["verdict"] == "inconclusive"


def test_about_four_times_needs_a_comparable_size_not_just_the_direction():
    ids = [(f"{fs}{i}", "cassandra", "write", fs, False) for fs in ("ext4", "xfs") for i in range(3)]
    runs = _runs(ids)
    def out(ext4, xfs):
        m = [(i[0], "ops_s", v) for i, v in zip(ids, ext4 + xfs, strict=True)]
        return _row(evaluate(_tables(runs, m)), "S2-ops")
    assert out([4000.0, 4100.0, 3950.0], [1000.0, 1020.0, 990.0])["verdict"] == "replicates"
    r = out([1200.0, 1210.0, 1190.0], [1000.0, 1020.0, 990.0])  # ext4 faster, by 20 %: not "about 4x"
    assert r["verdict"] == "does not" and r["lo"] > 1
    assert "4.00x" in r["claimed"] and r["ours"].startswith("1.20x [")


def test_commitlog_mode_from_a_sheet_column_and_saturating_runs_preferred():
    ids = [(f"{fs}{c}{i}", "cassandra", "write", fs, False) for fs in ("ext4", "xfs") for c in ("n", "l")
           for i in range(3)]
    runs = _runs(ids).with_columns(commitlog_compression=pl.when(pl.col("run_id").str.contains("l"))
                                   .then(pl.lit("LZ4")).otherwise(pl.lit("none")))
    vals = {"ext4n": 4000.0, "xfsn": 1000.0, "ext4l": 2000.0, "xfsl": 2000.0}
    m = [(r[0], "ops_s", vals[r[0][:-1]] + int(r[0][-1])) for r in ids]
    out = evaluate(_tables(runs, m))
    assert _row(out, "S2-ops")["verdict"] == "replicates" and _row(out, "S2-lz4")["verdict"] == "replicates"
    # aqu-sz: light runs say the opposite of saturating ones; the saturating ones decide
    ids2 = [(f"{fs}{ld}{i}", "fio", f"append{'-sat' if ld == 's' else ''}", fs, False) for fs in ("ext4", "xfs")
            for ld in ("l", "s") for i in range(3)]
    aqu = {"ext4l": 0.02, "xfsl": 0.04, "ext4s": 1.4, "xfss": 0.45}
    io = [(r[0], "aqu_sz", aqu[r[0][:-1]] * (1 + 0.01 * int(r[0][-1]))) for r in ids2]
    r = _row(evaluate(_tables(_runs(ids2), iostat=io)), "S2-aqu-fio")
    assert r["load"] == "saturating" and r["verdict"] == "replicates"


def test_overhead_pooled_over_configurations_against_the_claimed_range():
    ids = [(f"{fs}{t}{i}", "ycsb", "workloada-sat", fs, t == "t") for fs in ("ext4", "btrfs") for t in ("t", "u")
           for i in range(3)]
    untraced, kept = {"ext4": 1000.0, "btrfs": 800.0}, {"ext4": 0.75, "btrfs": 0.64}  # 25 % and 36 % overhead
    m = [(r[0], "ops_s", untraced[r[3]] * (kept[r[3]] if r[4] else 1.0) + int(r[0][-1])) for r in ids]
    out = evaluate(_tables(_runs(ids), m))
    r = _row(out, "S1-trace")
    assert r["verdict"] == "replicates" and r["estimate"] == pytest.approx(0.305, abs=0.01)
    assert "2 configs" in r["n"] and r["load"] == "saturating"
    assert _row(out, "S1-trace-btrfs")["verdict"] == "replicates"
    assert _row(out, "S1-trace-cass")["verdict"] == "not tested (no runs)"


def test_every_claim_evaluates_on_an_empty_dataset_and_states_its_size():
    out = evaluate(_tables(_runs([("x", "fio", "randrw", "ext4", True)])))
    assert out.height == len(CLAIMS) and out["claimed"].null_count() == 0
    assert set(out["verdict"]) <= {"not tested (no runs)", "inconclusive"}


def test_too_few_repeats_are_inconclusive():
    ids = [("a", "sysbench", "rndrw", "xfs", False), ("b", "sysbench", "rndrw", "ext4", False),
           ("c", "sysbench", "rndrw", "ext4", False)]
    out = evaluate(_tables(_runs(ids), [("a", "ops_s", 4000.0), ("b", "ops_s", 3000.0), ("c", "ops_s", 3100.0)]))
    assert _row(out, "S5-sysbench")["verdict"].startswith("inconclusive (fewer than 2")


def test_claims_table_shows_the_claimed_size_beside_ours():
    from blkscope.paper.tables import claims_table

    ids = [(f"{fs}{i}", "cassandra", "write", fs, False) for fs in ("ext4", "xfs") for i in range(3)]
    m = [(r[0], "ops_s", (4000.0 if r[3] == "ext4" else 1000.0) + int(r[0][-1])) for r in ids]
    tex = claims_table(evaluate(_tables(_runs(ids), m)))
    row = next(line for line in tex.splitlines() if line.startswith("S2-ops"))
    assert "4.00x (comparable: 2.50-7.00x)" in row and r"\raggedright 4.00x [" in row
    assert row.rstrip(" \\").endswith("replicates")
    assert "3 vs 3, saturating" in row  # cassandra-stress runs unthrottled


def test_saturating_runs_that_cannot_be_judged_yet_fall_back_to_the_light_ones_and_say_so():
    ids = [(f"{fs}{t}{i}", "ycsb", "workloada", fs, t == "t") for fs in ("ext4",) for t in ("t", "u") for i in range(3)]
    ids += [("sat-t", "ycsb", "workloada-sat", "ext4", True)]  # a saturating batch half captured: no pair yet
    m = [(r[0], "ops_s", 1000.0 * (0.9 if r[4] else 1.0) + (int(r[0][-1]) if r[0][-1].isdigit() else 0))
         for r in ids]
    r = _row(evaluate(_tables(_runs(ids), m)), "S1-trace")
    assert r["load"] == "light" and r["estimate"] == pytest.approx(0.1, abs=0.005)
    assert "saturating ones cannot be judged" in r["measurement"] and r["verdict"] == "does not"
