"""The committed dataset is exactly what data/raw/MANIFEST.tsv lists, and covers the study's grid."""

from pathlib import Path

import polars as pl
import pytest
import yaml

from blkscope import yamlio
from blkscope.capture.manifest import build
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data/raw"


@pytest.fixture(scope="module")
def manifest() -> pl.DataFrame:
    return pl.read_csv(RAW / "MANIFEST.tsv", separator="\t")


def test_manifest_lists_exactly_the_files_on_disk(manifest):
    now = build(RAW, load_runs(ROOT / "config/runs.tsv"))
    key = ["file", "bytes", "sha256"]
    assert sorted(now.select(key).rows()) == sorted(manifest.select(key).rows())


def test_every_captured_run_is_in_the_manifest(manifest):
    captured = {p.parent.name for p in RAW.glob("*/run.yaml")}
    assert captured == set(manifest["run_id"])


WORKLOADS = ("fio", "sysbench", "journal", "ycsb")
# issue F's grid: ext4, xfs and btrfs on the host; f2fs (which the host kernel lacks) and the other three, for
# comparison, in the emulated guest; every workload traced and untraced, at least 3 repeats each
GRID = {"loop": ("ext4", "xfs", "btrfs"), "guest": ("f2fs", "ext4", "xfs", "btrfs")}


def test_grid_covered(manifest):
    runs = manifest.select("run_id", "testbed", "filesystem", "workload", "traced", "repeat").unique()
    for testbed, filesystems in GRID.items():
        for fs in filesystems:
            for workload in WORKLOADS:
                for traced in (True, False):
                    sel = runs.filter((pl.col("testbed") == testbed) & (pl.col("workload") == workload)
                                      & (pl.col("filesystem") == fs) & (pl.col("traced") == traced))
                    assert sel["repeat"].n_unique() >= 3, (testbed, fs, workload, traced)


# issue G's Cassandra grid on the host (data/raw/README.md): the commitlog study (cassandra-stress write,
# uncompressed vs LZ4 commitlog) and the SSD study (mixed read/write) on ext4, xfs and btrfs; traced and untraced,
# >= 3 repeats; f2fs has no host kernel support (Cassandra on f2fs: the guest's YCSB runs, below)
CASSANDRA = {
    ("commitlog", "write", "none"): ("ext4", "xfs", "btrfs"),
    ("commitlog", "write", "LZ4"): ("ext4", "xfs", "btrfs"),
    ("ssd", "mixed", "none"): ("ext4", "xfs", "btrfs"),
}


def test_cassandra_grid_covered(manifest):
    sheet = load_runs(ROOT / "config/runs.tsv").select("run_id", "study", "commitlog_compression")
    runs = manifest.filter(pl.col("workload") == "cassandra").join(sheet, on="run_id")
    runs = runs.select("run_id", "study", "job", "commitlog_compression", "filesystem", "traced", "repeat").unique()
    for (study, job, compression), filesystems in CASSANDRA.items():
        for fs in filesystems:
            for traced in (True, False):
                sel = runs.filter((pl.col("study") == study) & (pl.col("job") == job) & (pl.col("filesystem") == fs)
                                  & (pl.col("commitlog_compression") == compression) & (pl.col("traced") == traced))
                assert sel["repeat"].n_unique() >= 3, (study, job, compression, fs, traced)
    logs = manifest.filter(pl.col("file").str.ends_with("/cstress.txt"))
    assert logs.height == runs.height, "every Cassandra run has its cassandra-stress log"
    sweep = runs.filter(pl.col("job") == "write-threads")  # does the write load's thread count saturate the node?
    assert set(sweep["filesystem"]) >= {"ext4", "xfs"} and not sweep["traced"].any()


def test_within_the_git_budget(manifest):
    """issue G: data/raw may grow to 100 MB in git. Git stores each file zlib-compressed: the zstd traces as they
    are, the text logs (JSON, YAML, tool output) at about a fifth of their size."""
    import zlib

    text = manifest.filter(~pl.col("file").str.ends_with(".zst"))["file"]
    in_git = manifest.filter(pl.col("file").str.ends_with(".zst"))["bytes"].sum()
    in_git += sum(len(zlib.compress((RAW / f).read_bytes(), 6)) for f in text)
    assert in_git < 200_000_000  # issue P: up to 200 MB (issue L: 130 MB)
    assert manifest.filter(pl.col("workload") == "cassandra")["bytes"].sum() < 30 * 1024 * 1024


