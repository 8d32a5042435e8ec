"""Cassandra per configuration, the tracer's cost by load, overhead pooling and the section macros, on constructed
tables (the Cassandra and saturating runs land separately; their columns are read from the runs sheet)."""

import math

import numpy as np
import polars as pl
import pytest
import yaml
from scipy import stats

from blkscope.analysis.load.overhead import pooled_overhead, tracing_overhead
from blkscope.analysis.load.tracer_load import by_load, per_run
from blkscope.analysis.summaries import cassandra
from blkscope.analysis.summaries.run_groups import cassandra_mode, with_groups
from blkscope.paper import load_numbers as ln


def _cass_runs():
    rows = [(f"{fs}-{cl}-{t}-{i}", "cassandra", "write", fs, "loop", t == "tr", i, cl)
            for fs in ("ext4", "xfs") for cl in ("none", "LZ4") for t in ("tr", "un") for i in (1, 2, 3)]
    return pl.DataFrame(rows, schema=["run_id", "workload", "job", "filesystem", "testbed", "traced", "repeat",
                                      "commitlog_compression"], orient="row")  # fmt: skip


def _metrics(runs):
    base = {("ext4", "none"): 4000.0, ("xfs", "none"): 1000.0, ("ext4", "LZ4"): 2000.0, ("xfs", "LZ4"): 2000.0}
    rows = []
    for r in runs.iter_rows(named=True):
        ops = base[(r["filesystem"], r["commitlog_compression"])] * (0.7 if r["traced"] else 1.0) + r["repeat"]
        rows += [(r["run_id"], "ops_s", ops), (r["run_id"], "lat_p99_us", 5000.0 + r["repeat"])]
    return pl.DataFrame(rows, schema=["run_id", "metric", "value"], orient="row")


def _iostat(runs):
    rows = [(r["run_id"], "aqu_sz", (1.4 if r["filesystem"] == "ext4" else 0.45) + 0.01 * r["repeat"])
            for r in runs.iter_rows(named=True)]
    return pl.DataFrame(rows, schema=["run_id", "metric", "mean"], orient="row")


def test_cassandra_tables_do_not_depend_on_row_order():
    """The same repeats in any row order give the same bits: values whose float sum depends on the order of
    addition (0.1 + 0.2 + 0.3), rows shuffled; the tables are compared exactly."""
    runs = _cass_runs()
    noisy = {1: 0.1, 2: 0.2, 3: 0.3}
    io = _iostat(runs).with_columns(mean=pl.col("run_id").str.extract(r"-(\d)$").cast(pl.Int64).replace_strict(noisy))
    m = _metrics(runs)
    ref_s, ref_v = cassandra.summary(m, io, runs), cassandra.versus(m, io, runs)
    for seed in range(8):
        shuffled = (m.sample(fraction=1.0, shuffle=True, seed=seed), io.sample(fraction=1.0, shuffle=True, seed=seed),
                    runs.sample(fraction=1.0, shuffle=True, seed=seed))  # fmt: skip
        assert cassandra.summary(*shuffled).equals(ref_s)
        assert cassandra.versus(*shuffled).equals(ref_v)


def test_run_groups_from_columns_or_job_names():
    r = pl.DataFrame({"run_id": ["a", "b", "c", "d", "e", "f"],
                      "workload": ["fio", "fio", "cassandra", "cassandra", "sysbench", "fio"],
                      "job": ["randrw", "randrw-sat", "write-lz4", "write", "rndrw-max", "ceiling"]})  # fmt: skip
    modes = pl.DataFrame({"job": ["write", "mixed", "write-threads"]}).select(cassandra_mode())
    assert modes.to_series().to_list() == ["write", "mixed", "threads"]
    g = with_groups(r)
    assert g["load"].to_list() == ["light", "saturating", "saturating", "saturating", "saturating", "ceiling"]
    assert g["commitlog"].to_list() == [None, None, "lz4", "none", None, None]
    batch = with_groups(r.with_columns(batch=pl.Series(["", None, "saturate-1", None, None, None])))
    assert batch["load"].to_list()[:2] == ["light", "saturating"]
    g2 = with_groups(r.with_columns(load=pl.Series(["light", "saturating", "sat", None, "light", "light"])))
    assert g2["load"].to_list() == ["light", "saturating", "saturating", "light", "light", "light"]
    # a device cap makes its own level, whatever the job or batch says
    capped = with_groups(r.with_columns(device_cap=pl.Series(["", None, "wbps=4M", None, "riops=5", None])))
    assert capped["load"].to_list() == ["light", "saturating", "capped", "saturating", "capped", "ceiling"]


