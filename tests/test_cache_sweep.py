"""The cache sweep's table (blkscope.analysis.characterise.cache_sweep) from real traced YCSB runs on RocksDB
(data/raw), through the verbs the workflow runs: a run that read with O_DIRECT (its cache: RocksDB's block cache)
and the memory-capped runs of round4-rocksdb-capped (384 MiB, 3-s window) and round4-rocksdb-capped-2 (320 MiB),
the sweep's points that exist before the sweep: their caches and page caches against their data, their skew and
miss ratios, the hot shares recounted here from the events; the cache of real Cassandra runs on the host and in the
guest; the sweep's runs not captured yet, as rows that say so, and the figures that say so; the empty table's note."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
import yaml

from blkscope.analysis.characterise.cache_sweep import EMPTY_NOTE, MIB, MIN_HOT_PAGES, cache_facts, miss_at
from blkscope.cli import main
from blkscope.io import table_note

ROOT = Path(__file__).resolve().parents[1]
RAW, RUNS = ROOT / "data" / "raw", ROOT / "config" / "runs.tsv"
ROCKSDB = "host-ext4-ycsb-workloada-zipfian-sat-r1"
CAPPED = "host-ext4-ycsb-workloada-zipfian-buffered-sat-mem384m-r1"
CAPPED_2 = "host-ext4-ycsb-workloada-zipfian-buffered-sat-long-mem320m-r1"
CASSANDRA = "host-xfs-cassandra-ycsb-workloada-c-zipfian-sat-r1"
GUEST = "guest-f2fs-cassandra-ycsb-workloada-zipfian-small-r1"
SMALL = "host-ext4-cassandra-ycsb-workloada-zipfian-capped-sweep-70k-mem640m-r3"
LONG = "host-ext4-cassandra-ycsb-workloada-zipfian-capped-sweep-70k-long-mem640m-r{}"  # the 70 k point run again
TRACED = (ROCKSDB, CAPPED, CAPPED_2)
SWEEP = "round4-sweep"


def _build(proc: Path, runs: tuple[str, ...]) -> dict[str, Path]:
    """The tables the cache-sweep verb reads, made from `runs`' raw traces by the workflow's verbs."""
    a = proc / "analysis"
    fofs, hots = [], []
    for run in runs:
        ev, char = proc / run / "trace" / "events.parquet", proc / run / "characterise"
        fofs.append(proc / run / "frequency" / "fof.cover.parquet")
        hots.append(char / "metadata_hot.parquet")
        verbs = [
            ["ingest", "--kind", "ftrace", str(RAW / run / "trace.txt.zst"), "-o", str(ev.parent)],
            ["access-frequency", str(ev), "--fof", str(fofs[-1])],
            ["reuse", str(ev), "--shards-size", "8192", "--auto", "-o", str(char / "reuse.parquet"), "--mrc",
             str(char / "mrc.parquet")],
            ["metadata", str(ev), "-o", str(hots[-1])],
        ]  # fmt: skip
        for v in verbs:
            assert main(v) == 0, (run, v[0])
    assert main(["zipf", *map(str, fofs), "--n-boot", "0", "-o", str(a / "zipf.parquet")]) == 0
    md = ["metadata-vs-data", "--runs", str(RUNS), *map(str, hots), "-o", str(a / "metadata_vs_data.parquet")]
    assert main(md) == 0
    return {"processed": proc, "zipf": a / "zipf.parquet", "metadata": a / "metadata_vs_data.parquet"}


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> dict[str, Path]:
    return _build(tmp_path_factory.mktemp("processed"), TRACED)


def _sweep(tables, out: Path, *runs: str, planned: tuple[str, ...] = (), sheet: Path = RUNS) -> int:
    return main(["cache-sweep", "--runs", str(sheet), "--raw", str(RAW), "--processed", str(tables["processed"]),
                 "--zipf", str(tables["zipf"]), "--metadata", str(tables["metadata"]), "-o", str(out),
                 *(a for b in planned for a in ("--planned", b)), *runs])  # fmt: skip


def test_a_rocksdb_run_against_its_block_cache(tables, tmp_path):
    assert _sweep(tables, tmp_path / "sweep.parquet", ROCKSDB) == 0
    row = pl.read_parquet(tmp_path / "sweep.parquet").row(0, named=True)
    meta = yaml.safe_load((RAW / ROCKSDB / "run.yaml").read_text())["workload"]["options"]
    data = meta["recordcount"] * meta["fieldcount"] * meta["fieldlength"]
    assert row["cache_kind"].startswith("RocksDB block cache") and row["directreads"]
    assert row["cache_bytes"] == meta["rocksdb.blockcachemb"] * MIB and row["data_bytes"] == data
    assert row["cache_to_data"] == pytest.approx(row["cache_bytes"] / data) and row["data_pages"] == data / 4096
    zipf = pl.read_parquet(tables["zipf"]).filter((pl.col("op") == "all") & (pl.col("run_id") == ROCKSDB))
    assert row["s"] == zipf["s"][0]
    md = pl.read_parquet(tables["metadata"]).filter(pl.col("run_id") == ROCKSDB)
    assert row["hot1_read"] == md.filter(pl.col("op") == "read")["hot_share"][0]
    assert row["meta_share"] == md.filter(pl.col("op") == "all")["meta_share"][0]
    # a bigger cache misses less; the touched pages are the reuse profile's
    assert 0 < row["miss_10pct"] <= row["miss_1pct"] <= 1
    reuse = pl.read_parquet(tables["processed"] / ROCKSDB / "characterise" / "reuse.parquet")
    assert row["touched_pages"] == reuse.filter((pl.col("op") == "all") & (pl.col("class") == "all")
                                                & pl.col("of_record"))["distinct_pages"][0]  # fmt: skip


def test_miss_ratio_at_a_cache_is_the_curve_at_or_below_it(tables):
    mrc, reuse = (pl.read_parquet(tables["processed"] / CAPPED_2 / "characterise" / f"{t}.parquet")
                  for t in ("mrc", "reuse"))
    got = miss_at(mrc, reuse, fractions=(0.05,))
    curve = mrc.filter((pl.col("op") == "all") & (pl.col("class") == "all") & (pl.col("method") == "exact"))
    at = curve.filter(pl.col("cache_pages") <= 0.05 * got["touched_pages"]).sort("cache_pages")["miss_ratio"][-1]
    assert got["miss_5pct"] == at
    assert miss_at(mrc, reuse.clear())["miss_10pct"] is None  # no profile of record: nothing to read


def test_a_window_of_too_few_pages_has_no_hottest_one_percent(tmp_path):
    # a Cassandra sweep run at 70,000 records: its 2-s window read 4 pages, so its "hottest 1 %" would be one page
    # (25 % of the reads); the metadata table keeps that share, the sweep's table leaves it out
    t = _build(tmp_path / "processed", (SMALL,))
    assert _sweep(t, tmp_path / "sweep.parquet", SMALL) == 0
    row = pl.read_parquet(tmp_path / "sweep.parquet").row(0, named=True)
    read = pl.read_parquet(t["metadata"]).filter(pl.col("op") == "read").row(0, named=True)
    assert 0 < read["pages"] < MIN_HOT_PAGES and read["hot_share"] is not None
    assert row["captured"] and row["hot1_read"] is None and row["hot1_write"] is None and row["hot_meta_share"] is None
    assert row["meta_share"] is not None and row["touched_pages"] < MIN_HOT_PAGES


def test_what_caches_a_run_without_a_memory_cap():
    host, guest = cache_facts(RAW / CASSANDRA / "run.yaml"), cache_facts(RAW / GUEST / "run.yaml")
    assert host["cache_kind"] == "host memory (no cap)" and host["cache_to_data"] > 10  # the data in memory
    assert guest["cache_kind"] == "guest memory (no cap)" and guest["cache_bytes"] < host["cache_bytes"]


def test_a_memory_cap_is_the_cache(tmp_path):
    meta = yaml.safe_load((RAW / ROCKSDB / "run.yaml").read_text())
    meta["workload"]["options"]["rocksdb.directreads"] = False
    meta["memory_cap"] = {"requested": "384M", "limit_bytes": 384 * MIB, "max_usage_bytes": 380 * MIB}
    made = tmp_path / "handmade-capped-run.yaml"
    made.write_text(yaml.safe_dump(meta))
    got = cache_facts(made)
    assert (got["cache_kind"], got["cache_bytes"], got["memory_peak_bytes"]) == ("memory cap", 384 * MIB, 380 * MIB)
    assert got["cache_to_data"] == pytest.approx(384 * MIB / got["data_bytes"])


def test_no_sweep_run_says_why_and_so_does_its_figure(tables, tmp_path, capsys):
    out = tmp_path / "sweep.parquet"
    assert _sweep(tables, out) == 0
    assert pl.read_parquet(out).is_empty() and table_note(out) == EMPTY_NOTE
    assert main(["figure", "cache-sweep", str(out), "-o", str(tmp_path / "fig"), "--formats", "svg"]) == 0
    svg = (tmp_path / "fig.svg").read_text()
    assert "no sweep runs in the dataset yet" in svg and "memory" in capsys.readouterr().err
    assert _sweep(tables, tmp_path / "bad.parquet", "no-such-run") == 2 and not (tmp_path / "bad.parquet").exists()


def _page_counts(tables, run: str) -> pl.DataFrame:
    """op (read, write), page, accesses: the run's completions with data, once per 4 KiB page each covers, counted
    here from the ingested events, apart from the analyses the table reads."""
    ev = pl.read_parquet(tables["processed"] / run / "trace" / "events.parquet")
    c = ev.filter((pl.col("action") == "C") & (pl.col("nsectors") > 0))
    c = c.with_columns(op=pl.when(pl.col("rwbs").str.contains("R")).then(pl.lit("read"))
                       .when(pl.col("rwbs").str.contains("W")).then(pl.lit("write")))  # fmt: skip
    last = (pl.col("sector") + pl.col("nsectors") - 1) // 8
    pages = c.with_columns(page=pl.int_ranges(pl.col("sector") // 8, last + 1))
    return pages.explode("page").group_by("op", "page").len("accesses")


def _hot_share(counts: pl.DataFrame) -> float:
    n = counts.sort("accesses", descending=True)["accesses"]
    return n.head(max(1, math.ceil(0.01 * n.len()))).sum() / n.sum()


@pytest.mark.parametrize("run,cap_mib", [(CAPPED, 384), (CAPPED_2, 320)])
def test_a_memory_capped_run_against_its_cap_and_its_page_cache(tables, tmp_path, run, cap_mib):
    """The sweep-like points the dataset holds: 4 M records of 1,000 B under a 384 or 320 MiB cap (0.101x, 0.084x)."""
    assert _sweep(tables, tmp_path / "sweep.parquet", run) == 0
    row = pl.read_parquet(tmp_path / "sweep.parquet").row(0, named=True)
    meta = yaml.safe_load((RAW / run / "run.yaml").read_text())
    at = meta["memory_cap"]["snapshots"]["trace_window_start"]["stat"]
    assert row["captured"] and row["cache_kind"] == "memory cap" and row["directreads"] is False
    assert row["cache_bytes"] == cap_mib * MIB == row["memory_cap_bytes"] and row["data_bytes"] == 4_000_000 * 1000
    assert row["cache_to_data"] == pytest.approx(cap_mib * MIB / 4e9) and row["window_s"] == 3.0
    assert row["page_cache_bytes"] == at["total_cache"] and row["rss_bytes"] == at["total_rss"]
    assert row["page_cache_to_data"] == pytest.approx(at["total_cache"] / 4e9)
    assert row["page_cache_to_data"] < row["cache_to_data"]
    counts = _page_counts(tables, run)
    assert row["touched_pages"] == counts["page"].n_unique()
    for op in ("read", "write"):
        assert row[f"hot1_{op}"] == pytest.approx(_hot_share(counts.filter(pl.col("op") == op)), rel=1e-12), op
    # reads dominate under the cap; the hottest 1 % of read pages take more than 1 % of the reads
    assert 0.01 < row["hot1_read"] < 1 and 0 < row["miss_10pct"] <= row["miss_1pct"] <= 1
    assert row["s"] == pl.read_parquet(tables["zipf"]).filter((pl.col("run_id") == run)
                                                              & (pl.col("op") == "all"))["s"][0]  # fmt: skip


def _with_a_fourth_repeat(tmp_path: Path) -> Path:
    """The runs sheet plus a hand-made row: a fourth repeat of one sweep configuration, never captured (the
    whole sweep is in data/raw now, so its missing runs are made here)."""
    rows = pl.read_csv(RUNS, separator="\t", infer_schema_length=0)
    last = rows.filter(pl.col("batch") == SWEEP).tail(1)
    extra = last.with_columns(pl.col("run_id").str.replace(r"-r\d+$", "-r4"), pl.lit("4").alias("repeat"))
    path = tmp_path / "runs-with-uncaptured-sweep-repeat.tsv"
    pl.concat([rows, extra]).write_csv(path, separator="\t")
    return path


def test_the_sweeps_missing_runs_are_rows_and_the_figure_says_so(tables, tmp_path):
    runs = _with_a_fourth_repeat(tmp_path)
    sheet = pl.read_csv(runs, separator="\t", infer_schema_length=0).filter(pl.col("batch") == SWEEP)
    out = tmp_path / "sweep.parquet"
    assert _sweep(tables, out, CAPPED, CAPPED_2, planned=(SWEEP,), sheet=runs) == 0
    df = pl.read_parquet(out)
    gone = df.filter(~pl.col("captured"))
    assert df.filter(pl.col("captured"))["run_id"].to_list() == [CAPPED, CAPPED_2]
    # the sweep's runs not in data/raw yet (blocks of its order still to capture)
    sheet = sheet.filter(~pl.col("run_id").map_elements(lambda r: (RAW / r / "run.yaml").exists(), pl.Boolean))
    assert sorted(gone["run_id"]) == sorted(sheet["run_id"]) and gone["s"].is_null().all() and sheet.height
    configs = sheet.select("job", "memory_cap").unique().height
    said = f"not captured yet: {sheet.height} run(s) of batch {SWEEP} ({configs} configuration(s))"
    assert said in table_note(out)
    assert main(["figure", "cache-sweep", str(out), "-o", str(tmp_path / "fig"), "--formats", "svg"]) == 0
    svg = (tmp_path / "fig.svg").read_text()
    # the figure counts the batches: a batch's name stays out of the paper
    drawn = f"not captured yet: {sheet.height} run(s) of 1 planned batch ({configs} configuration(s))"
    assert drawn in svg and SWEEP not in svg and "distinct pages traced" in svg and "3.0 s window" in svg
    assert "RocksDB, 4,000,000 records" in svg  # the database names the colour: both sweeps share the axes
    # none captured: the figure draws the note alone
    assert _sweep(tables, out, planned=(SWEEP,), sheet=runs) == 0
    assert main(["figure", "cache-sweep", str(out), "-o", str(tmp_path / "none"), "--formats", "svg"]) == 0
    assert "no sweep run captured yet" in (tmp_path / "none.svg").read_text()


def test_the_70k_point_run_again_keeps_its_whole_steady_window():
    """The long-window runs of the Cassandra sweep's 70 k point: the same cache and data as its 2-s runs (one
    configuration), 120 s of trace, the kept events counted from run.yaml, a hundred times the 2-s runs' at least."""
    from blkscope.analysis.characterise.cache_sweep import CONFIGURATION

    short = [cache_facts(RAW / SMALL.replace("-r3", f"-r{k}") / "run.yaml") for k in (1, 2, 3)]
    long = [cache_facts(RAW / LONG.format(k) / "run.yaml") for k in (1, 2, 3)]
    assert {tuple(f[c] for c in CONFIGURATION) for f in short + long} == {("memory cap", 640 * MIB, 70_000)}
    assert {f["window_s"] for f in short} == {2.0} and {f["window_s"] for f in long} == {120.0}
    for k, f in enumerate(long, 1):
        meta = yaml.safe_load((RAW / LONG.format(k) / "run.yaml").read_text())
        tracer = meta["tracer"]
        assert f["events"] == tracer["events"] == tracer["window"]["kept"] and tracer["dropped_total"] == 0
        assert f["ops_s"] == meta["cassandra-ycsb"]["overall_throughput"] > 0
    assert min(f["events"] for f in long) > 100 * max(f["events"] for f in short)
