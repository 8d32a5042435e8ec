"""YCSB on Cassandra without a node: the three phases' YCSB commands (the binding's properties, workload A, the
read-only phase and its name), the same phases as RocksDB's comparison job, and the dry run's order."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope.capture import workloads
from blkscope.capture.run import describe, make_plan
from blkscope.capture.workloads import ycsb

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