def test_run_groups_read_the_jobs_rate_setting(tmp_path):
    """The load is the job's own rate setting, not its name: the memory-capped YCSB-on-Cassandra job runs
    unthrottled (YCSB's target_ops_s 0) and is saturating though its name says neither `sat` nor `max`; jobs that
    fix a rate are light; only a job defined nowhere falls back to its name."""
    from blkscope.capture.fio import job_rate
    from blkscope.capture.workloads import rate

    r = pl.DataFrame({"run_id": list("abcdefgh"),
                      "workload": ["cassandra-ycsb", "cassandra-ycsb", "ycsb", "ycsb", "sysbench", "journal",
                                   "ycsb", "ycsb"],
                      "job": ["workloada-zipfian-capped", "workloada-zipfian-small",
                              "workloada-zipfian-buffered-sweep-4m", "workloada-zipfian", "rndrw", "none",
                              "unknown-sat", "unknown"]})  # fmt: skip
    assert with_groups(r)["load"].to_list() == ["saturating", "light", "saturating", "light", "light", "light",
                                                "saturating", "light"]  # fmt: skip
    assert rate("cassandra-ycsb", "workloada-zipfian-capped") == 0 and rate("sysbench", "rndrw") == 300
    assert rate("ycsb", "unknown") is None and rate("fio", "randrw-sat") == 0 and rate("fio", "append") == 100
    job = tmp_path / "j.fio"
    job.write_text("; rate=5 in a comment\n[global]\nrate_iops=100,200\n[x]\nrw=write\n")
    assert job_rate(job) == 200 and job_rate(tmp_path / "none.fio") is None


def test_cassandra_summary_and_ratio_to_xfs():
    runs = _cass_runs()
    s = cassandra.summary(_metrics(runs), _iostat(runs), runs)
    ops = s.filter((pl.col("metric") == "ops_s") & ~pl.col("traced") & (pl.col("commitlog") == "none")
                   & (pl.col("filesystem") == "ext4")).row(0, named=True)
    x = np.array([4001.0, 4002.0, 4003.0])
    assert ops["n"] == 3 and ops["mean"] == pytest.approx(x.mean())
    assert ops["hi"] - ops["mean"] == pytest.approx(stats.t.ppf(0.975, 2) * x.std(ddof=1) / math.sqrt(3))
    v = cassandra.versus(_metrics(runs), _iostat(runs), runs)
    r = v.filter((pl.col("metric") == "ops_s") & ~pl.col("traced") & (pl.col("commitlog") == "none")).row(0, named=True)
    assert r["filesystem"] == "ext4" and r["ratio"] == pytest.approx(4.0, rel=0.01) and r["lo"] < 4 < r["hi"]
    lz4 = (pl.col("metric") == "aqu_sz") & (pl.col("commitlog") == "lz4") & pl.col("traced")
    aqu = v.filter(lz4).row(0, named=True)
    assert aqu["ratio"] == pytest.approx(1.42 / 0.47, rel=0.02)


