"""One guest run: scratch and exchange images -> qemu (init.sh formats, traces with blktrace, runs the workload's
prepare.sh untraced and run.sh traced: fio, sysbench, the journal writer or YCSB-RocksDB) -> results out of the
exchange image -> data/raw/<run_id>/. Both images live in a fresh directory of the host's workdir and
are removed afterwards, also on failure and SIGINT (qemu is killed first). The host formats nothing: the guest's
/dev/vda is this run's own sparse file."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shlex
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from blkscope.capture import blktrace, hwlock, signals, workloads
from blkscope.capture import run as host_run
from blkscope.capture.guest import qemu
from blkscope.capture.iostat import check_json as check_iostat
from blkscope.capture.sh import version

# The guest_build rule's output; BLKSCOPE_GUEST_BUILD points elsewhere (tests that run from another directory).
DEFAULT_BUILD = Path(os.environ.get("BLKSCOPE_GUEST_BUILD", "build/guest"))
# The results tar (trace files, JSON, dmesg) must fit on the exchange disk (sparse on the host) and the traces
# in the guest's tmpfs (512 MiB of its RAM): ample for rate-limited jobs; long unthrottled runs need more.
EXCHANGE_MB = 640
BOOT_BUDGET_S = 150  # boot, modules, mkfs and fio's lay-out under TCG, with room; plus 3x the runtime
PREPARE_BUDGET_S = {"ycsb": 1500, "sysbench": 300, "journal": 120}  # the untraced load under TCG
MEMORY_MB = {"ycsb": 3072}  # the JVM (-Xmx1g), RocksDB and the Java payload in the guest's RAM
TOOL_VERSIONS = {"sysbench": ("sysbench",), "journal": ("journal",), "ycsb": ("java",)}  # from versions.txt
MNT, OUT = "/mnt/fs", "/tmp/out"  # init.sh's mount point and results directory
STEP_LOGS = {"20": "mkfs.txt", "22": "prepare.txt", "30": "blktrace.log"}  # init.sh finish codes -> their log


@dataclass
class GuestPlan:
    row: dict
    jobfile: Path | None  # fio runs
    outdir: Path
    workdir: Path
    build_dir: Path = DEFAULT_BUILD
    tracer: str = "blktrace"
    tracer_because: str = ""
    memory_mb: int = 1536
    cpus: int = 2
    bt_buf_kb: int = 1024  # blktrace relay buffer: 8 x 1 MiB per CPU, far above what a rate-limited job makes
    bt_nbuf: int = 8
    settle_s: float = 1.0
    buffer_size_kb: int = 0  # the host tracefs option; unused in the guest (blktrace has bt_buf_kb)
    workload: workloads.Workload | None = None  # sysbench, journal, ycsb (None: fio)

    @property
    def run_id(self) -> str:
        return self.row["run_id"]

    @property
    def traced(self) -> bool:
        return self.tracer == "blktrace"

    @property
    def timeout_s(self) -> float:
        return BOOT_BUDGET_S + PREPARE_BUDGET_S.get(self.row["workload"], 0) + 3 * self.row["runtime_s"]

    @property
    def outputs(self) -> list[str]:
        wl = list(workloads.outputs(self.row["workload"]))
        return (["blktrace"] if self.traced else []) + ["iostat.json", *wl, "dmesg.txt.zst", "run.yaml"]

    def steps(self) -> tuple[list[str], list[str]]:
        """prepare.sh (untraced) and run.sh (traced) lines; init.sh runs them in the mounted filesystem."""
        if self.workload:
            return self.workload.guest_steps(MNT, OUT)
        prep = "fio --create_only=1 --output=/dev/null /in/job.fio"
        return [prep], [f"fio --output-format=json --output={OUT}/fio.json /in/job.fio"]

    def inputs(self) -> dict[str, Path]:
        """What the exchange disk carries into the guest's /in, besides the two steps."""
        return self.workload.guest_files() if self.workload else {"job.fio": self.jobfile}

    def params(self) -> str:
        """Shell assignments init.sh sources (base64 on the kernel command line)."""
        r = self.row
        vals = {
            "FS": r["filesystem"],
            "MKFS_OPTS": r["mkfs_options"] or "",
            "MOUNT_OPTS": r["mount_options"] or "",
            "RUNTIME": r["runtime_s"],
            "SEED": r["repeat"],
            "TRACED": int(self.traced),
            "SETTLE_S": self.settle_s,
            "BT_BUF_KB": self.bt_buf_kb,
            "BT_NBUF": self.bt_nbuf,
        }
        return "".join(f"{k}={shlex.quote(str(v))}\n" for k, v in vals.items())

    def qemu_command(self, scratch: Path, exchange: Path) -> list[str]:
        b64 = base64.b64encode(self.params().encode()).decode()
        append = f"console=ttyS0 panic=-1 quiet blkscope={b64}"
        return qemu.command(
            self.build_dir / "vmlinuz",
            self.build_dir / "initramfs.cpio",
            [scratch, exchange],
            append,
            memory_mb=self.memory_mb,
            cpus=self.cpus,
        )


