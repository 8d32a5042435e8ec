"""The per-run characterisation summary (blkscope.analysis.characterise.characterise_summary) on hand-made tables, the
Characterisation section's macros (every one it quotes is generated), and `blkscope characterise-numbers` on
a real traced run."""

import re
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis.characterise import characterise_summary as cs
from blkscope.analysis.timing import latency_windows as lw
from blkscope.cli import main
from blkscope.paper import characterise_numbers as cn
from blkscope.schemas import EVENTS, conform

ROOT = Path(__file__).resolve().parents[1]
MS = 1_000_000


def _tables(d: Path) -> None:
    """A run's characterisation tables, hand-made: 10 s span, 2 s idle; requests in address bins 0 and 3 of 1 GiB
    (up to 4 GiB, 2 of 4 bins); D writes 3 x 4 KiB data + 1 x 8 KiB meta, reads none; 8 Q and 4 D writes;
    400 accesses to 100 pages (of 4 KiB); the LRU curve reaches 0.5 at 64 pages; working sets of 10, 20, 30
    pages. The per-request views have rows per class whose values differ from class all's (a summary that read
    them would be wrong)."""
    d.mkdir(parents=True)
    gib = 2**21  # sectors
    pl.DataFrame({"t_hi_s": [5.0, 10.0, 10.0], "sector_bin": [0, 3, 3],
                  "sector_hi": [gib, 4 * gib, 4 * gib]}).write_parquet(d / "io_map.parquet")  # fmt: skip
    pl.DataFrame({"op": ["all"] * 3, "class": ["meta", "all", "all"], "what": ["q2q", "q2q", "idle"],
                  "cv": [9.0, 2.5, 0.3], "total_s": [1.0, 9.0, 2.0]}).write_parquet(d / "arrivals.parquet")  # fmt: skip
    pl.DataFrame({"op": ["all"] * 4, "class": ["data", "meta", "all", "all"], "window_s": [1.0, 1.0, 0.1, 1.0],
                  "idc": [40.0, 50.0, 3.0, 7.0]}).write_parquet(d / "dispersion.parquet")  # fmt: skip
    pl.DataFrame({"action": ["D", "D", "Q"], "op": ["write"] * 3, "class": ["data", "meta", "data"],
                  "size_kib": [4.0, 8.0, 4.0], "requests": [3, 1, 8]}).write_parquet(d / "sizes.parquet")  # fmt: skip
    pl.DataFrame({"op": ["write", "write", "all"], "class": ["data", "all", "all"],
                  "merge_ratio": [9.0, 2.0, 2.0]}).write_parquet(d / "merges.parquet")  # fmt: skip
    meta = pl.DataFrame({"op": ["all"], "meta_share": [0.25], "hot_meta_share": [1.0]})
    meta.write_parquet(d / "metadata_hot.parquet")
    pl.DataFrame({"op": ["all", "all"], "method": ["exact", "shards-size"], "accesses": [400, 400],
                  "distinct_pages": [100.0, 90.0]}).write_parquet(d / "reuse.parquet")  # fmt: skip
    pages = [1, 32, 64, 128]
    pl.DataFrame({"op": "all", "method": "exact", "cache_pages": pages, "cache_mib": [p / 256 for p in pages],
                  "miss_ratio": [0.9, 0.6, 0.5, 0.25]}).write_parquet(d / "mrc.parquet")  # fmt: skip
    pl.DataFrame({"op": "all", "window": [0, 1, 2], "pages": [10, 30, 20]}).write_parquet(d / "wss.parquet")