def test_overhead_keeps_commitlog_modes_and_loads_apart_and_pools_with_a_seeded_bootstrap():
    runs = _cass_runs().with_columns(mount_options=pl.lit("noatime"))
    ops = dict(_metrics(runs).filter(pl.col("metric") == "ops_s").select("run_id", "value").iter_rows())
    ov = tracing_overhead(runs, ops, n_boot=500)
    assert ov.height == 4 and set(ov["commitlog"]) == {"none", "lz4"}
    assert ov["overhead"].to_list() == pytest.approx([0.3] * 4, abs=0.002)
    arms = [(np.array([70.0, 71, 69]), np.array([100.0, 101, 99])), (np.array([50.0, 52]), np.array([100.0, 98]))]
    a, b = pooled_overhead(arms, seed=1), pooled_overhead(arms, seed=1)
    assert a == b and a[1] <= a[0] <= a[2] and a[0] == pytest.approx(np.mean([1 - 70 / 100, 1 - 51 / 99]))


def test_tracer_cost_from_run_yaml_and_by_load(tmp_path):
    runs = pl.DataFrame({"run_id": ["l1", "l2", "s1", "s2"], "workload": ["fio"] * 4,
                         "job": ["randrw", "randrw", "randrw-sat", "randrw-sat"], "filesystem": ["ext4"] * 4,
                         "testbed": ["loop"] * 4})  # fmt: skip
    counts = {"l1": (1000, 0), "l2": (1200, 0), "s1": (50000, 10), "s2": (60000, 30)}
    # the load average as captures wrote it: record.load_average's before/after, and the older loadavg_start text
    loads = {"l1": {"loadavg_start": "0.50 0.40 0.30 1/200 99"}, "l2": {"loadavg_start": "0.70 0.40 0.30 1/200 99"},
             "s1": {"loadavg": {"before": {"1min": 1.5, "5min": 1.0, "utc": "x"}, "after": {"1min": 9.0}}},
             "s2": {"loadavg": {"before": {"1min": 2.5, "5min": 1.0, "utc": "x"}, "after": {"1min": 9.0}}}}
    for rid, (ev, over) in counts.items():
        (tmp_path / rid).mkdir()
        meta = {"workload_start_utc": "2026-11-22T07:53:09Z", "workload_end_utc": "2026-11-22T07:53:19Z",
                "tracer": {"name": "tracefs-blk", "read_events_total": ev, "bytes_read": ev * 60,
                           "overruns_total": over, "dropped_total": 1}} | loads[rid]  # fmt: skip
        (tmp_path / rid / "run.yaml").write_text(yaml.safe_dump(meta))
    cost = per_run(list(counts), tmp_path, runs)
    s1 = cost.filter(pl.col("run_id") == "s1").row(0, named=True)
    assert s1["events_per_s"] == 5000 and s1["bytes_per_event"] == 60 and s1["lost_events"] == 11
    assert s1["load"] == "saturating"
    b = by_load(cost)
    sat = b.filter(pl.col("load") == "saturating").row(0, named=True)
    assert sat["runs"] == 2 and sat["events_per_s"] == 5500 and sat["lost_events"] == 42
    m = ln.tracer(b)
    assert m["TracerFioSaturatingEventsPerSec"] == "5{,}500" and m["TracerSaturatingLost"] == "42"
    assert cost.sort("run_id")["loadavg_1m"].to_list() == [0.5, 0.7, 1.5, 2.5]
    load = ln.machine_load(cost)
    assert load["MachineLoadSaturatingMedian"] == "2.0" and load["MachineLoadLightMax"] == "0.7"