def guest_plan(row: dict, outdir: Path, *, fio_dir: Path, workdir: Path, tools_dir: Path = Path("tools")) -> GuestPlan:
    tracer, because = row["tracer"], row.get("tracer_because", "")
    mem = MEMORY_MB.get(row["workload"], GuestPlan.memory_mb)
    if row["workload"] != "fio":
        wl = workloads.load(row, tools_dir)
        return GuestPlan(row, None, outdir, workdir, tracer=tracer, tracer_because=because, workload=wl, memory_mb=mem)
    jobfile = fio_dir / f"{row['job']}.fio"
    if not jobfile.is_file():
        raise ValueError(f"{row['run_id']}: fio job file {jobfile} not found")
    return GuestPlan(row, jobfile, outdir, workdir, tracer=tracer, tracer_because=because, memory_mb=mem)


INPUTS = {
    "sysbench": "nothing else (sysbench is in the initramfs)",
    "journal": "the journal writer built here (bin/journal)",
    "ycsb": "the Java payload (java/: jlinked runtime, YCSB and rocksdbjni jars, native libraries)",
}


def describe(plan: GuestPlan) -> str:
    r = plan.row
    rd = plan.workdir / "guest-XXXX"
    prepare, run = plan.steps()
    cmd = plan.qemu_command(rd / "scratch.img", rd / "exchange.img")
    lines = [
        f"run {plan.run_id}: {r['workload']}/{r['job']} on {r['filesystem']} (guest, emulated), repeat {r['repeat']}",
        f"lock {hwlock.LOCK_PATH} (one hardware run at a time)",
        f"guest kernel and initramfs from {plan.build_dir} (rule guest_build)",
        f"create sparse {rd}/scratch.img of {r['device_mb']} MiB (the guest's /dev/vda; nothing on the host)",
        f"create {rd}/exchange.img: tar of prepare.sh, run.sh and {INPUTS.get(r['workload'], 'the fio job')}, "
        f"sparse to {EXCHANGE_MB} MiB (the guest's /dev/vdb)",
        f"{qemu.describe(cmd)}  (timeout {plan.timeout_s:.0f} s)",
        "  guest params: " + "; ".join(plan.params().splitlines()),
        f"  guest: insmod modules; mkfs.{r['filesystem']} {r['mkfs_options'] or ''} /dev/vda; "
        f"mount -t {r['filesystem']} -o {r['mount_options'] or 'defaults'} /dev/vda /mnt/fs",
        *(f"  guest prepare.sh (untraced, in {MNT}): {line}" for line in prepare),
        "  guest: sync -f",
        "  guest: iostat -x -t -y -o JSON 1 vda > iostat.json &",
    ]
    if plan.traced:
        lines.append(f"  guest: blktrace -d /dev/vda -D out/blktrace -o vda -b {plan.bt_buf_kb} -n {plan.bt_nbuf} &")
    lines += [
        *(f"  guest run.sh (traced, in {MNT}): {line}" for line in run),
        f"  guest: sync -f; sleep {plan.settle_s}; SIGINT blktrace and iostat; umount; tar results onto /dev/vdb; "
        "poweroff",
        "read the results tar from exchange.img"
        + ("; zstd -19 each vda.blktrace.N -> blktrace/vda.blktrace.N.zst" if plan.traced else ""),
        "teardown (always, also on error and SIGINT/SIGTERM): kill qemu; remove scratch.img and exchange.img",
        f"write run.yaml; move {', '.join(plan.outputs)} into {plan.outdir}/",
    ]
    return "\n".join(f"{i:2d}. {line}" for i, line in enumerate(lines, 1))


