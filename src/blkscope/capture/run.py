"""The orchestrator: one run of the runs sheet, end to end: testbed -> mkfs/mount -> iostat + tracer -> workload
-> teardown. It sits on top of capture/: it imports the testbeds (loop.py, device.py, and the guest through
run_guest.py) and the workloads (fio.py, workloads/), and nothing in capture/ imports it.

Outputs go to a hidden temporary directory beside the destination and are moved to data/raw/<run_id>/ only when
the run succeeded, so a failed or interrupted run leaves no partial directory. `describe()` is the dry run: it
prints the plan and touches nothing."""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import blkscope
from blkscope.capture import (
    blktrace,
    fio,
    hwlock,
    image,
    iostat,
    memcap,
    record,
    signals,
    throttle,
    watchdog,
    workloads,
)
from blkscope.capture.device import allowed as device_allowed
from blkscope.capture.device import device_filesystem
from blkscope.capture.device import plan_steps as device_plan
from blkscope.capture.filesystem import commands
from blkscope.capture.loop import loop_filesystem
from blkscope.capture.sh import version
from blkscope.capture.tracefs import CLOCK, OPTIONS, TRACEFS, BlkTracer, cut_window
from blkscope.runs import load_runs

OUTPUTS = ("trace.txt.zst", "iostat.json", "fio.json", "run.yaml")
TOOLS = ("losetup", "mount", "umount", "fio", "iostat")
# After fio, still traced: `sync -f` makes the filesystem write what the workload left for later (btrfs commits
# every 30 s, ext4 every 5 s: longer than a short run), then a pause lets completions land.
SETTLE_S = 1.0
# the workloads whose processes start inside a memory cap (Workload.wrapped; fio.run's cap): YCSB's JVM with RocksDB
# in it, fio, and the Cassandra node driven by YCSB (its client outside: cassandra_ycsb.py)
MEMCAP_WORKLOADS = ("ycsb", "fio", "cassandra-ycsb")


@dataclass
class Plan:
    row: dict
    jobfile: Path | None  # fio only
    outdir: Path
    workdir: Path
    allowed: list[str] = field(default_factory=list)
    buffer_size_kb: int = 65536
    workload: workloads.Workload | None = None  # sysbench, journal, ycsb (None: fio)

    @property
    def run_id(self) -> str:
        return self.row["run_id"]

    @property
    def traced(self) -> bool:
        return bool(self.row["traced"])

    @property
    def outputs(self) -> list[str]:
        names = [*OUTPUTS[:2], *(self.workload.outputs if self.workload else ("fio.json",)), "run.yaml"]
        return [o for o in names if self.traced or o != "trace.txt.zst"]


def load_row(runs: Path, run_id: str) -> dict:
    df = load_runs(runs)
    rows = df.filter(df["run_id"] == run_id).to_dicts()
    if not rows:
        raise ValueError(f"{runs}: no run {run_id!r} (known: {', '.join(df['run_id'].to_list()[:5])}, ...)")
    return rows[0]


def make_plan(
    runs: Path,
    run_id: str,
    outdir: Path,
    *,
    fio_dir: Path,
    workdir: Path,
    allowed: list[str],
    tools_dir: Path = Path("tools"),
    settings: dict | None = None,
) -> Plan:
    row = load_row(runs, run_id)
    # `tracer: auto` is resolved here; run.yaml's run: block keeps what the sheet asked for (tracer_requested)
    row["tracer_requested"] = row["tracer"]
    row["tracer"], row["tracer_because"] = blktrace.resolve(row["tracer"], row["testbed"], bool(row["traced"]))
    for key, default in (("device_mb", 1024), ("runtime_s", 20)):
        if row.get(key) is None:
            row[key] = default
    try:  # bad syntax refused at plan time, so a dry run shows it too
        row["device_cap_limits"] = throttle.parse(row.get("device_cap"))
    except throttle.CapError as e:
        raise ValueError(f"{run_id}: {e}") from None
    try:
        row["memory_cap_bytes"] = memcap.parse(row.get("memory_cap"))
    except memcap.MemCapError as e:
        raise ValueError(f"{run_id}: {e}") from None
    if row["memory_cap_bytes"] and row["testbed"] == "guest":
        raise ValueError(f"{run_id}: memory_cap is for the host testbeds (the guest's RAM is its own cap)")
    if row["memory_cap_bytes"] and row["workload"] not in MEMCAP_WORKLOADS:
        raise ValueError(f"{run_id}: memory_cap: workload {row['workload']} does not start inside the group")
    if row["device_cap_limits"] and row["testbed"] != "loop":
        raise ValueError(
            f"{run_id}: device_cap is for the loop testbed (a real device has its own ceiling; "
            "guest timings are emulated)"
        )
    if row["testbed"] == "guest":  # the emulated guest has its own path (run_guest.py)
        from blkscope.capture.run_guest import guest_plan

        return guest_plan(row, outdir, fio_dir=fio_dir, workdir=workdir, tools_dir=tools_dir)
    if row["testbed"] not in ("loop", "device"):
        raise ValueError(f"{run_id}: testbed {row['testbed']!r} is not implemented (loop, device, guest)")
    if row["testbed"] == "device":
        device_allowed(row.get("device"), allowed)  # refused at plan time, so a dry run shows it too
    if row["traced"] and row["tracer"] != "tracefs-blk":
        raise ValueError(f"{run_id}: tracer {row['tracer']!r} is not implemented on the host (only 'tracefs-blk')")
    if row["workload"] != "fio":
        wl = workloads.load(row, tools_dir, settings)
        if wl.load_once and row["testbed"] != "loop":
            raise ValueError(f"{run_id}: job {row['job']} starts from a loaded loop image (the loop testbed only)")
        return Plan(row, None, outdir, workdir, allowed, workload=wl)
    jobfile = fio_dir / f"{row['job']}.fio"
    if not jobfile.is_file():
        raise ValueError(f"{run_id}: fio job file {jobfile} not found")
    return Plan(row, jobfile, outdir, workdir, allowed)


