"""Guest and device testbeds without hardware: the dry-run plan, the run parameters, the initramfs (cpio writer,
module order, the built manifest), tracer resolution, blktrace's summary, device refusals, guest teardown."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import polars as pl
import pytest

from blkscope.capture import blktrace, device, run_guest, targets, workloads
from blkscope.capture.guest import build, cpio
from blkscope.capture.guest import testbed as grun
from blkscope.capture.run import make_plan
from blkscope.capture.safety import UnsafeDevice
from blkscope.cli import main
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
FIO = ROOT / "config" / "fio"
PY = sys.executable
HEADER = load_runs(ROOT / "config" / "runs.tsv").columns
# blktrace 2.0.0's exit summary, as printed in the guest (a real run of the f2fs randrw job)
SUMMARY = """=== vda ===
  CPU  0:                 4793 events,      225 KiB data
  CPU  1:                 5241 events,      246 KiB data
  Total:                 10034 events (dropped 0),      471 KiB data
"""


def _sheet(tmp_path: Path, **over) -> tuple[Path, str]:
    row = {
        "run_id": "guest-test",
        "study": "test",
        "database": "none",
        "workload": "fio",
        "job": "randrw",
        "filesystem": "ext4",
        "mkfs_options": "-F -q -E lazy_itable_init=0,lazy_journal_init=0",
        "mount_options": "noatime,data=ordered",
        "testbed": "guest",
        "tracer": "auto",
        "traced": True,
        "repeat": 1,
        "device_mb": 256,
        "runtime_s": 3,
        **over,
    }
    path = tmp_path / "runs.tsv"
    pl.DataFrame([row]).write_csv(path, separator="\t")
    return path, row["run_id"]


@pytest.fixture
def no_processes(monkeypatch):
    def forbidden(*a, **k):
        raise AssertionError(f"a dry run started a process: {a}")

    monkeypatch.setattr(subprocess, "Popen", forbidden)


# --- the guest plan -------------------------------------------------------------------------------------------


def test_guest_dry_run_prints_plan_and_touches_nothing(tmp_path, no_processes, capsys):
    sheet, run_id = _sheet(tmp_path)
    out, work = tmp_path / "out", tmp_path / "work"
    argv = ["capture", "--runs", str(sheet), "--run-id", run_id, "-o", str(out), "--workdir", str(work)]
    assert main([*argv, "--config", "none", "--fio-dir", str(FIO), "--dry-run"]) == 0
    plan = capsys.readouterr().out
    for step in (
        "qemu-system-x86_64 -nographic -no-reboot -accel tcg",
        "scratch.img of 256 MiB",
        "mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0 /dev/vda",
        "mount -t ext4 -o noatime,data=ordered /dev/vda",
        "blktrace -d /dev/vda",
        "iostat -x -t -y -o JSON 1 vda",
        "fio --output-format=json",
        "kill qemu; remove scratch.img and exchange.img",
        "blktrace/vda.blktrace.N.zst",
    ):
        assert step in plan, step
    assert not out.exists() and not work.exists()


def test_guest_params_reach_init_intact(tmp_path):
    sheet, run_id = _sheet(tmp_path)
    plan = make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[])
    assert isinstance(plan, grun.GuestPlan) and plan.tracer == "blktrace" and plan.row["tracer_requested"] == "auto"
    cmd = plan.qemu_command(tmp_path / "a.img", tmp_path / "b.img")
    append = cmd[cmd.index("-append") + 1]
    assert len(append) < 2048  # the x86 kernel command line limit
    b64 = append.split("blkscope=")[1].split()[0]
    params = base64.b64decode(b64).decode()
    # the same quoting init.sh's `. /params.sh` undoes: check with a real POSIX shell
    sh = subprocess.run(["sh", "-c", params + 'printf "%s|%s|%s" "$MKFS_OPTS" "$MOUNT_OPTS" "$TRACED"'],
                        capture_output=True, text=True, check=True).stdout
    assert sh == "-F -q -E lazy_itable_init=0,lazy_journal_init=0|noatime,data=ordered|1"
    assert [a for a in cmd if a.startswith("file=")] == [
        f"file={tmp_path / 'a.img'},format=raw,if=virtio,cache=none",
        f"file={tmp_path / 'b.img'},format=raw,if=virtio,cache=none",
    ]


@pytest.mark.requires("busybox")
def test_the_guest_reads_the_input_tar_and_no_further(tmp_path):
    """The exchange disk holds the input tar at its start (640 MiB in all): its length reaches init.sh (IN_BYTES),
    whose `head -c "$IN_BYTES" /dev/vdb | tar -xf -` takes every input from those bytes alone (busybox tar reads a
    file to its end after the archive's end: the whole disk, 512 bytes at a time, under TCG)."""
    job = tmp_path / "job.fio"
    job.write_text("[randrw]\nrw=randrw\n")
    steps = {"prepare.sh": "true\n", "run.sh": "echo run\n"}
    with grun.Images(tmp_path / "work", 8, {"job.fio": job}, steps) as img:
        assert 0 < img.in_bytes < img.exchange.stat().st_size and img.in_bytes % 512 == 0
        sheet, run_id = _sheet(tmp_path)
        plan = make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[])
        cmd = plan.qemu_command(img.scratch, img.exchange, img.in_bytes)
        params = base64.b64decode(cmd[cmd.index("-append") + 1].split("blkscope=")[1].split()[0]).decode()
        assert f"IN_BYTES={img.in_bytes}\n" in params
        assert "IN_BYTES" not in plan.params()  # the dry run's (no images yet): init.sh then reads the whole disk
        dest = tmp_path / "in"
        dest.mkdir()
        # init.sh's line, by the busybox the guest runs (build.BUSYBOX)
        line = 'busybox head -c "$IN_BYTES" "$0" | busybox tar -xf - -C "$1"'
        env = {**os.environ, "IN_BYTES": str(img.in_bytes)}
        subprocess.run(["sh", "-c", line, img.exchange, dest], check=True, env=env)
        assert sorted(p.name for p in dest.iterdir()) == ["job.fio", "prepare.sh", "run.sh"]
        assert (dest / "job.fio").read_text() == job.read_text() and (dest / "run.sh").read_text() == "echo run\n"


