"""The guest's Java payload (blkscope.capture.guest.java_payload): built once from tools/ycsb-rocksdb with the
host's JDK 17 and Maven, then checked for its manifest, its repacked rocksdbjni jar, and -- as root -- by running
YCSB load and run on RocksDB in a chroot that holds nothing but the payload, busybox-static and glibc's libc,
libm and loader: the proof that the payload needs nothing else from the root filesystem. The chroot gets its
own /proc (in a private mount namespace, as the guest's init mounts one): glibc finds the $ORIGIN of the
java launcher's RUNPATH through /proc/self/exe."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import zipfile
import zlib
from pathlib import Path

import pytest
from requires import require

from blkscope.capture.guest import java_payload
from blkscope.capture.workloads.ycsb import Ycsb

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tools" / "ycsb-rocksdb"
BUSYBOX = Path("/bin/busybox")
GLIBC = ("libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2")
BINDING = "org.blkscope.ycsb.RocksDBClient"

pytestmark = pytest.mark.requires("java", "jlink", "jdeps", "mvn")


@pytest.fixture(scope="module")
def payload(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    dest = tmp_path_factory.mktemp("java-payload") / "payload"
    ycsb = Ycsb({"run_id": "java-payload", "job": "workloada-zipfian", "runtime_s": 0}, PROJECT.parent)
    ycsb.build()  # the jar the payload packs (mvn package when older than its sources)
    return dest, java_payload.build(PROJECT, dest, ycsb.info["version"])


def test_manifest_lists_sizes_versions_and_hashes(payload: tuple[Path, dict]) -> None:
    dest, m = payload
    assert json.loads((dest / "payload.json").read_text()) == m
    assert m["layout"] == {"java": "jre/bin/java", "classpath": {"lib": "lib/*"}, "LD_LIBRARY_PATH": "native"}
    assert m["java"].startswith('openjdk version "17')
    assert {"java.base", "java.management", "java.sql"} <= set(m["modules"])
    assert m["versions"]["ycsb"] == "0.17.0" and m["versions"]["binding"] == BINDING
    assert (dest / "lib" / f"rocksdbjni-{m['versions']['rocksdbjni']}.jar").is_file()
    assert "\x1b" not in json.dumps(m)

    files = [p for p in dest.rglob("*") if p.is_file() and not p.is_symlink()]
    assert m["files"] == len(files)
    for part in ("jre", "lib", "native"):
        assert m["sizes"][part] == sum(p.stat().st_size for p in files if p.relative_to(dest).parts[0] == part) > 0
    assert m["sizes"]["total"] == m["sizes"]["jre"] + m["sizes"]["lib"] + m["sizes"]["native"] < 100 * 2**20

    assert sorted(m["jars"]) == sorted(f"lib/{p.name}" for p in (dest / "lib").iterdir())
    assert "lib/ycsb-rocksdb.jar" in m["jars"]
    for section in ("jars", "native"):
        for name, entry in m[section].items():
            path = dest / name if section == "jars" else dest / "native" / name
            assert entry["bytes"] == path.stat().st_size
            assert entry["sha256"] == java_payload._sha256(path)
    # the runtime carries its CDS archive (a start about twice as fast)
    assert (dest / "jre" / "lib" / "server" / "classes.jsa").is_file()
    assert not (dest / "jre" / "lib" / "server" / "classes_nocoops.jsa").exists()


def test_rocksdbjni_jar_keeps_no_native_library(payload: tuple[Path, dict]) -> None:
    dest, m = payload
    (jar,) = (dest / "lib").glob("rocksdbjni-*.jar")
    source = Path(m["rocksdbjni_jar"]["source"])
    with zipfile.ZipFile(jar) as z, zipfile.ZipFile(source) as orig:
        names = z.namelist()
        natives = [n for n in names if re.search(r"\.(so|jnilib|dylib|dll)$", n)]
        assert natives == []
        orig_natives = [n for n in orig.namelist() if re.search(r"\.(so|jnilib|dylib|dll)$", n)]
        # everything else survives the repacking, byte for byte
        assert sorted(names) == sorted(set(orig.namelist()) - set(orig_natives))
        assert all(z.getinfo(n).CRC == orig.getinfo(n).CRC for n in names)
        assert "org/rocksdb/NativeLibraryLoader.class" in names
        crc = orig.getinfo(java_payload.ROCKSDB_LIB).CRC
    # the one Linux x86_64 glibc library moved to native/, unchanged; the others are gone
    so = dest / "native" / java_payload.ROCKSDB_LIB
    assert zlib.crc32(so.read_bytes()) == crc
    assert sorted(m["rocksdbjni_jar"]["dropped"]) == sorted(set(orig_natives) - {java_payload.ROCKSDB_LIB})
    assert {"librocksdbjni-linux64-musl.so", "librocksdbjni-win64.dll", "librocksdbjni-linux-aarch64.so"} <= set(
        m["rocksdbjni_jar"]["dropped"]
    )
    assert jar.stat().st_size < source.stat().st_size / 50


def test_every_elf_resolves_inside_the_payload_or_base_glibc(payload: tuple[Path, dict]) -> None:
    dest, _ = payload
    path = os.pathsep.join(str(dest / d) for d in ("native", "jre/lib", "jre/lib/server"))
    elves = [p for p in dest.rglob("*") if p.is_file() and p.read_bytes()[:4] == b"\x7fELF"]
    assert len(elves) > 10
    for elf in elves:
        out = subprocess.run(
            ["ldd", str(elf)], capture_output=True, text=True, env={"LD_LIBRARY_PATH": path, "PATH": "/usr/bin:/bin"}
        ).stdout
        assert "not found" not in out, (elf, out)
        for name, lib in re.findall(r"(\S+) => (/\S+)", out):
            assert Path(lib).is_relative_to(dest) or name in java_payload.BASE_LIBS, (elf, name, lib)


# --- the payload on its own: a chroot with busybox and libc/libm/loader only -------------------------------


def _chroot_root(dest: Path, root: Path) -> None:
    shutil.copytree(dest, root / "in", copy_function=os.link, symlinks=True)
    for d in ("bin", "proc", "lib/x86_64-linux-gnu", "lib64"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "tmp").mkdir(mode=0o1777)
    os.chmod(root / "tmp", 0o1777)
    shutil.copy2(BUSYBOX, root / "bin" / "busybox")
    for lib in GLIBC:
        shutil.copy2(Path("/lib/x86_64-linux-gnu", lib).resolve(), root / "lib/x86_64-linux-gnu" / lib)
    shutil.copy2(Path("/lib64/ld-linux-x86-64.so.2").resolve(), root / "lib64" / "ld-linux-x86-64.so.2")


def _in_chroot(
    root: Path, cmd: list[str], *, native: bool = True, setenv: str = "", timeout: float = 120
) -> subprocess.CompletedProcess:
    """chroot root cmd, with a /proc of its own that vanishes with the private mount namespace. The timeout
    matters: YCSB 0.17.0 hangs instead of exiting when the binding fails to open RocksDB."""
    ld = "LD_LIBRARY_PATH=/in/native " if native else ""
    script = f'mount -t proc proc "$0/proc" && {setenv} {ld}exec chroot "$0" "$@"'
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}  # nothing else of the host's environment (JAVA_TOOL_OPTIONS...)
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(root), *cmd],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def chroot(payload: tuple[Path, dict], tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.geteuid() != 0:
        pytest.skip("chroot needs root")
    require("busybox", "unshare")
    root = tmp_path_factory.mktemp("java-chroot")
    _chroot_root(payload[0], root)
    p = _in_chroot(root, ["/bin/busybox", "--install", "-s", "/bin"])  # as the guest's init does
    assert p.returncode == 0, p.stderr
    return root


@pytest.mark.root
def test_chroot_holds_no_host_library(chroot: Path) -> None:
    """The control: without native/ the runtime cannot start, so the chroot hides the host's libraries."""
    p = _in_chroot(chroot, ["/in/jre/bin/java", "-version"], native=False)
    assert p.returncode != 0
    assert re.search(r"lib(z|stdc\+\+)\.so\.\S+: cannot open shared object file", p.stderr), p.stderr
    p = _in_chroot(chroot, ["/in/jre/bin/java", "-Xshare:on", "-version"])
    assert p.returncode == 0 and 'version "17' in p.stderr, p.stderr