# issue H's saturating batch: fio random read/write, sysbench fileio and YCSB-RocksDB unthrottled on ext4, xfs and
# btrfs, traced and untraced, the loop device's ceiling (untraced, ext4), and issue G's Cassandra grid, at least 3
# repeats each, captured on a quiet machine in recorded orders: saturate-2, then YCSB's again at 2 s as saturate-3
# (at 4 s its traces took data/raw past the git budget)
SATURATE = ("saturate-2", "saturate-3")
SATURATE_JOBS = {"fio": "randrw-sat", "sysbench": "rndrw-max", "ycsb": "workloada-zipfian-sat"}
SATURATE_BUDGET = 70 << 20  # the batches' non-Cassandra runs (Cassandra's share is checked above)


@pytest.fixture(scope="module")
def saturate(manifest) -> pl.DataFrame:
    runs = load_runs(ROOT / "config/runs.tsv").filter(pl.col("batch").is_in(SATURATE))
    return manifest.join(runs.select("run_id", "job", "batch"), on=["run_id", "job"], how="inner")


def test_saturating_grid_covered(saturate):
    runs = saturate.select("run_id", "filesystem", "workload", "job", "traced", "repeat").unique()
    for workload, job in SATURATE_JOBS.items():
        for fs in ("ext4", "xfs", "btrfs"):
            for traced in (True, False):
                sel = runs.filter((pl.col("workload") == workload) & (pl.col("job") == job)
                                  & (pl.col("filesystem") == fs) & (pl.col("traced") == traced))  # fmt: skip
                assert sel["repeat"].n_unique() >= 3, (workload, fs, traced)
                assert sel.height == sel["repeat"].n_unique()
    ceiling = runs.filter(pl.col("job") == "ceiling")
    assert ceiling["repeat"].n_unique() >= 3 and not ceiling["traced"].any()
    traces = saturate.filter(pl.col("file").str.ends_with("trace.txt.zst"))["run_id"]
    assert set(traces) == set(runs.filter(pl.col("traced"))["run_id"])


@pytest.mark.parametrize("batch", SATURATE)
def test_saturating_batch_captured_in_the_recorded_order(saturate, batch):
    _captured_in_the_recorded_order(batch, set(saturate.filter(pl.col("batch") == batch)["run_id"]))


def _captured_in_the_recorded_order(batch: str, captured: set[str]) -> list[dict]:
    """Each run's lock was taken after the previous run of the order had finished; returns the runs' run.yaml."""
    from blkscope.capture.order import read

    ids = read(ROOT / "config/capture_order.tsv").filter(pl.col("batch") == batch).sort("position")["run_id"]
    assert set(ids) == captured
    meta = [yamlio.load((RAW / r / "run.yaml").read_text()) for r in ids]
    for before, after in zip(meta, meta[1:], strict=False):
        assert before["end_utc"] < after["lock"]["acquired_utc"], after["run_id"]
    assert all(m["loadavg"]["before"]["1min"] >= 0 and m["loadavg"]["after"]["utc"] for m in meta)
    return meta


def test_saturating_batch_within_its_budget(saturate):
    assert saturate.filter(pl.col("workload") != "cassandra")["bytes"].sum() <= SATURATE_BUDGET


# issue L's commitlog grid under a device cap: ext4, xfs and btrfs, uncompressed and LZ4 commitlog, traced and
# untraced, 3 repeats, a fixed number of writes each, in one recorded order; every run holds the cap it asked for,
# on the medium under the traced device, and removed it. Twice: at 4 MiB/s, and at 2 MiB/s (the device idled for
# part of each run at 4), there with the node's request timeouts raised as the sheet says and the files' extents
CAPPED = ["round3-capped", "round3-capped-2m"]


