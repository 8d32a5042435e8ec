"""Testbed: the emulated guest. One run's scratch and exchange images in a fresh directory, qemu booting the
guest kernel with init.sh (which formats /dev/vda, traces with blktrace, runs the workload's prepare.sh untraced,
run.sh traced and, if it has one, finish.sh after tracing), the results tar read back from the exchange image.
Both images are removed afterwards, also on failure and SIGINT (qemu is killed first). The host formats nothing:
/dev/vda is this run's own sparse file.
What runs inside comes from the workload (its guest_steps and guest_files); this module knows none by name."""

from __future__ import annotations

import base64
import io
import os
import shlex
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blkscope.capture import ledger, signals
from blkscope.capture.guest import qemu
from blkscope.capture.record import utc
from blkscope.capture.sh import version

# The guest_build rule's output; BLKSCOPE_GUEST_BUILD points elsewhere (tests that run from another directory).
DEFAULT_BUILD = Path(os.environ.get("BLKSCOPE_GUEST_BUILD", "build/guest"))
# The results tar (trace files, JSON, dmesg) must fit on the exchange disk (sparse on the host) and the traces
# in the guest's tmpfs (512 MiB of its RAM): ample for rate-limited jobs; long unthrottled runs need more.
EXCHANGE_MB = 640
BOOT_BUDGET_S = 150  # boot, modules, mkfs and fio's lay-out under TCG, with room; plus 3x the runtime
MNT, OUT = "/mnt/fs", "/tmp/out"  # init.sh's mount point and results directory
# init.sh finish codes -> their log
STEP_LOGS = {"20": "mkfs.txt", "22": "prepare.txt", "30": "blktrace.log", "40": "finish.txt"}


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
    workload: Any = None  # a capture.workloads Workload (None: fio); used through its guest_* interface

    @property
    def run_id(self) -> str:
        return self.row["run_id"]

    @property
    def traced(self) -> bool:
        return self.tracer == "blktrace"

    @property
    def timeout_s(self) -> float:
        prepare_s = self.workload.guest_prepare_s if self.workload else 0
        return BOOT_BUDGET_S + prepare_s + 3 * self.row["runtime_s"]

    @property
    def outputs(self) -> list[str]:
        wl = list(self.workload.outputs if self.workload else ("fio.json",))
        return (["blktrace"] if self.traced else []) + ["iostat.json", *wl, "dmesg.txt.zst", "run.yaml"]

    def steps(self) -> tuple[list[str], list[str]]:
        """prepare.sh (untraced) and run.sh (traced) lines; init.sh runs them in the mounted filesystem."""
        if self.workload:
            return self.workload.guest_steps(MNT, OUT)
        prep = "fio --create_only=1 --output=/dev/null /in/job.fio"
        return [prep], [f"fio --output-format=json --output={OUT}/fio.json /in/job.fio"]

    def finish_steps(self) -> list[str]:
        """finish.sh lines (after tracing, before the unmount; none for most workloads)."""
        return self.workload.guest_finish_steps(MNT, OUT) if self.workload else []

    def inputs(self) -> dict[str, Path]:
        """What the exchange disk carries into the guest's /in, besides the two steps."""
        return self.workload.guest_files() if self.workload else {"job.fio": self.jobfile}

    def params(self, in_bytes: int | None = None) -> str:
        """Shell assignments init.sh sources (base64 on the kernel command line); `in_bytes`: the length of the
        input tar at the start of the exchange disk (Images.in_bytes), which init.sh reads and no further."""
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
            **({"IN_BYTES": in_bytes} if in_bytes is not None else {}),
        }
        return "".join(f"{k}={shlex.quote(str(v))}\n" for k, v in vals.items())

    def qemu_command(self, scratch: Path, exchange: Path, in_bytes: int | None = None) -> list[str]:
        b64 = base64.b64encode(self.params(in_bytes).encode()).decode()
        append = f"console=ttyS0 panic=-1 quiet blkscope={b64}"
        return qemu.command(
            self.build_dir / "vmlinuz",
            self.build_dir / "initramfs.cpio",
            [scratch, exchange],
            append,
            memory_mb=self.memory_mb,
            cpus=self.cpus,
        )


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


class Images:
    """This run's two image files in a fresh directory; removes exactly those (and the directory) on exit."""

    def __init__(self, workdir: Path, scratch_mb: int, inputs: dict[str, Path], steps: dict[str, str]) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        prefix = f"guest-{os.getpid()}-"  # the pid: a sweep (watchdog.py) removes only a dead capture's own
        ledger.note("guest", dir=workdir, prefix=prefix)
        self.dir = Path(tempfile.mkdtemp(prefix=prefix, dir=workdir))
        self.scratch, self.exchange = self.dir / "scratch.img", self.dir / "exchange.img"
        self.console = self.dir / "console.txt"
        self.created: list[Path] = []
        self.scratch_mb, self.inputs, self.steps = scratch_mb, inputs, steps
        self.in_bytes = 0  # the input tar's length, end-of-archive blocks included (__enter__)

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
            self.in_bytes = f.tell()
            f.truncate(EXCHANGE_MB << 20)
        return self

    def __exit__(self, *exc) -> None:
        with signals.deferred():
            for p in (*self.created, self.console):
                p.unlink(missing_ok=True)
            self.dir.rmdir()


def scripts(plan: GuestPlan) -> dict[str, str]:
    prepare, run = plan.steps()
    finish = plan.finish_steps()
    head = f"# {plan.run_id}: written by blkscope capture; init.sh runs it with sh -e in {MNT}\n"
    steps = {"prepare.sh": prepare, "run.sh": run, **({"finish.sh": finish} if finish else {})}
    return {name: head + "\n".join(lines) + "\n" for name, lines in steps.items()}


def keep_failed(plan: GuestPlan, out: Path, console: str) -> Path:
    """A failed guest's results and console, kept beside the images (never in the dataset): how far a run
    that cannot finish got (its logs, times.txt) is a measurement too. A later failure of the run replaces it."""
    dest = plan.workdir / f"{plan.run_id}.failed"
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(out, dest)
    (dest / "console.txt").write_text(console)
    return dest


def boot(plan: GuestPlan, out: Path, manifest: dict) -> tuple[dict, dict]:
    """Run the guest once: images, qemu to its poweroff, results into `out`. Returns qemu's start and end times
    and the testbed's block of run.yaml.
    Raises RuntimeError, with the failing step's own words, when the guest did not finish its run."""
    with Images(plan.workdir, plan.row["device_mb"], plan.inputs(), scripts(plan)) as img:
        cmd = plan.qemu_command(img.scratch, img.exchange, img.in_bytes)
        times = {"qemu_start_utc": utc()}
        with qemu.Guest(cmd, img.console) as g:
            rc = g.wait(plan.timeout_s)
        times["qemu_end_utc"] = utc()
        console = img.console.read_text(errors="replace")
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
            kept = keep_failed(plan, out, console)
            raise RuntimeError(f"guest run failed (qemu exit {rc}, guest status {status}): {tail} (logs: {kept})")
        st = img.scratch.stat()
        return times, {
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
