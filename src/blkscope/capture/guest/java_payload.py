"""A self-contained Java payload for the guest: YCSB core 0.17.0 with the project's RocksDB binding
(tools/ycsb-rocksdb), a jlink'ed Java runtime, and every shared library beyond glibc's libc, libm and loader.

`python -m blkscope.capture.guest.java_payload --project tools/ycsb-rocksdb -o DIR` after `mvn package` there
(or `build(project, dest, versions)`)
writes DIR with this layout, relocatable (all paths inside are relative to DIR or found through $ORIGIN):

    DIR/jre/bin/java           the runtime: jlink of the host JDK with the modules jdeps finds for the jars,
                               and a CDS archive (jre/lib/server/classes.jsa) for a faster start
    DIR/lib/*.jar              the classpath: ycsb-rocksdb.jar, YCSB core and its dependencies, and rocksdbjni
                               repacked without any native library (the Linux x86_64 glibc one is in native/)
    DIR/native/*.so            LD_LIBRARY_PATH: librocksdbjni-linux64.so, libstdc++, libgcc_s, libz, glibc's
                               libpthread/libdl/librt stubs (whatever ldd names beyond libc, libm, the loader)
    DIR/payload.json           the manifest build() returns: versions, modules, sizes, sha256 of each file

Run it as

    LD_LIBRARY_PATH=DIR/native DIR/jre/bin/java -cp 'DIR/lib/*' site.ycsb.Client -db org.blkscope.ycsb.RocksDBClient

The root filesystem needs only libc.so.6, libm.so.6 and ld-linux-x86-64.so.2 (at /lib64, where the ELF
interpreter path points) of the same glibc as the build host (the shipped libpthread/libdl/librt stubs are
that glibc's). rocksdbjni's NativeLibraryLoader tries System.loadLibrary("rocksdbjni"), then
("rocksdbjni-linux64") before extracting a library from its jar to java.io.tmpdir; on Linux the JVM puts
LD_LIBRARY_PATH first on java.library.path, so the library loads straight from native/ and nothing is written
to /tmp. Without LD_LIBRARY_PATH neither the runtime (libz, libstdc++) nor RocksDB loads.

Under the guest's emulated CPU (qemu TCG): java needs /proc mounted (glibc resolves the launcher's $ORIGIN
RUNPATH through /proc/self/exe). Suggested options: -Xmx256m (YCSB's heap stays small; -Xmx64m works too,
with more collections), -XX:+UseSerialGC stated explicitly (the JVM picks it anyway on a machine with less than
1792 MB, but the host runs with G1), -XX:TieredStopAtLevel=1 (C1 only: about a third less CPU than the default
tiered C1+C2 in short host runs; -Xint is 5-8 times costlier), -Xshare:auto (the default; the CDS archive
halves the JVM's start-up CPU). ROCKSDB_MUSL_LIBC=false spares rocksdbjni's musl probe, which otherwise
spawns `/usr/bin/env sh -c "ldd /usr/bin/env | grep -q musl"`. YCSB 0.17.0 hangs instead of exiting when
the binding fails to open RocksDB (e.g. no librocksdbjni in native/): run it under `timeout`."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from blkscope.capture.guest.build import _sha256

# What the guest's root filesystem is assumed to hold already (build.py copies them with the tools).
BASE_LIBS = frozenset({"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "linux-vdso.so.1"})
# Modules beyond what jdeps reports; none needed so far (jdeps names only java.base for rocksdbjni 9.10.0, and
# the chroot test of tests/test_guest_java_payload.py runs YCSB load and run on the image without jdk.unsupported).
EXTRA_MODULES: tuple[str, ...] = ()
# jdeps' and jlink's own JVMs (-J): C1 only and the serial collector, as Maven's (workloads/base.MAVEN_OPTS); the
# payload's bytes do not depend on them
TOOL_JVM = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")
JLINK_OPTIONS = (
    "--strip-debug",
    "--no-header-files",
    "--no-man-pages",
    "--compress=2",
    "--generate-cds-archive",
)
ROCKSDB_LIB = "librocksdbjni-linux64.so"  # rocksdbjni's name for Linux x86_64 with glibc
NATIVE_SUFFIXES = (".so", ".jnilib", ".dylib", ".dll")


def jar_versions(project: Path) -> dict:
    """Versions the binding's jar manifest names (for a payload built outside a capture, e.g. from the CLI)."""
    jar = project / "target" / "ycsb-rocksdb.jar"
    if not jar.is_file():
        raise RuntimeError(f"{jar} not built (mvn -q -B -f {project / 'pom.xml'} package)")
    with zipfile.ZipFile(jar) as z:
        manifest = z.read("META-INF/MANIFEST.MF").decode()
    fields = dict(line.split(": ", 1) for line in manifest.splitlines() if ": " in line)
    maven = subprocess.run(["mvn", "-v"], capture_output=True, text=True).stdout.splitlines()[:1]
    binding = "org.blkscope.ycsb.RocksDBClient"
    return {
        "ycsb": fields.get("YCSB-Version"),
        "rocksdbjni": fields.get("RocksDB-Version"),
        "binding": binding,
        "maven": maven[0] if maven else None,
    }


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"{name} not found (the payload is built with the host's JDK 17: openjdk-17-jdk-headless)")
    return path