@pytest.mark.parametrize("batch", CAPPED)
def test_capped_commitlog_grid_covered_capped_and_in_order(manifest, batch):
    from blkscope.capture.throttle import parse

    sheet = load_runs(ROOT / "config/runs.tsv").filter(pl.col("batch") == batch)
    runs = manifest.join(sheet.select("run_id", "commitlog_compression", "device_cap"), on="run_id")
    runs = runs.select("run_id", "filesystem", "commitlog_compression", "traced", "repeat", "device_cap").unique()
    for fs in ("ext4", "xfs", "btrfs"):
        for compression in ("none", "LZ4"):
            for traced in (True, False):
                sel = runs.filter((pl.col("filesystem") == fs) & (pl.col("commitlog_compression") == compression)
                                  & (pl.col("traced") == traced))  # fmt: skip
                assert sel["repeat"].n_unique() >= 3, (fs, compression, traced)
    meta = _captured_in_the_recorded_order(batch, set(runs["run_id"]))
    caps = dict(zip(sheet["run_id"], sheet["device_cap"], strict=True))
    timeouts = dict(zip(sheet["run_id"], sheet["request_timeout_ms"], strict=True))
    for m in meta:
        cap = m["device_cap"]
        assert cap["removed"] and cap["limits"] == parse(caps[m["run_id"]]), m["run_id"]
        assert cap["device"] == m["testbed"]["medium"] != m["testbed"]["device"]
        if timeouts[m["run_id"]] is not None:
            node = yamlio.load((RAW / m["run_id"] / "cassandra.yaml").read_text())
            assert node["write_request_timeout"] == f"{timeouts[m['run_id']]}ms", m["run_id"]
            assert (RAW / m["run_id"] / "filefrag.txt").exists(), m["run_id"]


# issue L's YCSB grid: workload A (zipfian, 32 client threads, unthrottled) on a Cassandra node through the
# project's binding, traced and untraced, 3 repeats, each run with its load, workload A and read-only (workload C)
# phases; RocksDB's same three phases beside it, untraced (its throughput is the comparison; its block-level skew
# under workload A is in the saturate batches already, and its O_DIRECT reads trace at ~0.9 MB/s, too dear for the
# git budget). One batch per filesystem (round3-ycsb-cass-<fs>), each about an hour of capture: a batch is what a
# claim compares within (claim_measures.BATCH), and the three together (about 3 hours) do not fit one sitting.
# Captured by the coordinator in the recorded order; a batch not captured yet has its sheet and order checked and
# its dataset part skipped; a captured one is whole.
YCSB_CASS_FS = ("ext4", "xfs", "btrfs")
YCSB_CASS = tuple(f"round3-ycsb-cass-{fs}" for fs in YCSB_CASS_FS)
YCSB_CASS_GRID = {("cassandra-ycsb", True), ("cassandra-ycsb", False), ("ycsb", False)}
YCSB_CASS_JOB = "workloada-c-zipfian-sat"
# bytes on disk; git holds the text logs zlib-compressed at about a fifth. Measured on one 150-s traced run here:
# trace 32 KB, iostat.json 87 KB, ycsb logs 90 KB, filefrag.txt 82 KB, node log 16 KB; at 240 s ~0.45 MB a
# Cassandra run, ~0.25 MB an untraced RocksDB run: ~10 MB for the 27 runs
YCSB_CASS_BUDGET = 12 << 20


def _grid_rows(runs: pl.DataFrame) -> pl.DataFrame:
    return runs.select("run_id", "workload", "job", "filesystem", "traced", "repeat", "testbed").unique()


def _assert_ycsb_cass_grid(runs: pl.DataFrame, fs: str) -> None:
    assert set(runs["job"]) == {YCSB_CASS_JOB} and set(runs["testbed"]) == {"loop"}
    assert set(runs["filesystem"]) == {fs}
    assert set(zip(runs["workload"], runs["traced"], strict=True)) == YCSB_CASS_GRID
    for workload, traced in YCSB_CASS_GRID:
        sel = runs.filter((pl.col("workload") == workload) & (pl.col("traced") == traced))
        assert sorted(sel["repeat"]) == [1, 2, 3], (workload, fs, traced)