def describe(plan: Plan) -> str:
    """The dry run: every step a real run would take, in order."""
    if plan.row["testbed"] == "guest":
        from blkscope.capture.run_guest import describe as guest_describe

        return guest_describe(plan)
    r = plan.row
    mnt = plan.workdir / "run-XXXX" / "mnt"
    dev = r.get("device") if r["testbed"] == "device" else "/dev/loopN"
    mkfs, mount = commands(r["filesystem"], r["mkfs_options"] or "", r["mount_options"] or "", dev, mnt)
    env = fio.env(mnt, r["runtime_s"], r["repeat"])
    envs = " ".join(f"{k}={v}" for k, v in env.items())
    wl = plan.workload.describe(mnt) if plan.workload else [f"{envs} fio --create_only=1 {plan.jobfile}", None]
    lines = [
        f"run {plan.run_id}: {r['workload']}/{r['job']} on {r['filesystem']} ({r['testbed']}), repeat {r['repeat']}",
        f"lock {hwlock.LOCK_PATH} (one hardware run at a time)",
        *(
            device_plan(dev, plan.allowed)
            if r["testbed"] == "device"
            else [
                _backing_line(plan),
                *(
                    [
                        f"losetup --find --show --direct-io=on {plan.workdir}/run-XXXX/backing.img  -> /dev/loopM "
                        "(the medium, to be capped)",
                        "losetup --find --show --direct-io=on /dev/loopM  -> /dev/loopN",
                    ]
                    if r["device_cap_limits"]
                    else [f"losetup --find --show --direct-io=on {plan.workdir}/run-XXXX/backing.img  -> /dev/loopN"]
                ),
                "check /dev/loopN is backed by that file (allow-list: "
                + (", ".join(plan.allowed) or "loop only")
                + ")",
            ]
        ),
        *([] if plan.workload and plan.workload.load_once else [" ".join(mkfs)]),
        " ".join(mount),
        *(
            [f"memory cap ({_interface(memcap)}): a group of {r['memory_cap']} for the workload's processes (they "
             "start inside it: sh -c 'echo $$ > cgroup.procs && exec CMD'); removed after the workload, always"]
            if r["memory_cap_bytes"]
            else []
        ),
        *wl[:-1],
        *(
            [f"cap /dev/loopM ({_interface(throttle)}): {r['device_cap']} (removed after the workload, always)"]
            if r["device_cap_limits"]
            else []
        ),
        " ".join(iostat.command(dev)) + " > iostat.json &",
    ]
    if plan.traced:
        lines += [
            f"tracefs {TRACEFS}: buffer_size_kb={plan.buffer_size_kb} trace_clock={CLOCK}; "
            f"/sys/block/loopN/trace/enable=1; current_tracer=blk; trace_options={','.join(OPTIONS)}",
            f"read {TRACEFS}/trace_pipe > trace.txt (in a thread)",
        ]
        spec = plan.workload.options.get("trace_window_s") if plan.workload else None
        if spec:
            lines.append(f"keep the trace of [{spec[0]}, {spec[0] + spec[1]}) s after the workload starts (tracer on "
                         "throughout; lines read outside it counted, not written)")
    lines.append(wl[-1] or f"{envs} " + " ".join(fio.command(plan.jobfile, Path("fio.json"))))
    lines.append(f"sync -f {mnt}; wait {SETTLE_S} s")
    if plan.traced:
        lines.append("trace/enable=0; drain trace_pipe; read per_cpu/cpuN/stats (overruns); current_tracer=nop")
    lines += [
        "iostat: SIGINT, check JSON",
        *(plan.workload.describe_finish(mnt) if plan.workload else []),
        "teardown (always, also on error and SIGINT/SIGTERM): umount"
        + ("" if r["testbed"] == "device" else "; losetup --detach /dev/loopN; remove backing file"),
        ("zstd -19 trace.txt -> trace.txt.zst; " if plan.traced else "") + "write run.yaml",
        f"move {', '.join(plan.outputs)} into {plan.outdir}/",
    ]
    return "\n".join(f"{i:2d}. {line}" for i, line in enumerate(lines, 1))