def test_load_numbers_render_every_claim_and_the_guard():
    c = pl.DataFrame({"claim_id": ["S2-lz4", "S1-zipf"], "claimed": ["the same (ratio within +-10 %, TOST)", "s"],
                      "ours": ["1.01x [0.98x, 1.04x]", "0.10 [0.08, 0.12]"], "n": ["4 vs 4", "3"],
                      "verdict": ["replicates", "does not"]})  # fmt: skip
    m = ln.claims(c)
    assert m["ClaimSTwoLzFourVerdict"] == "replicates" and m["ClaimSOneZipfVerdict"] == "does not"
    assert not any(k.startswith("Claims") for k in m)  # the counts are runs.tex's (study_numbers.claims)
    assert m["ClaimSTwoLzFourClaimed"] == r"the same (ratio within \ensuremath{\pm}10 \%, TOST)"  # a true plus-minus
    assert "ClaimSTwoLzFourAll" not in m  # no estimate over all runs in this table
    # the estimate over all runs beside the confirmatory one: the text says which a figure reads
    m = ln.claims(c.with_columns(ours_all=pl.Series(["0.95x [0.83x, 1.10x]", None])))
    assert m["ClaimSTwoLzFourAll"] == "0.95x [0.83x, 1.10x]" and "ClaimSOneZipfAll" not in m
    # a verdict Holm's correction moved says the row's own beside it; one it kept, alone
    m = ln.claims(c.with_columns(verdict=pl.Series(["inconclusive", "does not"]),
                                 verdict_unadjusted=pl.Series(["replicates", "does not"])))
    assert m["ClaimSTwoLzFourVerdict"] == "inconclusive; replicates before Holm"
    assert m["ClaimSOneZipfVerdict"] == "does not"
    tex = ln.render(m)
    assert tex.splitlines()[1] == r"\newcommand{\BlkLoadNumbers}{}"
    runs = _cass_runs()
    m2 = ln.cassandra(cassandra.summary(_metrics(runs), _iostat(runs), runs),
                      cassandra.versus(_metrics(runs), _iostat(runs), runs))
    assert m2["CassWriteNoneExtFourOps"] == "4{,}002" and m2["CassRuns"] == "24"  # saturating, unnamed
    assert m2["CassRatioWriteNoneExtFourOpsS"] == "3.99"  # 4002 / 1002
    # the same grid again under a device cap, at a tenth of the throughput: its own macros, the others unchanged
    capped = runs.with_columns(run_id=pl.col("run_id") + "-capped", device_cap=pl.lit("wbps=4M"))
    both = pl.concat([runs.with_columns(device_cap=pl.lit(None, pl.Utf8)), capped])
    met = pl.concat([_metrics(runs), _metrics(capped).with_columns(pl.col("value") / 10)])
    m3 = ln.cassandra(cassandra.summary(met, _iostat(both), both), cassandra.versus(met, _iostat(both), both))
    assert m3["CassWriteNoneExtFourOps"] == "4{,}002" and m3["CassCappedFourMWriteNoneExtFourOps"] == "400"
    assert m3["CassCappedFourMRatioWriteNoneExtFourOpsS"] == "3.99" and m3["CassRuns"] == "48"
    # a second cap, at half the first's throughput: its own macros, not pooled with the first's
    tight = runs.with_columns(run_id=pl.col("run_id") + "-tight", device_cap=pl.lit("riops=500 wbps=2M"))
    three = pl.concat([both, tight])
    met3 = pl.concat([met, _metrics(tight).with_columns(pl.col("value") / 20)])
    m4 = ln.cassandra(cassandra.summary(met3, _iostat(three), three), cassandra.versus(met3, _iostat(three), three))
    assert m4["CassCappedFourMWriteNoneExtFourOps"] == "400" and m4["CassCappedTwoMWriteNoneExtFourOps"] == "200"
    assert m4["CassCappedTwoMRepeatsMin"] == m4["CassCappedFourMRepeatsMin"] and m4["CassRuns"] == "72"


def test_ceiling_and_load_levels_of_iostat():
    metrics = pl.DataFrame({"run_id": ["c1", "c2"], "load": ["ceiling"] * 2, "metric": ["ops_s"] * 2,
                            "value": [30000.0, 32000.0]})  # fmt: skip
    io = pl.DataFrame({"run_id": ["a", "b", "c"], "workload": ["fio"] * 3, "testbed": ["loop"] * 3,
                       "load": ["light", "saturating", "saturating"], "metric": ["util_pct"] * 3,
                       "mean": [3.0, 95.0, 97.0]})  # fmt: skip
    m = ln.ceiling(metrics, io)
    assert m["CeilingOps"] == "31{,}000" and m["LoadFioSaturatingUtilPct"] == "96"
    assert m["LoadFioLightUtilPct"] == "3"


