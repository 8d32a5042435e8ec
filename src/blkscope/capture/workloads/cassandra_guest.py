"""YCSB on Cassandra inside the emulated guest (issue L, 3: Cassandra on f2fs, which only the guest's kernel
has here), for access patterns only: the node and the YCSB client from one Java payload, as the guest's
YCSB-on-RocksDB runs (capture/guest/java_payload.py), started and stopped by shell lines, since the guest has no
Python.

The payload (tools/ycsb-cassandra/target/guest-payload, rebuilt when older than either project's jar):

    jre/       a jlinked runtime: the client's modules (jdeps) and NODE_MODULES for the node
    node/      the node's classpath (tools/cassandra/target/lib: cassandra-all 5.0 with the 3.x driver, netty)
    client/    the client's (ycsb-cassandra.jar and tools/ycsb-cassandra/target/lib: YCSB core, driver 4.x)
    conf/      logback-node.xml (INFO on stdout, into cassandra-node.log)
    native/    the runtime's shared libraries beyond glibc

Steps, the host path's order (cassandra_ycsb.py), with every wait bounded by a timeout inside the guest, so
that a run that cannot finish still powers off with its logs (and the host keeps them, testbed.boot):

  prepare.sh (untraced)  lo up; cassandra.yaml into the results; the node started in the background; wait for
                         its "Starting listening for CQL clients" (NODE_START_TIMEOUT_S); YCSB load; the page
                         cache dropped
  run.sh (traced)        YCSB workload A at the job's target rate for runtime_s
  finish.sh (after       every commitlog and data file's extents (filefrag -v: filefrag.txt), then the node
   tracing, untraced)    stopped by its PID (SIGTERM; SIGKILL after STOP_TIMEOUT_S)

Each step's milestones (node_start, node_ready, load_end, node_stopped) go to init.sh's times.txt, which
run.yaml carries as guest.times_uptime_s: node_ready - node_start is the node's start-up in guest seconds.
The node's and the driver's timeouts are raised (a TCG guest runs a JVM some 10-30x slower than the host):
Cassandra 5.0's 2-s write timeout would fail writes that merely wait for the emulated CPU."""

from __future__ import annotations

import shlex
from pathlib import Path

from blkscope.capture import hwlock
from blkscope.capture.workloads import cassandra_node
from blkscope.capture.workloads.base import redirect

PAYLOAD = "/in/java"
JAVA = f"{PAYLOAD}/jre/bin/java"
ENV = f"export LD_LIBRARY_PATH={PAYLOAD}/native"  # the runtime's libraries beyond glibc (java_payload.py)
PORTS = {"native": 9042, "storage": 7000, "jmx": 7199}  # the guest runs nothing else
# The node's modules: Java SE and the JDK modules its start-up flags name (cassandra_node.JVM17) or it uses
# (com.sun.management, sun.misc, the attach API); jdeps over its 100 jars would print most of the JDK anyway.
NODE_MODULES = ("java.se", "jdk.unsupported", "jdk.management", "jdk.management.agent", "jdk.attach",
                "jdk.crypto.ec", "jdk.naming.dns", "jdk.zipfs")  # fmt: skip