def preflight(plan: Plan, force: bool) -> None:
    """Everything that can be checked before touching the host."""
    if os.geteuid() != 0:
        raise PermissionError("blkscope capture needs root (loop devices, mkfs, mount, tracefs); try --dry-run")
    if plan.outdir.exists() and any(plan.outdir.iterdir()) and not force:
        raise FileExistsError(f"{plan.outdir} exists and is not empty (pass --force to replace it)")
    wl_tools = plan.workload.tools if plan.workload else ()
    missing = [t for t in (*TOOLS, *wl_tools, f"mkfs.{plan.row['filesystem']}") if shutil.which(t) is None]
    if missing:
        raise RuntimeError(f"missing tool(s): {', '.join(missing)} (see deps/debian-capture.txt)")
    fs = plan.row["filesystem"]
    if fs not in Path("/proc/filesystems").read_text().split():
        raise RuntimeError(f"filesystem {fs} is not available in this kernel (use the guest testbed)")


def capture_run(plan: Plan, *, force: bool = False) -> dict:
    if plan.row["testbed"] == "guest":
        from blkscope.capture.run_guest import capture

        return capture(plan, force=force)
    preflight(plan, force)
    if plan.workload:
        plan.workload.build()  # compile the tool before taking the hardware lock
    return record.staged(plan.run_id, plan.outdir, lambda tmp: _capture(plan, tmp))