def test_guest_refuses_other_tracers_and_workloads(tmp_path):
    sheet, run_id = _sheet(tmp_path, tracer="tracefs-blk")
    with pytest.raises(ValueError, match="blktrace only"):
        make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[])
    sheet, run_id = _sheet(tmp_path, workload="mongodb")
    with pytest.raises(ValueError, match="'mongodb' is not implemented"):
        make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[])
    sheet, run_id = _sheet(tmp_path, workload="cassandra", job="write")
    with pytest.raises(ValueError, match="cassandra does not run in the guest: no Java payload for cassandra-stress"):
        make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[])
    # YCSB on Cassandra runs there, but not the host's job with its read-only phase
    sheet, run_id = _sheet(tmp_path, workload="cassandra-ycsb", job="workloada-c-zipfian-sat")
    plan = make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[], tools_dir=ROOT / "tools")
    with pytest.raises(ValueError, match="read-only phase runs on the host testbeds only"):
        plan.steps()


@pytest.mark.parametrize(
    "workload, job, outputs, run_line",
    [
        ("sysbench", "rndrw", ["sysbench.txt"], "cd /mnt/fs && sysbench fileio --file-num=16 --file-total-size=64M"),
        ("journal", "prealloc-reader", ["journal.json"], "/in/bin/journal --file /mnt/fs/journal.0 --mode prealloc"),
        ("ycsb", "workloada-zipfian-small", ["ycsb-load.txt", "ycsb-run.txt"], "java -Xmx1g -XX:Tiered"),
        ("cassandra-ycsb", "workloada-zipfian-small",
         ["ycsb-load.txt", "ycsb-run.txt", "cassandra.yaml", "cassandra-node.log.zst", "filefrag.txt"],
         "site.ycsb.Client -t -db org.blkscope.ycsb.CassandraClient"),
    ],
)
def test_guest_plans_other_workloads_as_shell_steps(tmp_path, no_processes, capsys, workload, job, outputs, run_line):
    sheet, run_id = _sheet(tmp_path, workload=workload, job=job)
    plan = make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[], tools_dir=ROOT / "tools")
    assert isinstance(plan, grun.GuestPlan) and plan.workload is not None and plan.jobfile is None
    assert plan.outputs == ["blktrace", "iostat.json", *outputs, "dmesg.txt.zst", "run.yaml"]
    assert plan.memory_mb == {"ycsb": 3072, "cassandra-ycsb": 4096}.get(workload, 1536)
    assert plan.timeout_s == grun.BOOT_BUDGET_S + plan.workload.guest_prepare_s + 3 * 3
    scripts = grun.scripts(plan)
    # a server's workload stops it after tracing (finish.sh); the others need no last step
    assert set(scripts) == {"prepare.sh", "run.sh", *(["finish.sh"] if workload == "cassandra-ycsb" else [])}
    assert run_line in scripts["run.sh"]
    for out in outputs:  # every output lands in init.sh's results directory (zstd-compressed on the host)
        assert f"{grun.OUT}/{out.removesuffix('.zst')}" in "".join(scripts.values()), out
    argv = ["capture", "--runs", str(sheet), "--run-id", run_id, "-o", str(tmp_path / "out")]
    argv += ["--workdir", str(tmp_path)]
    assert main([*argv, "--config", "none", "--tools-dir", str(ROOT / "tools"), "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert run_line in dry and "guest prepare.sh (untraced" in dry and not (tmp_path / "out").exists()


@pytest.mark.parametrize("workload, job", [("sysbench", "rndrw"), ("journal", "none"), ("ycsb", "workloada-zipfian"),
                                           ("cassandra-ycsb", "workloada-zipfian-small")])
def test_guest_steps_are_posix_shell(tmp_path, workload, job):
    sheet, run_id = _sheet(tmp_path, workload=workload, job=job)
    plan = make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[], tools_dir=ROOT / "tools")
    for name, text in grun.scripts(plan).items():
        (tmp_path / name).write_text(text)
        p = subprocess.run(["busybox", "sh", "-n", str(tmp_path / name)], capture_output=True, text=True)
        assert p.returncode == 0, (name, p.stderr)


def test_guest_preflight_accepts_snakemakes_empty_dirs_only(tmp_path, monkeypatch):
    sheet, run_id = _sheet(tmp_path)
    out = tmp_path / "raw" / run_id
    plan = make_plan(sheet, run_id, out, fio_dir=FIO, workdir=tmp_path, allowed=[])
    plan.build_dir = tmp_path / "build"
    plan.build_dir.mkdir()
    for n in ("vmlinuz", "initramfs.cpio", "manifest.json"):
        (plan.build_dir / n).write_bytes(b"x")
    monkeypatch.setattr(grun.shutil, "which", lambda name: "/usr/bin/true")
    (out / "blktrace").mkdir(parents=True)  # what Snakemake makes for the declared per-CPU outputs
    grun.preflight(plan, force=False)
    (out / "run.yaml").write_text("keep me\n")
    with pytest.raises(FileExistsError):
        grun.preflight(plan, force=False)
    (plan.build_dir / "vmlinuz").unlink()
    with pytest.raises(RuntimeError, match="guest_build|guest.build"):
        grun.preflight(plan, force=True)


# --- tracer resolution and blktrace's summary ---------------------------------------------------------------


def test_tracer_auto_resolution(tmp_path):
    assert blktrace.resolve("auto", "guest", True)[0] == "blktrace"
    assert blktrace.resolve("auto", "guest", False)[0] == "none"
    tracer, why = blktrace.resolve("auto", "loop", True, debugfs=tmp_path / "nodebugfs")
    assert tracer == "tracefs-blk" and "blktrace" in why
    assert blktrace.resolve("tracefs-blk", "loop", True)[0] == "tracefs-blk"
    with pytest.raises(ValueError, match="unknown tracer"):
        blktrace.resolve("perf", "loop", True)


def test_blktrace_summary():
    s = blktrace.parse_summary(SUMMARY)
    assert s == {"per_cpu": {0: {"events": 4793, "kib": 225}, 1: {"events": 5241, "kib": 246}},
                 "events": 10034, "dropped": 0, "kib": 471}
    assert blktrace.parse_summary(SUMMARY.replace("dropped 0", "dropped 17"))["dropped"] == 17
    with pytest.raises(ValueError, match="Total"):
        blktrace.parse_summary("=== vda ===\n")


# --- the initramfs --------------------------------------------------------------------------------------------


def test_cpio_newc_round_trip(tmp_path):
    tree = tmp_path / "tree"
    (tree / "bin").mkdir(parents=True)
    (tree / "bin" / "tool").write_bytes(b"\x7fELF" + bytes(range(7)))
    (tree / "bin" / "tool").chmod(0o755)
    (tree / "init").write_text("#!/bin/sh\n")
    (tree / "sh").symlink_to("bin/tool")
    out = tmp_path / "a.cpio"
    assert cpio.write_tree(tree, out) == 4
    assert cpio.names(out) == ["bin", "bin/tool", "init", "sh"]
    assert out.stat().st_size % 512 == 0
    first = out.read_bytes()
    cpio.write_tree(tree, out)
    assert out.read_bytes() == first  # reproducible
    if shutil.which("cpio"):  # GNU cpio agrees on the listing
        listed = subprocess.run(["cpio", "-it", "--quiet"], input=out.read_bytes(), capture_output=True)
        assert listed.stdout.decode().split() == ["bin", "bin/tool", "init", "sh"]


def _ko(moddir: Path, rel: str, depends: str = "", softdep: str = "") -> None:
    p = moddir / "kernel" / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    info = b"\0license=GPL\0" + (f"softdep=pre: {softdep}\0".encode() if softdep else b"")
    p.write_bytes(b"\x7fELF" + info + f"depends={depends}\0".encode())


def test_module_order_dependencies_first(tmp_path):
    m = tmp_path / "6.1.0-test"
    (m / "kernel").mkdir(parents=True)
    (m / "modules.builtin").write_text("kernel/crypto/sha256_generic.ko\n")
    _ko(m, "fs/ext4/ext4.ko", "jbd2,crc16", softdep="crypto-crc32c")
    _ko(m, "fs/jbd2/jbd2.ko")
    _ko(m, "lib/crc16.ko")
    _ko(m, "crypto/crc32c_generic.ko")
    _ko(m, "fs/btrfs/btrfs.ko", "libcrc32c", softdep="sha256 blake2b-256")  # blake2b missing: optional
    _ko(m, "lib/libcrc32c.ko")
    order = [p.name for p in build.module_order(m, ("ext4", "btrfs"))]
    assert order == ["crc32c_generic.ko", "jbd2.ko", "crc16.ko", "ext4.ko", "libcrc32c.ko", "btrfs.ko"]
    _ko(m, "fs/xfs/xfs.ko", "nosuchmod")
    with pytest.raises(RuntimeError, match="nosuchmod"):
        build.module_order(m, ("xfs",))


def test_built_initramfs_carries_the_tools(guest_build):
    manifest = json.loads((guest_build / "manifest.json").read_text())
    names = set(cpio.names(guest_build / "initramfs.cpio"))
    assert {"init", "bin/busybox", "modules.order", "etc/mke2fs.conf"} <= names
    for tool, info in manifest["tools"].items():
        assert info["path"].lstrip("/") in names, tool
        assert info["version"], tool
    assert set(build.TOOLS) == set(manifest["tools"])
    for mod in ("virtio_blk", "f2fs", "xfs", "btrfs", "ext4"):
        assert any(m.endswith(f"/{mod}.ko") for m in manifest["modules"]), mod
    assert all(f"lib/modules/{m}" in names for m in manifest["modules"])
    assert all(lib.lstrip("/") in names for lib in manifest["libraries"])
    assert manifest["kernel_release"].endswith("-amd64")


# --- guest teardown (a stand-in for qemu that never powers off) ---------------------------------------------


@contextmanager
def _private_lock(path: Path = None, timeout_s: float = 0):
    yield


def test_guest_timeout_kills_qemu_and_removes_images(tmp_path, monkeypatch):
    sheet, run_id = _sheet(tmp_path)
    bd = tmp_path / "build"
    bd.mkdir()
    for n in ("vmlinuz", "initramfs.cpio"):
        (bd / n).write_bytes(b"x")
    (bd / "manifest.json").write_text("{}")
    plan = make_plan(sheet, run_id, tmp_path / "raw" / run_id, fio_dir=FIO, workdir=tmp_path / "work", allowed=[])
    plan.build_dir = bd
    marker = f"blkscope-test-{os.getpid()}"
    stand_in = [PY, "-c", "import time; time.sleep(60)", marker]
    monkeypatch.setattr(grun.GuestPlan, "qemu_command", lambda self, *images: stand_in)
    monkeypatch.setattr(grun, "BOOT_BUDGET_S", -8)  # timeout = -8 + 3 * 3 s = 1 s
    monkeypatch.setattr(run_guest.hwlock, "hardware_lock", _private_lock)
    monkeypatch.setattr(grun.shutil, "which", lambda name: "/usr/bin/true")
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="did not power off"):
        run_guest.capture(plan)
    assert time.monotonic() - t0 < 15
    assert not list((tmp_path / "work").iterdir()), "an image directory was left behind"
    assert not (tmp_path / "raw" / run_id).exists() and not list((tmp_path / "raw").glob(".*"))
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert marker not in ps, "the stand-in qemu is still running"


# --- the real-device testbed: refusals and the plan ----------------------------------------------------------


def _device_sheet(tmp_path: Path, dev: str | None) -> tuple[Path, str]:
    return _sheet(tmp_path, run_id="dev-test", testbed="device", device=dev, tracer="tracefs-blk")


def test_device_refused_unless_allow_listed(tmp_path):
    sheet, run_id = _device_sheet(tmp_path, "/dev/sdz")
    with pytest.raises(UnsafeDevice, match="allowed_devices"):
        make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=[])
    with pytest.raises(UnsafeDevice, match="allowed_devices"):
        make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=["/dev/sdy"])
    sheet, run_id = _device_sheet(tmp_path, None)
    with pytest.raises(UnsafeDevice, match="needs a device"):
        make_plan(sheet, run_id, tmp_path / "o", fio_dir=FIO, workdir=tmp_path, allowed=["/dev/sdz"])


