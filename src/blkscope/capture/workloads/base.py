"""The workload interface, and running a tool to completion with its output in a file."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from blkscope.capture import hwlock, memcap, procs
from blkscope.capture.sh import sh

# Maven's JVM (maven_env): prints nothing, changes no jar
MAVEN_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


class Workload:
    name = ""
    tools: tuple[str, ...] = ()  # executables preflight checks for
    jobs: dict[str, dict] = {}  # job name -> options over the defaults
    outputs: tuple[str, ...] = ()  # the logs it leaves in the run directory (besides iostat.json, run.yaml, trace)
    # In the emulated guest: RAM, time for the untraced prepare under TCG, the versions.txt keys that name its
    # tools, and what the exchange disk carries in for it (the dry run's wording).
    guest_memory_mb = 1536
    guest_prepare_s = 0
    guest_versions: tuple[str, ...] = ()
    guest_inputs = "nothing else"
    guest_refused = ""  # why this workload does not run in the emulated guest (empty: it does)
    # the option that fixes a job's request rate over the defaults (0: as fast as it can go); "" for a workload
    # with no rate setting (it always runs as fast as it can)
    rate_key = ""
    defaults: dict = {}

    def __init__(self, row: dict, tools_dir: Path, settings: dict | None = None) -> None:
        job = row["job"]
        if job not in self.jobs:
            raise ValueError(f"{row['run_id']}: {self.name} job {job!r} unknown (known: {', '.join(self.jobs)})")
        self.row, self.tools_dir = row, tools_dir
        self.settings = settings or {}  # the capture config (e.g. where cassandra-stress is)
        self.options = self.resolve(row)
        self.info: dict = {"tool": self.name, "job": job, "options": self.options}
        if "java" in self.tools and row.get("testbed") != "guest":  # they change its timings: in run.yaml
            self.info["jvm_options"] = list(self.jvm_options)
        self.cap = None  # the run's memory cap (memcap.MemCap), set by the orchestrator while it holds

    @classmethod
    def job_rate(cls, job: str) -> float | None:
        """The request rate `job` fixes (its rate option over the defaults), 0 when it runs unthrottled; None for
        a job this workload does not define."""
        if not cls.rate_key:
            return 0.0
        if job not in cls.jobs:
            return None
        return float({**cls.defaults, **cls.jobs[job]}.get(cls.rate_key) or 0)

    @property
    def jvm_options(self) -> tuple[str, ...]:
        """Extra options for every JVM the run starts on the host (the capture config's `jvm_options`, from
        `blkscope capture --jvm-options` or $BLKSCOPE_JVM_OPTS; none by default), after the workload's own, so that
        a -XX flag given here wins. Not for the emulated guest's JVMs, which run with options of their own."""
        if self.row.get("testbed") == "guest":
            return ()
        opts = self.settings.get("jvm_options") or ()
        return tuple(shlex.split(opts) if isinstance(opts, str) else opts)

    def wrapped(self, cmd: list[str]) -> list[str]:
        """cmd as it must start: inside the memory cap's group when the run has one (memcap.MemCap.wrap)."""
        return self.cap.wrap(cmd) if self.cap is not None else list(cmd)

    @property
    def load_once(self) -> bool:
        """Whether runs start from a copy of an image loaded once (capture/image.py) instead of loading."""
        return bool(self.options.get("load_once"))

    def image_key(self) -> dict:
        """Everything the loaded image's bytes depend on, besides the filesystem's own settings."""
        raise NotImplementedError

    def load(self, mnt: Path, logdir: Path) -> dict:
        """The load phase into a fresh filesystem (untraced, uncapped), its logs into logdir; returns a summary."""
        raise NotImplementedError

    def resolve(self, row: dict) -> dict:
        raise NotImplementedError

    def build(self) -> None:
        """Before the hardware lock: compile or fetch the tool."""

    def prepare(self, mnt: Path, out: Path) -> None:
        """On the mounted filesystem, untraced: files and data the workload needs."""

    def run(self, mnt: Path, out: Path) -> dict:
        """The measured part (traced); returns a short summary for run.yaml and the capture log."""
        raise NotImplementedError

    def finish(self, mnt: Path, out: Path) -> None:
        """After tracing and iostat, on success only, before stop(): untraced phases that follow the measured
        one (YCSB's read-only phase)."""

    def stop(self) -> None:
        """After tracing, before the unmount, also on failure: stop what prepare() left running (a server)."""

    def describe(self, mnt: Path) -> list[str]:
        raise NotImplementedError

    def describe_finish(self, mnt: Path) -> list[str]:
        """The dry run's lines for finish() (after iostat stops)."""
        return []

    # The emulated guest runs the same commands from shell scripts (capture/guest/init.sh): no Python there.
    def guest_files(self) -> dict[str, Path]:
        """Files or directories the guest needs, by their name under /in (after build())."""
        return {}

    def guest_steps(self, mnt: str, out: str) -> tuple[list[str], list[str]]:
        """Shell lines for the guest: prepare (untraced) and run (traced), writing OUTPUTS into `out`."""
        raise NotImplementedError

    def guest_finish_steps(self, mnt: str, out: str) -> list[str]:
        """Shell lines for the guest after tracing, before the unmount, also after a failed run (finish.sh):
        what finish() and stop() do on the host."""
        return []

    def summarize(self, out: Path) -> dict:
        """run.yaml's short summary of the outputs in `out`."""
        raise NotImplementedError


