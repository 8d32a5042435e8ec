"""What every run writes beside its data, whatever its testbed: times, the host, the code version, file sizes
and hashes, run.yaml's text, zstd-compressed logs, and the one-rename publication of the run directory."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import yaml
import zstandard

from blkscope.capture import ledger, signals
from blkscope.io import follow_umask

ZSTD_LEVEL = 19


def utc() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def load_average() -> dict:
    """/proc/loadavg parsed, with the time: run.yaml's `loadavg: before/after` brackets the workload (the
    workload's own threads count in `after`)."""
    f = Path("/proc/loadavg").read_text().split()
    running, total = f[3].split("/")
    return {"utc": utc(), "1min": float(f[0]), "5min": float(f[1]), "15min": float(f[2]),
            "running": int(running), "tasks": int(total)}  # fmt: skip


def host() -> dict:
    mem_kb = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
    )
    return {
        "kernel": platform.release(),
        "host": {
            "hostname": socket.gethostname(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "mem_mb": mem_kb // 1024,
        },
    }


def git_describe() -> str | None:
    try:
        p = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True,
            text=True,
            timeout=10,
            cwd=Path(__file__).parent,
        )
    except OSError:
        return None
    return p.stdout.strip() or None


def file_info(path: Path) -> dict:
    return {"bytes": path.stat().st_size, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


class Dumper(yaml.SafeDumper):
    """Multi-line strings (the fio job text) as readable literal blocks."""


Dumper.add_representer(
    str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None)
)


def write_run_yaml(path: Path, meta: dict, header: str) -> None:
    text = f"# {header}\n" + yaml.dump(meta, Dumper=Dumper, sort_keys=False, default_flow_style=False, width=120)
    path.write_text(text)


def zst(src: Path, dst: Path) -> None:
    cctx = zstandard.ZstdCompressor(level=ZSTD_LEVEL, write_checksum=True)
    with open(src, "rb") as i, open(dst, "wb") as o:
        cctx.copy_stream(i, o)


def compress_trace(raw: Path) -> tuple[int, dict[str, int]]:
    """trace.txt -> trace.txt.zst (raw removed); returns the line count and lines per device (major,minor)."""
    lines, per_dev = 0, {}
    cctx = zstandard.ZstdCompressor(level=ZSTD_LEVEL, write_checksum=True)
    with open(raw, "rb") as src, open(raw.with_suffix(".txt.zst"), "wb") as dst, cctx.stream_writer(dst) as w:
        for line in src:
            w.write(line)
            lines += 1
            dev = line.split(maxsplit=1)[0].decode(errors="replace") if line.strip() else ""
            per_dev[dev] = per_dev.get(dev, 0) + 1
    raw.unlink()
    return lines, per_dev


def publish(tmp: Path, outdir: Path) -> None:
    """Replace outdir with tmp in one rename (an empty outdir, e.g. made by Snakemake, is simply replaced)."""
    old = None
    if outdir.exists():
        old = outdir.with_name(f".{outdir.name}.old-{os.getpid()}")
        outdir.rename(old)
    tmp.rename(outdir)
    if old is not None:
        shutil.rmtree(old)


def quiet(fn) -> None:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - an earlier error is already on its way up
        print(f"blkscope: {e}", file=sys.stderr)


def staged(run_id: str, outdir: Path, capture: Callable[[Path], dict]) -> dict:
    """Run `capture(tmp)` in a hidden directory beside `outdir` and publish it there only when it succeeded, so a
    failed or interrupted run (signals raise) leaves no partial run directory. The run's teardown ledger is open
    throughout (ledger.py)."""
    outdir.parent.mkdir(parents=True, exist_ok=True)
    with ledger.opened():  # a SIGKILL skips every `finally` below: the watchdog then undoes what the ledger names
        prefix = f".{run_id}.partial-{os.getpid()}-"
        ledger.note("staging", dir=outdir.parent, prefix=prefix)
        tmp = Path(follow_umask(tempfile.mkdtemp(prefix=prefix, dir=outdir.parent)))
        try:
            with signals.raise_on_signals():
                meta = capture(tmp)
                publish(tmp, outdir)
            return meta
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