def module_deps(jars: list[Path]) -> list[str]:
    """The JDK modules the jars use, as jdeps prints them."""
    cp = os.pathsep.join(str(j) for j in jars)
    cmd = [_tool("jdeps"), *TOOL_JVM, "--print-module-deps", "--ignore-missing-deps", "--multi-release", "17",
           "-cp", cp]  # fmt: skip
    out = subprocess.run([*cmd, *map(str, jars)], capture_output=True, text=True, check=True).stdout
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    if not lines or not re.fullmatch(r"[\w.]+(,[\w.]+)*", lines[-1]):
        raise RuntimeError(f"jdeps printed no module list: {out.strip()[-300:]!r}")
    return sorted(set(lines[-1].split(",")) | set(EXTRA_MODULES))


def repack_rocksdbjni(src: Path, dst: Path, native_dir: Path) -> dict:
    """Copy the rocksdbjni jar without its native libraries; write the Linux x86_64 glibc one to native_dir."""
    dropped: list[str] = []
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        names = zin.namelist()
        if ROCKSDB_LIB not in names:
            raise RuntimeError(f"{src} holds no {ROCKSDB_LIB} (entries: {[n for n in names if '.so' in n]})")
        for info in zin.infolist():
            if info.filename.endswith(NATIVE_SUFFIXES):
                if info.filename == ROCKSDB_LIB:
                    (native_dir / ROCKSDB_LIB).write_bytes(zin.read(info))
                else:
                    dropped.append(info.filename)
                continue
            zout.writestr(info, zin.read(info))  # keeps each entry's compression and date
    return {"dropped": dropped, "kept_as": f"native/{ROCKSDB_LIB}"}