def test_handmade_per_run_summary(tmp_path):
    _tables(tmp_path / "r1" / "characterise")
    (tmp_path / "r2" / "characterise").mkdir(parents=True)  # a run without tables: nulls, not an error
    per = cs.per_run({"r1": tmp_path / "r1" / "characterise", "r2": tmp_path / "r2" / "characterise"})
    r = per.row(0, named=True)
    assert (r["write_kib"], r["read_kib"], r["meta_requests"]) == (5.0, None, 0.25)
    assert (r["write_merge_ratio"], r["meta_share"], r["hot_meta_share"]) == (2.0, 0.25, 1.0)
    assert (r["q2q_cv"], r["idc_1s"], r["idle_share"]) == (2.5, 7.0, 0.2)
    assert (r["map_gib"], r["map_fill"]) == (4.0, 0.5)
    assert (r["distinct_mib"], r["cold_miss"], r["half_mib"], r["wss_mib"]) == (100 / 256, 0.25, 0.25, 20 / 256)
    assert r["d2c_p99_us"] is None
    assert all(v is None for k, v in per.row(1, named=True).items() if k != "run_id")
    for name in ("arrivals", "merges", "dispersion"):  # tables written before the class split: every request
        p = tmp_path / "r1" / "characterise" / f"{name}.parquet"
        pl.read_parquet(p).filter(pl.col("class") == "all").drop("class").write_parquet(p)
    old = cs.per_run({"r1": tmp_path / "r1" / "characterise"}).row(0, named=True)
    assert (old["q2q_cv"], old["idc_1s"], old["write_merge_ratio"]) == (2.5, 7.0, 2.0)
    runs = pl.DataFrame({"run_id": ["r1", "r2"], "testbed": "loop", "workload": "fio", "job": "append",
                         "filesystem": "ext4"})  # fmt: skip
    by = cs.by_setup(per, runs)
    assert by.height == 1 and by["n"][0] == 2 and by["write_kib"][0] == 5.0  # the median of the runs that have it
    m = cn.macros(by)
    assert (m["CharWriteKibFioAppendExtFour"], m["CharIdleShareFioAppendExtFour"]) == ("5", "20.0\\,\\%")
    assert (m["CharReadKibFioAppendExtFour"], m["CharRuns"], m["CharSetups"]) == ("--", "2", "1")
    assert (m["CharMapGibFioAppendExtFour"], m["CharMapFillFioAppendExtFour"]) == ("4.0", "50.0\\,\\%")
    # one setup on three filesystems beside the one on ext4 alone: one comparison, one setup alone
    three = pl.concat([by] + [by.with_columns(job=pl.lit("randrw"), filesystem=pl.lit(f)) for f in ("ext4", "xfs",
                                                                                                    "btrfs")])
    m = cn.macros(three)
    assert (m["CharSetups"], m["CharSetupsAllFs"], m["CharSetupsOneFsPhrase"]) == ("2", "1", "one setup")


def test_handmade_reuse_numbers_by_class_and_of_record(tmp_path):
    """Reuse tables split by class (rows of class data and meta beside all, with other values) and a run `reuse
    --auto` found too large for the exact profile: the numbers come from op all, class all, the profile of
    record (fixed-size SHARDS here), never from another class's rows or another method's."""
    d = tmp_path / "r1" / "characterise"
    _tables(d)
    pl.DataFrame({"op": "all", "class": ["all", "meta", "all"], "method": ["shards-size", "shards-size", "shards-adj"],
                  "rate": [0.5, 1.0, 0.1], "size_limit": [8192, 8192, 0], "accesses": [400, 40, 400],
                  "distinct_pages": [90.0, 5.0, 70.0], "of_record": [True, True, False],
                  "exact_max_accesses": 10}).write_parquet(d / "reuse.parquet")  # fmt: skip
    pages = [1, 32, 64, 128]
    mrc = pl.DataFrame({"op": "all", "class": "all", "method": "shards-size", "rate": 0.5, "size_limit": [8192] * 4,
                        "cache_pages": pages, "cache_mib": [p / 256 for p in pages],
                        "miss_ratio": [0.9, 0.5, 0.4, 0.2]})  # fmt: skip
    other = [mrc.with_columns(**{"class": pl.lit("meta"), "rate": pl.lit(1.0), "miss_ratio": pl.lit(0.0)}),
             mrc.with_columns(method=pl.lit("shards-adj"), rate=pl.lit(0.1), size_limit=pl.lit(0, pl.Int64),
                              miss_ratio=pl.lit(0.1))]  # fmt: skip
    pl.concat([*other, mrc]).write_parquet(d / "mrc.parquet")
    pl.DataFrame({"op": "all", "class": ["meta", "all", "all", "all"], "window": [0, 0, 1, 2],
                  "pages": [1, 10, 40, 30]}).write_parquet(d / "wss.parquet")  # fmt: skip
    per = cs.per_run({"r1": d})
    r = per.row(0, named=True)
    assert (r["distinct_mib"], r["cold_miss"], r["half_mib"], r["wss_mib"]) == (90 / 256, 90 / 400, 32 / 256,
                                                                                 30 / 256)  # fmt: skip
    # each class its own profile of record: meta's 5 pages of 40 accesses; data has none
    assert (r["mrc_record"], r["meta_cold_miss"], r["data_cold_miss"]) == ("shards-size", 5 / 40, None)
    runs = pl.DataFrame({"run_id": ["r1"], "testbed": "loop", "workload": "fio", "job": "append", "filesystem": "xfs"})
    by = cs.by_setup(per, runs)
    assert (by["exact_runs"][0], by["shards_runs"][0]) == (0, 1)
    assert (cn.macros(by)["CharExactRuns"], cn.macros(by)["CharShardsRuns"]) == ("0", "1")