def preflight(plan: GuestPlan, force: bool) -> None:
    # Snakemake makes the empty blktrace/ directory for the declared outputs: only files count as existing data.
    if plan.outdir.exists() and any(p.is_file() for p in plan.outdir.rglob("*")) and not force:
        raise FileExistsError(f"{plan.outdir} exists and is not empty (pass --force to replace it)")
    if shutil.which(qemu.BINARY) is None:
        raise RuntimeError(f"{qemu.BINARY} not found (Debian qemu-system-x86; see deps/debian-capture.txt)")
    missing = [n for n in ("vmlinuz", "initramfs.cpio", "manifest.json") if not (plan.build_dir / n).is_file()]
    if missing:
        raise RuntimeError(
            f"{plan.build_dir}: no {', '.join(missing)} (build it: snakemake build/guest/manifest.json, or "
            f"python -m blkscope.capture.guest.build -o {plan.build_dir})"
        )


def capture(plan: GuestPlan, *, force: bool = False) -> dict:
    preflight(plan, force)
    if plan.workload:
        plan.workload.build()  # compile the tool (and its guest payload) before taking the hardware lock
    plan.outdir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{plan.run_id}.partial-", dir=plan.outdir.parent))
    try:
        with signals.raise_on_signals():
            meta = _capture(plan, tmp)
            host_run._publish(tmp, plan.outdir)
        return meta
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class Images:
    """This run's two image files in a fresh directory; removes exactly those (and the directory) on exit."""

    def __init__(self, workdir: Path, scratch_mb: int, inputs: dict[str, Path], steps: dict[str, str]) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.dir = Path(tempfile.mkdtemp(prefix="guest-", dir=workdir))
        self.scratch, self.exchange = self.dir / "scratch.img", self.dir / "exchange.img"
        self.console = self.dir / "console.txt"
        self.created: list[Path] = []
        self.scratch_mb, self.inputs, self.steps = scratch_mb, inputs, steps

    def __enter__(self) -> Images:
        with open(self.scratch, "xb") as f:  # x: never reuse a file someone else made
            self.created.append(self.scratch)
            f.truncate(self.scratch_mb << 20)
        with open(self.exchange, "xb") as f:
            self.created.append(self.exchange)
            with tarfile.open(fileobj=f, mode="w", format=tarfile.GNU_FORMAT) as t:
                for name, text in self.steps.items():
                    info = tarfile.TarInfo(name)
                    info.size, info.mode = len(text.encode()), 0o755
                    t.addfile(info, io.BytesIO(text.encode()))
                for name, path in self.inputs.items():
                    t.add(path, arcname=name)
            f.truncate(EXCHANGE_MB << 20)
        return self

    def __exit__(self, *exc) -> None:
        with signals.deferred():
            for p in (*self.created, self.console):
                p.unlink(missing_ok=True)
            self.dir.rmdir()