@pytest.mark.parametrize("fs", YCSB_CASS_FS)
def test_ycsb_cassandra_grid_in_the_sheet_and_its_order(fs):
    from blkscope.capture.order import check, read

    sheet = load_runs(ROOT / "config/runs.tsv")
    batch = f"round3-ycsb-cass-{fs}"
    runs = sheet.filter(pl.col("batch") == batch)
    _assert_ycsb_cass_grid(_grid_rows(runs), fs)
    # the same device and phase lengths for both databases and every filesystem: the comparison is like for like
    assert sheet.filter(pl.col("batch").is_in(YCSB_CASS)).select("device_mb", "runtime_s").unique().height == 1
    check(sheet, read(ROOT / "config/capture_order.tsv"), batches={batch})


def test_ycsb_cassandra_grid_captured(manifest):
    runs = manifest.join(load_runs(ROOT / "config/runs.tsv").select("run_id", "job", "batch"), on=["run_id", "job"])
    runs = runs.filter(pl.col("batch").is_in(YCSB_CASS))
    if runs.is_empty():
        pytest.skip("no batch of the YCSB-Cassandra grid captured yet (the sheets and orders are checked above)")
    for fs in YCSB_CASS_FS:
        part = runs.filter(pl.col("filesystem") == fs)
        if not part.is_empty():
            assert set(part["batch"]) == {f"round3-ycsb-cass-{fs}"}
            _assert_ycsb_cass_grid(_grid_rows(part), fs)
    files = set(runs["file"])
    for r in runs["run_id"].unique():
        wl = runs.filter(pl.col("run_id") == r)["workload"][0]
        need = ["ycsb-load.txt", "ycsb-run.txt", "ycsb-read.txt"] + (["filefrag.txt"] if wl != "ycsb" else [])
        assert all(f"{r}/{n}" in files for n in need), r
    assert runs["bytes"].sum() <= YCSB_CASS_BUDGET


# issue L item 3: YCSB on a Cassandra node inside the emulated guest (f2fs, which only the guest's kernel has, and
# ext4, xfs and btrfs beside it), for access patterns only: a trial run first, then the small batch, each in its
# recorded order and with the node's files' extents, its log and the three phases' milestones in run.yaml; then two
# more runs each on btrfs and f2fs in one batch (a claim compares within a batch)
GUEST_CASS = ("round3-guest-cass-trial", "round3-guest-cass", "round3-guest-cass-2")


@pytest.mark.parametrize("batch", GUEST_CASS)
def test_guest_cassandra_batch(manifest, batch):
    sheet = load_runs(ROOT / "config/runs.tsv").filter(pl.col("batch") == batch)
    assert set(sheet["workload"]) == {"cassandra-ycsb"} and set(sheet["testbed"]) == {"guest"}
    runs = manifest.join(sheet.select("run_id"), on="run_id")
    if runs.is_empty():
        pytest.skip(f"batch {batch} not captured")
    meta = _captured_in_the_recorded_order(batch, set(runs["run_id"]))
    files = set(runs["file"])
    for m in meta:
        r = m["run_id"]
        need = ["ycsb-load.txt", "ycsb-run.txt", "cassandra.yaml", "cassandra-node.log.zst", "filefrag.txt"]
        assert all(f"{r}/{n}" in files for n in need), r
        t = m["guest"]["times_uptime_s"]
        assert t["node_start"] < t["node_ready"] < t["load_end"] < t["workload_start"] < t["node_stopped"], r
        assert m["cassandra-ycsb"]["overall_throughput"] > 0 and m["cassandra-ycsb"]["load_overall_throughput"] > 0


# issue M: the journal writer alone (none, sparse, prealloc) on ext4, xfs and btrfs, untraced, 5 repeats, in runs
# of 60 s (a 10-s run ends before the flusher's 30-s expiry and xfs's 30-s log worker: claim_measures.JOURNAL_MIN_S),
# in one recorded order; each run's journal.json says it wrote for 60 s
JOURNAL_LONG = "round3-journal-60s"