C1 = "-XX:TieredStopAtLevel=1"  # C1 only: TCG makes C2's compile time dear (as ycsb.GUEST_JAVA_OPTS)
NODE_HEAP = ("-Xms768m", "-Xmx768m", C1)
CLIENT_OPTS = ("-Xmx256m", C1, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
# The DataStax driver 4.x reads overrides of its reference.conf from system properties: its 5-s connection,
# control-connection and schema timeouts, raised for the emulated CPU (the request timeout is the binding's
# cassandra.requesttimeoutmillis).
DRIVER_TIMEOUTS = {
    "advanced.connection.connect-timeout": "60s",
    "advanced.connection.init-query-timeout": "60s",
    "advanced.connection.set-keyspace-timeout": "60s",
    "advanced.control-connection.timeout": "60s",
    "advanced.control-connection.schema-agreement.timeout": "120s",
    "advanced.metadata.schema.request-timeout": "60s",
    "advanced.heartbeat.timeout": "60s",
}
# cassandra.yaml over cassandra_node.config(): the request timeouts (5.0: write 2 s, read 5 s, range and
# request 10 s, native transport 12 s), raised for the emulated CPU; and a small memtable (default: a quarter of
# the heap, which would hold the job's 10 MB of records whole), so that the load flushes SSTables and the run
# reads them from the device (the page cache is dropped after the load) as a database larger than memory does
NODE_SETTINGS = {
    **cassandra_node.request_timeouts(60000),
    "native_transport_timeout": "120s",
    "memtable_heap_space": "8MiB",
}
READY = "Starting listening for CQL clients"  # the node's log line once its CQL port is open (5.0)
PIDFILE = "/tmp/cassandra.pid"
NODE_LOG = "cassandra-node.log"  # compressed on the host (the guest has no zstd): cassandra-node.log.zst
# Guest seconds each bounded step may take; with the run's runtime_s + RUN_SLACK_S they fit in 45 minutes.
NODE_START_TIMEOUT_S = 900
LOAD_TIMEOUT_S = 1000
RUN_SLACK_S = 240  # the client's JVM start and the driver's connection
STOP_TIMEOUT_S = 120
BUDGET_S = NODE_START_TIMEOUT_S + LOAD_TIMEOUT_S + RUN_SLACK_S + STOP_TIMEOUT_S
# Each script is its own shell: init.sh's `stamp` for the steps' own milestones (also on the serial console,
# which the host can watch while the guest runs), and whether the node (by its PID) still runs: a node that
# exited is a zombie until a shell's next wait reaps it
FUNCTIONS = (
    'mark() { m="$1 $(date -u +%Y-%m-%dT%H:%M:%SZ) $(cut -d" " -f1 /proc/uptime)"; echo "$m" >> {out}/times.txt; '
    'if [ -c /dev/ttyS0 ]; then echo "blkscope-guest: $m" > /dev/ttyS0; fi; }',
    'alive() { [ -d /proc/$1 ] && ! grep -q "^State:.*Z" /proc/$1/status; }',
)


def functions(out: str) -> list[str]:
    return [f.replace("{out}", out) for f in FUNCTIONS]


def node_config(mnt: str, options: dict) -> dict:
    return {**cassandra_node.config(Path(mnt), options, PORTS), **NODE_SETTINGS}


def node_command(mnt: str, out: str) -> list[str]:
    node = cassandra_node.Node(Path(f"{PAYLOAD}/node"), Path(f"{PAYLOAD}/conf/logback-node.xml"), Path(out),
                               Path(out) / NODE_LOG)  # fmt: skip
    return node.command(mnt, PORTS["jmx"], java=JAVA, heap=NODE_HEAP)


def client_jvm() -> list[str]:
    driver = [f"-Ddatastax-java-driver.{k}={v}" for k, v in DRIVER_TIMEOUTS.items()]
    return [JAVA, *CLIENT_OPTS, *driver, "-cp", f"{PAYLOAD}/client/*"]


def wait_ready(log: str) -> str:
    """A shell loop: until the node's log says its CQL port is open; fails when the node exits first or after
    NODE_START_TIMEOUT_S (its log's last lines then say where it stood)."""
    tail = f"tail -n 20 {log}"
    return (
        f"i=0; until grep -q {shlex.quote(READY)} {log}; do "
        f'alive "$(cat {PIDFILE})" || {{ echo "the node exited before its CQL port opened"; {tail}; exit 1; }}; '
        f'[ $i -lt {NODE_START_TIMEOUT_S} ] || {{ echo "no CQL port after {NODE_START_TIMEOUT_S} s"; {tail}; '
        "exit 1; }; i=$((i+1)); sleep 1; done"
    )


def prepare_steps(mnt: str, out: str, options: dict, load: list[str]) -> list[str]:
    log = f"{out}/{NODE_LOG}"
    yaml_text = cassandra_node.yaml_text(node_config(mnt, options))
    dirs = " ".join(f"{mnt}/{d}" for d in ("commitlog", "data", "saved_caches", "hints", "cdc_raw"))
    return [
        ENV,
        *functions(out),
        # no network but loopback; a resolvable host name (the JVM and logback look it up)
        "ip link set lo up",
        "hostname blkscope-guest && echo '127.0.0.1 localhost blkscope-guest' > /etc/hosts",
        "ulimit -n \"$(ulimit -Hn)\"",  # the node opens many files: its soft limit up to the hard one
        f"printf '%s' {shlex.quote(yaml_text)} > {out}/cassandra.yaml",
        f"mkdir -p {dirs}",
        "mark node_start",
        f"{shlex.join(node_command(mnt, out))} > {log} 2>&1 < /dev/null &",
        f"echo $! > {PIDFILE}",
        wait_ready(log),
        "mark node_ready",
        redirect(["timeout", str(LOAD_TIMEOUT_S), *load], f"{out}/ycsb-load.txt"),
        "mark load_end",
        # the run's reads reach the device, not the pages the load just wrote (as ycsb.py's O_DIRECT reads)
        f"sync -f {mnt} && echo 3 > /proc/sys/vm/drop_caches",
    ]


def finish_steps(mnt: str, out: str) -> list[str]:
    """After tracing: each file's extents while the node still runs (as extents.record on the host), then the
    node stopped."""
    return [
        *functions(out),
        f"sync -f {mnt}",
        f"cd {mnt} && find commitlog data -type f | sort | xargs -r filefrag -v > {out}/filefrag.txt",
        f"pid=$(cat {PIDFILE}); kill -TERM $pid; i=0",
        f"while alive $pid; do [ $i -lt {STOP_TIMEOUT_S} ] || {{ kill -KILL $pid; break; }}; "
        "i=$((i+1)); sleep 1; done",
        "mark node_stopped",
    ]


def payload(node_project: Path, binding: Path, versions: dict) -> tuple[Path, dict]:
    """The payload directory and its manifest, (re)built when older than either project's jar."""
    import json

    from blkscope.capture.guest import java_payload

    target = binding / "target"
    dest, jar = target / "guest-payload", target / "ycsb-cassandra.jar"
    client = [jar, *sorted((target / "lib").glob("*.jar"))]
    node = sorted((node_project / "target" / "lib").glob("*.jar"))
    manifest = dest / "payload.json"
    newest = max(p.stat().st_mtime for p in (jar, node_project / "target" / "cql-load.jar"))
    with hwlock.build_lock(binding / "pom.xml"):  # one build of target/guest-payload at a time
        if not manifest.exists() or manifest.stat().st_mtime < newest:
            modules = sorted(set(java_payload.module_deps(client)) | set(NODE_MODULES))
            java_payload.assemble(dest, {"node": node, "client": client}, modules, versions,
                                  conf=(node_project / "logback-node.xml",))  # fmt: skip
    return dest, json.loads(manifest.read_text())