def _capture(plan: Plan, tmp: Path) -> dict:
    r = plan.row
    meta: dict = {"run_id": plan.run_id, "run": dict(r), "start_utc": record.utc()}
    meta.update(record.host(), tools=_tools(r["filesystem"]))
    job_env = None
    with hwlock.hardware_lock():
        meta["lock"] = {"path": str(hwlock.LOCK_PATH), "acquired_utc": record.utc()}
        watchdog.sweep_stale()  # what a capture killed earlier left (its watchdog killed too, or a reboot)
        img = _loaded_image(plan) if plan.workload and plan.workload.load_once else None
        with _testbed_filesystem(
            r["testbed"],
            plan.workdir,
            device=r.get("device"),
            fstype=r["filesystem"],
            size_mb=r["device_mb"],
            mkfs_options=r["mkfs_options"] or "",
            mount_options=r["mount_options"] or "",
            allowed=plan.allowed,
            medium=bool(r["device_cap_limits"]),
            **({"image": Path(img["path"])} if img else {}),
        ) as fs:
            job_env = fio.env(fs.mountpoint, r["runtime_s"], r["repeat"])
            if img:
                meta["image"] = _image_meta(img, fs.image, tmp)
            with _memory_cap(r["memory_cap_bytes"]) as mem:
                if plan.workload:
                    plan.workload.cap = mem
                try:
                    if plan.workload:
                        plan.workload.prepare(fs.mountpoint, tmp)
                    else:
                        fio.prepare(plan.jobfile, job_env, mem)
                    subprocess.run(["sync", "-f", str(fs.mountpoint)], check=True, process_group=0)
                    caps = r["device_cap_limits"]
                    with _device_cap(fs, caps) as cap, iostat.Iostat(fs.device, tmp / "iostat.json") as io:
                        tracer = BlkTracer(fs.name, tmp / "trace.txt", plan.buffer_size_kb) if plan.traced else None
                        if tracer:
                            tracer.start()
                        try:
                            meta["loadavg"] = {"before": record.load_average()}
                            meta["clock"] = _clock_pair()
                            meta["workload_start_utc"] = meta["clock"]["utc"]
                            window = _trace_window(plan, meta["clock"]["monotonic_s"])
                            if tracer and window:
                                tracer.keep_window(*window)
                            if mem:
                                mem.snapshot("workload_start")
                            # the group mid-run (the JVM's heap and native memory beside the page cache)
                            timer = _snapshot_at(mem, window, meta["clock"]["monotonic_s"])
                            try:
                                if plan.workload:
                                    meta[r["workload"]] = plan.workload.run(fs.mountpoint, tmp)
                                else:
                                    meta["fio"] = fio.run(plan.jobfile, tmp / "fio.json", job_env, mem)
                            finally:
                                if timer:
                                    timer.cancel()
                            meta["workload_end_utc"] = record.utc()
                            meta["loadavg"]["after"] = record.load_average()
                            if mem:
                                mem.snapshot("workload_end")
                            subprocess.run(["sync", "-f", str(fs.mountpoint)], check=True, process_group=0)
                            time.sleep(SETTLE_S)
                        finally:
                            if tracer:
                                with signals.deferred():
                                    tracer.stop() if sys.exc_info()[0] is None else record.quiet(tracer.stop)
                    if plan.workload:
                        plan.workload.finish(fs.mountpoint, tmp)
                finally:
                    if plan.workload:  # e.g. the Cassandra node: stopped after tracing, before the unmount, always
                        with signals.deferred():
                            plan.workload.stop() if sys.exc_info()[0] is None else record.quiet(plan.workload.stop)
            if mem:  # removed by now (after the workload's stop, before the unmount): its record is complete
                meta["memory_cap"] = {"requested": r["memory_cap"], **mem.info()}
                if not mem.removed:
                    raise memcap.MemCapError(f"memory cap not removed: {mem.errors}")
            meta["iostat"] = io.info
            if cap:
                meta["device_cap"] = {"requested": r["device_cap"], **cap.info()}
            meta["testbed"] = fs.testbed_meta(_findmnt(plan.workdir))
            meta["filesystem"] = {
                "type": r["filesystem"],
                "mkfs_command": " ".join(fs.mkfs_cmd),
                "mkfs_options": r["mkfs_options"] or "",
                "mount_command": " ".join(fs.mount_cmd),
                "mount_options": r["mount_options"] or "",
                "mount_options_effective": fs.mount_options_effective,
                **({"made": "mkfs and load when the image was made (image: block)"} if img else {}),
            }
    meta["teardown"] = "complete"
    after = f"sync -f and {SETTLE_S} s pause, traced (the workload's deferred writeback is in the trace)"
    wl_meta = (
        {**plan.workload.info, "prepared": "before tracing, then sync -f", "after": after} if plan.workload else {}
    )
    meta["workload"] = wl_meta or {
        "tool": "fio",
        "job": r["job"],
        "job_file": str(plan.jobfile),
        "job_sha256": hashlib.sha256(plan.jobfile.read_bytes()).hexdigest(),
        "job_text": plan.jobfile.read_text(),
        "env": {k: v for k, v in (job_env or {}).items() if k != "BLKSCOPE_DIR"},
        "prepared_with": "fio --create_only=1 and sync -f, before tracing",
        "after": f"sync -f and {SETTLE_S} s pause, traced (the workload's deferred writeback is in the trace)",
    }
    if plan.traced:
        meta["tracer"] = tracer.info
        if "window" in tracer.info:  # the steady state's window kept; events outside it counted, not kept
            w = tracer.info["window"]
            w.update(cut_window(tmp / "trace.txt", w["start_monotonic_s"], w["end_monotonic_s"]))
            w["offset_s"], w["length_s"] = plan.workload.options["trace_window_s"]
        meta["tracer"]["events"], meta["tracer"]["events_per_device"] = record.compress_trace(tmp / "trace.txt")
    else:
        meta["tracer"] = {"name": "none"}
    meta["end_utc"] = record.utc()
    meta["files"] = {n: record.file_info(tmp / n) for n in plan.outputs if n != "run.yaml"}
    record.write_run_yaml(
        tmp / "run.yaml", meta, "Written by `blkscope capture`: what ran, where, with which versions and options."
    )
    return meta


def _testbed_filesystem(testbed: str, workdir: Path, *, device: str | None = None, medium: bool = False, **kw):
    """The run's filesystem on its host testbed: a loop device on a fresh file (over a loop device, the medium,
    when the run is capped), or an allow-listed real device."""
    if testbed == "device":
        return device_filesystem(workdir, device=device, **kw)
    if testbed != "loop":
        raise ValueError(f"testbed {testbed!r} has no host filesystem (loop, device)")
    return loop_filesystem(workdir, medium=medium, **kw)