def test_device_refused_on_the_command_line_and_planned_when_allowed(tmp_path, no_processes, capsys):
    sheet, run_id = _device_sheet(tmp_path, "/dev/sdz")
    out, work = tmp_path / "out", tmp_path / "work"
    argv = ["capture", "--runs", str(sheet), "--run-id", run_id, "-o", str(out), "--workdir", str(work),
            "--config", "none", "--fio-dir", str(FIO), "--dry-run"]
    assert main(argv) != 0
    assert "refused" in capsys.readouterr().err
    assert main([*argv, "--allow-device", "/dev/sdz"]) == 0
    plan = capsys.readouterr().out
    for step in ("allowed_devices (/dev/sdz)", "mkfs.ext4", "/dev/sdz", "iostat -x -t -y -o JSON 1 /dev/sdz"):
        assert step in plan, step
    assert "losetup" not in plan
    assert not out.exists() and not work.exists()


def test_device_in_use_is_refused(tmp_path):
    sb = tmp_path / "sys"
    (sb / "sdz" / "sdz1").mkdir(parents=True)
    (sb / "sdz" / "sdz1" / "partition").write_text("1\n")
    (sb / "sdz" / "holders").mkdir()
    device.check_free("/dev/sdz", sys_block=sb, mounts="/dev/vda / ext4 rw 0 0\n", swaps="Filename\n")
    with pytest.raises(UnsafeDevice, match="mounted at /data"):
        device.check_free("/dev/sdz", sys_block=sb, mounts="/dev/sdz1 /data ext4 rw 0 0\n", swaps="")
    with pytest.raises(UnsafeDevice, match="swap"):
        device.check_free("/dev/sdz", sys_block=sb, mounts="", swaps="Filename\n/dev/sdz1 partition 1 0 -2\n")
    with pytest.raises(UnsafeDevice, match="whole disk"):
        device.check_free("/dev/sdz1", sys_block=sb, mounts="", swaps="")
    (sb / "sdz" / "holders" / "dm-0").mkdir()
    with pytest.raises(UnsafeDevice, match="held by dm-0"):
        device.check_free("/dev/sdz", sys_block=sb, mounts="", swaps="")


