"""Cross-filesystem comparison and tracing overhead on tables with known answers."""

import numpy as np
import polars as pl
import pytest

from blkscope.analysis.load import overhead
from blkscope.analysis.summaries import compare


def _runs(traced_flags, fss, repeats):
    return pl.DataFrame({
        "run_id": [f"r{i}" for i in range(len(fss))], "workload": "fio", "job": "randrw", "testbed": "loop",
        "filesystem": fss, "traced": traced_flags, "repeat": repeats,
    })  # fmt: skip


def test_pairwise_detects_a_clear_difference_and_states_its_limits():
    fss = ["ext4"] * 6 + ["xfs"] * 6
    runs = _runs([True] * 12, fss, list(range(6)) * 2)
    rng = np.random.default_rng(0)
    vals = np.r_[rng.normal(100, 2, 6), rng.normal(120, 2, 6)]
    m = pl.DataFrame({"run_id": runs["run_id"], "metric": "fio_write_iops", "value": vals})
    per = compare.per_filesystem(m, runs)
    ext4 = per.filter(pl.col("filesystem") == "ext4").row(0, named=True)
    assert ext4["n"] == 6 and ext4["lo"] < 100 < ext4["hi"]
    pw = compare.pairwise(m, runs).row(0, named=True)
    assert (pw["fs_a"], pw["fs_b"]) == ("ext4", "xfs") and pw["diff"] < 0
    assert pw["welch_p"] < 1e-6 and pw["perm_p"] < 0.01 and pw["perm_p_min"] == pytest.approx(2 / 924)


def test_two_repeats_cannot_reach_significance_with_the_permutation_test():
    runs = _runs([True] * 4, ["ext4", "ext4", "xfs", "xfs"], [1, 2, 1, 2])
    m = pl.DataFrame({"run_id": runs["run_id"], "metric": "x", "value": [1.0, 1.1, 5.0, 5.1]})
    pw = compare.pairwise(m, runs).row(0, named=True)
    assert pw["perm_p_min"] == pytest.approx(1 / 3) and pw["perm_p"] >= 1 / 3


def test_fio_metrics_from_jobs():
    jobs = pl.DataFrame({"direction": ["read", "write"], "iops": [100.0, 50.0], "lat_mean_ns": [2e5, 3e5],
                         "clat_p99_ns": [1e6, 2e6]})  # fmt: skip
    m = dict(compare.fio_metrics("r", jobs).select("metric", "value").iter_rows())
    assert m == {"fio_read_iops": 100, "fio_read_lat_mean_us": 200, "fio_read_clat_p99_us": 1000,
                 "fio_write_iops": 50, "fio_write_lat_mean_us": 300, "fio_write_clat_p99_us": 2000}  # fmt: skip


def test_tracing_overhead_with_bootstrap_ci():
    runs = _runs([True] * 5 + [False] * 5, ["ext4"] * 10, list(range(5)) * 2)
    rng = np.random.default_rng(1)
    ops = dict(zip(runs["run_id"], np.r_[rng.normal(70, 1, 5), rng.normal(100, 1, 5)], strict=True))
    r = overhead.tracing_overhead(runs, ops, n_boot=2000).row(0, named=True)
    assert (r["n_traced"], r["n_untraced"]) == (5, 5)
    assert r["overhead_lo"] < 0.3 < r["overhead_hi"] and r["overhead_hi"] - r["overhead_lo"] < 0.1
    assert r["welch_p"] < 1e-4


def test_mount_options_are_a_configuration_of_their_own():
    runs = _runs([True, False] * 4, ["ext4"] * 8, [1, 1, 2, 2, 1, 1, 2, 2]).with_columns(
        mount_options=pl.Series(["noatime"] * 4 + ["noatime,data=writeback"] * 4)
    )
    ops = dict(zip(runs["run_id"], [90.0, 100.0, 91.0, 100.0, 50.0, 100.0, 52.0, 100.0], strict=True))
    r = overhead.tracing_overhead(runs, ops, n_boot=200).sort("mount_options")
    assert r["mount_options"].to_list() == ["noatime", "noatime,data=writeback"]
    assert r["overhead"].round(3).to_list() == [0.095, 0.49]


def test_no_untraced_runs_gives_an_empty_table():
    runs = _runs([True] * 2, ["ext4"] * 2, [1, 2])
    assert overhead.tracing_overhead(runs, {"r0": 1.0, "r1": 2.0}).height == 0


def test_trace_cost_counts_uncompressed_bytes(tmp_path):
    import zstandard

    text = b"x" * 10000
    (tmp_path / "trace.txt.zst").write_bytes(zstandard.ZstdCompressor().compress(text))
    pl.DataFrame({"time_ns": [0, 2_000_000_000]}).write_parquet(tmp_path / "events.parquet")
    c = overhead.trace_cost(tmp_path / "trace.txt.zst", tmp_path / "events.parquet")
    assert c["raw_bytes"] == 10000 and c["raw_bytes_per_s"] == 5000 and c["raw_bytes_per_event"] == 5000


def test_skew_reads_the_requested_constant(tmp_path):
    from blkscope.analysis.popularity.skew import skew_table

    (tmp_path / "y1").mkdir()
    (tmp_path / "y1" / "run.yaml").write_text(
        "workload:\n  tool: ycsb\n  options:\n    recordcount: 1000\n    requestdistribution: zipfian\n"
        "    zipfian_constant: 0.8\n"
    )
    fits = pl.DataFrame({"run_id": ["y1", "f1"], "op": ["all", "all"], "s": [0.4, 0.2], "s_lo": [0.3, 0.1],
                         "s_hi": [0.5, 0.3]})  # fmt: skip
    runs = pl.DataFrame({"run_id": ["y1", "f1"], "workload": ["ycsb", "fio"], "filesystem": ["ext4", "xfs"]})
    t = {r["run_id"]: r for r in skew_table(fits, runs, tmp_path).iter_rows(named=True)}
    assert t["y1"]["s_requested"] == 0.8 and t["y1"]["s_ratio"] == pytest.approx(0.5) and t["y1"]["recordcount"] == 1000
    assert t["f1"]["s_requested"] is None and t["f1"]["filesystem"] == "xfs"