def _loaded_image(plan: Plan) -> dict:
    """The loaded image this run starts from (made first when missing, under the hardware lock)."""
    r, wl = plan.row, plan.workload
    key = {"filesystem": r["filesystem"], "mkfs_options": r["mkfs_options"] or "",
           "mount_options": r["mount_options"] or "", "device_mb": r["device_mb"], **wl.image_key()}  # fmt: skip
    return image.ensure(plan.workdir, key, wl.load, fstype=r["filesystem"], size_mb=r["device_mb"],
                        mkfs_options=r["mkfs_options"] or "", mount_options=r["mount_options"] or "",
                        allowed=plan.allowed)  # fmt: skip


def _image_meta(img: dict, copy: dict, tmp: Path) -> dict:
    """run.yaml's `image` block: the image (its hash at load) and this run's copy of it (its hash); the load's
    logs copied into the run directory."""
    for log in img["logs"]:
        shutil.copyfile(Path(img["logs_dir"]) / log, tmp / log)
    same = copy["copy_sha256"] == img["sha256"]
    if not same:
        raise RuntimeError(f"copy of {img['path']} has sha256 {copy['copy_sha256']}, the image {img['sha256']}")
    keep = ("path", "key", "format", "sha256", "bytes", "allocated_bytes", "mkfs_command", "mount_command",
            "load", "logs", "made_by_this_run")  # fmt: skip
    return {**{k: img[k] for k in keep}, **copy, "copy_matches_image": same}


def _memory_cap(limit_bytes: int):
    """The workload's memory group for prepare, run and stop (no cap: nothing)."""
    return memcap.capped(limit_bytes) if limit_bytes else contextlib.nullcontext()


def _snapshot_at(mem, window, start_mono: float) -> threading.Timer | None:
    """A memory-cap snapshot at the start of the trace window (mid-run, in the steady state)."""
    if not (mem and window):
        return None
    timer = threading.Timer(max(0.0, window[0] - start_mono), mem.snapshot, ("trace_window_start",))
    timer.daemon = True
    timer.start()
    return timer


def _trace_window(plan: Plan, start_mono: float) -> tuple[float, float] | None:
    """The kept trace window (monotonic) of a job with `trace_window_s` [offset, length] after the workload starts."""
    spec = plan.workload.options.get("trace_window_s") if plan.workload else None
    return (start_mono + spec[0], start_mono + spec[0] + spec[1]) if spec else None


def _backing_line(plan: Plan) -> str:
    r, where = plan.row, f"{plan.workdir}/run-XXXX/backing.img"
    if not (plan.workload and plan.workload.load_once):
        return f"create sparse file {where} of {r['device_mb']} MiB"
    return (f"image {plan.workdir}/images/{r['filesystem']}-<key hash>.img (made when missing: fresh sparse file, "
            f"mkfs, mount, the load, unmount, sha256); cp --sparse=always it to {where}; sha256 of the copy")


def _interface(module) -> str:
    try:
        return module.interface()
    except (throttle.CapError, memcap.MemCapError) as e:
        return f"none here: {e}"


def _device_cap(fs, limits: dict[str, int]):
    """The cap on the loop testbed's medium for the measured part of the run (no cap: nothing)."""
    return throttle.capped(fs.medium, limits) if limits else contextlib.nullcontext()


def _clock_pair() -> dict:
    """CLOCK_MONOTONIC (the trace's clock) next to UTC, to place trace times on the iostat time line."""
    mono = time.clock_gettime(time.CLOCK_MONOTONIC)
    return {"trace_clock": CLOCK, "monotonic_s": round(mono, 6), "utc": record.utc()}


def _tools(fstype: str) -> dict:
    mkfs = {"ext4": ["mkfs.ext4", "-V"], "xfs": ["mkfs.xfs", "-V"], "btrfs": ["mkfs.btrfs", "--version"]}
    return {
        "blkscope": blkscope.__version__,
        "blkscope_git": record.git_describe(),
        "python": platform.python_version(),
        "fio": version(["fio", "--version"]),
        "iostat": version(["iostat", "-V"]),
        f"mkfs.{fstype}": version(mkfs.get(fstype, [f"mkfs.{fstype}", "-V"])),
        "losetup": version(["losetup", "--version"]),
    }


def _findmnt(path: Path) -> str | None:
    p = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "-T", str(path)], capture_output=True, text=True)
    return p.stdout.strip() or None