def test_latency_tail_of_the_whole_run_and_its_worst_100_ms(tmp_path):
    # 200 reads of D2C 1 ms in [0, 100 ms), 200 of 1 ms and 4 of 10 ms in [100, 200 ms), in 50-ms base windows:
    # the run's p99 is 1 ms (rank 399 of 0..403), the second 100 ms's 10 ms (rank 201 of 0..203): 10x
    rows = []
    for k in range(404):
        t = int((k * 0.4 if k < 200 else 100 + (k - 200) * 0.4) * MS)
        d2c = 10 * MS if k >= 400 else MS
        rows += [(t, "Q", 8 * k, 8, "R"), (t, "D", 8 * k, 8, "R"), (t + d2c, "C", 8 * k, 8, "R")]
    df = pl.DataFrame(rows, schema=["time_ns", "action", "sector", "nsectors", "rwbs"], orient="row")
    ev = conform(df.with_columns(dev_major=pl.lit(8), dev_minor=pl.lit(0)), EVENTS).lazy()
    d = tmp_path / "characterise"
    d.mkdir()
    lw.histograms(ev, 0.05).write_parquet(d / "latency_hist.parquet")
    r = cs.per_run({"r": d}).row(0, named=True)
    assert (r["d2c_p99_us"], r["d2c_p99_spread"]) == (1000.0, 10.0)
    lw.histograms(ev, 0.03).write_parquet(d / "latency_hist.parquet")  # 30-ms windows do not make 100 ms
    r = cs.per_run({"r": d}).row(0, named=True)
    assert (r["d2c_p99_us"], r["d2c_p99_spread"]) == (1000.0, None)


def test_every_number_the_section_quotes_is_generated():
    tex = (ROOT / "paper/sections/characterisation.tex").read_text()
    quoted = set(re.findall(r"\\blk\{(\w+)\}", tex))
    assert len(quoted) > 40
    setups = [("fio", "append"), ("fio", "randrw-sat"), ("sysbench", "rndrw-max"), ("cassandra", "write"),
              ("ycsb", "workloada-zipfian-sat")]  # fmt: skip
    row = {"testbed": "loop", "n": 3, "exact_runs": 3, "shards_runs": 0} | dict.fromkeys(cs.METRICS, 0.5)
    by = pl.DataFrame([row | {"workload": w, "job": j, "filesystem": f} for w, j in setups
                       for f in ("ext4", "xfs", "btrfs")])  # fmt: skip
    from blkscope.paper import characterise_phrases
    from blkscope.paper.numbers import method

    # the method's settings (the hot share) are runs.tex's; the words comparing filesystems are char_phrases.tex's
    missing = quoted - set(cn.macros(by)) - set(method()) - set(characterise_phrases.macros(by))
    assert not missing
    # a count of none in words: "(no runs here)", not "(0 runs here)"
    assert cn.macros(by)["CharShardsRunsPhrase"] == "no runs"
    assert cn.macros(by.with_columns(shards_runs=pl.lit(1)).head(1))["CharShardsRunsPhrase"] == "one run"