def test_scrambled_zipfian_head_matches_a_direct_sum():
    from blkscope.analysis.popularity.skew import _zeta_partial, scrambled_head

    r = np.arange(1, 2_000_001, dtype=float)
    assert _zeta_partial(0.99, 2_000_000, exact=1000) == pytest.approx(np.sum(r**-0.99), rel=1e-6)
    head, share = scrambled_head(0.99, 200_000)
    z = _zeta_partial(0.99, 1e10)
    assert head**-0.99 / z > 1 / 200_000 > (head + 2) ** -0.99 / z
    assert 0 < share < 1 and share == pytest.approx(_zeta_partial(0.99, head) / z)


def test_cassandra_zipf_macros_count_fits_and_plausible_ones():
    sk = pl.DataFrame({"run_id": ["a", "b", "c", "y"], "workload": ["cassandra"] * 3 + ["ycsb"],
                       "op": ["all"] * 4, "s": [0.3, None, 0.5, 0.1], "p_gof": [0.5, None, 0.01, 0.9]})  # fmt: skip
    m = ln.cassandra_zipf(sk)
    assert (m["CassZipfRuns"], m["CassZipfRunsFitted"], m["CassZipfPlausible"]) == ("3", "2", "1")
    assert m["CassZipfSMax"] == "0.50"


def test_ceiling_reads_the_load_from_the_metrics_when_iostat_names_none():
    metrics = pl.DataFrame({"run_id": ["a", "b"], "load": ["light", "saturating"], "metric": ["ops_s"] * 2,
                            "value": [1.0, 2.0]})  # fmt: skip
    io = pl.DataFrame({"run_id": ["a", "b"], "workload": ["fio"] * 2, "testbed": ["loop"] * 2,
                       "metric": ["aqu_sz"] * 2, "mean": [0.05, 4.4]})  # fmt: skip
    m = ln.ceiling(metrics, io)
    assert m["LoadFioSaturatingAquSz"] == "4.40" and m["LoadFioLightAquSz"] == "0.050" and "CeilingOps" not in m


def test_steadiness_from_the_last_rounds_total_intervals():
    iv = pl.DataFrame({"round": [0, 0, 1, 1, 1, 1], "type": ["total", "total", "total", "insert", "total", "total"],
                       "op_s": [1.0, 1000.0, 100.0, 5.0, 200.0, 300.0]})  # fmt: skip
    s = dict(cassandra.steadiness("r", iv).select("metric", "value").iter_rows())
    x = np.array([100.0, 200.0, 300.0])
    assert s["ops_s_cv"] == pytest.approx(x.std(ddof=1) / x.mean()) and s["ops_s_min_rel"] == pytest.approx(0.5)
    runs = _cass_runs()
    steady = pl.concat([cassandra.steadiness(r, iv) for r in runs["run_id"]])
    summ = cassandra.summary(_metrics(runs), _iostat(runs), runs, steady)
    assert summ.filter(pl.col("metric") == "ops_s_cv")["n"].to_list() == [3] * 8


def test_load_macros_never_redefine_a_runs_tex_macro():
    """load.tex and runs.tex are both input by the paper: a name in both is a LaTeX error (\\newcommand twice)."""
    import re
    from pathlib import Path

    src = Path(ln.__file__).parent
    theirs = set()
    for f in ("study_numbers.py", "numbers.py", "literature.py"):
        p = src / f
        if p.exists():
            theirs |= set(re.findall(r'"([A-Z][A-Za-z]+)"', p.read_text()))
    runs = _cass_runs()
    sk = pl.DataFrame({"run_id": ["y"], "workload": ["ycsb"], "op": ["all"], "s": [0.1], "s_requested": [0.99],
                       "p_gof": [0.5], "recordcount": [1000], "record_bytes": [1000.0], "blockcache_mb": [8.0],
                       "readproportion": [0.5], "load": ["light"]})  # fmt: skip
    c = pl.DataFrame({"claim_id": ["S1-zipf"], "claimed": ["s"], "ours": ["0.1"], "n": ["1"], "verdict": ["x"],
                      "load": ["light"]})  # fmt: skip
    mine = ln.claims(c) | ln.skew(sk, _metrics(runs), _iostat(runs)) | ln.cassandra_zipf(sk) | ln.cassandra(
        cassandra.summary(_metrics(runs), _iostat(runs), runs), cassandra.versus(_metrics(runs), _iostat(runs), runs))
    assert not (set(mine) & theirs), set(mine) & theirs


