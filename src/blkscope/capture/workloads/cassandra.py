"""Apache Cassandra as a workload: a single node (cassandra_node.py) with its commitlog and data on the filesystem
under test, driven by the real cassandra-stress (cassandra_stress.py), as in the commitlog study (STUDIES.md):
`write` with the default schema (keyspace1.standard1) and enough client threads to saturate this machine's
node; and as in the SSD study: `mixed` reads and writes over a population written beforehand.

The runs sheet sets the commitlog: commitlog_compression (none | LZ4), commitlog_segment_mb, commitlog_sync_period_ms
(commitlog_sync is periodic, as in the study) and commitlog_disk_access_mode (5.0: legacy = mmap uncompressed,
standard I/O compressed). prepare() starts the node and writes a small population (untraced: schema creation,
JIT warm-up); run() is the traced stress run; stop() stops the node after tracing, and the orchestrator calls it
before unmounting also when the run fails. A run that succeeded ends (finish(), after tracing and iostat) by
recording every commitlog and data file's extents (capture/extents.py: filefrag.txt), then stopping the node.
Outputs: cstress.txt (cassandra-stress's stdout, the measured run), cstress-prepare.txt, cassandra.yaml,
cassandra-node.log.zst (the node's INFO log) and filefrag.txt.

`cassandra-cql` is the same node driven by a tiny CQL client (tools/cassandra/src: CqlLoad, DataStax driver)
for the lifecycle test where no cassandra-stress is available; its output is cql-load.txt, never cstress.txt."""

from __future__ import annotations

import json
from pathlib import Path

from blkscope.capture import extents, record
from blkscope.capture.sh import version
from blkscope.capture.workloads import cassandra_stress
from blkscope.capture.workloads.base import Workload, maven_jar, run_to_file
from blkscope.capture.workloads.cassandra_node import Node, heap

COMMITLOG = {  # runs-sheet column -> default when the cell is empty
    "commitlog_compression": "none",
    "commitlog_segment_mb": 32,
    "commitlog_sync_period_ms": 10000,
    "commitlog_disk_access_mode": "legacy",
    # the node's request timeouts (empty: Cassandra's own, write 2 s): under a tight device cap a commitlog sync
    # can lag long enough to time a write out, which ends cassandra-stress's run instead of slowing it
    "request_timeout_ms": None,
}
COMPRESSION = ("none", "LZ4")
ACCESS_MODES = ("legacy", "auto", "mmap", "standard", "direct")
DEFAULTS = {"threads": 24, "consistency": "ONE", "prepare_n": 20_000}
JOBS = {
    # 54 threads: inside the commitlog study's 32-64, and the best op/s of the write-threads sweep on ext4 and xfs
    # here (24 threads reached 78-87 % of it; data/raw/README.md)
    "write": {"command": "write", "threads": 54},
    # the SSD study's mixed load at its 32 client threads: half reads, half writes, uniform over a population
    # written in prepare
    "mixed": {"command": "mixed", "ratio": "write=1,read=1", "prepare_n": 100_000, "threads": 32},
    # the commitlog study's run by count, not by time (it wrote n=2,000,000): a fixed number of writes after an
    # untraced warm-up long enough for the JIT (prepare_n), so that repeats measure the same work (a 20-s run's
    # op/s varied 1.2-2x between repeats); the sheet's runtime_s does not apply
    "write-n": {"command": "write", "threads": 54, "prepare_n": 100_000, "n": 250_000},
    # does `threads` saturate the node here? cassandra-stress's own sweep: one round per thread count from 4 to 54
    # (4, 8, 16, 24, 36, 54), each runtime_s long with its 15 s commitlog pause between write rounds
    "write-threads": {"command": "write", "threads": "4..54"},
}
NODE_LOG = "cassandra-node.log"
EXTENT_DIRS = ("commitlog", "data")  # the node's files whose extents each run records
STRESS_TIMEOUT_S = 600

