"""YCSB on Apache Cassandra, as in the SSD study (STUDIES.md, 1): a single node (cassandra_node.py, commitlog and
data on the filesystem under test) driven by YCSB core 0.17.0 through the project's binding (tools/ycsb-cassandra:
DataStax Java driver 4.x, table ycsb.usertable as YCSB's cassandra-cql binding has it, consistency ONE, prepared
statements). Three phases, as the RocksDB job `workloada-c-zipfian-sat` (ycsb.py) runs them, so the two databases
compare phase by phase:

  load   (prepare, untraced)   insert-only, `recordcount` records          -> ycsb-load.txt   (phase load)
  run    (traced)              workload A: 50/50 read/update, zipfian,     -> ycsb-run.txt    (phase run)
                               32 client threads, unthrottled, runtime_s
  read   (finish, untraced)    workload C: read-only, read_s               -> ycsb-read.txt   (phase read)

then every commitlog and data file's extents are recorded (filefrag.txt) and the node is stopped. Each phase
starts cold (a new client JVM; in the run phase also the node's read path) and climbs for minutes on two shared
cores: `warmup_s` (ycsb.VS_CASSANDRA: measured here, recorded in run.yaml's options) is how much of each phase's
start an analysis drops (status lines with elapsed_s <= warmup_s[phase]; trace events in the first
warmup_s["run"] after workload_start_utc), for RocksDB's runs alike. The client's JVM is YCSB's own
(tools/ycsb-cassandra/target/lib), apart from the node's (tools/cassandra/target/lib: cassandra-all with the 3.x
driver).

The SSD study's regime (issue P; job `workloada-zipfian-capped`, the runs sheet's memory_cap): the node reads
through a page cache much smaller than its data. Only the node starts inside the memory cap (capture/memcap.py):
its JVM (heap `node_heap_mb`, memtables and caches set in `node_yaml`, off-heap and native memory) and the page
cache it faults in from the filesystem under test are charged to the group. The YCSB client stays outside: it is
the load generator, a machine of its own in the study; it touches no file of the filesystem under test (it talks
CQL over 127.0.0.1), and inside the group its 512 MiB heap would take the database's cache. The records (more than
10x the cap) are loaded once per filesystem into an image (capture/image.py; `load()`): a node with Cassandra's
defaults (1 GiB heap, uncapped) loads them, flushes, finishes its pending compactions and drains (nodetool), and
is stopped before the unmount, so each repeat's copy starts from the same bytes with nothing to replay; the
load's node log and cassandra.yaml go into every run as cassandra-load-node.log.zst and cassandra-load.yaml.
Each run then starts its own capped node on the copy and runs workload A only (no read-only phase)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from blkscope.capture import extents
from blkscope.capture.workloads import cassandra_guest, ycsb
from blkscope.capture.workloads.base import maven_jar, redirect, run_to_file
from blkscope.capture.workloads.cassandra import COMMITLOG, EXTENT_DIRS, NODE_LOG, _Node, close_log
from blkscope.capture.workloads.cassandra_node import HEAP, config

BINDING = "org.blkscope.ycsb.CassandraClient"
DEFAULTS = {
    **{k: ycsb.DEFAULTS[k] for k in ("fieldcount", "fieldlength", "readproportion", "updateproportion",
                                      "scanproportion", "insertproportion", "requestdistribution",
                                      "zipfian_constant")},  # fmt: skip
    **ycsb.VS_CASSANDRA,
    "cassandra.readconsistencylevel": "ONE",
    "cassandra.writeconsistencylevel": "ONE",
    "cassandra.requesttimeoutmillis": 12000,
    "load_once": False,
    "node_heap_mb": 0,  # the measured run's node heap (0: cassandra_node.HEAP, 1 GiB)
    "node_yaml": {},  # the measured run's node: cassandra.yaml settings over cassandra_node.config's
    "node_memlock": True,  # False: the node cannot lock its memory (cassandra.NO_MEMLOCK), as in a container
}
# The SSD study's regime (issue P): workload A on a node under a memory cap (the module's docstring). The heap and
# the caches are set inside the cap, each knowingly: memtables on the heap (heap_buffers) at a quarter of it, the
# key cache at Cassandra's default share (5 % of the heap), no row cache, the chunk cache off (Cassandra 5.0's
# default), and data and index files read with read(2), not mmap (`disk_access_mode: standard`; 5.0's default maps
# the index files, and at 7 M records the mapped index pages, hot and mlockall'ed JVM beside them, left the group
# nothing to reclaim: OOM kill after 64 s at ~400 ops/s), so the cache the runs measure is the page cache. Sizes
# from the pilots (2026-11-28, ext4, 1 M and 7 M records;
# data/raw/README.md, "Cassandra in the SSD study's regime"): the node's JVM holds its heap plus ~330 MiB of native
# memory (heap 192 MiB: 521 MiB anonymous at the run's end), so a 640 MiB cap leaves ~110 MiB of page cache; a
# 128 MiB heap collapsed in old-generation collections (30 s pauses, 98 % of operations failed). 7,000,000 records
# of 1,000 B are 10.4x a 640 MiB cap (the runs sheet's memory_cap). Warm-up 60 s (MSER-5 ended it at 10-40 s in the
# pilot's 180-s runs), runs of 240 s leave >= 180 s (6x the flusher's 30 s); the trace keeps [150 s, 153 s).
CAPPED_HEAP_MB = 192
CAPPED = {"load_once": True, "recordcount": 7_000_000, "read_s": 0, "node_heap_mb": CAPPED_HEAP_MB,
          "node_yaml": {"memtable_allocation_type": "heap_buffers", "memtable_heap_space": f"{CAPPED_HEAP_MB // 4}MiB",
                        "key_cache_size": f"{CAPPED_HEAP_MB // 20}MiB", "row_cache_size": "0MiB",
                        "file_cache_enabled": False, "disk_access_mode": "standard"},
          "warmup_s": {"run": 60}, "trace_window_s": [150, 3], "max_failed_fraction": 0.01,
          "node_memlock": False}  # fmt: skip
# The cache sweep on Cassandra (issue P item 3, batch round4-sweep-cassandra; config/claims_plan.yaml `descriptive`
# P-sweep-cassandra), as RocksDB's (ycsb.SWEEP): CAPPED's node and heap in 180-s runs, the cap set by the runs
# sheet's memory_cap, at 7 M, 700 k and 70 k records. The node's JVM holds ~550 MiB of a 640 MiB cap (the pilots),
# so only 7 M records reach under 1/10 of the cap. The trace keeps 2 s at 120 s: Cassandra reads 16 KiB chunks,
# ~15-22 k events/s at 640 MiB (the capped batches), ~0.6 MB of zstd a run.
SWEEP = {**CAPPED, "trace_window_s": [120, 2]}
SWEEP_RECORDS = {"7m": 7_000_000, "700k": 700_000, "70k": 70_000}
# At 70 k records the data sit in the page cache: the 2-s windows held 20-116 events (block 1-3), too few for a
# skew or a miss ratio. The same runs keeping the whole steady window after the warm-up, [60 s, 180 s), give that
# point its events (batch round4-sweep-cassandra-2; config/claims_plan.yaml `amendments`, 2026-11-30)
SWEEP_LONG = {**SWEEP, "recordcount": SWEEP_RECORDS["70k"], "trace_window_s": [CAPPED["warmup_s"]["run"], 120]}
JOBS = {
    "workloada-c-zipfian-sat": {},
    # the lifecycle test's (tests/test_cassandra_root.py): every operation the binding has that CoreWorkload
    # drives (read, update, scan, insert) on a few records, for seconds (a cold client's first operation takes
    # ~3-4 s here: a 3-s read phase measured none)
    "smoke": {"recordcount": 2000, "threads": 4, "readproportion": 0.25, "updateproportion": 0.25,
              "scanproportion": 0.25, "insertproportion": 0.25, "read_s": 10},
    # the emulated guest (issue L, 3; cassandra_guest.py), as YCSB-RocksDB's `workloada-zipfian-small` there:
    # workload A, zipfian, 4 threads at a low target rate over few records (10 MB), no read-only phase, the
    # client's request timeout raised with the node's
    "workloada-zipfian-small": {"recordcount": 10_000, "threads": 4, "target_ops_s": 100, "read_s": 0,
                                "cassandra.requesttimeoutmillis": 60000},
    "workloada-zipfian-capped": CAPPED,
    # the same over 20,000 records with a 2-s trace window: the root tests' size (not the dataset's)
    "workloada-zipfian-capped-small": {**CAPPED, "recordcount": 20_000, "trace_window_s": [3, 2]},
    **{f"workloada-zipfian-capped-sweep-{n}": {**SWEEP, "recordcount": r} for n, r in SWEEP_RECORDS.items()},
    "workloada-zipfian-capped-sweep-70k-long": SWEEP_LONG,
}
# the client beside the node (-Xmx1g) on two cores; slf4j-simple prints the driver's warnings into the log
JAVA_OPTS = ("-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
LOAD_TIMEOUT_S = 1800
LOAD_RATE_FLOOR = 2000  # inserts/s: a load slower than this times out (measured here: ~5,200/s)
# the image's node: its log and cassandra.yaml, copied into every run that starts from the image
LOAD_NODE_LOG, LOAD_YAML = "cassandra-load-node.log", "cassandra-load.yaml"


class CassandraYcsb(_Node):
    name = "cassandra-ycsb"
    jobs = JOBS
    rate_key, defaults = "target_ops_s", DEFAULTS  # the load level: job_rate
    outputs = (*ycsb.OUTPUTS, ycsb.READ_LOG, "cassandra.yaml", NODE_LOG + ".zst", extents.LOG)
    guest_refused = ""  # the node and the client from one Java payload (cassandra_guest.py)
    # the node's heap (768 MiB) and off-heap memory, the client's 256 MiB, the payload (~200 MiB) in the guest's
    # RAM, the traces in its tmpfs
    guest_memory_mb = 4096
    guest_prepare_s = cassandra_guest.BUDGET_S  # the node's start-up, the load, the client's start, the stop
    guest_versions = ("java", "filefrag")
    guest_inputs = "the Java payload (java/: jlinked runtime, the node's and the client's jars)"

    def __init__(self, row: dict, tools_dir: Path, settings: dict | None = None) -> None:
        super().__init__(row, tools_dir, settings)
        node = ("cassandra.yaml", NODE_LOG + ".zst", extents.LOG)
        if row.get("testbed") == "guest":  # no read-only phase there
            self.outputs = (*ycsb.OUTPUTS, *node)
        elif self.load_once:  # the image's load logs instead of a load of its own; no read-only phase
            self.outputs = (*ycsb.OUTPUTS, *node, LOAD_YAML, LOAD_NODE_LOG + ".zst")

    def resolve(self, row: dict) -> dict:
        node = super().resolve(row)  # the commitlog's options, checked
        return {**{k: node[k] for k in COMMITLOG}, **DEFAULTS, **JOBS[row["job"]],
                "maxexecutiontime_s": int(row["runtime_s"])}  # fmt: skip

    @property
    def binding(self) -> Path:
        return self.tools_dir / "ycsb-cassandra"

    @property
    def classpath(self) -> str:
        target = (self.binding / "target").resolve()
        return f"{target / 'ycsb-cassandra.jar'}:{target / 'lib'}/*"

    def binding_build_command(self) -> list[str]:
        return ["mvn", "-q", "-B", "-f", str(self.binding / "pom.xml"), "package"]

    def build(self) -> None:
        super().build()  # the node's jars (tools/cassandra)
        fields = maven_jar(self.binding, "ycsb-cassandra.jar", self.binding_build_command(), "YCSB Cassandra binding")
        self.info["version"] |= {"ycsb": fields.get("YCSB-Version"), "ycsb_java_driver": fields.get("Driver-Version"),
                                 "binding": BINDING}  # fmt: skip
        self.info["build"] += "; " + " ".join(self.binding_build_command())

    def command(self, phase: str, port: int | str = "PORT", jvm: list[str] | None = None) -> list[str]:
        o = self.options
        props = {**ycsb.core_properties(o), "hosts": "127.0.0.1", "port": port,
                 **{k: v for k, v in o.items() if k.startswith("cassandra.")}}  # fmt: skip
        jvm = jvm or ["java", *JAVA_OPTS, *self.jvm_options, "-cp", self.classpath]
        return ycsb.client_command(o, phase, BINDING, props, jvm)

    def prepare(self, mnt: Path, out: Path) -> None:
        self.start_node(mnt, out)
        port = self.node.ports["native"]
        if not self.load_once:  # else the filesystem is a copy of a loaded image: run.yaml `image: load`
            run_to_file(self.command("load", port), out / "ycsb-load.txt", timeout_s=self.load_timeout_s)
            self.info["load"] = ycsb.summary(out / "ycsb-load.txt", ("[OVERALL]", "[INSERT]"))
        self.info["commands"] = {p: " ".join(self.command(p, port)) for p in ycsb.phases(self.options)}

    @property
    def load_timeout_s(self) -> int:
        return max(LOAD_TIMEOUT_S, self.options["recordcount"] // LOAD_RATE_FLOOR)

    def load(self, mnt: Path, logdir: Path) -> dict:
        """The image's load (capture/image.py): an uncapped node with Cassandra's defaults loads the records, is
        quiesced (flush, compactions, drain) and stopped; its log and cassandra.yaml stay beside the YCSB log."""
        node = self.new_node(logdir, LOAD_NODE_LOG)
        try:
            node.start(mnt, self.load_node_options())
            started_s = node.started_s
            run_to_file(self.command("load", node.ports["native"]), logdir / "ycsb-load.txt",
                        timeout_s=self.load_timeout_s, watch=node.exited)  # fmt: skip
            quiesced = node.quiesce()
        finally:
            code = node.stop()
            (logdir / "cassandra.yaml").replace(logdir / LOAD_YAML)
            access = close_log(node.log)
        summary = ycsb.summary(logdir / "ycsb-load.txt", ("[OVERALL]", "[INSERT]"))
        return {**summary, "node": {"start_s": started_s, "exit_code": code, **quiesced, **access}}

    def load_node_options(self) -> dict:
        """The loading node's: the run's commitlog options and Cassandra's defaults otherwise (no node_yaml)."""
        return {**self.options, "node_yaml": {}}

    def image_key(self) -> dict:
        """The binding's jar, the node's pom (Cassandra's version: its jars come from Maven Central), the loading
        node's heap and cassandra.yaml (without its ports, new at every start) and the load's command."""
        jar, pom = self.binding / "target" / "ycsb-cassandra.jar", self.project / "pom.xml"
        ports = {"native": "PORT", "storage": "PORT"}
        return {"tool": "ycsb-cassandra", "jar_sha256": hashlib.sha256(jar.read_bytes()).hexdigest(),
                "node_pom_sha256": hashlib.sha256(pom.read_bytes()).hexdigest(), "node_heap": list(HEAP),
                "cassandra_yaml": config(Path("<mountpoint>"), self.load_node_options(), ports),
                "load_command": " ".join(self.command("load"))}  # fmt: skip

    def run(self, mnt: Path, out: Path) -> dict:
        timeout = self.options["maxexecutiontime_s"] + 300  # the client's JVM, the driver's connection, the close
        # YCSB would run its time out against a dead node (one log line per failed operation) and exit 0
        run_to_file(self.command("run", self.node.ports["native"]), out / "ycsb-run.txt", timeout_s=timeout,
                    watch=self.node.exited)  # fmt: skip
        limit = self.options.get("max_failed_fraction")
        if limit is not None:  # a node that stalls (GC) fails operations but lives: YCSB still exits 0
            failed, done = failed_operations(out / "ycsb-run.txt")
            if failed > limit * done:
                raise RuntimeError(f"YCSB: {failed:.0f} of {done:.0f} operations failed (more than {limit:.0%})")
        return self.summarize(out)

    def finish(self, mnt: Path, out: Path) -> None:
        if self.options["read_s"]:
            self.info["read"] = ycsb.read_phase(self.command("read", self.node.ports["native"]), out, self.options)
        super().finish(mnt, out)  # the extents, then the node stopped

    def summarize(self, out: Path) -> dict:
        run = ycsb.summary(out / "ycsb-run.txt")
        if self.row.get("testbed") != "guest":  # the host's load summary is in info["load"] (prepare)
            return run
        load = ycsb.summary(out / "ycsb-load.txt", ("[OVERALL]", "[INSERT]"))
        return {**run, **{f"load_{k}": v for k, v in load.items()}}

    def guest_files(self) -> dict[str, Path]:
        dest, m = cassandra_guest.payload(self.project, self.binding, self.info["version"])
        self.info["guest_payload"] = {k: v for k, v in m.items() if not isinstance(v, dict | list)}
        return {"java": dest}

    def guest_steps(self, mnt: str, out: str) -> tuple[list[str], list[str]]:
        if self.options["read_s"]:
            raise ValueError(f"{self.row['run_id']}: the read-only phase runs on the host testbeds only")
        g = cassandra_guest
        cmds = {p: self.command(p, g.PORTS["native"], g.client_jvm()) for p in ("load", "run")}
        self.info["commands"] = {p: " ".join(c).replace(mnt, "<mountpoint>") for p, c in cmds.items()}
        self.info["node"] = {"command": " ".join(g.node_command(mnt, out)), "ports": g.PORTS,
                             "start_s": "guest.times_uptime_s: node_ready - node_start"}  # fmt: skip
        self.info["extents"] = {"command": f"sync -f <mountpoint>; cd <mountpoint> && find {' '.join(EXTENT_DIRS)} "
                                "-type f | sort | xargs -r filefrag -v", "log": extents.LOG}  # fmt: skip
        prepare = g.prepare_steps(mnt, out, self.options, cmds["load"])
        timeout = str(self.options["maxexecutiontime_s"] + g.RUN_SLACK_S)
        self.info["guest_env"] = g.ENV.removeprefix("export ")
        return prepare, [g.ENV, redirect(["timeout", timeout, *cmds["run"]], f"{out}/ycsb-run.txt")]

    def guest_finish_steps(self, mnt: str, out: str) -> list[str]:
        return cassandra_guest.finish_steps(mnt, out)

    def describe(self, mnt: Path) -> list[str]:
        o = self.options
        build = " ".join(self.build_command()) + "; " + " ".join(self.binding_build_command()) + "  (before the lock)"
        node = (f"write cassandra.yaml (commitlog: {o['commitlog_compression']}, access "
                f"{o['commitlog_disk_access_mode']}{''.join(f', {k}: {v}' for k, v in o['node_yaml'].items())})"
                f"; start Cassandra on {mnt}"
                + (f" (heap {o['node_heap_mb']} MiB, inside the memory cap when the run has one; the client outside)"
                   if o["node_heap_mb"] else "") + "; wait for the CQL port")  # fmt: skip
        load = " ".join(self.command("load")) + " > ycsb-load.txt  (untraced)"
        if self.load_once:  # the load ran into the image, before the copy (run.py's backing-file line)
            return [build, f"(image: a 1 GiB-heap node, uncapped: {load}; nodetool flush, compactionstats until "
                           "none pending, drain; stop)", node, " ".join(self.command("run")) + " > ycsb-run.txt"]
        return [build, node, load, " ".join(self.command("run")) + " > ycsb-run.txt"]

    def describe_finish(self, mnt: Path) -> list[str]:
        return [*ycsb.read_step(self.command("read"), self.options), *super().describe_finish(mnt)]



def failed_operations(path: Path) -> tuple[float, float]:
    """(failed, all) operations of a YCSB report: `[X-FAILED]` counts beside `[X]`'s successful ones."""
    ops = ycsb.summary(path, ("[OVERALL]", "[READ]", "[UPDATE]", "[INSERT]", "[SCAN]", "[READ-FAILED]",
                              "[UPDATE-FAILED]", "[INSERT-FAILED]", "[SCAN-FAILED]"))  # fmt: skip
    failed = sum(v for k, v in ops.items() if k.endswith("-failed_operations"))
    return failed, failed + sum(v for k, v in ops.items() if k.endswith("_operations") and "-failed" not in k)
