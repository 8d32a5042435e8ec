"""Latency stages: hand-made sequences with known answers, and parity with the real btt on real traces."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from blkscope.analysis.timing.latency import per_bio, stage_summary
from blkscope.schemas import EVENTS, conform

ROOT = Path(__file__).resolve().parents[1]
BLKSCOPE = [sys.executable, "-m", "blkscope"]


def _ev(rows):
    cols = ["time_ns", "action", "sector", "nsectors", "rwbs"]
    df = pl.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])
    return conform(df.with_columns(dev_major=pl.lit(7), dev_minor=pl.lit(0)), EVENTS).lazy()


def test_one_request_through_every_stage():
    b = per_bio(_ev([(100, "Q", 8, 8, "W"), (130, "G", 8, 8, "W"), (150, "I", 8, 8, "W"), (400, "D", 8, 8, "W"),
                     (1400, "C", 8, 8, "W")]))  # fmt: skip
    r = b.row(0, named=True)
    assert (r["q2g"], r["g2i"], r["i2d"], r["q2d"], r["d2c"], r["q2c"]) == (30, 20, 250, 300, 1000, 1300)
    assert r["q2m"] is None and r["m2d"] is None


def test_back_merge_counts_both_bios_like_btt():
    b = per_bio(_ev([(0, "Q", 0, 8, "W"), (10, "G", 0, 8, "W"), (20, "Q", 8, 8, "W"), (25, "M", 8, 8, "W"),
                     (50, "D", 0, 16, "W"), (150, "C", 0, 16, "W")]))  # fmt: skip
    assert b["d2c"].to_list() == [100, 100]  # one request, D2C once per bio
    assert b["q2c"].to_list() == [150, 130]
    assert b["q2m"].to_list() == [None, 5] and b["m2d"].to_list() == [None, 25]


def test_untracked_events_are_ignored():
    b = per_bio(_ev([(0, "C", 0, 8, "W"),  # before the device's first Q
                     (5, "Q", 0, 0, "FWS"),  # no data: a flush
                     (10, "Q", 64, 8, "R"), (11, "Q", 64, 8, "R"),  # same start sector: the second is not tracked
                     (20, "D", 64, 8, "R"), (90, "C", 64, 8, "R")]))  # fmt: skip
    assert b.height == 1 and b["q2c"].to_list() == [80]


def test_summary_has_uncertainty_and_n():
    rows = [(t * 1000, "Q", t * 8, 8, "R") for t in range(200)]
    rows += [(t * 1000 + 10, "D", t * 8, 8, "R") for t in range(200)]
    rows += [(t * 1000 + 500 + t, "C", t * 8, 8, "R") for t in range(200)]  # D2C = 490 .. 689 ns
    s = stage_summary(per_bio(_ev(rows))).filter(pl.col("stage") == "d2c").row(0, named=True)
    assert s["n"] == 200 and s["mean_us"] == pytest.approx(0.5895)
    assert s["mean_lo_us"] < s["mean_us"] < s["mean_hi_us"]
    assert (s["min_us"], s["max_us"], s["p50_us"]) == pytest.approx((0.49, 0.689, 0.589))
    assert s["p50_lo_us"] < 0.589 < s["p50_hi_us"]
    assert s["p99_99_us"] == pytest.approx(0.689) and s["p99_99_hi_us"] != s["p99_99_hi_us"]  # nan: n too small


def _btt_means(events: Path, tmp: Path) -> dict[str, tuple[float, int]]:
    subprocess.run([*BLKSCOPE, "export-blktrace", str(events), "-o", str(tmp / "t")], check=True, capture_output=True)
    subprocess.run(["blkparse", "-i", "t", "-d", "t.bin", "-O"], check=True, capture_output=True, cwd=tmp)
    out = subprocess.run(["btt", "-i", "t.bin"], check=True, capture_output=True, text=True, cwd=tmp).stdout
    sec = out.split("All Devices")[1].split("Device Overhead")[0]
    got = {}
    for m in re.finditer(r"^(Q2G|G2I|Q2M|I2D|M2D|D2C|Q2C)\s+\S+\s+(\S+)\s+\S+\s+(\d+)", sec, re.M):
        got[m.group(1).lower()] = (float(m.group(2)) * 1e9, int(m.group(3)))
    return got


@pytest.mark.requires("btt", "blkparse")
@pytest.mark.parametrize("run", ["host-ext4-fio-randrw-r1", "host-xfs-fio-append-r1", "host-btrfs-fio-randrw-r1"])
def test_stage_means_agree_with_real_btt(tmp_path, run):
    raw = ROOT / "data" / "raw" / run / "trace.txt.zst"
    if not raw.exists():
        pytest.skip(f"{raw} not in this checkout")
    subprocess.run([*BLKSCOPE, "ingest", "--kind", "ftrace", str(raw), "-o", str(tmp_path / "p")], check=True)
    events = tmp_path / "p" / "events.parquet"
    ref = _btt_means(events, tmp_path)
    bios = per_bio([events])
    assert {"q2g", "d2c", "q2c"} <= set(ref)
    for stage, (mean_ns, n) in ref.items():
        x = bios[stage].drop_nulls()
        assert x.len() == n, stage
        assert x.mean() == pytest.approx(mean_ns, rel=0.01), stage


def test_log_histogram_sums_do_not_depend_on_the_blas_threads():
    """The sum of squares (a cv's and a t interval's variance) is numpy's pairwise sum, the same with one BLAS thread
    or two: BLAS's dot, used before, split the sum by its threads, and a job's threads are Snakemake's to set."""
    code = ("import numpy as np; from blkscope.analysis.stats.log_histogram import LogHistogram; h = LogHistogram();"
            " x = np.random.default_rng(4).lognormal(11, 2.5, 100_000).astype(np.int64); h.add(x);"
            " print(repr(h.sumsq), repr(float(np.square(x.astype(float)).sum())))")  # fmt: skip
    def run(threads: str) -> list[str]:
        env = os.environ | {"OPENBLAS_NUM_THREADS": threads}
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              check=True).stdout.split()  # fmt: skip

    out = {t: run(t) for t in ("1", "2")}
    assert out["1"] == out["2"] and out["1"][0] == out["1"][1]