# A node whose memory may not be locked, as in a container without CAP_IPC_LOCK and a 64 KiB RLIMIT_MEMLOCK (Docker's
# defaults): Cassandra's mlockall(MCL_CURRENT) at start then fails with ENOMEM and the node goes on ("Unable to lock
# JVM memory"). Under a memory cap it must: a locked node pins the JDK's mapped runtime image (~150 MiB of file
# pages) beside its ~530 MiB anonymous, over a 640 MiB cap (OOM kill at the first 7 M-record run, 2026-11-28).
NO_MEMLOCK = ("setpriv", "--bounding-set=-ipc_lock", "--inh-caps=-ipc_lock", "prlimit", "--memlock=65536:65536")


class _Node(Workload):
    """The node's part, shared by the cassandra-stress and CQL-client workloads."""

    tools = ("java", "mvn")

    def resolve(self, row: dict) -> dict:
        o = {k: (row.get(k) if row.get(k) is not None else d) for k, d in COMMITLOG.items()}
        o["commitlog_segment_mb"], o["commitlog_sync_period_ms"] = map(
            int, (o["commitlog_segment_mb"], o["commitlog_sync_period_ms"])
        )
        if o["request_timeout_ms"] is not None:
            o["request_timeout_ms"] = int(o["request_timeout_ms"])
        if o["commitlog_compression"] not in COMPRESSION:
            raise ValueError(
                f"{row['run_id']}: commitlog_compression {o['commitlog_compression']!r} not in {COMPRESSION}"
            )
        if o["commitlog_disk_access_mode"] not in ACCESS_MODES:
            raise ValueError(f"{row['run_id']}: commitlog_disk_access_mode not in {ACCESS_MODES}")
        return {**o, **DEFAULTS, **self.jobs[row["job"]], "duration_s": int(row["runtime_s"])}

    @property
    def project(self) -> Path:
        return self.tools_dir / "cassandra"

    @property
    def lib(self) -> Path:
        return (self.project / "target" / "lib").resolve()

    def build_command(self) -> list[str]:
        return ["mvn", "-q", "-B", "-f", str(self.project / "pom.xml"), "package"]

    def build(self) -> None:
        fields = maven_jar(self.project, "cql-load.jar", self.build_command(), "Cassandra project")
        self.info["version"] = {
            "cassandra": fields.get("Cassandra-Version"),
            "java_driver": fields.get("Driver-Version"),
            "java": version(["java", "-version"]),
            "maven": version(["mvn", "-v"]),
        }
        self.info["build"] = " ".join(self.build_command())

    def new_node(self, out: Path, log: str = NODE_LOG) -> Node:
        """A node whose cassandra.yaml goes into `out` and whose log is `out/log`."""
        logback, tools = (self.project / f"logback-{n}.xml" for n in ("node", "tools"))
        return Node(self.lib, logback.resolve(), out.resolve(), out / log, tools.resolve(), self.jvm_options)

    def start_node(self, mnt: Path, out: Path) -> None:
        """The run's node: inside the run's memory cap when it has one (the client stays outside), with the
        options' heap (`node_heap_mb`, 0: 1 GiB) and cassandra.yaml settings (`node_yaml`); with `node_memlock`
        false, as a container without CAP_IPC_LOCK runs it (NO_MEMLOCK)."""
        self.node = self.new_node(out)
        node_heap = heap(self.options.get("node_heap_mb") or 0)
        self.info["cassandra_yaml"] = self.node.start(mnt, self.options, node_heap, self.node_wrap)
        self.info["node"] = {
            "command": " ".join(self.node_wrap(self.node.command("<mountpoint>", heap=node_heap))),
            "ports": self.node.ports,
            "start_s": self.node.started_s,
        }

    def node_wrap(self, cmd: list[str]) -> list[str]:
        return self.wrapped([*NO_MEMLOCK, *cmd] if self.options.get("node_memlock") is False else cmd)

    def finish(self, mnt: Path, out: Path) -> None:
        """Each file's extents while the node still runs (its commitlog segments in use: on SIGTERM the node
        drains, and the segments it leaves are recycled or deleted), then the node stopped."""
        self.info["extents"] = extents.record(mnt, EXTENT_DIRS, out)
        self.stop()

    def describe_finish(self, mnt: Path) -> list[str]:
        return [extents.describe(EXTENT_DIRS) + "  (the node still running)", "stop Cassandra by PID"]

    def stop(self) -> None:
        node = getattr(self, "node", None)
        if node is None:
            return
        self.info.setdefault("node", {})["exit_code"] = node.stop()
        self.node = None
        self.info["node"] |= close_log(node.log)

    guest_refused = (
        "no Java payload for cassandra-stress or the CQL test client (the guest runs the node with YCSB: "
        "workload cassandra-ycsb, job workloada-zipfian-small); see data/raw/README.md"
    )