def _capture(plan: GuestPlan, tmp: Path) -> dict:
    r = plan.row
    manifest = json.loads((plan.build_dir / "manifest.json").read_text())
    meta: dict = {"run_id": plan.run_id, "run": dict(r), "start_utc": host_run._utc()}
    with hwlock.hardware_lock():
        meta["lock"] = {"path": str(hwlock.LOCK_PATH), "acquired_utc": host_run._utc()}
        with Images(plan.workdir, r["device_mb"], plan.inputs(), _scripts(plan)) as img:
            cmd = plan.qemu_command(img.scratch, img.exchange)
            meta["loadavg"] = {"before": host_run.loadavg()}  # the host's, around the whole guest
            meta["qemu_start_utc"] = host_run._utc()
            with qemu.Guest(cmd, img.console) as g:
                rc = g.wait(plan.timeout_s)
            meta["qemu_end_utc"] = host_run._utc()
            meta["loadavg"]["after"] = host_run.loadavg()
            console = img.console.read_text(errors="replace")
            out = tmp / "guest"
            try:
                with tarfile.open(img.exchange) as t:
                    t.extractall(out, filter="data")
            except tarfile.TarError as e:  # e.g. results larger than the exchange disk
                raise RuntimeError(f"guest results unreadable from {img.exchange}: {e}") from e
            status = (out / "status").read_text().strip() if (out / "status").exists() else None
            if rc != 0 or status != "0":
                # the failing step's own first lines say why (a usage text follows them on the console)
                # init.sh's own codes name their step's log; any other status is the workload's exit code
                f = out / STEP_LOGS.get(status or "", "run.txt")
                why = f.read_text(errors="replace").splitlines()[:3] if f.exists() else []
                tail = " | ".join(why + console.strip().splitlines()[-4:])
                raise RuntimeError(f"guest run failed (qemu exit {rc}, guest status {status}): {tail}")
            st = img.scratch.stat()
            meta["testbed"] = {
                "kind": "guest",
                "emulated": True,
                "accelerator": "tcg",
                "qemu": version([qemu.BINARY, "--version"]),
                "qemu_command": qemu.describe(cmd),
                "memory_mb": plan.memory_mb,
                "cpus": plan.cpus,
                "device": "/dev/vda (virtio-blk, cache=none)",
                "scratch_image_bytes": st.st_size,
                "scratch_image_allocated_bytes": st.st_blocks * 512,
                "image_dir": str(img.dir),
                "guest_kernel_package": manifest["kernel_package"],
                "guest_kernel_deb": manifest["kernel_deb"],
                "initramfs_sha256": manifest["initramfs_sha256"],
                "vmlinuz_sha256": manifest["vmlinuz_sha256"],
                "note": "timings are emulated (TCG): use guest runs for access patterns, host runs for timing",
            }
    meta["teardown"] = "complete"
    return _finish(plan, tmp, out, meta, manifest)


def _scripts(plan: GuestPlan) -> dict[str, str]:
    prepare, run = plan.steps()
    head = f"# {plan.run_id}: written by blkscope capture; init.sh runs it with sh -e in {MNT}\n"
    return {"prepare.sh": head + "\n".join(prepare) + "\n", "run.sh": head + "\n".join(run) + "\n"}


def _kv(path: Path) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in path.read_text().splitlines() if ": " in line)


