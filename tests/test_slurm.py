"""SLURM for real: a one-host cluster (scripts/slurm-local.sh: Debian's munged, slurmctld and slurmd, no
accounting) runs, through `--profile profiles/slurm`, (a) the analysis DAG of a miniature dataset, whose tables
must equal a local run's, and (b) one tiny loop-device capture holding the `testbed` resource.

Every Snakemake run here has a hard time limit (LIMIT_S; the capture's includes waiting for the hardware lock):
a status query that stalls, as the plugin's default sacct did on a cluster without accounting, fails the test
instead of hanging it. The cluster is torn down (jobs cancelled, daemons stopped by PID) whatever happens.

The two analysis workflows (the whole DAG, and split traces) and their local twins are started together (fixture
`analyses`): a SLURM run spends most of its time waiting for the plugin's next status check, and the other runs'
jobs fill those waits."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest
import yaml
from polars.testing import assert_frame_equal

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts/slurm-local.sh"
LIMIT_S = 600  # per Snakemake run, from its start; each took 2-3 min here on a loaded 2-core machine
# The plugin (2.8.0) checks job states INIT_S after a check that saw a job finish, and 10 s more per check that
# saw none (hard-coded, as is the 180 s cap; --seconds-between-status-checks is overwritten after the first
# check), and Snakemake's exit waits out the sleep after the last check. A job here takes 7-11 s from sbatch to
# COMPLETED: with 2 s it is seen at the second check, 14 s (with 5 s: 20 s), and the exit waits 2 s (5 s).
INIT_S = 2
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol")
# two host fio runs (ext4, xfs)
RUNS = ["host-ext4-fio-append-r1", "host-xfs-fio-append-r1"]
TABLES = ["run_summary", "rank_frequency", "iostat_summary"]
SUBMITTED = re.compile(r"Job \d+ has been submitted with SLURM jobid (\d+) \(log: (\S+)\)")


def _cannot_run_slurmd() -> str | None:
    """Why this host cannot stand up the one-host cluster, or None."""
    if sys.platform != "linux":
        return "slurmd runs on Linux only"
    if os.geteuid() != 0:
        return "needs root (slurmd starts jobs as their user)"
    missing = [b for b in DAEMONS if shutil.which(b) is None]
    if missing:
        return f"missing {', '.join(missing)}: scripts/ensure-debs.sh deps/debian-slurm.txt (make test does)"
    if os.path.lexists("/etc/slurm/slurm.conf"):
        return "/etc/slurm/slurm.conf exists: this host is a SLURM node already; not mixing a second cluster in"
    if os.path.lexists("/run/slurm/conf"):
        # a cluster of another test session, or one left behind (`scripts/slurm-local.sh down <its dir>` ends it)
        return f"/run/slurm/conf -> {os.readlink('/run/slurm/conf')}: another SLURM node runs on this host"
    return None


pytestmark = [
    pytest.mark.root,
    pytest.mark.slurm,
    pytest.mark.skipif(_cannot_run_slurmd() is not None, reason=str(_cannot_run_slurmd())),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, state: Path):
        self.state = state
        self.env = dict(
            os.environ,
            SLURM_CONF=str(state / "etc/slurm.conf"),
            SLURM_LOCAL_CTLD_PORT=str(_free_port()),
            SLURM_LOCAL_SLURMD_PORT=str(_free_port()),
        )
        # jobs inherit this environment (sbatch --export=ALL): the venv's snakemake and blkscope come first
        self.env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{self.env['PATH']}"

    def script(self, action: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(SCRIPT), action, str(self.state)], env=self.env, capture_output=True,
                              text=True, timeout=120)  # fmt: skip

    def start(self, work: Path, *args: str, log: Path) -> Run:
        """Snakemake through profiles/slurm, in the background."""
        # the profile's first check at 40 s suits a real cluster, not a test (INIT_S)
        cmd = [sys.executable, "-m", "snakemake", "--profile", "profiles/slurm",
               "--slurm-init-seconds-before-status-checks", str(INIT_S),
               "--slurm-keep-successful-logs", *args]  # fmt: skip
        return Run(cmd, work, self.env, log)

    def finish(self, run: Run) -> str:
        """The run's log, once it has ended well."""
        rc = run.wait("Snakemake on SLURM (stalled status query?)")
        text = run.log.read_text()
        assert rc == 0, text[-4000:]
        # the profile's squeue status mode was kept (the plugin falls back to sacct when MinJobAge is short)
        assert "Falling back to 'sacct'" not in text
        return text

    def snakemake(self, work: Path, *args: str, log: Path) -> str:
        run = self.start(work, *args, log=log)
        try:
            return self.finish(run)
        finally:
            run.kill()

    def jobs(self, ids: list[str]) -> dict[str, dict[str, str]]:
        """SLURM's own record of the jobs (squeue lists finished jobs for MinJobAge)."""
        out = subprocess.run(["squeue", "--states=all", "--noheader", "--jobs", ",".join(ids),
                              "--format=%i|%T|%j|%l|%m|%h"], env=self.env, capture_output=True, text=True,
                             check=True, timeout=30).stdout  # fmt: skip
        rows = [line.split("|") for line in out.split()]
        return {r[0]: dict(state=r[1], name=r[2], time_limit=r[3], mem=r[4], share=r[5]) for r in rows}