class Cassandra(_Node):
    name = "cassandra"
    jobs = JOBS
    outputs = ("cstress-prepare.txt", "cstress.txt", "cassandra.yaml", NODE_LOG + ".zst", extents.LOG)

    def build(self) -> None:
        why = cassandra_stress.why_missing(self.settings)  # before anything else: the run cannot go without it
        if why:
            raise RuntimeError(why)
        super().build()
        binary, source = cassandra_stress.configured(self.settings)
        if binary:
            if self.jvm_options:  # its own script starts its JVM
                raise RuntimeError("jvm_options do not reach a configured cassandra-stress binary's JVM")
            self.stress = [str(Path(binary).resolve())]
            self.info["cassandra_stress"] = {"binary": str(Path(binary).resolve())}
            return
        cache = Path(self.settings.get("cassandra_stress_cache") or "build/cassandra-stress")
        built = cassandra_stress.build(Path(source), self.lib, self.project / cassandra_stress.PATCH, cache)
        b = json.loads((built / "build.json").read_text())
        self.stress = [
            "java",
            "-Xmx512m",
            "-cp",
            f"{built.resolve()}/classes:{self.lib}/*",
            f"-Dlogback.configurationFile={(self.project / 'logback-tools.xml').resolve()}",
            *self.jvm_options,
            cassandra_stress.MAIN,
        ]
        self.info["cassandra_stress"] = {
            "built_from": b["source"],
            "version": b["version"],
            "source_commit": b["commit"],
            "patch": b["patch"],
            "patch_sha256": b["patch_sha256"],
            "javac": b["javac"],
            "classes": str(built),
        }

    def stress_args(self, phase: str, port: int | str = "PORT", jmx: int | str = "JMX") -> list[str]:
        o = self.options
        if phase == "prepare":
            args = ["write", f"n={o['prepare_n']}", f"cl={o['consistency']}", "no-warmup"]
        elif o["command"] == "mixed":
            args = [
                "mixed",
                f"ratio({o['ratio']})",
                f"duration={o['duration_s']}s",
                f"cl={o['consistency']}",
                "no-warmup",
            ]
            args += ["-pop", f"dist=uniform(1..{o['prepare_n']})"]
        elif o.get("n"):
            args = ["write", f"n={o['n']}", f"cl={o['consistency']}", "no-warmup"]
        else:
            args = ["write", f"duration={o['duration_s']}s", f"cl={o['consistency']}", "no-warmup"]
        lo, _, hi = str(o["threads"]).partition("..")
        if hi:  # a sweep measures its rounds; its prepare runs as every other run's
            rate = [f"threads>={lo}", f"threads<={hi}"] if phase == "run" else [f"threads={DEFAULTS['threads']}"]
        else:
            rate = [f"threads={lo}"]
        return [
            *args,
            "-rate",
            *rate,
            "-node",
            "127.0.0.1",
            "-port",
            f"native={port}",
            f"jmx={jmx}",
            "-log",
            "interval=1s",
        ]

    def _stress(self, phase: str, out: Path) -> None:
        p = self.node.ports
        cmd = [*self.stress, *self.stress_args(phase, p["native"], p["jmx"])]
        name = "cstress.txt" if phase == "run" else "cstress-prepare.txt"
        err = run_to_file(cmd, out / name, stderr_to_out=False, timeout_s=STRESS_TIMEOUT_S)
        if err.strip():
            self.info.setdefault("stderr", {})[phase] = err.strip().splitlines()[-10:]

    def prepare(self, mnt: Path, out: Path) -> None:
        self.start_node(mnt, out)
        self._stress("prepare", out)
        self.info["commands"] = {ph: " ".join(["cassandra-stress", *self.stress_args(ph)]) for ph in ("prepare", "run")}

    def run(self, mnt: Path, out: Path) -> dict:
        self._stress("run", out)
        return self.summarize(out)

    def summarize(self, out: Path) -> dict:
        return summary(out / "cstress.txt")

    def describe(self, mnt: Path) -> list[str]:
        o = self.options
        return [
            " ".join(self.build_command()) + "  (before the lock; cassandra-stress built or found as configured)",
            f"write cassandra.yaml (commitlog: {o['commitlog_compression']}, {o['commitlog_segment_mb']} MiB "
            f"segments, periodic {o['commitlog_sync_period_ms']} ms, access {o['commitlog_disk_access_mode']}"
            + (f", request timeouts {o['request_timeout_ms']} ms" if o["request_timeout_ms"] else "")
            + f"); start Cassandra on {mnt}; wait for the CQL port",
            "cassandra-stress " + " ".join(self.stress_args("prepare")) + " > cstress-prepare.txt  (untraced)",
            "cassandra-stress " + " ".join(self.stress_args("run")) + " > cstress.txt"
            "  (then, after tracing: stop Cassandra by PID, always)",
        ]


