"""One single-node Apache Cassandra (cassandra-all from Maven Central, tools/cassandra) for one run: its
cassandra.yaml written from the run's options, commitlog and data directories on the filesystem under test,
bound to 127.0.0.1 on free ports, started in its own process group, ready when the CQL port answers, stopped by
its PID (SIGTERM, then SIGKILL) also when the run fails or is interrupted.

A node may start inside a memory cap (`start(..., wrap=MemCap.wrap)`: its JVM joins the group before its first
page) with a heap and cassandra.yaml settings of the run's own (`heap`, options' `node_yaml`). `quiesce()` readies
a loaded node to be stopped into an image (capture/image.py) through Cassandra's own nodetool over local JMX:
memtables flushed, pending compactions finished (up to a timeout), then `drain`, so the files left on disk are
what the next start reads and its commitlog has nothing to replay."""

from __future__ import annotations

import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from blkscope.capture import procs
from blkscope.capture.sh import sh

# conf/jvm17-server.options of Apache Cassandra 5.0 (G1 settings and the module flags Java 17 needs), and a heap
# that fits beside cassandra-stress on this machine.
GC = (
    "-XX:+UseG1GC",
    "-XX:+ParallelRefProcEnabled",
    "-XX:MaxTenuringThreshold=1",
    "-XX:G1HeapRegionSize=16m",
    "-XX:G1RSetUpdatingPauseTimePercent=5",
    "-XX:MaxGCPauseMillis=300",
    "-XX:InitiatingHeapOccupancyPercent=70",
)
EXPORTS = (
    "java.base/jdk.internal.misc",
    "java.management.rmi/com.sun.jmx.remote.internal.rmi",
    "java.management/com.sun.jmx.remote.security",
    "java.rmi/sun.rmi.registry",
    "java.rmi/sun.rmi.server",
    "java.sql/java.sql",
    "java.base/java.lang.ref",
    "jdk.unsupported/sun.misc",
)
OPENS = (
    "java.base/java.lang.module",
    "java.base/jdk.internal.loader",
    "java.base/jdk.internal.ref",
    "java.base/jdk.internal.reflect",
    "java.base/jdk.internal.math",
    "java.base/jdk.internal.module",
    "java.base/jdk.internal.util.jar",
    "jdk.management/com.sun.management.internal",
    "java.base/sun.nio.ch",
    "java.base/java.io",
    "java.base/java.lang.reflect",
    "java.base/java.lang",
    "java.base/java.util",
    "java.base/java.nio",
)
NETTY = (
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dio.netty.allocator.useCacheForAllThreads=true",
    "-Dio.netty.allocator.maxOrder=11",
)
MODULES = (*(f"--add-exports={m}=ALL-UNNAMED" for m in EXPORTS), *(f"--add-opens={m}=ALL-UNNAMED" for m in OPENS))
JVM17 = (*GC, "-Djdk.attach.allowAttachSelf=true", *MODULES, *NETTY)
HEAP = ("-Xms1g", "-Xmx1g")
MAIN = "org.apache.cassandra.service.CassandraDaemon"
NODETOOL = "org.apache.cassandra.tools.NodeTool"
COMPACTION_WAIT_S = 900  # after a load: pending compactions may run this long before the drain
START_TIMEOUT_S = 180  # 6-13 s measured on an idle machine; the machine is shared
STOP_GRACE_S = 60