def test_log_histogram_in_slices_equals_one_pass_and_bounds_the_error():
    import numpy as np

    from blkscope.analysis.stats.log_histogram import HALF_WIDTH, LogHistogram
    from blkscope.analysis.stats.uncertainty import quantile_ci

    rng = np.random.default_rng(1)
    x = np.concatenate([rng.lognormal(11, 1.5, 200_000).astype(np.int64), [0, 0, -3]])  # a G at its Q's time
    whole, sliced = LogHistogram(), LogHistogram()
    whole.add(x)
    for a in range(0, x.size, 7_000):
        sliced.add(x[a:a + 7_000])
    assert (whole.n, whole.min, whole.max, whole.small) == (sliced.n, sliced.min, sliced.max, sliced.small)
    assert whole.small == {0: 2, -3: 1}
    assert (whole.pos == sliced.pos).all()
    assert whole.mean_ci(0.95)[0] == pytest.approx(x.mean(), rel=1e-12)
    xs = np.sort(x).astype(np.float64)
    for q in (0.5, 0.99, 0.9999):
        for got, exact in zip(whole.quantile_ci(q, 0.95), quantile_ci(xs, q), strict=True):
            assert abs(got - exact) <= HALF_WIDTH * abs(exact) + 1e-9, q
    assert whole.at_ranks([0, x.size - 1, x.size])[:2] == [-3.0, float(x.max())]


def test_streamed_stages_match_the_exact_ones_on_a_real_trace(tmp_path):
    """A trace above the exact limit (forced here: limit 0) gives the same n, means, min and max and quantiles
    within the histogram's half-width, and says which way its quantiles were made."""
    from blkscope.analysis.stats.log_histogram import HALF_WIDTH
    from blkscope.analysis.timing.latency import stages

    raw = ROOT / "data" / "raw" / "host-ext4-fio-randrw-r1" / "trace.txt.zst"
    if not raw.exists():
        pytest.skip(f"{raw} not in this checkout")
    subprocess.run([*BLKSCOPE, "ingest", "--kind", "ftrace", str(raw), "-o", str(tmp_path / "p")], check=True)
    ev = [tmp_path / "p" / "events.parquet"]
    exact, streamed = stages(ev, by_rw=True), stages(ev, by_rw=True, exact_max=0)
    assert set(exact["quantiles"]) == {"exact"} and streamed["quantiles"].str.starts_with("log histogram").all()
    assert exact.select("rw", "stage", "n").equals(streamed.select("rw", "stage", "n"))
    for a, b in zip(exact.iter_rows(named=True), streamed.iter_rows(named=True), strict=True):
        if not a["n"]:
            continue
        assert b["mean_us"] == pytest.approx(a["mean_us"], rel=1e-9)
        assert (b["min_us"], b["max_us"]) == pytest.approx((a["min_us"], a["max_us"]))
        for q in ("p50", "p99", "p99_9"):
            assert abs(b[f"{q}_us"] - a[f"{q}_us"]) <= HALF_WIDTH * abs(a[f"{q}_us"]) + 1e-9, (a["stage"], q)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1001, 20_000, 10**9])
def test_quantile_ranks_are_each_quantiles_own_binomial_bounds(n):
    """The vectorised ranks (one binom.ppf call for every quantile's two ends) are what each quantile's own scalar
    binom.ppf calls give: the ceil(q n)-th smallest and its 95 % order-statistic interval."""
    from scipy import stats

    from blkscope.analysis.stats.uncertainty import quantile_ranks

    qs = [0.5, 0.9, 0.99, 0.999, 0.9999, 0.01]
    k, lo, hi = quantile_ranks(n, qs, 0.95)
    for i, q in enumerate(qs):
        assert k[i] == max(int(np.ceil(q * n)) - 1, 0)
        assert lo[i] == int(stats.binom.ppf(0.025, n, q)) - 1
        assert hi[i] == int(stats.binom.ppf(0.975, n, q))


def test_t_quantile_is_scipy_stats_t_ppf():
    from scipy import stats

    from blkscope.analysis.stats.uncertainty import t_quantile

    dof = np.r_[1:3000, 10**4, 10**6]
    for p in (0.975, 0.995, 0.9, 0.025):
        assert np.array_equal(t_quantile(p, dof), stats.t.ppf(p, dof))