def test_long_journal_batch_covered_in_order_and_60_s_long(manifest):
    sheet = load_runs(ROOT / "config/runs.tsv").filter(pl.col("batch") == JOURNAL_LONG)
    assert set(sheet["runtime_s"]) == {60} and not sheet["traced"].any()
    runs = manifest.join(sheet.select("run_id"), on="run_id").select("run_id", "filesystem", "job", "repeat").unique()
    for fs in ("ext4", "xfs", "btrfs"):
        for mode in ("none", "sparse", "prealloc"):
            sel = runs.filter((pl.col("filesystem") == fs) & (pl.col("job") == mode))
            assert sorted(sel["repeat"]) == [1, 2, 3, 4, 5], (fs, mode)
    _captured_in_the_recorded_order(JOURNAL_LONG, set(runs["run_id"]))
    # the second batch: xfs sparse and the first batch's best other pair (xfs prealloc), 7 more each
    again = manifest.join(load_runs(ROOT / "config/runs.tsv").filter(pl.col("batch") == JOURNAL_LONG + "-2")
                          .select("run_id", "runtime_s"), on="run_id").select("run_id", "job", "repeat", "runtime_s")
    again = again.unique()
    assert set(again["runtime_s"]) == {60}
    for mode in ("sparse", "prealloc"):
        assert sorted(again.filter(pl.col("job") == mode)["repeat"]) == list(range(6, 13)), mode
    _captured_in_the_recorded_order(JOURNAL_LONG + "-2", set(again["run_id"]))
    for r in [*runs["run_id"], *again["run_id"]]:
        doc = yaml.safe_load((RAW / r / "journal.json").read_text())  # JSON is YAML
        assert doc["options"]["duration_s"] == 60, r


# issue P: YCSB workload A on RocksDB reading buffered under a 384 MiB memory cap (the JVM, RocksDB and the page
# cache), 4 M records loaded once per filesystem into an image each repeat starts from a copy of; 120-s runs (30-s
# warm-up, 90-s window), the trace kept for 3 s inside the window; ext4, xfs and btrfs, traced and untraced, 3
# repeats, one recorded order. A batch stopped at its deadline may be partial: the runs captured are checked whole.
CAPPED_MEM = "round4-rocksdb-capped"
CAPPED_MEM_BUDGET = 45 << 20  # measured on the ext4 pilot: 3 s of trace ~3.5 MB zstd, the logs ~0.15 MB a run


def test_memory_capped_batch_in_the_sheet_and_its_order():
    from blkscope.capture.memcap import parse
    from blkscope.capture.order import check, read

    sheet = load_runs(ROOT / "config/runs.tsv")
    runs = sheet.filter(pl.col("batch") == CAPPED_MEM)
    assert set(runs["job"]) == {"workloada-zipfian-buffered-sat"} and set(runs["runtime_s"]) == {120}
    assert {parse(c) for c in runs["memory_cap"]} == {384 << 20}
    for fs in ("ext4", "xfs", "btrfs"):
        for traced in (True, False):
            sel = runs.filter((pl.col("filesystem") == fs) & (pl.col("traced") == traced))
            assert sorted(sel["repeat"]) == [1, 2, 3], (fs, traced)
    check(sheet, read(ROOT / "config/capture_order.tsv"), batches={CAPPED_MEM})


def test_memory_capped_batch_captured(manifest):
    from blkscope.capture.order import read

    runs = manifest.join(load_runs(ROOT / "config/runs.tsv").filter(pl.col("batch") == CAPPED_MEM)
                         .select("run_id"), on="run_id")  # fmt: skip
    if runs.is_empty():
        pytest.skip(f"batch {CAPPED_MEM} not captured")
    order = read(ROOT / "config/capture_order.tsv").filter(pl.col("batch") == CAPPED_MEM).sort("position")
    captured = set(runs["run_id"])
    first = [r for r in order["run_id"] if r in captured]
    assert first == list(order["run_id"][: len(first)]), "a partial batch is a prefix of its order"
    meta = [yamlio.load((RAW / r / "run.yaml").read_text()) for r in first]
    for before, after in zip(meta, meta[1:], strict=False):
        assert before["end_utc"] < after["lock"]["acquired_utc"], after["run_id"]
    images: dict[str, str] = {}
    for m in meta:
        mem, img = m["memory_cap"], m["image"]
        assert mem["removed"] and mem["limit_bytes"] == 384 << 20 and mem["oom_kill"] == 0, m["run_id"]
        assert 0 < mem["max_usage_bytes"] <= mem["limit_bytes"], m["run_id"]
        # each repeat starts from the same bytes: one image per filesystem, every copy's hash the image's
        assert img["copy_sha256"] == img["sha256"] == images.setdefault(m["filesystem"]["type"], img["sha256"])
        assert img["allocated_bytes"] > 10 * mem["limit_bytes"], m["run_id"]  # data > 10x the cap
        if m["run"]["traced"]:
            w = m["tracer"]["window"]
            assert (w["offset_s"], w["length_s"]) == (60, 3) and w["kept"] == m["tracer"]["events"] > 0
            assert m["tracer"]["dropped_total"] == 0 and w["before"] + w["after"] > 0, m["run_id"]
    assert runs["bytes"].sum() <= CAPPED_MEM_BUDGET