def test_capture_targets_by_testbed(tmp_path):
    sheet, _ = _sheet(tmp_path)
    row = load_runs(sheet).to_dicts()[0]
    runs = [row, {**row, "run_id": "host-x", "testbed": "loop"}]
    assert targets.to_capture(runs, tmp_path, traced=True, testbeds=["guest"]) == ["guest-test"]
    assert targets.to_capture(runs, tmp_path, traced=True, testbeds=["loop", "device"]) == ["host-x"]
    assert targets.to_capture(runs, tmp_path, traced=True) == ["guest-test", "host-x"]


# --- the committed guest runs ---------------------------------------------------------------------------------

RAW = ROOT / "data" / "raw"
SHEET = load_runs(ROOT / "config" / "runs.tsv")
# captured guest runs (rows still to capture have no directory: `all` lists and skips them)
GUEST_RUNS = [r for r in SHEET.filter(pl.col("testbed") == "guest")["run_id"] if (RAW / r / "run.yaml").exists()]


@pytest.mark.parametrize("run_id", GUEST_RUNS)
def test_guest_dataset_run_complete(run_id):
    import yaml
    import zstandard

    row = SHEET.filter(pl.col("run_id") == run_id).to_dicts()[0]
    d = RAW / run_id
    m = yaml.safe_load((d / "run.yaml").read_text())
    assert m["run_id"] == run_id and m["teardown"] == "complete"
    for key in ("filesystem", "job", "mkfs_options", "mount_options", "repeat", "runtime_s"):
        assert m["run"][key] == row[key], key
    assert m["testbed"]["kind"] == "guest" and m["testbed"]["emulated"] is True
    assert m["kernel"].endswith("-amd64") and m["tools"]["blktrace"] and m["tools"][f"mkfs.{row['filesystem']}"]
    assert m["filesystem"]["type"] == row["filesystem"]
    for name, info in m["files"].items():
        assert (d / name).stat().st_size == info["bytes"], name
    if row["workload"] == "fio":
        assert json.loads((d / "fio.json").read_text())["jobs"][0]["error"] == 0
    else:
        assert m[row["workload"]] and m["workload"]["guest_run_sh"], "no summary of the workload"
        # the row's own outputs: a job may leave a phase out (the guest's Cassandra job has no read-only phase)
        outputs = workloads.load(row, ROOT / "tools").outputs
        assert all((d / o).stat().st_size > 0 for o in outputs)
    io = json.loads((d / "iostat.json").read_text())["sysstat"]["hosts"][0]["statistics"]
    assert len(io) == m["iostat"]["samples"] >= row["runtime_s"] - 2
    if row["traced"]:
        t = m["tracer"]
        assert t["name"] == "blktrace" and t["dropped_total"] == 0, "events were lost"
        assert sorted(p.name for p in (d / "blktrace").iterdir()) == t["files"]
        with open(d / "blktrace" / t["files"][0], "rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as r:
            magic = int.from_bytes(r.read(4), "little")
        assert magic & 0xFFFFFF00 == 0x65617400  # struct blk_io_trace, host (little-endian) order
