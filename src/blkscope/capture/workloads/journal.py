"""The append-only journal writer (tools/journal/journal.c) of the low-latency journalling study (STUDIES.md, 4).

Compiled with gcc for every run (cheap; the binary always matches the committed source) into
tools/journal/target/ (git-ignored). Jobs: segment preparation none / sparse / prealloc, each alone and with a
concurrent random reader of the same file (`-reader`). Writes of 512 B at 2,000/s with fdatasync every 64 writes
(about 31 per second: a group-committing journal), so block I/O stays a few hundred requests per second."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

from blkscope.capture.sh import sh, version
from blkscope.capture.workloads.base import Workload, run_to_file

OUTPUTS = ("journal.json",)
CFLAGS = ("-O2", "-Wall", "-pthread")
DEFAULTS = {"rate": 2000, "record": 512, "sync_every": 64, "reader": False, "read_size": 4096, "read_rate": 20000}
JOBS = {
    f"{mode}{'-reader' if reader else ''}": {"mode": mode, "reader": reader}
    for mode in ("none", "sparse", "prealloc")
    for reader in (False, True)
}
FILE = "journal.0"


class Journal(Workload):
    name = "journal"
    tools = ("gcc",)
    jobs = JOBS
    rate_key, defaults = "rate", DEFAULTS  # the load level: job_rate
    outputs = OUTPUTS
    guest_prepare_s = 120
    guest_versions = ("journal",)
    guest_inputs = "the journal writer built here (bin/journal)"

    def resolve(self, row: dict) -> dict:
        return {**DEFAULTS, **JOBS[row["job"]], "duration_s": int(row["runtime_s"]), "seed": int(row["repeat"])}

    @property
    def source(self) -> Path:
        return self.tools_dir / "journal" / "journal.c"

    @property
    def binary(self) -> Path:
        return self.tools_dir / "journal" / "target" / "journal"

    def build_command(self) -> list[str]:
        return ["gcc", *CFLAGS, "-o", str(self.binary), str(self.source)]

    def command(self, mnt: Path | str, binary: str | None = None) -> list[str]:
        o = self.options
        cmd = [binary or str(self.binary), "--file", f"{mnt}/{FILE}", "--mode", o["mode"]]
        cmd += ["--duration", str(o["duration_s"])]
        cmd += ["--rate", str(o["rate"]), "--record", str(o["record"]), "--sync-every", str(o["sync_every"])]
        cmd += ["--seed", str(o["seed"])]
        if o["reader"]:
            cmd += ["--reader", "--read-size", str(o["read_size"]), "--read-rate", str(o["read_rate"])]
        return cmd

    def build(self) -> None:
        if not self.source.is_file():
            raise RuntimeError(f"journal writer source {self.source} not found (--tools-dir)")
        self.binary.parent.mkdir(parents=True, exist_ok=True)
        sh(self.build_command())
        self.info["build"] = {
            "command": " ".join(self.build_command()),
            "source_sha256": hashlib.sha256(self.source.read_bytes()).hexdigest(),
            "gcc": version(["gcc", "--version"]),
        }
        self.info["version"] = sh([str(self.binary), "--version"]).strip()

    def prepare(self, mnt: Path, out: Path) -> None:
        # Untraced, like fio's file layout: for `prealloc` the zero fill and its fsync stay out of the trace
        # (its pages stay cached: "primed" files); `sparse` sets the size; `none` only makes sure no file exists.
        sh([*self.command(mnt), "--phase", "prepare"])

    def run(self, mnt: Path, out: Path) -> dict:
        cmd = [*self.command(mnt), "--phase", "run"]
        self.info["command"] = " ".join(cmd).replace(str(mnt), "<mountpoint>")
        err = run_to_file(cmd, out / "journal.json", stderr_to_out=False)
        if err.strip():
            self.info["stderr"] = err.strip()[-2000:]
        return self.summarize(out)

    def summarize(self, out: Path) -> dict:
        return summary(out / "journal.json")

    def guest_files(self) -> dict[str, Path]:
        return {"bin/journal": self.binary}  # built on the host; the initramfs carries its glibc

    def guest_steps(self, mnt: str, out: str) -> tuple[list[str], list[str]]:
        cmd = self.command(mnt, binary="/in/bin/journal")
        self.info["command"] = " ".join([*cmd, "--phase", "run"]).replace(mnt, "<mountpoint>")
        prepare = [f"{shlex.join([*cmd, '--phase', 'prepare'])} > {out}/journal-prepare.txt 2>&1"]
        # stdout is the JSON; stderr apart, as on the host
        return prepare, [f"{shlex.join([*cmd, '--phase', 'run'])} > {out}/journal.json 2> {out}/journal.err"]

    def describe(self, mnt: Path) -> list[str]:
        cmd = " ".join(self.command(mnt))
        return [
            " ".join(self.build_command()) + "  (before the lock)",
            f"{cmd} --phase prepare  (untraced)",
            f"{cmd} --phase run > journal.json",
        ]


def summary(path: Path) -> dict:
    """Check the program's JSON and return counts and tails for run.yaml."""
    try:
        doc = json.loads(path.read_text())
        lat = doc["latency"]
    except (OSError, ValueError, KeyError) as e:
        raise RuntimeError(f"{path}: journal JSON invalid: {e}") from e
    if not lat["write"]["count"]:
        raise RuntimeError(f"{path}: the journal wrote nothing")
    keep = ("count", "p50_ns", "p99_ns", "max_ns")
    return {
        "late_writes": doc["late_writes"],
        **{op: {k: v[k] for k in keep if k in v} for op, v in lat.items()},
    }
