"""Workloads without hardware: job -> options -> command lines, the dry run, outputs per workload, running a tool
to a file, and the journal writer itself (compiled with gcc, run for a fraction of a second in a temp dir)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from requires import require

from blkscope.capture import workloads
from blkscope.capture.run import make_plan
from blkscope.capture.workloads import journal, ycsb
from blkscope.capture.workloads.base import run_to_file

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
MNT = Path("/mnt/x")


def _row(workload: str, job: str, **kw) -> dict:
    row = {"run_id": "t", "workload": workload, "job": job, "device_mb": 1024, "runtime_s": 20, "repeat": 2}
    return {**row, **kw}


def test_unknown_workload_and_job_are_refused():
    with pytest.raises(ValueError, match="not implemented"):
        workloads.load(_row("mongodb", "x"), TOOLS)
    with pytest.raises(ValueError, match="job 'rndwr' unknown"):
        workloads.load(_row("sysbench", "rndwr"), TOOLS)


def test_outputs_per_workload():
    assert workloads.outputs("fio") == ("fio.json",)
    assert workloads.outputs("sysbench") == ("sysbench.txt",)
    assert workloads.outputs("journal") == ("journal.json",)
    assert workloads.outputs("ycsb") == ("ycsb-load.txt", "ycsb-run.txt")


def test_sysbench_mysql_study_options_scaled_to_the_device():
    w = workloads.load(_row("sysbench", "rndrw", device_mb=2048), TOOLS)
    o = w.options
    assert (o["threads"], o["file_test_mode"], o["file_total_size_mb"], o["time_s"], o["rand_seed"]) == (
        4,
        "rndrw",
        512,
        20,
        2,
    )
    run, prep = w.run_command(), w.prepare_command()
    assert run[:2] == ["sysbench", "fileio"] and run[-1] == "run" and prep[-1] == "prepare"
    for flag in ("--threads=4", "--time=20", "--rate=300", "--file-extra-flags=direct", "--file-total-size=512M"):
        assert flag in run, flag
    layout = [a for a in prep if a.startswith("--file-")]
    assert all(a in run for a in layout), "prepare and run must agree on the file layout"
    assert "--rate=0" in workloads.load(_row("sysbench", "rndrw-max"), TOOLS).run_command()
    # the volume-size job lays out the same 256 MiB on a 16 TiB device as on 2 TiB, unthrottled
    for mb in (2 << 20, (16 << 20) - 1):
        big = workloads.load(_row("sysbench", "rndrw-max-256m", device_mb=mb), TOOLS).run_command()
        assert "--file-total-size=256M" in big and "--rate=0" in big


@pytest.mark.parametrize("job", sorted(journal.JOBS))
def test_journal_jobs(job):
    w = workloads.load(_row("journal", job, runtime_s=10), TOOLS)
    cmd = w.command(MNT)
    mode = job.removesuffix("-reader")
    assert cmd[0] == str(TOOLS / "journal/target/journal")
    assert cmd[cmd.index("--mode") + 1] == mode and cmd[cmd.index("--duration") + 1] == "10"
    assert cmd[cmd.index("--file") + 1] == str(MNT / journal.FILE)
    assert ("--reader" in cmd) == job.endswith("-reader")
    assert cmd[cmd.index("--seed") + 1] == "2"
    plan = w.describe(MNT)
    assert "--phase prepare" in plan[1] and "untraced" in plan[1] and "--phase run" in plan[2]


def test_journal_modes_cover_the_study():
    assert sorted(journal.JOBS) == sorted(
        ["none", "none-reader", "sparse", "sparse-reader", "prealloc", "prealloc-reader"]
    )


def test_ycsb_workloada_zipfian_properties():
    w = workloads.load(_row("ycsb", "workloada-zipfian", runtime_s=15), TOOLS)
    load, run = w.command(MNT, "load"), w.command(MNT, "run")
    props = dict(run[i + 1].split("=", 1) for i, a in enumerate(run) if a == "-p")
    assert props["recordcount"] == "200000" and props["requestdistribution"] == "zipfian"
    assert props["readproportion"] == props["updateproportion"] == "0.5"
    assert int(props["fieldcount"]) * int(props["fieldlength"]) == 1000
    assert props["rocksdb.dir"] == str(MNT / "rocksdb") and props["rocksdb.directreads"] == "true"
    assert props["maxexecutiontime"] == "15" and run[run.index("-target") + 1] == "1000"
    assert "-load" in load and "-t" in run and "maxexecutiontime=15" not in " ".join(load)
    assert run[run.index("-db") + 1] == ycsb.BINDING and "site.ycsb.Client" in run
    assert str(TOOLS / "ycsb-rocksdb/target/ycsb-rocksdb.jar") in w.classpath


def test_ycsb_summary_reads_overall_throughput():
    s = ycsb.summary(ROOT / "tests/fixtures/ycsb/run_workloada_basicdb_status.txt")
    assert s["overall_throughput"] > 0 and s["read_operations"] + s["update_operations"] == 3000


def _sheet(tmp_path: Path, workload: str, job: str, traced: bool) -> Path:
    row = {"run_id": "w1", "study": "t", "database": "none", "workload": workload, "job": job, "filesystem": "xfs",
           "mkfs_options": "-f -q", "mount_options": "noatime,inode64", "testbed": "loop",
           "tracer": "tracefs-blk" if traced else "none", "traced": traced, "repeat": 1, "device_mb": 1024,
           "runtime_s": 5}  # fmt: skip
    path = tmp_path / "runs.tsv"
    pl.DataFrame([row]).write_csv(path, separator="\t")
    return path


@pytest.mark.parametrize(
    ("workload", "job", "traced", "expected"),
    [
        ("sysbench", "rndrw", True, ["trace.txt.zst", "iostat.json", "sysbench.txt", "run.yaml"]),
        ("journal", "sparse-reader", False, ["iostat.json", "journal.json", "run.yaml"]),
        ("ycsb", "workloada-zipfian", True, ["trace.txt.zst", "iostat.json", "ycsb-load.txt", "ycsb-run.txt",
                                              "run.yaml"]),
    ],
)  # fmt: skip
def test_plan_outputs_and_dry_run(tmp_path, monkeypatch, capsys, workload, job, traced, expected):
    def forbidden(*a, **k):
        raise AssertionError(f"dry run started a process: {a}")

    sheet = _sheet(tmp_path, workload, job, traced)
    plan = make_plan(sheet, "w1", tmp_path / "out", fio_dir=tmp_path, workdir=tmp_path / "w", allowed=[],
                     tools_dir=TOOLS)  # fmt: skip
    assert plan.outputs == expected and plan.jobfile is None
    monkeypatch.setattr(subprocess, "Popen", forbidden)
    from blkscope.cli import main

    args = ["capture", "--runs", str(sheet), "--run-id", "w1", "-o", str(tmp_path / "out"), "--dry-run"]
    assert main([*args, "--workdir", str(tmp_path / "w"), "--tools-dir", str(TOOLS)]) == 0
    text = capsys.readouterr().out
    assert "fio" not in text and ("current_tracer=blk" in text) == traced
    assert {"sysbench": "sysbench fileio", "journal": "--phase run", "ycsb": "site.ycsb.Client"}[workload] in text
    assert not (tmp_path / "out").exists() and not (tmp_path / "w").exists()


def test_run_to_file_output_errors_and_timeout(tmp_path):
    out = tmp_path / "o.txt"
    run_to_file([sys.executable, "-c", "print('a'); import sys; print('b', file=sys.stderr)"], out)
    run_to_file([sys.executable, "-c", "print('c')"], out, append=True)
    assert out.read_text().split() == ["a", "b", "c"]
    err = run_to_file([sys.executable, "-c", "import sys; print('e', file=sys.stderr)"], out, stderr_to_out=False)
    assert err.strip() == "e" and out.read_text() == ""
    with pytest.raises(RuntimeError, match="exit 3: boom"):
        run_to_file([sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"], out)
    with pytest.raises(RuntimeError, match="did not finish"):
        run_to_file([sys.executable, "-c", "import time; time.sleep(30)"], out, timeout_s=0.5)


def test_run_to_file_stops_the_tool_when_its_watch_says_so(tmp_path):
    """A client whose server died is stopped within a second or two, not at its own end (here 60 s)."""
    out, server = tmp_path / "o.txt", subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.5)"])
    died = lambda: None if server.poll() is None else f"server exited ({server.returncode})"  # noqa: E731
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"stopped: server exited \(0\)"):
        run_to_file([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"], out, watch=died)
    assert time.monotonic() - t0 < 20 and out.read_text().startswith("up\n")  # then Python's SIGINT traceback
    # a watch that never fires leaves the tool to finish, its output whole
    run_to_file([sys.executable, "-c", "import time; time.sleep(1.2); print('done')"], out, watch=lambda: None)
    assert out.read_text() == "done\n"


def test_journal_summary_rejects_bad_json(tmp_path):
    p = tmp_path / "journal.json"
    p.write_text('{"tool": "blkscope-journal"')
    with pytest.raises(RuntimeError, match="invalid"):
        journal.summary(p)


# --- the journal writer program itself (gcc, no root) ----------------------------------------------------------


@pytest.fixture(scope="module")
def journal_bin(tmp_path_factory) -> Path:
    require("gcc")
    binary = tmp_path_factory.mktemp("build") / "journal"
    subprocess.run(["gcc", *journal.CFLAGS, "-o", str(binary), str(TOOLS / "journal/journal.c")], check=True)
    return binary


def _journal(binary: Path, path: Path, *args: str) -> dict | None:
    base = [str(binary), "--file", str(path), "--duration", "0.2", "--rate", "2000", "--record", "512"]
    out = subprocess.run([*base, *args], capture_output=True, text=True, check=True).stdout
    return json.loads(out) if out.strip() else None


def test_journal_prepare_phase_per_mode(journal_bin, tmp_path):
    size = 400 * 512  # rate x duration x record
    f = tmp_path / "j"
    assert _journal(journal_bin, f, "--mode", "none", "--phase", "prepare") is None
    assert not f.exists(), "none: the run creates the file"
    _journal(journal_bin, f, "--mode", "sparse", "--phase", "prepare")
    assert f.stat().st_size == size and f.stat().st_blocks == 0, "sparse: size set, no blocks"
    _journal(journal_bin, f, "--mode", "prealloc", "--phase", "prepare")
    assert f.stat().st_size == size and f.stat().st_blocks * 512 >= size, "prealloc: blocks allocated"
    assert f.read_bytes() == bytes(size), "prealloc: filled with zeros"


@pytest.mark.parametrize("mode", ["none", "sparse", "prealloc"])
def test_journal_run_histogram_is_consistent(journal_bin, tmp_path, mode):
    f = tmp_path / "j"
    _journal(journal_bin, f, "--mode", mode, "--phase", "prepare")
    doc = _journal(journal_bin, f, "--mode", mode, "--sync-every", "50", "--reader", "--read-rate", "5000",
                   "--phase", "run")  # fmt: skip
    assert doc["tool"] == "blkscope-journal" and doc["options"]["mode"] == mode
    assert f.stat().st_size == 400 * 512
    counts = {op: d["count"] for op, d in doc["latency"].items()}
    assert counts["write"] == 400 and counts["fdatasync"] == 8 and counts["read"] > 0
    for d in doc["latency"].values():
        assert sum(b[2] for b in d["histogram"]) == d["count"]
        assert d["min_ns"] <= d["p50_ns"] <= d["p99_ns"] <= d["p9999_ns"] <= d["max_ns"]
        assert all(lo < hi for lo, hi, _ in d["histogram"])


def test_journal_refuses_bad_options(journal_bin, tmp_path):
    p = subprocess.run([str(journal_bin), "--file", str(tmp_path / "j"), "--mode", "dense"], capture_output=True)
    assert p.returncode == 2 and b"usage" in p.stdout
    assert os.listdir(tmp_path) == []