def redirect(cmd: Sequence[str], out: str, *, append: bool = False, cwd: str | None = None) -> str:
    """A shell line running cmd with stdout and stderr into `out` (the guest's form of run_to_file)."""
    line = f"{shlex.join(cmd)} {'>>' if append else '>'} {shlex.quote(out)} 2>&1"
    return f"cd {shlex.quote(cwd)} && {line}" if cwd else line


def run_to_file(
    cmd: Sequence[str],
    out: Path,
    *,
    env: Mapping[str, str] | None = None,
    append: bool = False,
    stderr_to_out: bool = True,
    cwd: Path | None = None,
    timeout_s: float = 600,
    watch: Callable[[], str | None] | None = None,
) -> str:
    """Run cmd to completion, stdout (and stderr) into `out`; stop it (SIGINT, then SIGKILL) on an exception such
    as a signal turned into one. Returns stderr when it is kept apart. Raises RuntimeError on a non-zero exit.
    `watch`, asked every second: a reason to stop cmd now (e.g. the server it drives has died), or None."""
    where = "" if cwd is None else f"(cd {cwd}) "
    print(f"+ {where}{shlex.join(cmd)} {'>>' if append else '>'} {out}", file=sys.stderr, flush=True)
    with open(out, "ab" if append else "wb") as f:
        # Own process group: a terminal Ctrl-C reaches blkscope only, which then stops the tool in order.
        p = subprocess.Popen(
            list(cmd),
            stdout=f,
            stderr=subprocess.STDOUT if stderr_to_out else subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            process_group=0,
        )
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                try:
                    _, err = p.communicate(timeout=min(1.0, timeout_s) if watch else timeout_s)
                    break
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= deadline:
                        raise
                    why = watch() if watch else None
                    if why:
                        raise RuntimeError(f"{memcap.tool(cmd)} stopped: {why}") from None
        except BaseException as e:
            procs.stop(p, grace_s=10)
            if isinstance(e, subprocess.TimeoutExpired):
                raise RuntimeError(f"{memcap.tool(cmd)} did not finish within {timeout_s:.0f} s; stopped") from None
            raise
    err_text = (err or b"").decode(errors="replace")
    if p.returncode != 0:
        tail = err_text if not stderr_to_out else out.read_bytes()[-2000:].decode(errors="replace")
        raise RuntimeError(f"{memcap.tool(cmd)} exit {p.returncode}: {' | '.join(tail.strip().splitlines()[-5:])}")
    return err_text


def maven_env() -> dict[str, str]:
    """Maven's environment: its own JVM C1-only with the serial collector (MAVEN_OPTS; about half the CPU of a
    build, the jars the same) unless the caller's environment sets MAVEN_OPTS."""
    return {**os.environ, "MAVEN_OPTS": os.environ.get("MAVEN_OPTS", MAVEN_OPTS)}


def maven_jar(project: Path, jar: str, build_command: Sequence[str], what: str) -> dict[str, str]:
    """Build the Maven project's `target/<jar>` when it is missing or older than its sources; return its manifest's
    fields (the versions the pom wrote there)."""
    path = project / "target" / jar
    if not (project / "pom.xml").is_file():
        raise RuntimeError(f"{what} {project} not found (--tools-dir)")
    # one Maven build at a time (two captures, two test workers): projects share ~/.m2, each its target/
    with hwlock.build_lock(project.parent):
        src = [*project.rglob("*.java"), project / "pom.xml"]
        if not path.exists() or max(p.stat().st_mtime for p in src) > path.stat().st_mtime:
            sh(list(build_command), timeout=1200, env=maven_env())
        with zipfile.ZipFile(path) as z:
            manifest = z.read("META-INF/MANIFEST.MF").decode()
    return dict(line.split(": ", 1) for line in manifest.splitlines() if ": " in line)
