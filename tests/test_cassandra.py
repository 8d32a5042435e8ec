"""The Cassandra workload without a node: options from the runs sheet, cassandra.yaml, the cassandra-stress and
CQL-client commands, the dry run, cassandra-stress's Results block from a log captured here, the build of
cassandra-stress from a configured Apache Cassandra source tree (skipped, with the reason, when none is), and
nodetool's pending compactions from its real output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from blkscope.capture import workloads
from blkscope.capture.run import describe, make_plan
from blkscope.capture.workloads import cassandra, cassandra_node, cassandra_stress

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
RAW = ROOT / "data" / "raw"


def _row(job: str = "write", workload: str = "cassandra", **kw) -> dict:
    row = {"run_id": "t", "workload": workload, "job": job, "device_mb": 2048, "runtime_s": 20, "repeat": 2}
    return {**row, **kw}


def test_commitlog_options_from_the_sheet_with_defaults():
    o = workloads.load(_row(commitlog_compression="LZ4", commitlog_segment_mb=16), TOOLS).options
    assert (o["commitlog_compression"], o["commitlog_segment_mb"]) == ("LZ4", 16)
    assert (o["commitlog_sync_period_ms"], o["commitlog_disk_access_mode"]) == (10000, "legacy")
    assert o["duration_s"] == 20 and o["threads"] == 54  # the write load: 54 client threads
    assert workloads.load(_row("mixed"), TOOLS).options["threads"] == 32  # the SSD study's
    with pytest.raises(ValueError, match="commitlog_compression 'zstd'"):
        workloads.load(_row(commitlog_compression="zstd"), TOOLS)
    with pytest.raises(ValueError, match="job 'read' unknown"):
        workloads.load(_row("read"), TOOLS)


def test_cassandra_yaml_puts_commitlog_and_data_on_the_filesystem_under_test():
    mnt, ports = Path("/mnt/x"), {"native": 1, "storage": 2, "jmx": 3}
    lz4 = workloads.load(_row(commitlog_compression="LZ4"), TOOLS).options
    c = cassandra_node.config(mnt, lz4, ports)
    assert c["commitlog_directory"] == "/mnt/x/commitlog" and c["data_file_directories"] == ["/mnt/x/data"]
    assert all(str(c[k]).startswith("/mnt/x/") for k in ("hints_directory", "saved_caches_directory"))
    assert c["commitlog_compression"] == [{"class_name": "LZ4Compressor"}]
    sync = (c["commitlog_sync"], c["commitlog_sync_period"], c["commitlog_segment_size"])
    assert sync == ("periodic", "10000ms", "32MiB")
    assert (c["listen_address"], c["rpc_address"], c["native_transport_port"]) == ("127.0.0.1", "127.0.0.1", 1)
    plain = cassandra_node.config(mnt, workloads.load(_row(), TOOLS).options, ports)
    assert "commitlog_compression" not in plain  # omitted = uncompressed (Cassandra has no "none" compressor)
    assert not [k for k in plain if k.endswith("timeout")]  # Cassandra's own timeouts unless the sheet names one
    patient = cassandra_node.config(mnt, workloads.load(_row(request_timeout_ms="60000"), TOOLS).options, ports)
    timeouts = {k: v for k, v in patient.items() if k.endswith("request_timeout")}
    assert timeouts == {k: "60000ms" for k in ("read_request_timeout", "write_request_timeout", "request_timeout",
                                                 "range_request_timeout", "counter_write_request_timeout")}


def test_free_ports_are_distinct_and_bindable():
    ports = cassandra_node.free_ports(3)
    assert len(set(ports)) == 3 and all(1024 <= p < 65536 for p in ports)


def test_stress_commands_write_with_default_schema_and_mixed_over_the_population():
    w = workloads.load(_row(), TOOLS)
    run = w.stress_args("run", 9042, 7199)
    assert run[:4] == ["write", "duration=20s", "cl=ONE", "no-warmup"] and "profile=" not in " ".join(run)
    assert run[run.index("-rate") + 1] == "threads=54" and "native=9042" in run and "jmx=7199" in run
    assert w.stress_args("prepare")[:2] == ["write", "n=20000"]
    m = workloads.load(_row("mixed"), TOOLS)
    run = m.stress_args("run")
    assert run[:2] == ["mixed", "ratio(write=1,read=1)"] and run[run.index("-pop") + 1] == "dist=uniform(1..100000)"
    assert m.stress_args("prepare")[:2] == ["write", "n=100000"]
    sweep = workloads.load(_row("write-threads", runtime_s=10), TOOLS)  # cassandra-stress's own thread sweep
    run, prep = sweep.stress_args("run"), sweep.stress_args("prepare")
    assert run[:2] == ["write", "duration=10s"] and run[run.index("-rate") + 1:run.index("-rate") + 3] == [
        "threads>=4", "threads<=54"]
    assert prep[prep.index("-rate") + 1] == "threads=24"  # its prepare as every other run's


def test_outputs_never_call_the_cql_client_cassandra_stress():
    assert workloads.outputs("cassandra") == ("cstress-prepare.txt", "cstress.txt", "cassandra.yaml",
                                               "cassandra-node.log.zst", "filefrag.txt")  # fmt: skip
    assert "cql-load.txt" in workloads.outputs("cassandra-cql")
    assert not any("cstress" in o for o in workloads.outputs("cassandra-cql"))
    cmd = workloads.load(_row("insert", "cassandra-cql", runtime_s=5), TOOLS).command(9042)
    assert cmd[-6:] == ["org.blkscope.cassandra.CqlLoad", "127.0.0.1", "9042", "5", "32", "2"]


def test_dry_run_of_a_sheet_row(tmp_path):
    sheet = tmp_path / "runs.tsv"
    row = {**_row(), "study": "commitlog", "database": "cassandra", "filesystem": "xfs", "mkfs_options": "-f -q",
           "mount_options": "noatime", "testbed": "loop", "tracer": "tracefs-blk", "traced": True,
           "commitlog_compression": "LZ4"}  # fmt: skip
    pl.DataFrame([row]).write_csv(sheet, separator="\t")
    plan = make_plan(sheet, "t", tmp_path / "out", fio_dir=tmp_path, workdir=tmp_path / "w", allowed=[])
    text = describe(plan)
    assert "commitlog: LZ4, 32 MiB segments, periodic 10000 ms" in text
    assert text.index("cstress-prepare.txt") < text.index("current_tracer=blk") < text.index("> cstress.txt")
    assert "stop Cassandra by PID, always" in text
    # a run that succeeded: after iostat, the node stopped, then its files' extents, then the unmount
    assert text.index("iostat: SIGINT") < text.index("filefrag -v") < text.index("teardown")
    assert plan.outputs == ["trace.txt.zst", "iostat.json", *workloads.outputs("cassandra"), "run.yaml"]


def test_results_block_of_a_captured_log():
    logs = sorted(RAW.glob("host-*-cassandra-write-*/cstress.txt"))
    if not logs:
        pytest.skip("no Cassandra run captured in data/raw")
    s = cassandra.summary(logs[0])
    assert s["op_rate"] > 0 and s["errors"] == 0 and s["latency_p99_ms"] >= s["latency_mean_ms"] > 0


def test_a_log_without_results_is_an_error(tmp_path):
    logs = sorted(RAW.glob("host-*-cassandra-write-*/cstress.txt"))
    if not logs:
        pytest.skip("no Cassandra run captured in data/raw")
    text = logs[0].read_text()
    cut = tmp_path / "handmade_cut_cstress.txt"
    cut.write_text(text[: text.index("Results:")])
    with pytest.raises(RuntimeError, match="no Results block"):
        cassandra.summary(cut)


def test_stress_missing_says_how_to_provide_it(monkeypatch):
    monkeypatch.delenv("BLKSCOPE_CASSANDRA_STRESS", raising=False)
    monkeypatch.delenv("BLKSCOPE_CASSANDRA_SOURCE", raising=False)
    assert "BLKSCOPE_CASSANDRA_SOURCE" in cassandra_stress.why_missing({})
    assert "does not exist" in cassandra_stress.why_missing({"cassandra_stress": "/nonexistent/cassandra-stress"})
    assert "no tools/stress/src" in cassandra_stress.why_missing({"cassandra_source": "/nonexistent"})
    with pytest.raises(RuntimeError, match="no cassandra-stress configured"):
        cassandra.Cassandra(_row(), TOOLS).build()  # refused before Maven or the lock


def test_source_version_and_commit_of_an_export(tmp_path):
    (tmp_path / "build.xml").write_text('<project>\n    <property name="base.version" value="5.0.2"/>\n</project>\n')
    (tmp_path / "COMMIT").write_text("f278f6774fc76465c182041e081982105c3e7dbb\n")
    info = cassandra_stress.source_info(tmp_path)
    assert info == {"source": str(tmp_path), "version": "5.0.2", "commit": "f278f6774fc76465c182041e081982105c3e7dbb"}


def test_stress_builds_from_the_configured_source(tmp_path):
    why = cassandra_stress.why_missing({})
    lib = TOOLS / "cassandra" / "target" / "lib"
    if why or shutil.which("javac") is None or not lib.is_dir():
        reason = why or "needs javac and tools/cassandra/target/lib (mvn -f tools/cassandra/pom.xml package)"
        print(f"skipped: {reason}")
        pytest.skip(reason)
    _, source = cassandra_stress.configured({})
    if source is None:
        pytest.skip("a binary cassandra-stress is configured; nothing to build")
    patch = TOOLS / "cassandra" / cassandra_stress.PATCH
    dest = cassandra_stress.build(Path(source), lib, patch, tmp_path / "cache")
    info = json.loads((dest / "build.json").read_text())
    assert (dest / "classes" / "org" / "apache" / "cassandra" / "stress" / "Stress.class").is_file()
    assert info["java_files"] > 100 and info["patch"] == cassandra_stress.PATCH and info["commit"]
    assert cassandra_stress.build(Path(source), lib, patch, tmp_path / "cache") == dest  # reused, not rebuilt


def test_every_cassandra_stress_log_of_the_dataset_ingests_without_warnings(tmp_path):
    """Including the prepare runs that had no garbage collection (`Avg GC time : NaN ms`, as Java prints it)."""
    from blkscope.ingest import run_ingest

    logs = sorted(RAW.glob("host-*-cassandra-*/cstress*.txt"))
    if not logs:
        pytest.skip("no Cassandra run captured in data/raw")
    nan_seen = False
    for i, log in enumerate(logs):
        report = run_ingest("cassandra-stress", [log], tmp_path / str(i))
        assert not report.warnings, (log, report.warnings)
        s = pl.read_parquet(tmp_path / str(i) / "cstress_summary.parquet")
        assert s.filter(pl.col("metric") == "Op rate")["value"].max() > 0, log
        nan_seen |= s.filter(pl.col("metric") == "Avg GC time")["value"].is_nan().any()
    assert nan_seen, "no log with NaN GC time: the case this guards is gone from the dataset"


def test_pending_compactions_of_real_nodetool_output():
    text = (ROOT / "tests/fixtures/cassandra/nodetool-compactionstats-5.0.9.txt").read_text()
    assert cassandra_node.pending_compactions(text) == 0  # not `compactions completed`'s 1
    busy = text.replace("pending tasks                    0", "pending tasks                    12")
    assert cassandra_node.pending_compactions(busy) == 12
    assert cassandra_node.pending_compactions("pending tasks: 3\n") == 3  # the layout before 5.0
    with pytest.raises(ValueError, match="no 'pending tasks' line"):
        cassandra_node.pending_compactions("nodetool: Failed to connect to '127.0.0.1:7199'\n")
