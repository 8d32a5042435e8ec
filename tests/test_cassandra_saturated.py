"""S2-ops-cap's secondary measure: cassandra-stress's ops/s over the part of a capped run in which the device is
saturated (blkscope.analysis.summaries.cassandra_saturated), and the ratio the claims read from it
(blkscope.paper.claim_secondary), on constructed logs and on the dataset's own capped runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis.summaries import cassandra_saturated as cs

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data" / "raw"
T0 = datetime(2026, 11, 25, 12, 0, 0, tzinfo=UTC)


def _totals(rows: list[tuple[float, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"time_s": pl.Float64, "total_ops": pl.Int64}, orient="row")


def test_the_window_starts_at_the_first_interval_boundary_after_the_onset():
    # the stress ran 4 s and ended at T0 + 10 s: it started at T0 + 6 s; the device saturated at T0 + 7.5 s (1.5 s
    # into the stress), so the window opens at the 2-s boundary: (1000 - 300) ops over 2 s
    t = _totals([(1.0, 100), (2.0, 300), (3.0, 600), (4.0, 1000)])
    r = cs.saturated_rate(t, T0 + timedelta(seconds=7.5), T0 + timedelta(seconds=10))
    assert (r["onset_s"], r["from_s"], r["to_s"], r["window_s"]) == (1.5, 2.0, 4.0, 2.0)
    assert r["ops_s_sat"] == pytest.approx(350.0) and r["ops_s_intervals"] == pytest.approx(250.0)
    assert r["stress_start_utc"] == "2026-11-25T12:00:06Z"
    # an onset before the stress started: the whole run; on a boundary: from that boundary
    assert cs.saturated_rate(t, T0, T0 + timedelta(seconds=10))["ops_s_sat"] == pytest.approx(250.0)
    assert cs.saturated_rate(t, T0 + timedelta(seconds=9), T0 + timedelta(seconds=10))["ops_s_sat"] == 400.0
    # an onset after the last interval: no window, no rate
    late = cs.saturated_rate(t, T0 + timedelta(seconds=11), T0 + timedelta(seconds=10))
    assert late["window_s"] == 0.0 and late["ops_s_sat"] is None


def test_a_short_last_interval_weighs_by_its_length():
    # cassandra-stress's last interval is a part of a second: counted as ops over seconds, not as one more rate
    t = _totals([(1.0, 100), (2.0, 200), (2.5, 300)])
    r = cs.saturated_rate(t, T0 + timedelta(seconds=8.0), T0 + timedelta(seconds=10))
    assert r["from_s"] == 1.0 and r["ops_s_sat"] == pytest.approx(200 / 1.5)


def test_the_onset_counts_reports_as_iostat_summary_does():
    # the since-boot report is no report of the run; report k covers the second before its stamp
    reports = pl.DataFrame({"sample": [0, 1, 2, 3], "since_boot": [True, False, False, False],
                            "timestamp": [T0 + timedelta(seconds=s) for s in (0, 1, 2, 3)]})
    assert cs.onset_utc(reports, 0) == T0
    assert cs.onset_utc(reports, 2) == T0 + timedelta(seconds=2)
    assert cs.onset_utc(reports, 3) is None


def test_a_run_whose_iostat_clock_is_not_utc_is_refused():
    reports = pl.DataFrame({"sample": [0, 1], "since_boot": [False, False],
                            "timestamp": [T0 + timedelta(hours=5, seconds=s) for s in (1, 2)]})
    intervals = pl.DataFrame({"round": [0, 0], "type": ["total", "total"], "time_s": [1.0, 2.0],
                              "total_ops": [10, 20]})
    meta = {"workload_start_utc": "2026-11-25T12:00:00Z", "workload_end_utc": "2026-11-25T12:00:10Z"}
    with pytest.raises(ValueError, match="not UTC"):
        cs.run_row("r", 1, "loop1", reports, intervals, meta)
    # no onset (the device never stayed saturated): no window, the whole run's rate alone
    row = cs.run_row("r", None, None, reports, intervals, meta)
    assert row["ops_s_sat"] is None and row["ops_s_intervals"] == 10.0


# the confirmatory capped runs S2-ops-cap's planned verdict reads: uncompressed commitlog, ext4 and xfs, untraced,
# both caps (round3-capped, round3-capped-2m), three repeats each
CONFIRMATORY = [f"host-{fs}-cassandra-write-capped{cap}-none-untraced-r{i}"
                for fs in ("ext4", "xfs") for cap in ("", "2m") for i in (1, 2, 3)]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """The confirmatory capped runs ingested as the workflow ingests them, with their iostat and workload tables
    and the saturated-window table."""
    from blkscope.analysis.summaries.iostat_summary import iostat_summary
    from blkscope.analysis.summaries.workload_metrics import workload_metrics
    from blkscope.ingest import run_ingest
    from blkscope.runs import load_runs

    proc = tmp_path_factory.mktemp("processed")
    for run in CONFIRMATORY:
        run_ingest("iostat", [RAW / run / "iostat.json"], proc / run / "iostat")
        run_ingest("cassandra-stress", [RAW / run / "cstress.txt"], proc / run / "cstress")
    runs = load_runs(ROOT / "config" / "runs.tsv")
    files = [proc / run / "iostat" / "iostat.parquet" for run in CONFIRMATORY]
    io = iostat_summary(files, runs, lambda f: Path(f).parents[1].name)
    metrics = workload_metrics(runs, proc, CONFIRMATORY)
    return runs, io, metrics, cs.table(CONFIRMATORY, proc, RAW, io)


def test_every_confirmatory_capped_run_saturates_and_its_window_ends_the_run(real):
    runs, io, metrics, sat = real
    assert sat.height == len(CONFIRMATORY) and sat["ops_s_sat"].null_count() == 0
    onset = io.filter(pl.col("metric") == "sat_onset_s").select("run_id", reports="mean")
    j = sat.join(onset, on="run_id")
    assert (j["onset_report"] == j["reports"].cast(pl.Int64)).all()  # the onset S2-aqu-cap reads from
    # the window opens inside the run, after the onset (at an interval boundary), and ends at the run's end
    assert (sat["onset_s"] > 0).all() and (sat["from_s"] >= sat["onset_s"]).all() and (sat["window_s"] > 3).all()
    assert (sat["from_s"] - sat["onset_s"] <= 1).all()
    assert (sat["to_s"] - sat["from_s"] == sat["window_s"]).all()
    # the intervals' arithmetic gives the Results block's Op rate over the whole run (within 2 %)
    ops = metrics.filter(pl.col("metric") == "ops_s").select("run_id", op_rate="value")
    k = sat.join(ops, on="run_id")
    assert ((k["ops_s_intervals"] / k["op_rate"] - 1).abs() < 0.02).all()
    # under the 4 MiB/s cap the device idles for the first tens of seconds while the page cache absorbs the writes,
    # and the saturated part runs faster than the whole run; under 2 MiB/s it saturates within seconds
    wide = k.filter(~pl.col("run_id").str.contains("capped2m"))
    assert wide.height == 6 and (wide["ops_s_sat"] > wide["ops_s_intervals"]).all() and (wide["onset_s"] > 15).all()
    assert (k.filter(pl.col("run_id").str.contains("capped2m"))["onset_s"] < 15).all()


def test_the_saturated_window_ratio_of_the_real_runs_beside_the_planned_one(real):
    from blkscope.paper import claims_plan
    from blkscope.paper.claim_secondary import SATURATED, estimates, macros

    runs, io, metrics, sat = real
    plan = claims_plan.load(ROOT / "config" / "claims_plan.yaml")
    tables = {"runs": runs.filter(pl.col("run_id").is_in(CONFIRMATORY)), "workload_metrics": metrics,
              "iostat_summary": io, SATURATED: sat}
    est = estimates(tables, plan)
    r = est.filter(pl.col("runs") == "planned").row(0, named=True)
    # the same runs, strata and estimator as the planned measure: three runs per arm in each cap's batch
    assert r["planned_n"] == r["secondary_n"] == "6 vs 6 in 2 strata"
    assert r["secondary"] != r["planned"] and r["lo"] < r["estimate"] < r["hi"]
    # the planned estimate is the claims table's S2-ops-cap; the saturated-window one reads 4-57 s of each run
    assert (r["planned"], r["secondary"]) == ("1.01x [0.86x, 1.19x]", "0.97x [0.75x, 1.26x]")
    assert (round(r["window_s_min"], 1), round(r["window_s_max"], 1)) == (3.5, 56.9)
    claims = pl.DataFrame([{"claim_id": "S2-ops-cap", "claimed_lo": 2.28, "claimed_hi": 6.85,
                            "band_words": "2.28-6.85x", "ours": r["planned"]}])
    m = macros(est, claims)
    assert m == {"SecondarySTwoOpsCapOurs": "0.97x [0.75x, 1.26x]", "SecondarySTwoOpsCapWindowMin": "4",
                 "SecondarySTwoOpsCapWindowMax": "57",
                 "SecondarySTwoOpsCapWhere": "wholly below the claimed 2.28--6.85x"}  # en dash: latex.ranged
    # over every run, the exploratory repeats included (the deviations table's numbers)
    a = est.filter(pl.col("runs") == "all").row(0, named=True)
    assert a["secondary_n"] == "6 vs 6 in 2 strata"  # the fixture holds the confirmatory runs alone


def test_the_command_names_a_run_without_its_tables_and_writes_nothing(real, tmp_path, capsys):
    _, io, _, _ = real
    summary, out = tmp_path / "iostat_summary.parquet", tmp_path / "sat.parquet"
    io.write_parquet(summary)
    # a processed folder without the run's tables: one line, rc 1, no table
    rc = cs.main(["--iostat-summary", str(summary), "--processed", str(tmp_path / "empty"), "--raw", str(RAW),
                  "-o", str(out), CONFIRMATORY[0]])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 1 and not out.exists()
    assert err.startswith("blkscope: cassandra_saturated:") and CONFIRMATORY[0] in err and err.count("\n") == 1
