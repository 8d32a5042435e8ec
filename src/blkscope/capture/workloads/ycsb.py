"""YCSB core 0.17.0 driving RocksDB through the project's binding (tools/ycsb-rocksdb), as in the SSD study
(STUDIES.md, 1): load, then a run of 50/50 read/update with zipfian requests (workloada), scaled to this machine:
200,000 records of 10 x 100 B fields (about 1 KiB each), 4 client threads, RocksDB reading with O_DIRECT so
reads reach the device as in a database larger than memory. The load is untraced (as the study traced the run
phase only); the run is throttled (-target) so a traced run stays small, and untraced runs use the same target.
YCSB 0.17.0 takes no random seed, so repeats differ in their key sequence.
Outputs: ycsb-load.txt and ycsb-run.txt, stdout and stderr together (the -s status lines go to stderr).

A job with `read_s` adds a third phase after tracing (finish(): untraced, outside iostat's window): workload C,
read-only, for read_s seconds, into ycsb-read.txt; its command line carries `-p blkscope.phase=read`, which the
YCSB reader takes as the phase's name. The same three phases run on Cassandra (cassandra_ycsb.py), so the two
databases compare phase by phase: load (insert-only), run (workload A), read (workload C)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from blkscope.capture.sh import version
from blkscope.capture.workloads.base import Workload, maven_jar, redirect, run_to_file

OUTPUTS = ("ycsb-load.txt", "ycsb-run.txt")
READ_LOG = "ycsb-read.txt"
BINDING = "org.blkscope.ycsb.RocksDBClient"
DEFAULTS = {
    "recordcount": 200_000,
    "fieldcount": 10,
    "fieldlength": 100,
    "readproportion": 0.5,
    "updateproportion": 0.5,
    "scanproportion": 0,
    "insertproportion": 0,
    "requestdistribution": "zipfian",
    "zipfian_constant": 0.99,  # YCSB 0.17.0's ZipfianGenerator.ZIPFIAN_CONSTANT, not a property: recorded only
    "threads": 4,
    "target_ops_s": 1000,
    "rocksdb.directreads": True,
    "rocksdb.blockcachemb": 8,
    "rocksdb.writebuffermb": 64,
    "rocksdb.sync": False,
    # False (as captured on the host): the run opens the database by replaying the load's WAL, traced
    "flush_after_load": False,
    "read_s": 0,  # the read-only phase's length (0: none)
    "heap_mb": 0,  # the JVM's -Xmx/-Xms (0: JAVA_OPTS' 1 GiB maximum)
    "load_once": False,  # True: runs start from a copy of an image loaded once per filesystem (capture/image.py)
    "trace_window_s": None,  # [offset, length] after the workload starts: the trace kept (tracer on throughout)
}
# The comparison with YCSB on Cassandra (cassandra_ycsb.py; issue L): the study's workload A at its 32 client
# threads, unthrottled, the same records, phase lengths and warm-up windows as Cassandra's job.
# warmup_s, measured on Cassandra here (2026-11-25, ext4, traced, the machine otherwise idle; YCSB's status
# lines): the first second at which the 5-s mean of ops/s reached 90 % of the phase's last 30 s. The run phase
# climbs from ~1,000 to ~12,000 ops/s over 134 s (the client's new JVM and the node's read path compiling on two
# shared cores, with steps at the memtable flushes); the read-only phase, on a warm node, in 30 s; the load (a
# fixed 300,000 inserts, 75 s) in 49 s. An analysis keeps status lines with elapsed_s > warmup_s[phase] (and trace
# events later than workload_start_utc + warmup_s["run"]), for both databases alike; runtime_s 240 leaves the
# run phase 105 s of them.
VS_CASSANDRA = {"recordcount": 300_000, "threads": 32, "target_ops_s": 0, "read_s": 90,
                "warmup_s": {"load": 49, "run": 135, "read": 30}}  # fmt: skip
# workload C as a phase: every operation a read (-p after the core properties: YCSB keeps the last value)
READ_ONLY = {"readproportion": 1, "updateproportion": 0, "scanproportion": 0, "insertproportion": 0}
# The SSD study's regime (issue P): RocksDB reading buffered through a page cache much smaller than the data. Run
# under a memory cap (runs-sheet memory_cap, capture/memcap.py) that holds the JVM (heap_mb), RocksDB's memtables
# and block cache, and the page cache the JVM faults in. The records (about 1.1 KiB each on disk) are more than 10x
# the cap; loaded once per filesystem and copied per repeat (capture/image.py). Warm-up 30 s, then the measured
# window (runtime_s 120: 90 s, 3x the 30-s clocks of the flusher and xfs's log worker); the trace keeps 3 s inside
# the window, the tracer on for the whole run: the pilot on ext4 (2026-11-28) drove ~29 k reads/s, and 15 s of its
# trace were 166 MB of text, over 17 MB zstd -19 (minutes to compress): 9 traced runs of 15 s would not fit
# data/raw's budget, 3 s (~4 MB each) do.
BUFFERED_SAT = {"threads": 16, "target_ops_s": 0, "flush_after_load": True, "rocksdb.directreads": False,
                "rocksdb.blockcachemb": 8, "recordcount": 4_000_000, "heap_mb": 128, "load_once": True,
                "warmup_s": {"run": 30}, "trace_window_s": [60, 3]}  # fmt: skip
# The cache sweep (issue P item 3, batch round4-sweep; config/claims_plan.yaml `descriptive`): BUFFERED_SAT's
# 180-s runs at 4 M, 400 k and 40 k records, the cache set by the runs sheet's memory_cap (buffered reads: the page
# cache under the cap) or, O_DIRECT, by RocksDB's block cache at 3/38.1 of the data (0.079x) at every record count.
# The memory cap cannot go below ~320 MiB (the JVM and RocksDB hold ~170-200 MiB of it: capped-2's snapshots), so
# at 40 k and 400 k records only the block cache reaches under 1/10 of the data. The trace keeps 1 s at 120 s: a
# saturated device traces ~1.05 MB/s (zstd; capped-2, ext4), and 30 runs must fit 35 MB.
SWEEP = {**BUFFERED_SAT, "trace_window_s": [120, 1]}
SWEEP_RECORDS = {"4m": 4_000_000, "400k": 400_000, "40k": 40_000}
SWEEP_BLOCKCACHE_MB = {"4m": 300, "400k": 30, "40k": 3}  # 0.079x the data (records x 1,000 B) each
SWEEP_JOBS = {
    **{f"workloada-zipfian-buffered-sweep-{n}": {**SWEEP, "recordcount": r} for n, r in SWEEP_RECORDS.items()},
    **{f"workloada-zipfian-direct-sweep-{n}": {**SWEEP, "recordcount": r, "rocksdb.directreads": True,
                                               "rocksdb.blockcachemb": SWEEP_BLOCKCACHE_MB[n]}
       for n, r in SWEEP_RECORDS.items()},
}  # fmt: skip
JOBS = {
    "workloada-zipfian": {},
    # the emulated guest (TCG runs the JVM some 10-30x slower): a quarter of the records, a fifth of the rate
    # and the load ends with a flush: under TCG, replaying its WAL took the run's first 23 s (0 operations)
    "workloada-zipfian-small": {"recordcount": 50_000, "target_ops_s": 200, "flush_after_load": True},
    # saturating (issue H): unthrottled (no -target), 16 client threads as the SSD study's RocksDB runs; the load
    # ends with a flush, so the (short, traced) run starts on operations instead of replaying the WAL for ~4 s
    "workloada-zipfian-sat": {"threads": 16, "target_ops_s": 0, "flush_after_load": True},
    # load, workload A, then workload C, as the Cassandra runs (VS_CASSANDRA); the load ends with a flush. Reads
    # through the page cache (RocksDB's default), as the Cassandra node's (DiskAccessMode standard): the two
    # databases' throughput is compared under one cache condition (the 300,000 records fit in memory here, and a
    # Cassandra run's reads barely reach the device: 0.9 reads/s, 2 % util, measured here)
    "workloada-c-zipfian-sat": {**VS_CASSANDRA, "flush_after_load": True, "rocksdb.directreads": False},
    # The SSD study's regime (issue P): BUFFERED_SAT, below.
    "workloada-zipfian-buffered-sat": BUFFERED_SAT,
    # the same for 180-s runs (batch round4-rocksdb-capped-2): MSER-5 put the first batch's warm-up end at 5-60 s, so
    # 120 s left 8 of 18 runs under the 90-s window; the trace keeps [120 s, 123 s), inside any >= 90-s window
    "workloada-zipfian-buffered-sat-long": {**BUFFERED_SAT, "trace_window_s": [120, 3]},
    # the same at 1/40 of the records with a 2-s trace window: the root tests' and pilots' size (not the dataset's)
    "workloada-zipfian-buffered-sat-small": {**BUFFERED_SAT, "recordcount": 100_000, "trace_window_s": [3, 2]},
    **SWEEP_JOBS,
}
JAVA_OPTS = ("-Xmx1g",)
GUEST_JAVA_OPTS = ("-Xmx1g", "-XX:TieredStopAtLevel=1")
LOAD_TIMEOUT_S = 1200


class Ycsb(Workload):
    name = "ycsb"
    tools = ("java", "mvn")
    jobs = JOBS
    rate_key, defaults = "target_ops_s", DEFAULTS  # the load level: job_rate
    outputs = OUTPUTS  # every job's; a job with a read-only phase adds its log (__init__)
    guest_memory_mb = 3072  # the JVM (-Xmx1g), RocksDB and the Java payload in the guest's RAM
    guest_prepare_s = 1500
    guest_versions = ("java",)
    guest_inputs = "the Java payload (java/: jlinked runtime, YCSB and rocksdbjni jars, native libraries)"

    def __init__(self, row: dict, tools_dir: Path, settings: dict | None = None) -> None:
        super().__init__(row, tools_dir, settings)
        if self.options["read_s"]:
            self.outputs = (*OUTPUTS, READ_LOG)

    def resolve(self, row: dict) -> dict:
        return {**DEFAULTS, **JOBS[row["job"]], "maxexecutiontime_s": int(row["runtime_s"])}

    @property
    def project(self) -> Path:
        return self.tools_dir / "ycsb-rocksdb"

    @property
    def classpath(self) -> str:
        target = self.project / "target"
        return f"{target / 'ycsb-rocksdb.jar'}:{target / 'lib'}/*"

    def properties(self, mnt: Path | str) -> dict:
        o = self.options
        rocks = {k: str(v).lower() if isinstance(v, bool) else v for k, v in o.items() if k.startswith("rocksdb.")}
        return {**core_properties(o), "rocksdb.dir": f"{mnt}/rocksdb", **rocks}

    def command(
        self, mnt: Path | str, phase: str, java: str = "java", classpath: str | None = None, opts=None
    ) -> list[str]:
        heap = self.options["heap_mb"]
        opts = opts or ((f"-Xms{heap}m", f"-Xmx{heap}m") if heap else JAVA_OPTS) + self.jvm_options
        jvm = [java, *opts, "-cp", classpath or self.classpath]
        cmd = client_command(self.options, phase, BINDING, self.properties(mnt), jvm)
        if phase == "load" and self.options["flush_after_load"]:
            cmd += ["-p", "rocksdb.flushonclose=true"]
        return cmd

    def build_command(self) -> list[str]:
        return ["mvn", "-q", "-B", "-f", str(self.project / "pom.xml"), "package"]

    def build(self) -> None:
        fields = maven_jar(self.project, "ycsb-rocksdb.jar", self.build_command(), "YCSB binding project")
        self.info["version"] = {
            "ycsb": fields.get("YCSB-Version"),
            "rocksdbjni": fields.get("RocksDB-Version"),
            "binding": BINDING,
            "java": version(["java", "-version"]),
            "maven": version(["mvn", "-v"]),
        }
        self.info["build"] = " ".join(self.build_command())

    def prepare(self, mnt: Path, out: Path) -> None:
        if not self.load_once:  # else the run's filesystem is a copy of a loaded image (capture/image.py)
            self.load(mnt, out)
        self.info["commands"] = {
            p: " ".join(self.command(mnt, p)).replace(str(mnt), "<mountpoint>") for p in phases(self.options)
        }

    def load(self, mnt: Path, logdir: Path) -> dict:
        (mnt / "rocksdb").mkdir()
        timeout = max(900, self.options["recordcount"] // 500)  # 4 M records: about 10 min here
        run_to_file(self.wrapped(self.command(mnt, "load")), logdir / "ycsb-load.txt", timeout_s=timeout)
        return summary(logdir / "ycsb-load.txt", ("[OVERALL]", "[INSERT]"))

    def image_key(self) -> dict:
        jar = self.project / "target" / "ycsb-rocksdb.jar"
        return {"tool": "ycsb-rocksdb", "jar_sha256": hashlib.sha256(jar.read_bytes()).hexdigest(),
                "load_command": " ".join(self.command("<mountpoint>", "load"))}  # fmt: skip

    def run(self, mnt: Path, out: Path) -> dict:
        timeout = self.options["maxexecutiontime_s"] + 300  # JVM start, RocksDB open and close
        run_to_file(self.wrapped(self.command(mnt, "run")), out / "ycsb-run.txt", timeout_s=timeout)
        return self.summarize(out)

    def finish(self, mnt: Path, out: Path) -> None:
        if self.options["read_s"]:
            self.info["read"] = read_phase(self.wrapped(self.command(mnt, "read")), out, self.options)

    def summarize(self, out: Path) -> dict:
        return summary(out / "ycsb-run.txt")

    def guest_files(self) -> dict[str, Path]:
        from blkscope.capture.guest import java_payload

        dest, jar = self.project / "target" / "guest-payload", self.project / "target" / "ycsb-rocksdb.jar"
        manifest = dest / "payload.json"
        if not manifest.exists() or manifest.stat().st_mtime < jar.stat().st_mtime:
            java_payload.build(self.project, dest, self.info["version"])  # build() made the jar; the payload follows
        info = json.loads(manifest.read_text())
        self.info["guest_payload"] = {k: v for k, v in info.items() if not isinstance(v, dict | list)}
        return {"java": dest}

    def guest_steps(self, mnt: str, out: str) -> tuple[list[str], list[str]]:
        # The payload's own runtime and libraries (capture/guest/java_payload.py): the guest has no JDK.
        # rocksdbjni loads its library from LD_LIBRARY_PATH (nothing extracted to /tmp) and, told the libc,
        # skips spawning ldd; C1 only, as TCG makes C2's compile time dear. `timeout`: YCSB 0.17.0 hangs
        # instead of exiting when the binding fails to open the database.
        if self.options["read_s"]:
            raise ValueError(f"{self.row['run_id']}: the read-only phase runs on the host testbeds only")
        java, cp = "/in/java/jre/bin/java", "/in/java/lib/*"
        env = "export LD_LIBRARY_PATH=/in/java/native ROCKSDB_MUSL_LIBC=false"
        cmds = {p: self.command(mnt, p, java, cp, GUEST_JAVA_OPTS) for p in ("load", "run")}
        self.info["commands"] = {p: " ".join(c).replace(mnt, "<mountpoint>") for p, c in cmds.items()}
        self.info["guest_env"] = env.removeprefix("export ")
        load = ["timeout", str(LOAD_TIMEOUT_S), *cmds["load"]]
        run = ["timeout", str(self.options["maxexecutiontime_s"] + 300), *cmds["run"]]
        prepare = [env, f"mkdir {mnt}/rocksdb", redirect(load, f"{out}/ycsb-load.txt")]
        return prepare, [env, redirect(run, f"{out}/ycsb-run.txt")]

    def describe(self, mnt: Path) -> list[str]:
        return [
            " ".join(self.build_command()) + "  (before the lock, when the jar is older than its sources)",
            " ".join(self.wrapped(self.command(mnt, "load"))) + " > ycsb-load.txt  (untraced"
            + (": into the image, once per filesystem and key)" if self.load_once else ")"),
            " ".join(self.command(mnt, "run")) + " > ycsb-run.txt",
        ]

    def describe_finish(self, mnt: Path) -> list[str]:
        return read_step(self.command(mnt, "read"), self.options)


def phases(o: dict) -> tuple[str, ...]:
    return ("load", "run", "read") if o["read_s"] else ("load", "run")


def core_properties(o: dict) -> dict:
    """YCSB CoreWorkload's properties from a run's options, the same for every binding."""
    return {
        "workload": "site.ycsb.workloads.CoreWorkload",
        "recordcount": o["recordcount"],
        # the run stops on maxexecutiontime; an operationcount this large is never reached
        "operationcount": 1_000_000_000,
        "fieldcount": o["fieldcount"],
        "fieldlength": o["fieldlength"],
        "readproportion": o["readproportion"],
        "updateproportion": o["updateproportion"],
        "scanproportion": o["scanproportion"],
        "insertproportion": o["insertproportion"],
        "requestdistribution": o["requestdistribution"],
        "status.interval": 1,
    }


def client_command(o: dict, phase: str, binding: str, props: dict, jvm: list[str]) -> list[str]:
    """`java ... site.ycsb.Client` for one phase: load (-load), run (-t, workload A for maxexecutiontime_s at
    target_ops_s) or read (-t, read-only for read_s, named by `-p blkscope.phase=read`)."""
    cmd = [*jvm, "site.ycsb.Client", "-load" if phase == "load" else "-t", "-db", binding]
    cmd += [a for k, v in props.items() for a in ("-p", f"{k}={v}")]
    cmd += ["-threads", str(o["threads"]), "-s"]
    if phase == "load":
        return cmd
    secs = o["maxexecutiontime_s"] if phase == "run" else o["read_s"]
    extra = {"maxexecutiontime": secs, **({**READ_ONLY, "blkscope.phase": "read"} if phase == "read" else {})}
    cmd += [a for k, v in extra.items() for a in ("-p", f"{k}={v}")]
    return cmd + (["-target", str(o["target_ops_s"])] if o["target_ops_s"] else [])  # 0: as fast as it goes


def read_phase(cmd: list[str], out: Path, o: dict) -> dict:
    """The read-only phase (after tracing): its log, and its summary for run.yaml."""
    run_to_file(cmd, out / READ_LOG, timeout_s=o["read_s"] + 300)
    return summary(out / READ_LOG)


def read_step(cmd: list[str], o: dict) -> list[str]:
    """The dry run's line for the read-only phase, if the job has one."""
    return [" ".join(cmd) + f" > {READ_LOG}  (after tracing and iostat: untraced)"] if o["read_s"] else []


def summary(path: Path, sections: tuple[str, ...] = ("[OVERALL]", "[READ]", "[UPDATE]")) -> dict:
    """[OVERALL] throughput and per-operation counts from the YCSB text, for run.yaml and the capture log."""
    out: dict = {}
    wanted = set(sections)
    for line in path.read_text(errors="replace").splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3 and parts[0] in wanted and parts[1] in ("Throughput(ops/sec)", "Operations"):
            out[f"{parts[0].strip('[]').lower()}_{parts[1].split('(')[0].lower()}"] = float(parts[2])
    if "overall_throughput" not in out:
        raise RuntimeError(f"{path}: YCSB printed no [OVERALL] throughput")
    return out
