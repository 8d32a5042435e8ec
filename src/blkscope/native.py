"""Run the compiled trace readers (native/, the `blkscope-native` program) for `blkscope ingest`.

The program writes events.parquet straight into the ingest staging directory and a JSON report that is
merged here into ingest.json; bad input comes back as one InputError (file, line or byte offset, message)
and no table. Python cannot read traces at disk speed (bench/RESULTS.md), hence a separate program.
Deliberately light: no polars or pyarrow import on this path (they cost more than reading a small trace).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from blkscope.errors import InputError

REPO = Path(__file__).resolve().parents[2]
CRATE = REPO / "native"
PROGRESS_MIN = 64 << 20  # smaller inputs read in well under a second: no progress meter


def program() -> Path:
    """The blkscope-native binary: $BLKSCOPE_NATIVE, else the crate's release build (built by `make setup`)."""
    env = os.environ.get("BLKSCOPE_NATIVE")
    if env:
        return Path(env)
    exe = CRATE / "target" / "release" / "blkscope-native"
    if not exe.exists():
        raise RuntimeError(f"{exe} is not built: run `make setup` (cargo build --release in {CRATE})")
    return exe


def _progress(inputs: list[Path]) -> bool:
    if not sys.stderr.isatty():
        return False
    try:
        return sum(p.stat().st_size for p in map(Path, inputs) if p.is_file()) >= PROGRESS_MIN
    except OSError:
        return False


def run(kind: str, inputs: list[Path], writer, report, table: str = "events") -> None:
    """Read `inputs` of `kind` with blkscope-native into `writer`'s staging directory; merge its report."""
    out = Path(writer.staging) / f"{table}.parquet"
    # the report beside the table: the staging directory is this ingest's alone (no temporary directory to make
    # and remove), and the report leaves it before it is renamed into place
    rep_path = Path(writer.staging) / f"{table}.native-report.json"
    cmd = [str(program()), kind, "--out", str(out), "--report", str(rep_path)]
    cmd += ["--progress"] if _progress(inputs) else []
    try:
        returncode = _call([*cmd, *map(str, inputs)])
        doc = json.loads(rep_path.read_text()) if rep_path.exists() else None
    finally:
        rep_path.unlink(missing_ok=True)
    if doc is None or (returncode != 0 and "error" not in doc):
        out.unlink(missing_ok=True)
        raise RuntimeError(f"blkscope-native {kind} failed (exit {returncode}) on {', '.join(map(str, inputs))}")
    if "error" in doc:
        out.unlink(missing_ok=True)
        e = doc["error"]
        raise InputError(e["path"], e.get("where"), e["message"])
    merge(report, doc)
    writer.external(table, doc["rows"].get(table, 0))


def _call(cmd: list[str]) -> int:
    """subprocess.run(cmd, stdout=DEVNULL).returncode without importing subprocess (with threading and selectors,
    ~3 ms of `blkscope ingest`'s start): the program found as subprocess finds it (PATH for a bare name), stdout on
    /dev/null, SIGPIPE and SIGXFSZ back to their defaults (restore_signals), an exec error raised as subprocess
    raises it, and on an interrupt the program killed and reaped before the exception goes on. Unlike subprocess,
    descriptors this process inherited as inheritable beyond 0-2 stay open in it (Python opens its own
    non-inheritable)."""
    import signal

    devnull = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=devnull, setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
    try:
        status = os.waitpid(pid, 0)[1]
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    return os.waitstatus_to_exitcode(status)


def merge(report, doc: dict) -> None:
    report.warnings.extend(doc.get("warnings", []))
    for k, n in doc.get("unknown", {}).items():
        report.count_unknown(k, n)
    report.trace.update(doc.get("trace", {}))
    report.versions.update(doc.get("versions", {}))


def build(quiet: bool = True) -> Path:
    """cargo build --release of the crate (what `make setup` runs); returns the binary."""
    import subprocess

    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    # in the crate: cargo finds .cargo/config.toml (target-cpu=native) from the working directory
    subprocess.run([cargo, "build", "--release", *(["-q"] if quiet else [])], cwd=CRATE, check=True)
    return CRATE / "target" / "release" / "blkscope-native"
