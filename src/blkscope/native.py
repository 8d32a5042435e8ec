"""Run the compiled trace readers (native/, the `blkscope-native` program) for `blkscope ingest`.

The program writes events.parquet straight into the ingest staging directory and a JSON report that is
merged here into ingest.json; bad input comes back as one InputError (file, line or byte offset, message)
and no table. Python cannot read traces at disk speed (bench/RESULTS.md), hence a separate program.
Deliberately light: no polars or pyarrow import on this path (they cost more than reading a small trace), and
str paths, not pathlib (blkscope.io says why).
"""

from __future__ import annotations

import json
import os
import sys

from blkscope.errors import InputError

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    from pathlib import Path

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
CRATE = os.path.join(REPO, "native")
# the trace kinds this program reads (the readers of the same names run it): their ingest needs no polars or pyarrow,
# and they are the ones a large trace is read in parts of (blkscope.parts)
KINDS = ("blktrace", "blkparse", "ftrace")
PROGRESS_MIN = 64 << 20  # smaller inputs read in well under a second: no progress meter


def program() -> str:
    """The blkscope-native binary: $BLKSCOPE_NATIVE, else the crate's release build (built by `make setup`)."""
    env = os.environ.get("BLKSCOPE_NATIVE")
    if env:
        return env
    exe = os.path.join(CRATE, "target", "release", "blkscope-native")
    if not os.path.exists(exe):
        raise RuntimeError(f"{exe} is not built: run `make setup` (cargo build --release in {CRATE})")
    return exe


def _progress(inputs: list[str | Path]) -> bool:
    if not sys.stderr.isatty():
        return False
    try:
        return sum(os.path.getsize(p) for p in inputs if os.path.isfile(p)) >= PROGRESS_MIN
    except OSError:
        return False


def run(kind: str, inputs: list[str | Path], writer, report, table: str = "events") -> None:
    """Read `inputs` of `kind` with blkscope-native into `writer`'s staging directory; merge its report."""
    out = os.path.join(writer.staging, f"{table}.parquet")
    # the report beside the table: the staging directory is this ingest's alone (no temporary directory to make
    # and remove), and the report leaves it before it is renamed into place
    rep_path = os.path.join(writer.staging, f"{table}.native-report.json")
    cmd = [program(), kind, "--out", out, "--report", rep_path]
    cmd += ["--progress"] if _progress(inputs) else []
    try:
        returncode = _call([*cmd, *map(os.fspath, inputs)])
        doc = _read_json(rep_path)
    finally:
        _unlink(rep_path)
    if doc is None or (returncode != 0 and "error" not in doc):
        _unlink(out)
        raise RuntimeError(f"blkscope-native {kind} failed (exit {returncode}) on {', '.join(map(str, inputs))}")
    if "error" in doc:
        _unlink(out)
        e = doc["error"]
        raise InputError(e["path"], e.get("where"), e["message"])
    merge(report, doc)
    writer.external(table, doc["rows"].get(table, 0))


def _read_json(path: str) -> dict | None:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def _unlink(path: str) -> None:
    if os.path.lexists(path):  # the staging directory is this ingest's alone
        os.unlink(path)


def _call(cmd: list[str]) -> int:
    """subprocess.run(cmd, stdout=DEVNULL).returncode without importing subprocess (with threading and selectors,
    ~3 ms of `blkscope ingest`'s start): the program found as subprocess finds it (PATH for a bare name), stdout on
    /dev/null, SIGPIPE and SIGXFSZ back to their defaults (restore_signals), an exec error raised as subprocess
    raises it, and on an interrupt the program killed and reaped before the exception goes on. Unlike subprocess,
    descriptors this process inherited as inheritable beyond 0-2 stay open in it (Python opens its own
    non-inheritable)."""
    import _signal as signal  # the C module under `signal`: the same numbers, without its enums (~1 ms of the start)

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


def build(quiet: bool = True) -> str:
    """cargo build --release of the crate (what `make setup` runs); returns the binary."""
    import shutil
    import subprocess
    from pathlib import Path

    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    # in the crate: cargo finds .cargo/config.toml (target-cpu=native) from the working directory
    subprocess.run([cargo, "build", "--release", *(["-q"] if quiet else [])], cwd=CRATE, check=True)
    return os.path.join(CRATE, "target", "release", "blkscope-native")