# issue P item 3: the cache sweep, batch round4-sweep (config/claims_plan.yaml `descriptive`, P-sweep): YCSB workload
# A on RocksDB on ext4, traced, 180-s runs keeping 1 s of trace at 120 s, 3 repeats. Buffered reads under a memory
# cap at 4 M, 400 k and 40 k records, and O_DIRECT reads with RocksDB's block cache at 0.079x the data at each.
# The order is drawn by the coordinator just before the capture; until then the batch waits, uncaptured.
SWEEP = "round4-sweep"
SWEEP_GRID = {("buffered", 4_000_000): {"6G", "1536M", "640M", "320M"}, ("buffered", 400_000): {"640M", "320M"},
              ("buffered", 40_000): {"320M"}, **{("direct", n): {None} for n in (4_000_000, 400_000, 40_000)}}
SWEEP_BUDGET = 35_000_000  # bytes as git stores them (issue P: data/raw up to 200 MB; ~152 MB before the sweep)
CAPPED_2_EXT4 = "host-ext4-ycsb-workloada-zipfian-buffered-sat-long-mem320m-r{}"


def _sweep_rows() -> pl.DataFrame:
    """The sweep's sheet rows with the options their jobs give the capture (record count, read path, window)."""
    from blkscope.capture.workloads.ycsb import DEFAULTS, JOBS

    rows = []
    for r in load_runs(ROOT / "config/runs.tsv").filter(pl.col("batch") == SWEEP).iter_rows(named=True):
        o = {**DEFAULTS, **JOBS[r["job"]]}
        rows.append(r | {"records": o["recordcount"], "direct": o["rocksdb.directreads"],
                         "window": o["trace_window_s"], "blockcache_mb": o["rocksdb.blockcachemb"],
                         "record_bytes": o["fieldcount"] * o["fieldlength"]})
    return pl.DataFrame(rows)


def _capped_2_ext4() -> list[dict]:
    return [yamlio.load((RAW / CAPPED_2_EXT4.format(k) / "run.yaml").read_text()) for k in (1, 2, 3)]