def test_thread_sweep_rounds_become_metrics_and_macros(tmp_path):
    """The real cassandra-stress thread sweep of the dataset: one ops_s_threads_<N> per round, ops_s the last
    round's, and the sweep's macros (op/s and share of the best per thread count); the sweep stays out of the
    Cassandra configurations."""
    from pathlib import Path

    from blkscope.analysis.summaries.workload_metrics import run_metrics
    from blkscope.cli import main

    rid = "host-ext4-cassandra-write-threads-untraced-r1"
    log = Path(__file__).resolve().parents[1] / "data" / "raw" / rid / "cstress.txt"
    if not log.exists():
        pytest.skip(f"{log} not in this checkout")
    assert main(["ingest", "--kind", "cassandra-stress", str(log), "-o", str(tmp_path)]) == 0
    m = run_metrics(rid, "cassandra", pl.read_parquet(tmp_path / "cstress_summary.parquet"))
    per = {r: v for r, v in m.select("metric", "value").iter_rows() if r.startswith("ops_s_threads_")}
    assert list(per) == [f"ops_s_threads_{t}" for t in (4, 8, 16, 24, 36, 54)]
    assert m.filter(pl.col("metric") == "ops_s")["value"][0] == per["ops_s_threads_54"]
    meta = pl.DataFrame({"run_id": [rid], "job": ["write-threads"], "filesystem": ["ext4"], "testbed": ["loop"]})
    macros = ln.cassandra_threads(m.join(meta, on="run_id"))
    best = max(per.values())
    assert macros["CassThreadsExtFourTwoFourOps"] == f"{per['ops_s_threads_24']:,.0f}".replace(",", "{,}")
    assert macros["CassThreadsExtFourTwoFourShare"] == f"{100 * per['ops_s_threads_24'] / best:.0f}\\,\\%"
    assert macros["CassThreadsMax"] == "54"
    runs = meta.with_columns(workload=pl.lit("cassandra"), traced=pl.lit(False), commitlog_compression=pl.lit("none"))
    assert cassandra.summary(m.select("run_id", "metric", "value"), pl.DataFrame(
        schema={"run_id": pl.Utf8, "metric": pl.Utf8, "mean": pl.Float64}), runs).is_empty()


def test_ceiling_phases_are_not_added_up(tmp_path):
    """The ceiling job's three stonewalled phases run one after another: the real fio.json gives each phase's IOPS
    and a run ops_s of its I/Os over the phases' time, never their sum; the ceiling macro is the best phase."""
    import json
    from pathlib import Path

    from blkscope.analysis.summaries.workload_metrics import run_metrics
    from blkscope.cli import main

    raw = Path(__file__).resolve().parents[1] / "data" / "raw" / "host-ext4-fio-ceiling-untraced-r1" / "fio.json"
    if not raw.exists():
        pytest.skip(f"{raw} not in this checkout")
    assert main(["ingest", "--kind", "fio", str(raw), "-o", str(tmp_path)]) == 0
    m = run_metrics("c1", "fio", pl.read_parquet(tmp_path / "fio_jobs.parquet"))
    got = dict(m.select("metric", "value").iter_rows())
    jobs = {j["jobname"]: j["read"]["iops"] + j["write"]["iops"] for j in json.loads(raw.read_text())["jobs"]}
    for name, iops in jobs.items():
        assert got[f"ops_s_group_{name}"] == pytest.approx(iops)
    assert min(jobs.values()) < got["ops_s"] < max(jobs.values())
    macros = ln.ceiling(m.with_columns(load=pl.lit("ceiling")), pl.DataFrame(
        schema={"run_id": pl.Utf8, "workload": pl.Utf8, "testbed": pl.Utf8, "load": pl.Utf8, "metric": pl.Utf8,
                "mean": pl.Float64}))
    assert macros["CeilingOps"] == f"{max(jobs.values()):,.0f}".replace(",", "{,}")
    assert "CeilingRandreadOps" in macros


