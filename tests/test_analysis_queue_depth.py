"""Queue depth from D/C pairs on hand-made timelines with known answers, and on a real run against iostat."""

from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis.timing import queue_depth as qd
from blkscope.schemas import EVENTS, conform

ROOT = Path(__file__).resolve().parents[1]


def _ev(rows):
    df = pl.DataFrame([dict(zip(["time_ns", "action", "sector", "nsectors"], r, strict=True)) for r in rows])
    return conform(df.with_columns(dev_major=pl.lit(7), dev_minor=pl.lit(0), rwbs=pl.lit("W")), EVENTS).lazy()


def test_known_timeline():
    # [0, 10): depth 0 until 2, then 1 (A) , 2 (A+B) on [4, 6), 1 on [6, 8), 0 after; a C at 1 without a D.
    ev = _ev([(0, "Q", 0, 8), (1, "C", 99, 8), (2, "D", 0, 8), (4, "D", 8, 8), (6, "C", 0, 8), (8, "C", 8, 8),
              (10, "Q", 64, 8)])  # fmt: skip
    pairs, t0, t1 = qd.dc_pairs(ev)
    assert pairs.height == 2 and (t0, t1) == (0, 10)
    s = qd.summary(pairs, t0, t1)
    assert s["mean_depth"] == pytest.approx((4 * 1 + 2 * 2) / 10)  # 8 request-ns over 10 ns
    assert s["little_depth"] == pytest.approx(s["mean_depth"])  # L = lambda W when every pair is inside
    assert s["max_depth"] == 2
    dist = dict(qd.distribution(pairs, t0, t1).select("depth", "time_share").iter_rows())
    assert dist == pytest.approx({0: 0.4, 1: 0.4, 2: 0.2})


def test_d_without_c_stays_in_flight_to_the_end_and_series_covers_the_trace():
    ev = _ev([(0, "D", 0, 8), (3_000_000_000, "Q", 8, 8)])
    pairs, t0, t1 = qd.dc_pairs(ev)
    s = qd.summary(pairs, t0, t1, bin_s=1.0)
    assert s["mean_depth"] == pytest.approx(1.0) and s["completed"] == 0
    ser = qd.series(pairs, t0, t1, 1.0)
    assert ser["width_s"].sum() == pytest.approx(3.0) and ser["mean_depth"].to_list() == pytest.approx([1, 1, 1])


def test_batch_ci_centres_on_the_time_weighted_mean():
    ser = pl.DataFrame({"mean_depth": [1.0, 2.0, 3.0, 10.0], "width_s": [1.0, 1.0, 1.0, 0.1]})
    m, lo, hi = qd.batch_ci(ser)
    assert m == pytest.approx((1 + 2 + 3 + 1.0) / 3.1) and lo < m < hi


def test_real_run_agrees_with_iostat_aqu_sz(tmp_path):
    raw = ROOT / "data" / "raw" / "host-ext4-fio-randrw-r1"
    if not (raw / "trace.txt.zst").exists():
        pytest.skip("embedded run not in this checkout")
    from blkscope.ingest import run_ingest

    run_ingest("ftrace", [raw / "trace.txt.zst"], tmp_path / "t")
    run_ingest("iostat", [raw / "iostat.json"], tmp_path / "i")
    pairs, t0, t1 = qd.dc_pairs([tmp_path / "t" / "events.parquet"])
    s = qd.summary(pairs, t0, t1, pl.read_parquet(tmp_path / "i" / "iostat.parquet"))
    assert s["completed"] == 4009 and s["iostat_samples"] == 21
    # iostat counts from the request's start (about G), the trace from D: same order, intervals overlap
    assert s["mean_depth_lo"] < s["iostat_aqu_sz_hi"] and s["iostat_aqu_sz_lo"] < s["mean_depth_hi"]
    assert s["little_depth"] == pytest.approx(s["mean_depth"], rel=1e-6)
