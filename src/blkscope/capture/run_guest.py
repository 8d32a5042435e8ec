"""The orchestrator's guest path: a runs-sheet row on the emulated guest testbed (capture/guest/testbed.py) with
its workload (capture/workloads), from the plan and its dry run to run.yaml. Only capture/run.py imports it."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import blkscope
from blkscope.capture import blktrace, fio, hwlock, record, watchdog, workloads
from blkscope.capture.guest import qemu
from blkscope.capture.guest.testbed import EXCHANGE_MB, MNT, GuestPlan, boot, preflight
from blkscope.capture.iostat import check_json as check_iostat


def guest_plan(row: dict, outdir: Path, *, fio_dir: Path, workdir: Path, tools_dir: Path = Path("tools")) -> GuestPlan:
    tracer, because = row["tracer"], row.get("tracer_because", "")
    mem = GuestPlan.memory_mb
    if row["workload"] != "fio":
        wl = workloads.load(row, tools_dir)
        if wl.guest_refused:
            raise ValueError(
                f"{row['run_id']}: workload {row['workload']} does not run in the guest: {wl.guest_refused}"
            )
        mem = wl.guest_memory_mb
        return GuestPlan(row, None, outdir, workdir, tracer=tracer, tracer_because=because, workload=wl, memory_mb=mem)
    jobfile = fio_dir / f"{row['job']}.fio"
    if not jobfile.is_file():
        raise ValueError(f"{row['run_id']}: fio job file {jobfile} not found")
    return GuestPlan(row, jobfile, outdir, workdir, tracer=tracer, tracer_because=because, memory_mb=mem)


def describe(plan: GuestPlan) -> str:
    r = plan.row
    rd = plan.workdir / "guest-XXXX"
    prepare, run = plan.steps()
    cmd = plan.qemu_command(rd / "scratch.img", rd / "exchange.img")
    inputs = plan.workload.guest_inputs if plan.workload else "the fio job"
    lines = [
        f"run {plan.run_id}: {r['workload']}/{r['job']} on {r['filesystem']} (guest, emulated), repeat {r['repeat']}",
        f"lock {hwlock.LOCK_PATH} (one hardware run at a time)",
        f"guest kernel and initramfs from {plan.build_dir} (rule guest_build)",
        f"create sparse {rd}/scratch.img of {r['device_mb']} MiB (the guest's /dev/vda; nothing on the host)",
        f"create {rd}/exchange.img: tar of prepare.sh, run.sh and {inputs}, "
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
        f"  guest: sync -f; sleep {plan.settle_s}; SIGINT blktrace and iostat",
        *(f"  guest finish.sh (untraced, also after a failure, in {MNT}): {line}" for line in plan.finish_steps()),
        "  guest: umount; tar results onto /dev/vdb; poweroff",
        "read the results tar from exchange.img"
        + ("; zstd -19 each vda.blktrace.N -> blktrace/vda.blktrace.N.zst" if plan.traced else ""),
        "teardown (always, also on error and SIGINT/SIGTERM): kill qemu; remove scratch.img and exchange.img",
        f"write run.yaml; move {', '.join(plan.outputs)} into {plan.outdir}/",
    ]
    return "\n".join(f"{i:2d}. {line}" for i, line in enumerate(lines, 1))


def capture(plan: GuestPlan, *, force: bool = False) -> dict:
    preflight(plan, force)
    if plan.workload:
        plan.workload.build()  # compile the tool (and its guest payload) before taking the hardware lock
    return record.staged(plan.run_id, plan.outdir, lambda tmp: _capture(plan, tmp))


def _capture(plan: GuestPlan, tmp: Path) -> dict:
    manifest = json.loads((plan.build_dir / "manifest.json").read_text())
    meta: dict = {"run_id": plan.run_id, "run": dict(plan.row), "start_utc": record.utc()}
    with hwlock.hardware_lock():
        meta["lock"] = {"path": str(hwlock.LOCK_PATH), "acquired_utc": record.utc()}
        watchdog.sweep_stale()  # what a capture killed earlier left
        out = tmp / "guest"
        meta["loadavg"] = {"before": record.load_average()}  # the host's, around the whole guest
        times, meta["testbed"] = boot(plan, out, manifest)
        meta["loadavg"]["after"] = record.load_average()
        meta.update(times)
    meta["teardown"] = "complete"
    return _finish(plan, tmp, out, meta, manifest)


def _kv(path: Path) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in path.read_text().splitlines() if ": " in line)


def _finish(plan: GuestPlan, tmp: Path, out: Path, meta: dict, manifest: dict) -> dict:
    """Guest outputs -> the run directory's files and run.yaml."""
    r = plan.row
    v = _kv(out / "versions.txt")
    host = record.host()
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
        "blkscope": blkscope.__version__,
        "blkscope_git": record.git_describe(),
        "fio": v["fio"],
        **{k: v[k] for k in (plan.workload.guest_versions if plan.workload else ()) if k in v},
        "iostat": v["iostat"],
        "blktrace": v["blktrace"],
        mkfs: manifest["tools"][mkfs]["version"],
        "busybox": v["busybox"],
        "where": "inside the guest (binaries copied from the host's Debian packages; sha256 in the manifest)",
    }
    for name in ("iostat.json", *(plan.workload.outputs if plan.workload else ("fio.json",))):
        plain = out / name.removesuffix(".zst")
        if name.endswith(".zst") and plain.exists() and not (out / name).exists():
            record.zst(plain, tmp / name)  # the guest has no zstd: its logs are compressed here
        else:
            shutil.move(out / name, tmp / name)
    if plan.workload:
        meta[r["workload"]] = plan.workload.summarize(tmp)
    else:
        meta["fio"] = fio.check_json(tmp / "fio.json")
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
    record.zst(out / "dmesg.txt", tmp / "dmesg.txt.zst")
    meta["end_utc"] = record.utc()
    meta["files"] = {}
    for name in plan.outputs:
        p = tmp / name
        for f in sorted(p.iterdir()) if p.is_dir() else [p] if name != "run.yaml" else []:
            meta["files"][str(f.relative_to(tmp))] = record.file_info(f)
    header = "Written by `blkscope capture` (guest testbed): what ran, where, with which versions and options."
    record.write_run_yaml(tmp / "run.yaml", meta, header)
    shutil.rmtree(out)
    return meta


def _workload_meta(plan: GuestPlan) -> dict:
    prepare, run = plan.steps()
    return {
        **plan.workload.info,
        "guest_prepare_sh": prepare,
        "guest_run_sh": run,
        **({"guest_finish_sh": finish} if (finish := plan.finish_steps()) else {}),
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
        record.zst(f, dest / (f.name + ".zst"))
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