def _elf(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def native_closure(jre: Path, extra: list[Path]) -> dict[str, Path]:
    """Shared libraries (soname -> host file) the runtime's ELF files and `extra` need beyond BASE_LIBS."""
    elves = sorted(p for p in jre.rglob("*") if p.is_file() and not p.is_symlink() and _elf(p)) + extra
    inside = os.pathsep.join(str(jre / d) for d in ("lib", "lib/server"))
    env = {**os.environ, "LD_LIBRARY_PATH": inside}
    found: dict[str, Path] = {}
    for elf in elves:
        out = subprocess.run(["ldd", str(elf)], capture_output=True, text=True, env=env).stdout
        if "not found" in out:
            raise RuntimeError(f"ldd {elf}: {[ln.strip() for ln in out.splitlines() if 'not found' in ln]}")
        for lib in re.findall(r"=> (/\S+)", out):
            p = Path(lib)
            if p.name not in BASE_LIBS and not p.resolve().is_relative_to(jre.resolve()):
                found[p.name] = p
    return dict(sorted(found.items()))


def _plain(text: str | None) -> str | None:
    """Without terminal colour codes (mvn -v prints some)."""
    return None if text is None else re.sub(r"\x1b\[[0-9;]*m", "", text)


def _du(path: Path) -> tuple[int, int]:
    files = [p for p in path.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_size for p in files), len(files)


def _java_version(java: Path) -> str:
    p = subprocess.run([str(java), "-version"], capture_output=True, text=True, check=True)
    return " | ".join(ln.strip() for ln in p.stderr.splitlines() if ln.strip())


def build(project: Path, dest: Path, versions: dict) -> dict:
    """The payload at dest (replaced when it is an earlier payload) from the binding's built jars in
    project/target; `versions` (ycsb, rocksdbjni, binding, maven) as the Ycsb workload's build() found them."""
    target = Path(project).resolve() / "target"
    jars = [target / "ycsb-rocksdb.jar", *sorted((target / "lib").glob("*.jar"))]
    (rocks,) = [j for j in jars if j.name.startswith("rocksdbjni-")]
    kept = {k: versions[k] for k in ("ycsb", "rocksdbjni", "binding", "maven")}
    return assemble(dest, {"lib": jars}, module_deps(jars), kept, rocksdbjni=rocks)


def assemble(
    dest: Path,
    classpaths: dict[str, list[Path]],
    modules: list[str],
    versions: dict,
    *,
    rocksdbjni: Path | None = None,
    conf: tuple[Path, ...] = (),
) -> dict:
    """A payload at dest: a runtime jlinked with `modules`, each classpath's jars in a directory of its name
    (dest/<name>/*.jar: two programs with clashing libraries, such as a Cassandra node and its client, keep
    theirs apart), rocksdbjni repacked (its native library into native/), the files `conf` in conf/, and the
    shared libraries the runtime needs beyond glibc in native/. Replaces dest when it is an earlier payload."""
    dest = Path(dest)
    if dest.exists():
        if not (dest / "payload.json").is_file():
            raise RuntimeError(f"{dest} exists and is no Java payload (no payload.json); not replacing it")
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    try:
        jlink = [_tool("jlink"), *TOOL_JVM, "--add-modules", ",".join(modules), *JLINK_OPTIONS,
                 "--output", str(tmp / "jre")]  # fmt: skip
        subprocess.run(jlink, check=True, capture_output=True, text=True)
        # the CDS archive for heaps of 32 GB and more (no compressed oops): never used in the guest
        (tmp / "jre" / "lib" / "server" / "classes_nocoops.jsa").unlink(missing_ok=True)
        (tmp / "native").mkdir()
        repacked = None
        for name, jars in classpaths.items():
            (tmp / name).mkdir()
            for jar in jars:
                if jar == rocksdbjni:
                    repacked = repack_rocksdbjni(jar, tmp / name / jar.name, tmp / "native")
                else:
                    shutil.copy2(jar, tmp / name / jar.name)
        if conf:
            (tmp / "conf").mkdir()
            for f in conf:
                shutil.copy2(f, tmp / "conf" / f.name)
        extra = [tmp / "native" / ROCKSDB_LIB] if repacked else []
        origin = f"{rocksdbjni.name}!/{ROCKSDB_LIB}" if repacked else ""
        libs = native_closure(tmp / "jre", extra)
        for name, src in libs.items():
            shutil.copy2(src.resolve(), tmp / "native" / name)
        java = tmp / "jre" / "bin" / "java"
        java_version = _java_version(java)
        parts = ["jre", *classpaths, "native", *(["conf"] if conf else [])]
        sizes = {}
        count = 0
        for part in parts:
            sizes[part], n = _du(tmp / part)
            count += n
        manifest = {
            "layout": {
                "java": "jre/bin/java",
                "classpath": {n: f"{n}/*" for n in classpaths},
                "LD_LIBRARY_PATH": "native",
            },
            "java": java_version,
            "jdk": _java_version(Path(_tool("java")).resolve()),
            "jlink": [Path(jlink[0]).name, *jlink[1:-2], "--output", "jre"],
            "modules": modules,
            "versions": versions,
            "jars": {
                f"{n}/{j.name}": {"bytes": j.stat().st_size, "sha256": _sha256(j)}
                for n in classpaths
                for j in sorted((tmp / n).iterdir())
            },
            **({"rocksdbjni_jar": {"source": str(rocksdbjni), "source_sha256": _sha256(rocksdbjni), **repacked}}
               if repacked else {}),  # fmt: skip
            "native": {
                p.name: {
                    "bytes": p.stat().st_size,
                    "sha256": _sha256(p),
                    "from": origin if p.name == ROCKSDB_LIB and repacked else str(libs[p.name].resolve()),
                }
                for p in sorted((tmp / "native").iterdir())
            },
            "assumed_in_root": sorted(BASE_LIBS - {"linux-vdso.so.1"}),
            "sizes": {**sizes, "total": sum(sizes.values())},
            "files": count + 1,  # and payload.json
        }
        (tmp / "payload.json").write_text(json.dumps(manifest, indent=2) + "\n")
        tmp.rename(dest)
    except subprocess.CalledProcessError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"{e.cmd[0]} exit {e.returncode}: {(e.stderr or e.stdout or '').strip()[-500:]}") from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m blkscope.capture.guest.java_payload", description=__doc__.split("\n")[0]
    )
    p.add_argument("--project", type=Path, default=Path("tools/ycsb-rocksdb"), help="the YCSB binding's Maven project")
    p.add_argument("-o", "--outdir", type=Path, required=True, help="the payload directory (replaced if a payload)")
    a = p.parse_args(argv)
    try:
        m = build(a.project, a.outdir, jar_versions(a.project))
    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
        print(f"blkscope java payload: error: {e}", file=sys.stderr)
        return 1
    mb = {k: round(v / 2**20, 1) for k, v in m["sizes"].items()}
    print(f"{a.outdir}: {m['files']} files, MiB {mb}; modules {','.join(m['modules'])}; {m['java'].split(' | ')[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
