"""Capture without hardware: the allow-list, the dry run, signal handling, which runs the rules may produce,
and the committed dataset (data/raw) against the runs sheet. Hardware runs are in test_capture_root.py."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import polars as pl
import pytest
import yaml
import zstandard

from blkscope.capture import signals, targets
from blkscope.capture.order import waiting_runs
from blkscope.capture.run import OUTPUTS, make_plan, preflight
from blkscope.capture.safety import UnsafeDevice, check_device
from blkscope.cli import main
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
ORDER = ROOT / "config" / "capture_order.tsv"  # a batch is captured in this order, block by block
SHEET = ROOT / "config" / "runs.tsv"
RAW = ROOT / "data" / "raw"
RUNS = load_runs(SHEET)
RAW_BUDGET = 200 * 10**6  # the budget for data/raw (DESIGN.md 50 MB, issue G 100 MB, round 3 130 MB, issue P 200 MB)


def _fake_loop(sys_block: Path, name: str, backing: str | None) -> None:
    d = sys_block / name / "loop"
    d.mkdir(parents=True)
    if backing is not None:
        (d / "backing_file").write_text(backing + "\n")


# --- allow-list -----------------------------------------------------------------------------------------------


def test_refuses_host_disk(tmp_path):
    with pytest.raises(UnsafeDevice, match="/dev/vda"):
        check_device("/dev/vda", ours=tmp_path / "backing.img", sys_block=tmp_path)


def test_refuses_unlisted_device_and_accepts_listed_one(tmp_path):
    with pytest.raises(UnsafeDevice, match="allowed_devices"):
        check_device("/dev/sdb", ours=None, allowed=["/dev/sdc"], sys_block=tmp_path)
    assert "allow-listed" in check_device("/dev/sdc", ours=None, allowed=["/dev/sdc"], sys_block=tmp_path)


def test_loop_device_only_when_backed_by_our_file(tmp_path):
    ours = tmp_path / "backing.img"
    ours.touch()
    _fake_loop(tmp_path, "loop3", str(ours))
    _fake_loop(tmp_path, "loop4", "/home/someone/disk.img")
    _fake_loop(tmp_path, "loop5", None)
    assert "this run's file" in check_device("/dev/loop3", ours=ours, sys_block=tmp_path)
    for dev in ("/dev/loop4", "/dev/loop5", "/dev/loop6"):
        with pytest.raises(UnsafeDevice):
            check_device(dev, ours=ours, sys_block=tmp_path)
    with pytest.raises(UnsafeDevice):  # a loop device is never ours when we created no file
        check_device("/dev/loop3", ours=None, sys_block=tmp_path)


# --- plan, dry run, preflight ---------------------------------------------------------------------------------


def test_dry_run_prints_plan_and_touches_nothing(tmp_path, monkeypatch, capsys):
    def forbidden(*a, **k):
        raise AssertionError(f"dry run started a process: {a}")

    monkeypatch.setattr(subprocess, "Popen", forbidden)
    monkeypatch.chdir(ROOT)
    out, work = tmp_path / "out", tmp_path / "work"
    run_id = RUNS["run_id"][0]
    rc = main(["capture", "--run-id", run_id, "-o", str(out), "--workdir", str(work), "--dry-run"])
    assert rc == 0
    plan = capsys.readouterr().out
    for step in (
        "losetup --find --show",
        "mkfs.",
        "mount -t",
        "current_tracer=blk",
        "iostat -x -t -y -o JSON 1",
        "fio --output-format=json",
        "umount",
        "losetup --detach",
    ):
        assert step in plan, step
    assert not out.exists() and not work.exists()


def test_plan_refuses_unknown_run_and_unimplemented_testbed(tmp_path):
    with pytest.raises(ValueError, match="no run"):
        make_plan(SHEET, "no-such-run", tmp_path, fio_dir=ROOT / "config/fio", workdir=tmp_path, allowed=[])
    sheet = tmp_path / "runs.tsv"
    RUNS.head(1).with_columns(testbed=pl.lit("cloud")).write_csv(sheet, separator="\t")
    with pytest.raises(ValueError, match="testbed 'cloud'"):
        make_plan(sheet, RUNS["run_id"][0], tmp_path, fio_dir=ROOT / "config/fio", workdir=tmp_path, allowed=[])


def test_preflight_needs_root_and_keeps_existing_output(tmp_path, monkeypatch):
    out = tmp_path / "out"
    plan = make_plan(SHEET, RUNS["run_id"][0], out, fio_dir=ROOT / "config/fio", workdir=tmp_path, allowed=[])
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(PermissionError, match="root"):
        preflight(plan, force=False)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    out.mkdir()
    (out / "run.yaml").write_text("keep me\n")
    with pytest.raises(FileExistsError):
        preflight(plan, force=False)
    assert (out / "run.yaml").read_text() == "keep me\n"


# --- signals --------------------------------------------------------------------------------------------------


def test_signal_raises_once_and_teardown_is_not_cut_short():
    before = signal.getsignal(signal.SIGINT)
    with signals.raise_on_signals():
        with pytest.raises(signals.Interrupted):
            os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGINT)  # a second signal while unwinding: noted, not raised
    with signals.raise_on_signals():
        done = False
        with pytest.raises(signals.Interrupted), signals.deferred():
            os.kill(os.getpid(), signal.SIGINT)
            done = True  # the deferred block ran to its end
        assert done
    assert signal.getsignal(signal.SIGINT) is before


# --- which runs the rules may capture -------------------------------------------------------------------------


def test_capture_targets_skip_runs_with_raw_data(tmp_path):
    runs = RUNS.head(3).to_dicts()
    ids = [r["run_id"] for r in runs]
    (tmp_path / ids[0]).mkdir()
    (tmp_path / ids[0] / "run.yaml").write_text("run_id: x\n")
    assert targets.to_capture(runs, tmp_path, traced=True) == ids[1:]
    assert targets.to_capture(runs, tmp_path, traced=True, recapture=[ids[0]]) == ids
    assert targets.to_capture(runs, tmp_path, traced=False) == []
    assert re.fullmatch(targets.pattern([]), ids[0]) is None
    assert re.fullmatch(targets.pattern(ids[:1]), ids[0])


def test_run_pattern_matches_exactly_the_ids():
    """The trie-shaped pattern (the workflow's `run` wildcard) matches every id of the sheet and nothing else:
    not a prefix, an extension or a neighbour of one, as the flat alternation it replaces."""
    ids = RUNS["run_id"].to_list()
    tricky = ["r1", "r10", "r1.5", "r", "a-b", "a_b", "a.b"]  # an id that is the prefix of another; escaped dots
    for sample in (ids, tricky, ids[:1]):
        rx = re.compile(f"(?:{targets.pattern(sample)})")
        assert all(rx.fullmatch(r) for r in sample)
        near = {r + s for r in sample for s in ("x", "-r1", "0")} | {r[:-1] for r in sample} | {"axb", "r2", ""}
        assert not [n for n in near - set(sample) if rx.fullmatch(n)]
    # inside Snakemake's group, as the wildcard constraint
    rx = re.compile(rf"data/processed/(?P<run>{targets.pattern(tricky)})/x\.parquet$")
    assert rx.match("data/processed/r10/x.parquet")["run"] == "r10"
    assert rx.match("data/processed/r11/x.parquet") is None


# --- the committed dataset ------------------------------------------------------------------------------------


def _meta(run_id: str) -> dict:
    return yaml.safe_load((RAW / run_id / "run.yaml").read_text())


# guest runs and the other workloads (test_workloads_dataset.py) have their own tests
@pytest.mark.parametrize(
    "run_id",
    RUNS.filter(
        pl.col("testbed") != "guest",
        pl.col("workload") == "fio",
        ~pl.col("run_id").is_in(list(waiting_runs(RUNS, RAW, ORDER))),  # waits for its capture
    )["run_id"].to_list(),
)
def test_dataset_run_complete(run_id):
    row = RUNS.filter(pl.col("run_id") == run_id).to_dicts()[0]
    d = RAW / run_id
    expected = [o for o in OUTPUTS if row["traced"] or o != "trace.txt.zst"]
    assert sorted(p.name for p in d.iterdir()) == sorted(expected)
    m = _meta(run_id)
    assert m["run_id"] == run_id
    for key in ("filesystem", "job", "mkfs_options", "mount_options", "repeat", "runtime_s"):
        assert m["run"][key] == row[key], key
    assert m["kernel"] and m["tools"]["fio"] and m["tools"]["iostat"] and m["tools"][f"mkfs.{row['filesystem']}"]
    assert m["filesystem"]["type"] == row["filesystem"]
    assert row["filesystem"] in m["filesystem"]["mkfs_command"]
    assert m["testbed"]["device"].startswith("/dev/loop") and m["testbed"]["backing_file_bytes"] > 0
    assert m["teardown"] == "complete" and m["start_utc"] < m["end_utc"]
    for name, info in m["files"].items():
        assert (d / name).stat().st_size == info["bytes"], name
    io = json.loads((d / "iostat.json").read_text())["sysstat"]["hosts"][0]["statistics"]
    assert len(io) == m["iostat"]["samples"] >= row["runtime_s"] - 2
    fio = json.loads((d / "fio.json").read_text())
    assert all(j["error"] == 0 for j in fio["jobs"])
    if row["traced"]:
        t = m["tracer"]
        assert t["name"] == "tracefs-blk" and "blk_classic" in t["options"]
        assert set(t["overruns_per_cpu"]) and t["overruns_total"] == sum(t["overruns_per_cpu"].values())
        assert t["overruns_total"] == 0 and t["dropped_total"] == 0, "events were lost"
        assert t["events"] == t["read_events_total"] > 0
        with open(d / "trace.txt.zst", "rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as r:
            first = r.read(4096).decode().splitlines()[0].split()
        assert first[0] == "7," + first[0].split(",")[1] and first[4] in "QGIDCMXPUA"  # loop major 7, an action


def _stored_bytes(raw: Path) -> int:
    """data/raw's size as git stores it (the budget's unit, DESIGN.md): every object of its history as stored
    (zlib or packed), plus files git does not track yet as they are; without a repository, the files' sizes."""
    files = {p.relative_to(ROOT).as_posix(): p.stat().st_size for p in raw.rglob("*") if p.is_file()}
    git = ["git", "-C", str(ROOT)]
    try:
        objs = subprocess.run([*git, "rev-list", "--objects", "--all", "--", "data/raw"], capture_output=True,
                              check=True, text=True).stdout
        tracked = set(subprocess.run([*git, "ls-files", "-z", "data/raw"], capture_output=True, check=True,
                                     text=True).stdout.split("\0"))
    except (FileNotFoundError, subprocess.CalledProcessError):
        return sum(files.values())
    ids = "".join(line.split(" ", 1)[0] + "\n" for line in objs.splitlines() if line)
    sizes = subprocess.run([*git, "cat-file", "--batch-check=%(objecttype) %(objectsize:disk)"], input=ids,
                           capture_output=True, check=True, text=True).stdout.split()
    stored = sum(int(n) for kind, n in zip(sizes[::2], sizes[1::2], strict=True) if kind == "blob")
    return stored + sum(n for f, n in files.items() if f not in tracked)


def test_dataset_size_and_no_partial_runs():
    assert _stored_bytes(RAW) <= RAW_BUDGET
    assert not [p for p in RAW.iterdir() if p.name.startswith(".")], "partial run directory left behind"
    # every run of the sheet is captured, but for the batches not begun yet (captured in their recorded order)
    waiting = RUNS.filter(pl.col("run_id").is_in(list(waiting_runs(RUNS, RAW, ORDER))))
    assert {p.name for p in RAW.iterdir() if p.is_dir()} >= set(RUNS["run_id"].to_list()) - set(waiting["run_id"])


def test_tracefs_buffer_size_as_written_back():
    from blkscope.capture.tracefs import _buffer_kb

    assert _buffer_kb("65536\n") == "65536"
    # a tracefs mounted on a fresh boot: the kernel refuses this text as input; restore the expanded size
    assert _buffer_kb("7 (expanded: 1408)") == "1408"
    with pytest.raises(RuntimeError, match="not a size"):
        _buffer_kb("X")
