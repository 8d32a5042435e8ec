"""YCSB on Cassandra without a node: the three phases' YCSB commands (the binding's properties, workload A, the
read-only phase and its name), the same phases as RocksDB's comparison job, and the dry run's order; the capped
job's node inside the memory cap and its client outside, its image's key, and the failed operations that refuse
a run."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope.capture import memcap, workloads
from blkscope.capture.run import describe, make_plan
from blkscope.capture.workloads import cassandra_node, cassandra_ycsb, ycsb

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
JOB = "workloada-c-zipfian-sat"


def _row(workload: str = "cassandra-ycsb", job: str = JOB, **kw) -> dict:
    return {"run_id": "t", "workload": workload, "job": job, "device_mb": 2048, "runtime_s": 60, "repeat": 1, **kw}


def _props(cmd: list[str]) -> dict[str, str]:
    pairs = [cmd[i + 1].split("=", 1) for i, a in enumerate(cmd) if a == "-p"]
    return {k: v for k, v in pairs}  # later -p wins, as in YCSB's Client


def test_phases_and_the_binding():
    w = workloads.load(_row(commitlog_compression="LZ4"), TOOLS)
    assert w.options["commitlog_compression"] == "LZ4" and w.options["threads"] == 32
    load, run, read = (w.command(p, 9042) for p in ("load", "run", "read"))
    assert load[load.index("site.ycsb.Client") + 1] == "-load" and "maxexecutiontime" not in _props(load)
    for cmd in (load, run, read):
        assert cmd[cmd.index("-db") + 1] == "org.blkscope.ycsb.CassandraClient" and "-target" not in cmd
        p = _props(cmd)
        assert (p["hosts"], p["port"], p["recordcount"]) == ("127.0.0.1", "9042", "300000")
        assert p["cassandra.readconsistencylevel"] == p["cassandra.writeconsistencylevel"] == "ONE"
        assert cmd[cmd.index("-threads") + 1] == "32"
    a, c = _props(run), _props(read)
    assert (a["readproportion"], a["updateproportion"], a["requestdistribution"]) == ("0.5", "0.5", "zipfian")
    assert a["maxexecutiontime"] == "60" and "blkscope.phase" not in a
    assert (c["readproportion"], c["updateproportion"], c["blkscope.phase"]) == ("1", "0", "read")
    assert w.outputs[:3] == ("ycsb-load.txt", "ycsb-run.txt", "ycsb-read.txt") and "filefrag.txt" in w.outputs
    classpath = load[load.index("-cp") + 1]
    assert "ycsb-cassandra" in classpath and "tools/cassandra/" not in classpath  # apart from the node's 3.x driver


def test_rocksdb_runs_the_same_phases():
    cass = workloads.load(_row(), TOOLS)
    rocks = workloads.load(_row("ycsb"), TOOLS)
    assert rocks.outputs == ("ycsb-load.txt", "ycsb-run.txt", "ycsb-read.txt")
    skip = {"hosts", "port", "rocksdb.dir"}
    for phase in ("load", "run", "read"):
        c, r = _props(cass.command(phase, 9042)), _props(rocks.command("/m", phase))
        common = {k: v for k, v in c.items() if not k.startswith(("cassandra.", "rocksdb.")) and k not in skip}
        assert common == {k: v for k, v in r.items() if k in common}, phase
        assert "-target" not in rocks.command("/m", phase)
        assert _props(rocks.command("/m", phase))["rocksdb.directreads"] == "false"  # the page cache, as Cassandra
    # the measured warm-up, recorded in both runs' options, dropped alike by an analysis
    assert cass.options["warmup_s"] == rocks.options["warmup_s"] and cass.options["warmup_s"]["run"] < 240
    # the existing jobs keep their two phases and their logs
    assert workloads.load(_row("ycsb", "workloada-zipfian-sat"), TOOLS).outputs == ycsb.OUTPUTS


def test_dry_run_order(tmp_path):
    sheet = tmp_path / "runs.tsv"
    row = {**_row(), "study": "ssd", "database": "cassandra", "filesystem": "btrfs", "mkfs_options": "-f -q",
           "mount_options": "noatime", "testbed": "loop", "tracer": "tracefs-blk", "traced": True}  # fmt: skip
    pl.DataFrame([row]).write_csv(sheet, separator="\t")
    text = describe(make_plan(sheet, "t", tmp_path / "out", fio_dir=tmp_path, workdir=tmp_path / "w", allowed=[]))
    at = [text.index(s) for s in ("> ycsb-load.txt", "current_tracer=blk", "> ycsb-run.txt", "trace/enable=0",
                                  "iostat: SIGINT", "> ycsb-read.txt", "filefrag -v", "stop Cassandra by PID",
                                  "teardown")]  # fmt: skip
    assert at == sorted(at)


CAPPED = "workloada-zipfian-capped"


def _capped_plan(tmp_path: Path, job: str = CAPPED):
    sheet = tmp_path / "runs.tsv"
    row = {**_row(job=job), "study": "ssd", "database": "cassandra", "filesystem": "xfs", "mkfs_options": "-f -q",
           "mount_options": "noatime", "testbed": "loop", "tracer": "tracefs-blk", "traced": True,
           "memory_cap": "768M", "runtime_s": 240}  # fmt: skip
    pl.DataFrame([row]).write_csv(sheet, separator="\t")
    return make_plan(sheet, "t", tmp_path / "out", fio_dir=tmp_path, workdir=tmp_path / "w", allowed=[])


def test_capped_job_starts_the_node_inside_the_cap_and_the_client_outside(tmp_path):
    plan = _capped_plan(tmp_path)
    w = plan.workload
    assert w.load_once and w.options["read_s"] == 0 and w.options["threads"] == 32
    assert ycsb.READ_LOG not in w.outputs and {"cassandra-load.yaml", "cassandra-load-node.log.zst"} <= set(w.outputs)
    w.cap = memcap.MemCap(768 << 20, "cgroup-v1-memory", Path("/sys/fs/cgroup/memory/blkscope-mem-test"))
    node = w.new_node(tmp_path)
    cmd = w.wrapped(node.command("/m", heap=cassandra_node.heap(w.options["node_heap_mb"])))
    assert cmd[:4] == [*memcap.WRAPPER, "/sys/fs/cgroup/memory/blkscope-mem-test/cgroup.procs"]
    assert memcap.tool(cmd) == "java" and "-Xmx192m" in cmd and cassandra_node.MAIN in cmd
    assert w.command("run", 9042)[0] == "java"  # the client: never wrapped
    # the run's node has the capped settings; the image's loading node Cassandra's defaults
    ports = {"native": 1, "storage": 2}
    run, load = (cassandra_node.config(Path("/m"), o, ports) for o in (w.options, w.load_node_options()))
    assert run["memtable_heap_space"] == "48MiB" and run["file_cache_enabled"] is False and run["row_cache_size"]
    assert run["disk_access_mode"] == "standard"  # no mmap: the group can reclaim every page-cache page
    assert not {"memtable_heap_space", "file_cache_enabled", "key_cache_size"} & set(load)
    assert load["commitlog_sync_period"] == run["commitlog_sync_period"] == "10000ms"
    text = describe(plan)
    at = [text.index(s) for s in ("image ", "memory cap (", "heap 192 MiB, inside the memory cap", "current_tracer=blk",
                                  "> ycsb-run.txt", "filefrag -v", "stop Cassandra by PID", "teardown")]  # fmt: skip
    assert at == sorted(at) and "> ycsb-read.txt" not in text and "mkfs.xfs" not in text  # mkfs: in the image


def test_image_key_is_the_load_not_the_run(tmp_path):
    tools = tmp_path / "tools"
    (tools / "cassandra").mkdir(parents=True)
    (tools / "cassandra" / "pom.xml").write_bytes((TOOLS / "cassandra" / "pom.xml").read_bytes())
    jar = tools / "ycsb-cassandra" / "target" / "ycsb-cassandra.jar"
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"hand-made stand-in for the binding's jar: only its hash enters the key")
    row = _row(job=CAPPED, memory_cap="768M")
    key = workloads.load(row, tools).image_key()
    assert key["node_heap"] == list(cassandra_node.HEAP) and "recordcount=7000000" in key["load_command"]
    assert "memtable_heap_space" not in key["cassandra_yaml"] and "PORT" in str(key["cassandra_yaml"])
    # the run's heap, cache settings, length and cap do not change the image; the records and the jar do
    other = workloads.load({**row, "runtime_s": 600, "memory_cap": "1G"}, tools)
    other.options |= {"node_heap_mb": 512, "node_yaml": {"key_cache_size": "0MiB"}}
    assert other.image_key() == key
    assert workloads.load(_row(job=f"{CAPPED}-small"), tools).image_key() != key
    jar.write_bytes(b"hand-made stand-in, rebuilt")
    assert workloads.load(row, tools).image_key()["jar_sha256"] != key["jar_sha256"]


def test_failed_operations_of_real_reports():
    fix = ROOT / "tests/fixtures/ycsb"
    failed, done = cassandra_ycsb.failed_operations(fix / "run_workloada_cassandra_gc_collapse_report.txt")
    assert (failed, done) == (3_331_196 + 3_329_103, 3_331_196 + 3_329_103 + 64_004 + 63_479)
    assert cassandra_ycsb.failed_operations(fix / "run_workloadc_cassandra_phase_read.txt")[0] == 0
    assert workloads.load(_row(job=CAPPED), TOOLS).options["max_failed_fraction"] == 0.01


def test_the_long_70k_sweep_job_keeps_the_whole_steady_window():
    """The 70 k sweep point run again (its 2-s windows held 20-116 events): the same job but for the trace, which
    keeps everything after the warm-up to the 180-s run's end; the same image (the load is the same)."""
    jobs = cassandra_ycsb.JOBS
    short, long = jobs["workloada-zipfian-capped-sweep-70k"], jobs["workloada-zipfian-capped-sweep-70k-long"]
    assert {k: v for k, v in long.items() if k != "trace_window_s"} == {
        k: v for k, v in short.items() if k != "trace_window_s"}  # fmt: skip
    start, length = long["trace_window_s"]
    assert start == long["warmup_s"]["run"] and start + length == 180 and length >= 60 > short["trace_window_s"][1]
    row = _row(job="workloada-zipfian-capped-sweep-70k-long", runtime_s=180)
    key = lambda job: workloads.load({**row, "job": job}, TOOLS).image_key()["load_command"]  # noqa: E731
    assert key("workloada-zipfian-capped-sweep-70k-long") == key("workloada-zipfian-capped-sweep-70k")