def test_overhead_macros_read_within_batch_strata_and_count_one_arm_batches():
    # a saturating fio config (traced and untraced in batch b1) and a Cassandra write config whose untraced runs
    # also come from a later batch b2 at half the throughput: pooled, tracing would look like a 2x speed-up
    from blkscope.paper.load_numbers import overhead

    ids = ["f-t1", "f-t2", "f-u1", "f-u2", "c-t1", "c-t2", "c-u1", "c-u2", "c-v1", "c-v2", "c-v3", "c-v4"]
    runs = pl.DataFrame({
        "run_id": ids, "workload": ["fio"] * 4 + ["cassandra"] * 8,
        "job": ["randrw-sat"] * 4 + ["write"] * 8, "filesystem": ["xfs"] * 12, "mount_options": ["noatime"] * 12,
        "testbed": ["loop"] * 12, "traced": [True, True, False, False] * 2 + [False] * 4,
        "batch": ["b1"] * 8 + ["b2"] * 4, "commitlog_compression": [None] * 4 + ["none"] * 8,
    })  # fmt: skip
    ops = [90.0, 92, 100, 101, 100, 102, 100, 101, 40, 41, 39, 40]
    ov = tracing_overhead(runs, dict(zip(ids, ops, strict=True)), n_boot=200)
    assert ov.height == 3 and ov.filter(pl.col("arms") == "both")["overhead"].min() > -0.02
    m = overhead(ov)
    assert m["OverheadSaturatingConfigs"] == "2" and m["OverheadSaturatingMin"] == r"\ensuremath{-}0.5\,\%"
    assert m["OverheadSaturatingFasterWords"] == "none"
    assert m["OverheadOneArmPhrase"] == ("In one case a batch holds only the untraced runs of a configuration; those "
                                         "runs are not compared")
    alone = overhead(ov.filter(pl.col("batch") != "b1"))["OverheadOneArmPhrase"]
    assert alone.endswith(", and one configuration has no batch with both arms")