class CassandraCql(_Node):
    """The node driven by the tiny CQL client: the lifecycle test's load where cassandra-stress is absent."""

    name = "cassandra-cql"
    jobs = {"insert": {"in_flight": 32}}
    outputs = ("cql-load.txt", "cassandra.yaml", NODE_LOG + ".zst", extents.LOG)

    def command(self, port: int | str = "PORT") -> list[str]:
        o = self.options
        cp = f"{(self.project / 'target' / 'cql-load.jar').resolve()}:{self.lib}/*"
        logback = f"-Dlogback.configurationFile={(self.project / 'logback-tools.xml').resolve()}"
        args = ["127.0.0.1", str(port), str(o["duration_s"]), str(o["in_flight"]), str(self.row["repeat"])]
        return ["java", "-Xmx256m", logback, *self.jvm_options, "-cp", cp, "org.blkscope.cassandra.CqlLoad", *args]

    def prepare(self, mnt: Path, out: Path) -> None:
        self.start_node(mnt, out)
        self.info["commands"] = {"run": " ".join(self.command())}

    def run(self, mnt: Path, out: Path) -> dict:
        run_to_file(self.command(self.node.ports["native"]), out / "cql-load.txt", timeout_s=STRESS_TIMEOUT_S)
        return self.summarize(out)

    def summarize(self, out: Path) -> dict:
        text = (out / "cql-load.txt").read_text(errors="replace")
        line = next((ln for ln in text.splitlines() if ln.startswith("cql-load: rows=")), None)
        if line is None:
            raise RuntimeError(f"{out / 'cql-load.txt'}: the CQL client printed no summary")
        return {k: float(v) for k, v in (kv.split("=") for kv in line.removeprefix("cql-load: ").split())}

    def describe(self, mnt: Path) -> list[str]:
        return [
            " ".join(self.build_command()) + "  (before the lock)",
            f"write cassandra.yaml; start Cassandra on {mnt}; wait for the CQL port",
            " ".join(self.command()) + " > cql-load.txt  (then, after tracing: stop Cassandra by PID, always)",
        ]


def close_log(log: Path) -> dict:
    """The node's stopped log compressed (`<log>.zst`, the text removed); returns how the node resolved its
    commitlog and data access modes (from the log's lines)."""
    if not log.exists():
        return {}
    text = log.read_text(errors="replace")
    access = [ln.split(" - ", 1)[-1] for ln in text.splitlines() if "resolved to" in ln or "DiskAccessMode is" in ln]
    record.zst(log, log.with_name(log.name + ".zst"))
    log.unlink()
    return {"commitlog_access": access[:2]}


def summary(path: Path) -> dict:
    """cassandra-stress's Results block (op rate, latency mean and 99th, errors), for run.yaml and the log."""
    want = {
        "Op rate": "op_rate",
        "Latency mean": "latency_mean_ms",
        "Latency 99th percentile": "latency_p99_ms",
        "Total errors": "errors",
        "Total partitions": "partitions",
    }
    out: dict = {}
    for line in path.read_text(errors="replace").splitlines():
        key, _, val = line.partition(":")
        key = key.strip()
        if key in want and val.strip():
            num = val.strip().split()[0].replace(",", "")
            try:
                out[want[key]] = float(num)
            except ValueError:
                continue
    if "op_rate" not in out:
        raise RuntimeError(f"{path}: cassandra-stress printed no Results block (Op rate)")
    return out