def free_ports(n: int) -> list[int]:
    """n ports free on 127.0.0.1 now (held open together so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def config(mnt: Path, o: dict, ports: dict) -> dict:
    """cassandra.yaml: the commitlog as the run's options say, everything else small and local."""
    c = {
        "cluster_name": "blkscope",
        "num_tokens": 16,
        "partitioner": "org.apache.cassandra.dht.Murmur3Partitioner",
        "commitlog_directory": str(mnt / "commitlog"),
        "data_file_directories": [str(mnt / "data")],
        "saved_caches_directory": str(mnt / "saved_caches"),
        "hints_directory": str(mnt / "hints"),
        "cdc_raw_directory": str(mnt / "cdc_raw"),
        "commitlog_sync": "periodic",
        "commitlog_sync_period": f"{o['commitlog_sync_period_ms']}ms",
        "commitlog_segment_size": f"{o['commitlog_segment_mb']}MiB",
        "commitlog_disk_access_mode": o["commitlog_disk_access_mode"],
        "seed_provider": [
            {
                "class_name": "org.apache.cassandra.locator.SimpleSeedProvider",
                "parameters": [{"seeds": f"127.0.0.1:{ports['storage']}"}],
            }
        ],
        "listen_address": "127.0.0.1",
        "rpc_address": "127.0.0.1",
        "storage_port": ports["storage"],
        "native_transport_port": ports["native"],
        "start_native_transport": True,
        "endpoint_snitch": "SimpleSnitch",
        "disk_failure_policy": "stop",
        "commit_failure_policy": "stop",
        "concurrent_compactors": 1,
    }
    if o["commitlog_compression"] != "none":
        c["commitlog_compression"] = [{"class_name": f"{o['commitlog_compression']}Compressor"}]
    if o.get("request_timeout_ms"):
        c |= request_timeouts(o["request_timeout_ms"])
    return c | (o.get("node_yaml") or {})  # the run's own memtable and cache sizes (a capped node's)


def heap(mb: int) -> tuple[str, ...]:
    """-Xms/-Xmx of `mb` MiB (0: HEAP, 1 GiB)."""
    return (f"-Xms{mb}m", f"-Xmx{mb}m") if mb else HEAP


def request_timeouts(ms: int) -> dict[str, str]:
    """Every request timeout of cassandra.yaml (5.0: write 2 s, read 5 s, range and request 10 s) set to `ms`."""
    keys = ("read_request_timeout", "write_request_timeout", "range_request_timeout",
            "counter_write_request_timeout", "request_timeout")  # fmt: skip
    return {k: f"{ms}ms" for k in keys}


def yaml_text(cfg: dict) -> str:
    return "# Written by blkscope capture for this run (workloads/cassandra_node.py)\n" + yaml.safe_dump(
        cfg, sort_keys=False
    )


