"""YCSB on Cassandra as the emulated guest runs it, rehearsed on the host's CPU: the guest's own three scripts
(prepare.sh, run.sh, finish.sh from testbed.scripts) run by busybox in a chroot that holds nothing but the Java
payload (cassandra_guest.payload), busybox-static, filefrag and glibc's libc, libm and loader, in namespaces of
its own (mount, UTS, network, PID: `hostname` and `ip link set lo up` touch nothing of the host's, and every
process it started dies with it). The node starts from the payload, YCSB loads and runs against it, the extents
are recorded and the node stops: the proof that the payload and the scripts need nothing else, minutes faster
than a TCG guest. Needs root, unshare, busybox-static, a JDK 17 with jlink/jdeps and maven; about 1-2 min."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.capture.guest import testbed as grun
from blkscope.capture.run import make_plan
from blkscope.capture.workloads import cassandra_guest

ROOT = Path(__file__).resolve().parents[1]
BUSYBOX = Path("/bin/busybox")
GLIBC = ("libc.so.6", "libm.so.6")
DEVICES = ("null", "zero", "random", "urandom")

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (chroot, namespaces)"),
    pytest.mark.requires("java", "jlink", "jdeps", "mvn", "unshare", "filefrag", "busybox"),
]


def _plan(tmp_path: Path) -> grun.GuestPlan:
    row = {"run_id": "guest-cass-chroot", "study": "test", "database": "cassandra", "workload": "cassandra-ycsb",
           "job": "workloada-zipfian-small", "filesystem": "ext4", "mkfs_options": "", "mount_options": "",
           "testbed": "guest", "tracer": "auto", "traced": True, "repeat": 1, "device_mb": 256,
           "runtime_s": 20}  # fmt: skip
    # 20 s, not 5: YCSB's maxexecutiontime counts from before each client thread's DB init (the driver's
    # connection), which took over 5 s on a loaded CI machine and ended a run with no operation
    sheet = tmp_path / "runs.tsv"
    pl.DataFrame([row]).write_csv(sheet, separator="\t")
    plan = make_plan(sheet, row["run_id"], tmp_path / "o", fio_dir=ROOT / "config" / "fio", workdir=tmp_path,
                     allowed=[], tools_dir=ROOT / "tools")  # fmt: skip
    plan.workload.build()  # both Maven projects, when older than their sources
    return plan


def _root(tmp_path: Path, plan: grun.GuestPlan) -> Path:
    root = tmp_path / "root"
    (payload,) = plan.inputs().values()
    shutil.copytree(payload, root / "in" / "java", copy_function=os.link, symlinks=True)
    for name, text in grun.scripts(plan).items():
        # the chroot shares the host's kernel: its page cache is not the chroot's to drop
        lines = [ln for ln in text.splitlines() if "drop_caches" not in ln]
        assert len(lines) == len(text.splitlines()) - (name == "prepare.sh")
        (root / "in" / name).write_text("\n".join(lines) + "\n")
    for d in ("bin", "proc", "dev", "etc", "mnt/fs", "tmp/out", "usr/sbin", "lib/x86_64-linux-gnu", "lib64"):
        (root / d).mkdir(parents=True, exist_ok=True)
    os.chmod(root / "tmp", 0o1777)
    shutil.copy2(BUSYBOX, root / "bin" / "busybox")
    shutil.copy2(shutil.which("filefrag"), root / "usr" / "sbin" / "filefrag")
    for lib in GLIBC:
        shutil.copy2(Path("/lib/x86_64-linux-gnu", lib).resolve(), root / "lib/x86_64-linux-gnu" / lib)
    shutil.copy2(Path("/lib64/ld-linux-x86-64.so.2").resolve(), root / "lib64" / "ld-linux-x86-64.so.2")
    return root


def test_guest_scripts_run_the_node_and_ycsb_from_the_payload_alone(tmp_path):
    plan = _plan(tmp_path)
    root = _root(tmp_path, plan)
    out = f"{grun.OUT}"
    # init.sh's order, each script with sh -e in the mount point, its output kept as init.sh keeps it
    names = ("prepare", "run", "finish")
    steps = " && ".join(f"(cd {grun.MNT} && sh -e /in/{s}.sh) > {out}/{s}.txt 2>&1" for s in names)
    inner = f"/bin/busybox --install -s /bin && export PATH=/bin:/sbin:/usr/bin:/usr/sbin && {steps}"
    # /dev: the few devices the JVM and the scripts use (not the host's serial console, which the guest's
    # milestones are written to)
    devs = " && ".join(f'touch "$0/dev/{d}" && mount --bind /dev/{d} "$0/dev/{d}"' for d in DEVICES)
    chroot = 'exec chroot "$0" /bin/busybox sh -c "$1"'
    # the chroot's root a mount point of its own: the node asks the JVM for the file store of its commitlog
    # directory, which the JVM finds in /proc/self/mounts, where a root that is no mount point has no line
    mounts = 'mount --bind "$0" "$0" && mount -t proc proc "$0/proc" && mount -t tmpfs dev "$0/dev"'
    script = f"{mounts} && {devs} && {chroot}"
    p = subprocess.run(
        ["unshare", "--mount", "--uts", "--net", "--pid", "--fork", "--propagation", "private",
         "sh", "-c", script, str(root), inner],
        capture_output=True, text=True, timeout=900, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
    )  # fmt: skip
    res = root / out.lstrip("/")
    logs = {f.name: f.read_text(errors="replace")[-1500:] for f in res.glob("*.txt")}
    assert p.returncode == 0, (p.stderr[-1000:], logs)

    times = dict(ln.split(maxsplit=1) for ln in (res / "times.txt").read_text().splitlines())
    assert list(times) == ["node_start", "node_ready", "load_end", "node_stopped"]
    node_log = (res / cassandra_guest.NODE_LOG).read_text(errors="replace")
    assert cassandra_guest.READY in node_log and "write_request_timeout=60000ms" in node_log
    load = (res / "ycsb-load.txt").read_text()
    assert re.search(r"^\[INSERT\], Return=OK, 10000$", load, re.M), load[-1500:]
    run = (res / "ycsb-run.txt").read_text()
    for op in ("READ", "UPDATE"):
        m = re.search(rf"^\[{op}\], Operations, (\d+)$", run, re.M)
        assert m and int(m.group(1)) > 0, run[-1500:]
    assert "commitlog/CommitLog-" in (res / "filefrag.txt").read_text()
    # the cassandra.yaml the node read is the one the guest's results carry
    assert (res / "cassandra.yaml").read_text().startswith("# Written by blkscope capture")