@pytest.mark.root
def test_ycsb_load_and_run_on_rocksdb_in_the_chroot(chroot: Path) -> None:
    client = ["/in/jre/bin/java", "-cp", "/in/lib/*", "site.ycsb.Client"]
    props = ["-db", BINDING, "-p", "workload=site.ycsb.workloads.CoreWorkload", "-p", "recordcount=2000"]
    props += ["-p", "rocksdb.dir=/tmp/db", "-threads", "2", "-s"]
    t0 = time.monotonic()
    load = _in_chroot(chroot, [*client, "-load", *props])
    t1 = time.monotonic()
    assert load.returncode == 0, load.stderr[-2000:]
    assert re.search(r"^\[INSERT\], Return=OK, 2000$", load.stdout, re.M), load.stdout[-2000:]
    # the run with the options the module suggests for the emulated guest
    tuned = [client[0], "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", *client[1:]]
    run_props = [*props, "-p", "maxexecutiontime=3", "-p", "operationcount=5000"]
    run = _in_chroot(chroot, [*tuned, "-t", *run_props], setenv="ROCKSDB_MUSL_LIBC=false")
    t2 = time.monotonic()
    assert run.returncode == 0, run.stderr[-2000:]
    print(f"chroot YCSB: load {t1 - t0:.1f} s, run {t2 - t1:.1f} s")

    assert re.search(r"^\[OVERALL\], Throughput\(ops/sec\), \d", run.stdout, re.M), run.stdout[-2000:]
    reads = re.search(r"^\[READ\], Operations, (\d+)$", run.stdout, re.M)
    assert reads and int(reads.group(1)) > 0, run.stdout[-2000:]
    assert "rocksdb 9.10.0 dir=/tmp/db" in run.stderr
    assert "[TOTAL_GCS_Copy], Count" in run.stdout  # the serial collector's young generation
    db = chroot / "tmp" / "db"
    assert (db / "CURRENT").is_file() and list(db.glob("MANIFEST-*")) and list(db.glob("*.sst")), os.listdir(db)
    # RocksDB's library loaded from native/, nothing extracted to java.io.tmpdir
    assert sorted(p.name for p in (chroot / "tmp").iterdir()) == ["db"]