class Node:
    def __init__(self, lib: Path, logback: Path, conf_dir: Path, log: Path, tools_logback: Path | None = None,
                 jvm_options: tuple[str, ...] = ()) -> None:  # fmt: skip
        self.lib, self.logback, self.conf_dir, self.log = lib, logback, conf_dir, log
        self.tools_logback = tools_logback  # nodetool's (warnings on stderr only)
        self.jvm_options = tuple(jvm_options)  # the capture's extra options, last (after the node's, nodetool's)
        self.proc: subprocess.Popen | None = None
        self.ports: dict[str, int] = {}
        self.started_s: float | None = None

    def command(
        self, mnt: Path | str, jmx_port: int | str = "JMX", java: str = "java", heap: tuple[str, ...] = HEAP
    ) -> list[str]:
        return [
            java,
            *heap,
            *JVM17,
            f"-Dcassandra.config=file://{self.conf_dir}/cassandra.yaml",
            f"-Dcassandra.storagedir={mnt}",
            "-Dcassandra-foreground=yes",
            f"-Dcassandra.jmx.local.port={jmx_port}",
            "-Dcassandra.skip_wait_for_gossip_to_settle=0",
            f"-Dlogback.configurationFile={self.logback}",
            *self.jvm_options,
            "-cp",
            f"{self.lib}/*",
            MAIN,
        ]

    def start(self, mnt: Path, options: dict, heap: tuple[str, ...] = HEAP, wrap=None) -> dict:
        """Write cassandra.yaml, start the node (`wrap(cmd)`: e.g. inside a memory cap), wait for its CQL port."""
        for d in ("commitlog", "data", "saved_caches", "hints", "cdc_raw"):
            (mnt / d).mkdir(exist_ok=True)
        native, storage, jmx = free_ports(3)
        self.ports = {"native": native, "storage": storage, "jmx": jmx}
        cfg = config(mnt, options, self.ports)
        (self.conf_dir / "cassandra.yaml").write_text(yaml_text(cfg))
        cmd = self.command(mnt, jmx, heap=heap)
        cmd = wrap(cmd) if wrap else cmd
        print(f"+ {shlex.join(cmd)} > {self.log} &", file=sys.stderr, flush=True)
        t0 = time.monotonic()
        with open(self.log, "wb") as f:
            # own process group: a terminal Ctrl-C reaches blkscope only, which then stops the node by its PID
            self.proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, process_group=0)
        self._wait_cql(t0)
        self.started_s = round(time.monotonic() - t0, 1)
        return cfg

    def _wait_cql(self, t0: float) -> None:
        while time.monotonic() - t0 < START_TIMEOUT_S:
            if self.proc.poll() is not None:
                tail = self.log.read_bytes()[-1500:].decode(errors="replace").strip().splitlines()[-4:]
                raise RuntimeError(f"Cassandra exited ({self.proc.returncode}) before its CQL port: {' | '.join(tail)}")
            try:
                with socket.create_connection(("127.0.0.1", self.ports["native"]), timeout=1):
                    return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"Cassandra's CQL port {self.ports['native']} did not open in {START_TIMEOUT_S} s")

    def exited(self) -> str | None:
        """Why the node is gone (e.g. killed under a memory cap), or None while it runs: run_to_file's `watch`."""
        if self.proc is not None and self.proc.poll() is not None:
            return f"Cassandra exited ({self.proc.returncode})"
        return None

    def nodetool(self, *args: str, java: str = "java", home: str = "HOME") -> list[str]:
        """Cassandra's nodetool (cassandra-all's NodeTool with the module flags its bin/nodetool gives Java 17)
        against this node's JMX; `home`: where it writes its history (~/.cassandra/nodetool.history)."""
        logback = [f"-Dlogback.configurationFile={self.tools_logback}"] if self.tools_logback else []
        return [java, "-Xmx128m", *MODULES, f"-Duser.home={home}", *logback, *self.jvm_options, "-cp",
                f"{self.lib}/*", NODETOOL,
                "-h", "127.0.0.1", "-p", str(self.ports.get("jmx", "JMX")), *args]  # fmt: skip

    def quiesce(self, compaction_timeout_s: float = COMPACTION_WAIT_S) -> dict:
        """Flush, wait for pending compactions (up to the timeout), drain: what the node leaves is its data only.
        Returns the steps' times and the compactions still pending at the drain (0 unless timed out)."""
        with tempfile.TemporaryDirectory(prefix="blkscope-nodetool-") as home:
            t0 = time.monotonic()
            sh(self.nodetool("flush", home=home), timeout=600)
            flushed = time.monotonic()
            while (pending := pending_compactions(sh(self.nodetool("compactionstats", home=home), timeout=120))) \
                    and time.monotonic() - flushed < compaction_timeout_s:
                time.sleep(5)
            waited = time.monotonic()
            sh(self.nodetool("drain", home=home), timeout=600)
        return {"flush_s": round(flushed - t0, 1), "compactions_wait_s": round(waited - flushed, 1),
                "pending_compactions_at_drain": pending, "drain_s": round(time.monotonic() - waited, 1),
                "command": " ".join(self.nodetool("<flush|compactionstats|drain>"))}  # fmt: skip

    def stop(self) -> int | None:
        """SIGTERM (Cassandra's shutdown hook), SIGKILL after STOP_GRACE_S; the exit status, None if never run."""
        p = self.proc
        if p is None:
            return None
        if p.poll() is None:
            print(f"+ kill -TERM {p.pid}  (Cassandra)", file=sys.stderr, flush=True)
        return procs.stop(p, signal.SIGTERM, STOP_GRACE_S)


def pending_compactions(text: str) -> int:
    """The `pending tasks` of `nodetool compactionstats` (5.0: a table, `pending tasks   N`; before: `pending tasks:
    N`); ValueError when the output has no such line."""
    m = re.search(r"^pending tasks:?\s+(\d+)\s*$", text, re.MULTILINE)
    if m is None:
        raise ValueError(f"nodetool compactionstats printed no 'pending tasks' line: {text.strip()[:200]!r}")
    return int(m.group(1))