def _finish(plan: GuestPlan, tmp: Path, out: Path, meta: dict, manifest: dict) -> dict:
    """Guest outputs -> the run directory's files and run.yaml."""
    r = plan.row
    v = _kv(out / "versions.txt")
    host = host_run._host()
    host["host"]["kernel"] = host["kernel"]
    meta["kernel"] = v["kernel"]  # the guest's: it is the kernel whose block layer the trace shows
    meta["host"] = host["host"]
    meta["guest"] = {
        "kernel_version": v.get("kernel_version"),
        "cpus": int(v["cpus"]),
        "mem_kb": int(v["mem_kb"]),
        "times_uptime_s": {ln.split()[0]: float(ln.split()[2]) for ln in (out / "times.txt").read_text().splitlines()},
        "times_utc": {ln.split()[0]: ln.split()[1] for ln in (out / "times.txt").read_text().splitlines()},
    }
    mkfs = f"mkfs.{r['filesystem']}"
    meta["tools"] = {
        "blkscope": host_run.blkscope.__version__,
        "blkscope_git": host_run._git_describe(),
        "fio": v["fio"],
        **{k: v[k] for k in TOOL_VERSIONS.get(r["workload"], ()) if k in v},
        "iostat": v["iostat"],
        "blktrace": v["blktrace"],
        mkfs: manifest["tools"][mkfs]["version"],
        "busybox": v["busybox"],
        "where": "inside the guest (binaries copied from the host's Debian packages; sha256 in the manifest)",
    }
    for name in ("iostat.json", *workloads.outputs(r["workload"])):
        shutil.move(out / name, tmp / name)
    if plan.workload:
        meta[r["workload"]] = plan.workload.summarize(tmp)
    else:
        meta["fio"] = host_run.fio.check_json(tmp / "fio.json")
    meta["iostat"] = {"command": "iostat -x -t -y -o JSON 1 vda", "env": {"S_TIME_FORMAT": "ISO", "LC_ALL": "C"}}
    meta["iostat"].update(check_iostat(tmp / "iostat.json", 0, (out / "iostat.err").read_text()))
    mount = (out / "mount.txt").read_text().split()
    meta["filesystem"] = {
        "type": r["filesystem"],
        "mkfs_command": f"{mkfs} {r['mkfs_options'] or ''} /dev/vda".replace("  ", " "),
        "mkfs_options": r["mkfs_options"] or "",
        "mount_options": r["mount_options"] or "",
        "mount_options_effective": mount[3] if len(mount) > 3 else None,
    }
    meta["workload"] = (
        _workload_meta(plan)
        if plan.workload
        else {
            "tool": "fio",
            "job": r["job"],
            "job_file": str(plan.jobfile),
            "job_sha256": hashlib.sha256(plan.jobfile.read_bytes()).hexdigest(),
            "job_text": plan.jobfile.read_text(),
            "env": {"BLKSCOPE_RUNTIME": str(r["runtime_s"]), "BLKSCOPE_SEED": str(r["repeat"])},
            "prepared_with": "fio --create_only=1 and sync -f, before tracing",
            "after": f"sync -f and {plan.settle_s} s pause, traced (deferred writeback is in the trace)",
        }
    )
    meta["tracer"] = _tracer(plan, out, tmp) if plan.traced else {"name": "none", "requested": r["tracer"]}
    _zst(out / "dmesg.txt", tmp / "dmesg.txt.zst")
    meta["end_utc"] = host_run._utc()
    meta["files"] = {}
    for name in plan.outputs:
        p = tmp / name
        for f in sorted(p.iterdir()) if p.is_dir() else [p] if name != "run.yaml" else []:
            meta["files"][str(f.relative_to(tmp))] = host_run._file_info(f)
    text = "# Written by `blkscope capture` (guest testbed): what ran, where, with which versions and options.\n"
    text += host_run.yaml.dump(meta, Dumper=host_run._Dumper, sort_keys=False, default_flow_style=False, width=120)
    (tmp / "run.yaml").write_text(text)
    shutil.rmtree(out)
    return meta


def _workload_meta(plan: GuestPlan) -> dict:
    prepare, run = plan.steps()
    return {
        **plan.workload.info,
        "guest_prepare_sh": prepare,
        "guest_run_sh": run,
        "prepared": "prepare.sh before tracing, then sync -f",
        "after": f"sync -f and {plan.settle_s} s pause, traced (deferred writeback is in the trace)",
    }


def _tracer(plan: GuestPlan, out: Path, tmp: Path) -> dict:
    log = (out / "blktrace.log").read_text()
    rc = int((out / "blktrace.rc").read_text().strip())
    summary = blktrace.parse_summary(log)
    dest = tmp / "blktrace"
    dest.mkdir()
    files = sorted((out / "blktrace").glob("vda.blktrace.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
    for f in files:
        _zst(f, dest / (f.name + ".zst"))
    return {
        "name": "blktrace",
        "requested": plan.row["tracer"],
        "resolved_because": plan.tracer_because,
        "command": f"blktrace -d /dev/vda -D out/blktrace -o vda -b {plan.bt_buf_kb} -n {plan.bt_nbuf}",
        "exit_code": rc,
        "summary": log.strip(),
        "events": summary["events"],
        "events_per_cpu": {c: s["events"] for c, s in summary["per_cpu"].items()},
        "kib": summary["kib"],
        "dropped_total": summary["dropped"],
        "overruns_total": summary["dropped"],  # blktrace reports relay-buffer losses as dropped
        "files": [f.name + ".zst" for f in files],
        "format": "binary per-CPU blktrace files (struct blk_io_trace), each zstd-compressed; "
        "`blkscope ingest DIR` or blkparse after unzstd",
        "clock": "guest CLOCK_MONOTONIC-based blktrace time, ns from trace start",
    }


def _zst(src: Path, dst: Path) -> None:
    cctx = host_run.zstandard.ZstdCompressor(level=host_run.ZSTD_LEVEL, write_checksum=True)
    with open(src, "rb") as i, open(dst, "wb") as o:
        cctx.copy_stream(i, o)