def test_characterise_numbers_on_a_real_run(tmp_path):
    run = "host-ext4-fio-randrw-r1"
    raw = ROOT / "data" / "raw" / run / "trace.txt.zst"
    if not raw.exists():
        pytest.skip("embedded run not in this checkout")
    src = tmp_path / "trace.txt"
    subprocess.run(["zstd", "-dqf", str(raw), "-o", str(src)], check=True)
    ev = tmp_path / run / "trace" / "events.parquet"
    assert main(["ingest", "--kind", "ftrace", str(src), "-o", str(ev.parent)]) == 0
    c = tmp_path / run / "characterise"
    views = [a for n in ("io-map", "sizes", "merges", "arrivals", "dispersion", "latency-hist", "throughput")
             for a in (f"--{n}", str(c / f"{n.replace('-', '_')}.parquet"))]  # fmt: skip
    assert main(["characterise", str(ev), *views, "--latency-window-s", "0.1"]) == 0  # as the workflow
    assert main(["reuse", str(ev), "-o", str(c / "reuse.parquet"), "--mrc", str(c / "mrc.parquet"), "--wss",
                 str(c / "wss.parquet"), "--shards-size", "8192", "--auto", "--classes",
                 "all,data,meta"]) == 0  # fmt: skip
    assert main(["metadata", str(ev), "-o", str(c / "metadata_hot.parquet")]) == 0
    out = tmp_path / "char.tex"
    assert main(["characterise-numbers", "--runs", str(ROOT / "config/runs.tsv"), str(c / "reuse.parquet"), "-o",
                 str(out), "--table", str(tmp_path / "t.parquet")]) == 0  # fmt: skip
    t = pl.read_parquet(tmp_path / "t.parquet").row(0, named=True)
    # fio randrw: 4 KiB random reads and writes at a fixed rate, each page of the file touched about once
    assert (t["n"], t["filesystem"], t["read_kib"]) == (1, "ext4", 4.0)
    assert t["write_merge_ratio"] == pytest.approx(1.002, abs=0.01)
    assert 0.9 < t["idle_share"] < 1 and t["cold_miss"] > 0.9 and t["d2c_p99_us"] > 0
    assert t["map_gib"] > 0 and 0 < t["map_fill"] <= 1
    # 4 KiB writes, queued and issued as such (no merging): the median second's median size is 4 KiB both ways
    assert (t["q_write_median_kib"], t["d_write_median_kib"]) == (4.0, 4.0)
    # the same data writes over the whole run: their #Q/#D and mean sizes agree (bytes over requests)
    assert t["data_write_merge_ratio"] == pytest.approx(t["d_write_mean_kib"] / t["q_write_mean_kib"], rel=0.01)
    assert t["q_write_mean_kib"] == pytest.approx(4.0, abs=0.1)
    assert t["data_cold_miss"] > 0.9 and (t["exact_runs"], t["shards_runs"]) == (1, 0)
    # ~200 requests a second: no 100-ms window holds the 100 completions a spread needs
    assert t["d2c_p99_spread"] is None
    assert "\\newcommand{\\CharColdMissFioRandrwExtFour}{" in out.read_text()
    # the reuse numbers as the workflow's tables (every op by class, exact and SHARDS) give them: op all, class
    # all, the exact profile (of record below --auto's limit)
    reuse = pl.read_parquet(c / "reuse.parquet")
    assert set(reuse["class"]) == {"all", "data", "meta"}
    exact = reuse.filter((pl.col("op") == "all") & (pl.col("class") == "all") & pl.col("of_record")).row(0, named=True)
    assert exact["method"] == "exact" and t["cold_miss"] == exact["distinct_pages"] / exact["accesses"]
    # -j 2 (the workflow's job): the same table and macros, with two runs to share out (r1's tables as r2's too)
    shutil.copytree(c, tmp_path / "host-ext4-fio-randrw-r2" / "characterise")
    ones = [str(c / "reuse.parquet"), str(tmp_path / "host-ext4-fio-randrw-r2" / "characterise" / "reuse.parquet")]
    for jobs in ("1", "2"):
        outs = ["-o", str(tmp_path / f"j{jobs}.tex"), "--table", str(tmp_path / f"j{jobs}.parquet")]
        assert main(["characterise-numbers", "--runs", str(ROOT / "config/runs.tsv"), *ones, *outs, "-j", jobs]) == 0
    assert pl.read_parquet(tmp_path / "j1.parquet").equals(pl.read_parquet(tmp_path / "j2.parquet"))
    assert (tmp_path / "j1.tex").read_text() == (tmp_path / "j2.tex").read_text()
    assert pl.read_parquet(tmp_path / "j2.parquet").row(0, named=True)["n"] == 2