class Run:
    """One Snakemake run in the background, in a process group of its own; failed and killed (with whatever it
    started) LIMIT_S after its start."""

    def __init__(self, cmd: list[str], work: Path, env: dict[str, str], log: Path):
        self.log, self.deadline = log, time.monotonic() + LIMIT_S
        with open(log, "w") as f:
            self.p = subprocess.Popen(cmd, cwd=work, env=env, stdout=f, stderr=subprocess.STDOUT,
                                      start_new_session=True)  # fmt: skip

    def wait(self, what: str) -> int:
        try:
            return self.p.wait(timeout=max(0.0, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"{what} did not finish within {LIMIT_S} s:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("slurm"))
    # pytest tears fixtures down on Ctrl-C but not on SIGTERM (a CI time-out): make SIGTERM a Ctrl-C meanwhile
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        up = c.script("up")
        assert up.returncode == 0, up.stdout + up.stderr + _logs(c.state)
        yield c
    finally:
        down = c.script("down")
        signal.signal(signal.SIGTERM, previous)
        assert down.returncode == 0, down.stderr
    assert not _running_from(c.state), "a daemon of the cluster is still running"
    assert not os.path.lexists("/run/slurm/conf")


def test_up_that_fails_leaves_nothing_running(tmp_path):
    """slurmctld cannot bind its port (taken here): `up` fails and stops the munged it had started. Runs before
    the module's cluster exists (file order): only one SLURM node fits on a host."""
    state = tmp_path / "state"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = dict(os.environ, SLURM_LOCAL_CTLD_PORT=str(taken.getsockname()[1]),
                   SLURM_LOCAL_SLURMD_PORT=str(_free_port()), SLURM_LOCAL_WAIT_S="5")  # fmt: skip
        p = subprocess.run(["bash", str(SCRIPT), "up", str(state)], env=env, capture_output=True, text=True,
                           timeout=120)  # fmt: skip
    assert p.returncode != 0 and "slurmctld did not come up" in p.stderr, p.stderr
    assert "Starting munge" in (state / "log/munged.log").read_text()  # munged had been started, then stopped
    assert not list((state / "run").glob("*.pid"))
    assert not _running_from(state), "a daemon of the failed cluster is still running"
    assert not os.path.lexists("/run/slurm/conf")


def _running_from(state: Path) -> list[str]:
    """Processes whose command line names the cluster's state directory (its munged, slurmctld, slurmd)."""
    found = []
    for c in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(state).encode() in c.read_bytes():
                found.append(c.parent.name)
        except OSError:  # the process ended meanwhile
            pass
    return found


def _logs(state: Path) -> str:
    return "".join(f"\n--- {p.name}\n{p.read_text()[-1500:]}" for p in sorted((state / "log").glob("*.log")))


def _workdir(dest: Path, runs: pl.DataFrame, raw: list[str]) -> Path:
    dest.mkdir()
    for item in ["Snakefile", "workflow", "config", "profiles"]:
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dest / item)
    for r in raw:
        shutil.copytree(ROOT / "data/raw" / r, dest / "data/raw" / r)
    runs.write_csv(dest / "config/runs.tsv", separator="\t")
    return dest


def _submitted(log: str, cluster: Cluster) -> dict[str, str]:
    """SLURM job id -> rule, from the plugin's submission lines; each job COMPLETED under this run's name."""
    subs = {jid: re.search(r"/rule_([^/]+)/", path).group(1) for jid, path in SUBMITTED.findall(log)}
    run_name = re.search(r"SLURM run ID: (\S+)", log).group(1)
    jobs = cluster.jobs(list(subs))
    assert set(jobs) == set(subs), (subs, jobs)
    for jid, job in jobs.items():
        assert job["state"] == "COMPLETED" and job["name"] == run_name, (jid, job)
        # the profile's default resources reached sbatch: runtime 60 min, mem_mb 4000
        assert (job["time_limit"], job["mem"]) == ("1:00:00", "4000M"), (jid, job)
    return subs


@dataclass
class Analysis:
    local: Path  # the workflow run locally, in one process
    slurm: Path  # the same through SLURM
    local_run: Run
    slurm_run: Run


# the whole DAG: ingest of trace, iostat and fio, page frequency, then three cross-run tables
DAG_TARGETS = [f"data/processed/analysis/{t}.parquet" for t in TABLES]
# each run's trace ingested as 2 part jobs and gathered, then latency, queue depth, seek and each run's fof.cover
SPLIT_TARGETS = [f"data/processed/analysis/{t}.parquet" for t in ("latency", "queue_depth", "seek")]
SPLIT_TARGETS += ["data/processed/datasets/access_frequency.cover.tsv"]  # (blkscope.datasets)
SPLIT_CONFIG = "trace_parts:\n  parts: 2\n  min_bytes: 0\n"


@pytest.fixture(scope="module")
def analyses(cluster, tmp_path_factory):
    """Both analysis workflows, each through SLURM and locally (--cores 1), all four runs started at once; each
    test waits for its own two. Killed at the end if still running (also on Ctrl-C/SIGTERM)."""
    sheet = pl.read_csv(ROOT / "config/runs.tsv", separator="\t").filter(pl.col("run_id").is_in(RUNS))
    assert sheet.height == len(RUNS)
    base = tmp_path_factory.mktemp("analyses")
    runs: dict[str, Analysis] = {}
    started: list[Run] = []
    try:
        for name, targets, config in (("dag", DAG_TARGETS, None), ("split", SPLIT_TARGETS, SPLIT_CONFIG)):
            d = base / name
            d.mkdir()
            local, slurm = _workdir(d / "local", sheet, RUNS), _workdir(d / "slurm", sheet, RUNS)
            args = list(targets)
            if config:
                (slurm / "split.yaml").write_text(config)
                args = ["--configfile", "split.yaml", "--", *targets]
            started.append(Run([sys.executable, "-m", "snakemake", "--cores", "1", *targets], local, cluster.env,
                               d / "local.log"))  # fmt: skip
            started.append(cluster.start(slurm, *args, log=d / "slurm.log"))
            runs[name] = Analysis(local, slurm, *started[-2:])
        yield runs
    finally:
        for r in started:
            r.kill()


def _finished(cluster: Cluster, a: Analysis) -> str:
    """The SLURM run's log, once both runs have ended well."""
    log = cluster.finish(a.slurm_run)
    assert a.local_run.wait("the local run") == 0, a.local_run.log.read_text()[-3000:]
    return log


def test_analysis_dag_on_slurm_equals_local(cluster, analyses):
    an = analyses["dag"]
    local, slurm = an.local, an.slurm
    # the local run goes on beside the SLURM one: their jobs mostly wait on each other's polls
    log = _finished(cluster, an)

    # the condition under test: no accounting, so sacct (the plugin's default status command) cannot answer
    sacct = subprocess.run(["sacct", "-X", "--noheader"], env=cluster.env, capture_output=True, text=True, timeout=30)
    assert sacct.returncode != 0 and "accounting storage is disabled" in sacct.stderr, sacct
    # the local runs' thread budget (blkscope.local_cores) leaves a cluster's alone: its jobs run on the nodes
    assert "usable CPU" not in log, log[-3000:]
    subs = _submitted(log, cluster)
    # every job of the local run went to SLURM, but for the workflow's localrules (run beside Snakemake there)
    local_jobs = re.findall(r"^(?:local)?rule (\w+):", an.local_run.log.read_text(), re.M)
    kept_local = set(re.findall(r"^localrule (\w+):", log, re.M))
    assert sorted(subs.values()) == sorted(r for r in local_jobs if r not in kept_local), (subs, local_jobs)
    assert set(TABLES) <= set(subs.values()) and len(subs) > len(TABLES)
    # each job's own Snakemake ran inside its SLURM allocation and ran its rule there
    for jid, path in SUBMITTED.findall(log):
        job_log = Path(path).read_text()
        assert "--executor slurm-jobstep" in job_log and f"rule {subs[jid]}:" in job_log, path

    for t in TABLES:
        a, b = (pl.read_parquet(d / f"data/processed/analysis/{t}.parquet") for d in (local, slurm))
        assert a.height > 0
        assert_frame_equal(a, b)
    for r in RUNS:
        for part in ("frequency/pages.parquet", "trace/events.parquet"):
            a, b = (pl.read_parquet(d / "data/processed" / r / part) for d in (local, slurm))
            assert a.height > 0
            assert_frame_equal(a, b)


def test_split_traces_on_slurm_equal_the_whole_local_run(cluster, analyses):
    """Scatter-gather (workflow/rules/parts.smk) through SLURM: each run's trace ingested as 2 part jobs and
    gathered, then latency, queue depth, seek and frequency on parts.json, equal to a local run that ingests
    the traces whole (the default config: these small runs are below trace_parts.min_bytes)."""
    tables = ["latency", "queue_depth", "queue_depth_series", "queue_depth_dist", "seek", "seek_hist"]
    an = analyses["split"]
    local, slurm = an.local, an.slurm
    log = _finished(cluster, an)
    rules = sorted(_submitted(log, cluster).values())
    assert rules.count("ingest_trace_part") == 2 * len(RUNS) and rules.count("gather_trace_parts") == len(RUNS)
    assert "ingest_trace" not in rules
    for r in RUNS:
        assert len(json.loads((slurm / f"data/processed/{r}/trace_parts/parts.json").read_text())["parts"]) == 2
        a, b = (pl.read_parquet(d / f"data/processed/{r}/frequency/fof.cover.parquet") for d in (local, slurm))
        assert a.height > 0
        assert_frame_equal(a, b)
    for t in tables:
        a, b = (pl.read_parquet(d / f"data/processed/analysis/{t}.parquet") for d in (local, slurm))
        assert a.height > 0
        assert_frame_equal(a, b)


CAPTURE_TOOLS = ("fio", "iostat", "losetup", "mkfs.ext4", "mount", "umount")


def test_tiny_capture_on_slurm_with_the_testbed_resource(cluster, tmp_path):
    from blkscope.capture import ledger, tracefs
    from blkscope.capture.hwlock import hardware_lock
    from blkscope.runs import load_runs

    missing = [t for t in CAPTURE_TOOLS if shutil.which(t) is None]
    if missing or not tracefs.blk_available():
        pytest.skip(f"a capture needs {', '.join(missing) or 'the tracefs blk tracer'}")
    run_id = "slurm-tiny"
    # one ext4 randrw row of the real sheet, shrunk as tests/test_capture_root.py does: 128 MiB, 2 s
    row = load_runs(ROOT / "config/runs.tsv").filter(pl.col("filesystem") == "ext4", pl.col("job") == "randrw")
    row = row.head(1).with_columns(run_id=pl.lit(run_id), device_mb=pl.lit(128), runtime_s=pl.lit(2))
    work = _workdir(tmp_path / "wf", row, [])
    loops = tmp_path / "loops"
    cfg = yaml.safe_load((work / "config/config.yaml").read_text())
    cfg["capture"]["workdir"] = str(loops)
    (work / "config/config.yaml").write_text(yaml.safe_dump(cfg))

    target = f"data/raw/{run_id}/run.yaml"
    log = cluster.snakemake(work, target, log=tmp_path / "slurm.log")
    subs = _submitted(log, cluster)
    assert list(subs.values()) == ["capture_run"], subs
    # the profile gives captures a node of their own (sbatch --exclusive: OverSubscribe=NO)
    assert [j["share"] for j in cluster.jobs(list(subs)).values()] == ["NO"]
    # Snakemake counted the rule's testbed against the profile's limit of 1
    assert "Provided resources: testbed=" in log and re.search(r"resources: .*testbed=1", log), log[-3000:]

    out = work / "data/raw" / run_id
    assert sorted(p.name for p in out.iterdir()) == ["fio.json", "iostat.json", "run.yaml", "trace.txt.zst"]
    meta = yaml.safe_load((out / "run.yaml").read_text())
    assert meta["tracer"]["events"] > 0 and meta["fio"]["ios"]["read"] > 0
    # torn down after the job: no mount, no loop device on our backing file, the tracer back at nop (read under
    # the hardware lock: the tracer is global, and another hardware run on this host may be tracing now)
    assert str(loops) not in Path("/proc/self/mounts").read_text()
    backs = subprocess.run(["losetup", "--list", "--noheadings", "--output", "BACK-FILE"], capture_output=True,
                           text=True, check=True).stdout  # fmt: skip
    assert str(loops) not in backs
    with hardware_lock(timeout_s=LIMIT_S):
        tracer = Path("/sys/kernel/tracing/current_tracer").read_text().strip()
        # a capture killed together with its watchdog (tests/test_capture_kill_root.py) leaves its tracer on, and
        # its ledger open, until a sweep; the lock is free meanwhile. A tracer on with no such ledger is ours.
        owners = [p.name for p, _ in ledger.found() if any(e["kind"] == "tracer" for e in ledger.read(p)[1])]
        assert tracer == "nop" or owners, f"current_tracer is {tracer!r} and no open ledger names a tracer"
