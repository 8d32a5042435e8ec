"""iostat summary on real iostat output: the since-boot report is dropped, means and CIs are right."""

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from blkscope.analysis.summaries.iostat_summary import iostat_summary, summarize
from blkscope.ingest import run_ingest

FIX = Path(__file__).parent / "fixtures" / "iostat"


def _ingest(tmp_path, name):
    run_ingest("iostat", [FIX / name], tmp_path / "out")
    return pl.read_parquet(tmp_path / "out" / "iostat.parquet")


def test_since_boot_report_is_dropped(tmp_path):
    df = _ingest(tmp_path, "x_t_json_1_2_sinceboot.json")
    s = summarize(df)
    assert s["dropped_since_boot"].unique().to_list() == [1]
    doc = json.loads((FIX / "x_t_json_1_2_sinceboot.json").read_text())
    stats = doc["sysstat"]["hosts"][0]["statistics"]
    # only the second (interval) report remains: its w/s per device is the mean, n = 1
    for disk in stats[1]["disk"]:
        row = s.filter((pl.col("device") == disk["disk_device"]) & (pl.col("metric") == "w_s")).row(0, named=True)
        assert row["n"] == 1 and row["mean"] == pytest.approx(disk["w/s"])


def test_mean_and_t_interval_over_interval_reports(tmp_path):
    df = _ingest(tmp_path, "x_t_y_json_1_3_vda.json")
    s = summarize(df).filter((pl.col("device") == "vda") & (pl.col("metric") == "wkb_s")).row(0, named=True)
    doc = json.loads((FIX / "x_t_y_json_1_3_vda.json").read_text())
    vals = np.array([d["wkB/s"] for st in doc["sysstat"]["hosts"][0]["statistics"] for d in st["disk"]
                     if d["disk_device"] == "vda"])
    assert s["n"] == len(vals) == 3 and s["dropped_since_boot"] == 0
    assert s["mean"] == pytest.approx(vals.mean())
    half = 4.302652729911275 * vals.std(ddof=1) / np.sqrt(3)  # t(0.975, 2)
    assert s["ci_hi"] - s["mean"] == pytest.approx(half)


def test_saturated_metrics_start_where_the_capped_device_stays_saturated(tmp_path):
    raw = Path(__file__).parents[1] / "data" / "raw" / "host-ext4-cassandra-write-capped-none-untraced-r1"
    run_ingest("iostat", [raw / "iostat.json"], tmp_path / "out")
    df = pl.read_parquet(tmp_path / "out" / "iostat.parquet").filter(~pl.col("since_boot").fill_null(False))
    s = summarize(df)
    util = df.filter(pl.col("device") == "loop1").sort("sample")["util_pct"].to_numpy()
    sat = util >= 90
    onset = next(k for k in range(len(util)) if sat[k:k + 5].all() and len(sat[k:k + 5]) == 5)
    # the capped run idles first, with a warm-up burst that saturates the device briefly, then stays saturated
    assert 5 < int(np.argmax(sat)) < onset < len(util) - 5
    get = lambda m: s.filter((pl.col("device") == "loop1") & (pl.col("metric") == m)).row(0, named=True)  # noqa: E731
    assert get("sat_onset_s")["mean"] == onset
    assert get("util_pct_sat")["mean"] == pytest.approx(util[onset:].mean())
    assert get("util_pct_sat")["n"] == len(util) - onset
    assert get("util_pct_sat")["mean"] > get("util_pct")["mean"] + 20
    # a device that never reaches 90 % busy has no saturated phase, so no such rows
    light = summarize(_ingest(tmp_path, "x_t_y_json_1_3_vda.json"))
    assert not light.filter(pl.col("metric").str.ends_with("_sat") | (pl.col("metric") == "sat_onset_s")).height


def test_a_short_burst_is_not_the_onset():
    # handmade reports: a 4-s burst (shorter than SUSTAIN) is warm-up; the onset is the first 5 saturated in a row
    util = [0, 95, 100, 99, 92, 0, 0, 91, 100, 100, 100, 100, 60, 100]
    df = pl.DataFrame({"device": "loopX", "sample": list(range(len(util))), "util_pct": [float(u) for u in util],
                       "aqu_sz": [float(k) for k in range(len(util))]})
    s = summarize(df)
    get = lambda m: s.filter(pl.col("metric") == m).row(0, named=True)  # noqa: E731
    assert get("sat_onset_s")["mean"] == 7
    assert get("util_pct_sat")["mean"] == pytest.approx(np.mean(util[7:]))
    assert get("aqu_sz_sat")["mean"] == pytest.approx(np.mean(range(7, len(util))))
    burst_only = summarize(df.head(7))
    assert not burst_only.filter(pl.col("metric").str.ends_with("_sat") | (pl.col("metric") == "sat_onset_s")).height


def test_the_batched_summary_equals_summarize_run_by_run(tmp_path):
    """iostat_summary reads every run into one table and summarises them at once: bit for bit what summarize gives
    each run, across shapes (a since-boot report, an old sysstat's nulls, a saturated device, missing columns)."""
    raw = Path(__file__).parents[1] / "data" / "raw" / "host-ext4-cassandra-write-capped-none-untraced-r1"
    sources = [FIX / "x_t_json_1_2_sinceboot.json", FIX / "s917_x_1_2_vda_sinceboot.txt",
               FIX / "x_t_y_json_1_3_vda.json", raw / "iostat.json"]  # fmt: skip
    files = []
    for k, src in enumerate(sources):
        run_ingest("iostat", [src], tmp_path / f"r{k}")
        files.append(tmp_path / f"r{k}" / "iostat.parquet")
    util = [0, 95, 100, 99, 92, 0, 0, 91, 100, 100, 100, 100, 60, 100]
    hand = pl.DataFrame({"device": "loopX", "sample": list(range(len(util))), "util_pct": [float(u) for u in util],
                         "aqu_sz": [float(k) for k in range(len(util))]})
    # no aqu_sz: no saturated rows, though another run's aqu_sz fills the column with nulls in the batch
    for k, df in enumerate([hand, hand.drop("aqu_sz"), hand.drop("aqu_sz").with_columns(w_s=pl.col("util_pct"))]):
        (tmp_path / f"h{k}").mkdir()
        df.write_parquet(tmp_path / f"h{k}" / "iostat.parquet")
        files.append(tmp_path / f"h{k}" / "iostat.parquet")
    files.append(files[0])  # a file listed twice is two runs' rows, as before
    run_id_of = lambda f: f.parent.name  # noqa: E731
    runs = pl.DataFrame({"run_id": [f.parent.name for f in files[:-1]], "filesystem": "ext4", "workload": "w",
                         "job": "j", "repeat": range(len(files) - 1)})
    got = iostat_summary(files, runs, run_id_of)
    want = runs.join(pl.concat([summarize(pl.read_parquet(f)).with_columns(run_id=pl.lit(run_id_of(f)))
                                for f in files]), on="run_id").sort("repeat", "run_id", "device", "metric")
    assert got.height == want.height and got["metric"].is_in(["util_pct_sat", "sat_onset_s"]).any()
    assert got.equals(want.select(got.columns))