def test_cache_sweep_in_the_sheet():
    from blkscope.capture.memcap import parse
    from blkscope.capture.order import check, read, uncaptured_batches

    runs = _sweep_rows()
    assert set(runs["filesystem"]) == {"ext4"} and set(runs["testbed"]) == {"loop"} and runs["traced"].all()
    assert set(runs["runtime_s"]) == {180} and runs["window"].to_list() == [[120, 1]] * runs.height
    assert set(runs["record_bytes"]) == {1000}
    grid: dict = {}
    for r in runs.iter_rows(named=True):
        key = ("direct" if r["direct"] else "buffered", r["records"])
        grid.setdefault(key, {}).setdefault(r["memory_cap"], []).append(r["repeat"])
    assert {k: set(v) for k, v in grid.items()} == SWEEP_GRID
    assert all(sorted(reps) == [1, 2, 3] for caps in grid.values() for reps in caps.values())
    data = lambda n: n * 1000  # noqa: E731  records x record size
    # the memory cap from above the data down to <= 1/10 of it, >= 4 points, at 4 M records
    at_4m = sorted(parse(c) / data(4_000_000) for c in grid["buffered", 4_000_000])
    assert len(at_4m) >= 4 and at_4m[0] <= 0.1 and at_4m[-1] > 1
    # >= 3 record counts over >= 100x; at each the cache holds the data at one point at least
    counts = sorted(set(runs["records"]))
    assert len(counts) >= 3 and counts[-1] / counts[0] >= 100
    assert all(max(parse(c) for c in grid["buffered", n]) > data(n) for n in counts)
    # RocksDB's block cache (O_DIRECT reads, no cap) at one fraction of the data, <= 1/10, at every record count
    direct = runs.filter(pl.col("direct"))
    ratios = {b * (1 << 20) / data(n) for n, b in direct.select("records", "blockcache_mb").unique().iter_rows()}
    assert len(ratios) == 1 and ratios.pop() <= 0.1 and direct["memory_cap"].is_null().all()
    # the page cache the buffered reads meet (the cap less the JVM's and RocksDB's memory, as measured in the 320 MiB
    # runs of round4-rocksdb-capped-2) is about the same fraction of the data at 4 M / 1,536 MiB and 400 k / 320 MiB
    anon = sum(m["memory_cap"]["snapshots"]["trace_window_start"]["stat"]["total_rss"] for m in _capped_2_ext4()) / 3
    page_cache = lambda cap, n: (parse(cap) - anon) / data(n)  # noqa: E731
    assert 0.9 < page_cache("1536M", 4_000_000) / page_cache("320M", 400_000) < 1.1
    sheet = load_runs(ROOT / "config/runs.tsv")
    order = read(ROOT / "config/capture_order.tsv")
    if SWEEP in set(order["batch"]):
        check(sheet, order, batches={SWEEP})
    else:
        assert SWEEP in uncaptured_batches(sheet, RAW), "a sweep run was captured without a recorded order"


def test_cache_sweep_fits_its_budget_by_the_plans_estimate():
    """The plan's bytes: the 320 MiB traces of round4-rocksdb-capped-2 on ext4 (a saturated device, the densest
    trace per second here) per second of kept window, times the sweep's 1 s, plus each run's logs as git stores
    them (zlib), for the sweep's 30 runs."""
    import zlib

    rate = max((RAW / m["run_id"] / "trace.txt.zst").stat().st_size / m["tracer"]["window"]["length_s"]
               for m in _capped_2_ext4())  # fmt: skip
    logs = max(sum(len(zlib.compress(f.read_bytes(), 6)) for f in (RAW / m["run_id"]).iterdir() if f.suffix != ".zst")
               for m in _capped_2_ext4())  # fmt: skip
    runs = _sweep_rows()
    estimate = sum(rate * w[1] + logs for w in runs["window"])
    assert 1.0e6 < rate < 1.2e6 and estimate <= SWEEP_BUDGET, (rate, logs, estimate)


def test_cache_sweep_captured_runs_are_whole(manifest):
    """Each captured run of the sweep (none before its capture) holds its logs and trace, kept the window its job
    asks, held the cap the sheet asks (or none), lost no event, and the batch stays within its budget."""
    from blkscope.capture.memcap import parse

    sweep = _sweep_rows()
    runs = manifest.join(sweep.select("run_id"), on="run_id")
    files = set(runs["file"])
    for r in sweep.filter(pl.col("run_id").is_in(runs["run_id"].unique().to_list())).iter_rows(named=True):
        need = ("run.yaml", "iostat.json", "ycsb-load.txt", "ycsb-run.txt", "trace.txt.zst")
        assert all(f"{r['run_id']}/{n}" in files for n in need), r["run_id"]
        m = yamlio.load((RAW / r["run_id"] / "run.yaml").read_text())
        w = m["tracer"]["window"]
        assert (w["offset_s"], w["length_s"]) == (120, 1) and w["kept"] == m["tracer"]["events"] > 0, r["run_id"]
        assert m["tracer"]["dropped_total"] == 0 and m["image"]["copy_sha256"] == m["image"]["sha256"], r["run_id"]
        cap = m.get("memory_cap")
        assert (cap["limit_bytes"] if cap else None) == (parse(r["memory_cap"]) if r["memory_cap"] else None)
        assert m["workload"]["options"]["recordcount"] == r["records"]
    assert runs["bytes"].filter(runs["file"].str.ends_with(".zst")).sum() <= SWEEP_BUDGET