def test_a_claim_rows_run_length_and_strata_are_macros_and_the_scale_rows_are_counted():
    c = pl.DataFrame({"claim_id": ["S1-zipf", "S1-zipf-scale", "S3-cow-xfs", "S1-hot-f2fs-scale"],
                      "claimed": "x", "ours": ["0.09 [0.06, 0.11]", "0.07 [0.05, 0.09]", "3.35x [2.97x, 3.77x]", "--"],
                      "n": ["9", "8", "48 vs 48 in 14 strata", "0"],
                      "verdict": ["does not", "does not", "inconclusive", "not testable here"],
                      "condition": ["in-memory", "scale", "in-memory", "scale"],
                      "window": ["whole run (2 s saturating, 20 s light)", "the trace's kept window (runs of 180 s)",
                                 "as S3-cow-ext4 (runs of 3-60 s)", "--"],
                      "pooling": [None, None, "per stratum", None],
                      "run_s_lo": [2.0, 180.0, 3.0, None], "run_s_hi": [2.0, 180.0, 60.0, None],
                      "caveat": ["in memory, runs of 2 s", None, None, None],
                      "ours_scale": ["0.10 [0.05, 0.15]", None, None, None]})  # fmt: skip
    m = ln.claims(c)
    # the condition unlike the study's, and the estimate at scale beside it, for prose that names them
    assert m["ClaimSOneZipfCaveat"] == r"in memory, runs of 2\,s" and "ClaimSThreeCowXfsCaveat" not in m
    assert m["ClaimSOneZipfAtScale"] == "0.10 [0.05, 0.15]"
    # the verdict with its caveat, the caveat printed once (review-q5 N6)
    assert m["ClaimSOneZipfVerdictCaveat"] == r"does not; in memory, runs of 2\,s"
    untestable = ln.claims(c.with_columns(verdict=pl.Series(["outside the study's condition: in memory, runs of 2 s",
                                                             "does not", "inconclusive", "not testable here"])))
    assert untestable["ClaimSOneZipfVerdictCaveat"] == r"outside the study's condition: in memory, runs of 2\,s"
    # the length of the runs the measure read (run_s_lo, run_s_hi), not the plan's words in the window
    assert m["ClaimSOneZipfRunLength"] == r"2\,s"  # a number and its unit on one line
    assert m["ClaimSThreeCowXfsRunLength"] == r"3--60\,s"  # a range: an en dash (latex.ranged)
    assert "ClaimSOneZipfScaleRunLength" not in m  # a scale row reads steady windows: no short-run length
    assert m["ClaimSThreeCowXfsStrata"].startswith("disagree") and "ClaimSOneZipfStrata" not in m
    assert (m["ScaleRowsJudged"], m["ScaleRowsJudgedIds"]) == ("1", "S1-zipf-scale")  # the judged scale rows
    # every row whose id ends in -scale, by the window it reads (review-q5 N5: "only the 3 rows ... read steady
    # windows" where four did and three read a 3-s trace inside one)
    assert m["ScaleRowsPhrase"] == ("of the two rows whose id ends in -scale, one reads a kept trace window inside one "
                                    "and one has no runs")
    four = c.with_columns(window=pl.Series(["w", "the trace's kept window of 3 s inside the steady window", "w",
                                            "steady window (>= 90 s; runs of 180 s)"]),
                        n=pl.Series(["9", "8", "4", "6"]))
    assert ln.scale_rows_phrase(four) == ("of the two rows whose id ends in -scale, one reads a steady window of "
                                          "memory-capped runs and one reads a kept 3-s trace window inside one")
    assert ln.run_length({"window": "steady window (>= 90 s; runs of 180 s)"}) == ""
    assert ln.run_length({"window": "the run's iostat window"}) == ""  # no run of known length
    assert ln.run_length({"window": "whole run (20-60 s)", "run_s_lo": 10.0, "run_s_hi": 20.0}) == "10-20 s"


def test_what_the_pooled_tracing_row_pools_is_counted_as_its_measure_selects_and_checked_against_its_n():
    runs = pl.DataFrame({"run_id": [f"{w}-{t}{i}" for w in ("fio", "cass") for t in "tu" for i in range(2)],
                         "batch": "b1", "memory_cap": None, "mount_options": "noatime"})
    metrics = runs.select("run_id").with_columns(
        workload=pl.col("run_id").str.extract(r"^(\w+)-").replace({"cass": "cassandra"}),
        traced=pl.col("run_id").str.contains("-t"), metric=pl.lit("ops_s"), testbed=pl.lit("loop"),
        load=pl.lit("saturating"), job=pl.lit("j"), filesystem=pl.lit("ext4"), commitlog=pl.lit(None, pl.Utf8))
    c = pl.DataFrame({"claim_id": ["S1-trace"], "n": ["4 traced, 4 untraced; 2 configurations"],
                      "load": ["saturating"]})
    said = ln.pooled_tracing(c, metrics, runs)["ClaimSOneTracePooled"]
    assert said == "one each of Cassandra under cassandra-stress and fio"
    # the row's n disagrees with the selection counted here: nothing printed rather than a wrong breakdown
    assert ln.pooled_tracing(c.with_columns(n=pl.lit("6 traced, 6 untraced; 3 configurations")), metrics, runs) == {}
