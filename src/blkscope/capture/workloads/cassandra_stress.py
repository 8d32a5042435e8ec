"""cassandra-stress, the load generator of record for the Cassandra runs. No package registry carries it, so it
comes from a configured path (capture config `cassandra_stress` or $BLKSCOPE_CASSANDRA_STRESS): either

- an Apache Cassandra binary distribution's `tools/bin/cassandra-stress`, run as it is; or
- an Apache Cassandra source tree (`cassandra_source` or $BLKSCOPE_CASSANDRA_SOURCE) whose tools/stress this
  module compiles with javac against the node's Maven jars (tools/cassandra/target/lib) into a git-ignored cache
  (build/cassandra-stress/<commit>/), after the project's own patch tools/cassandra/stress-snakeyaml2.patch.

The source is never copied into the repository. `python -m blkscope.capture.workloads.cassandra_stress --source
DIR -o build/cassandra-stress` is the build (the Snakemake rule `cassandra_stress` runs it)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from blkscope.io import follow_umask

MAIN = "org.apache.cassandra.stress.Stress"
PATCH = "stress-snakeyaml2.patch"


class StressMissing(RuntimeError):
    """No cassandra-stress configured or found: the message says how to provide one."""


def source_info(source: Path) -> dict:
    """Version (build.xml's base.version) and commit of a Cassandra source tree: `git rev-parse HEAD` in a
    checkout, else the file COMMIT an export (git archive) was given."""
    build_xml = (source / "build.xml").read_text(errors="replace") if (source / "build.xml").is_file() else ""
    m = re.search(r'name="base\.version"\s+value="([^"]+)"', build_xml)
    commit = None
    if (source / ".git").exists():
        p = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True)
        commit = p.stdout.strip() or None
    elif (source / "COMMIT").is_file():
        commit = (source / "COMMIT").read_text().split()[0]
    return {"source": str(source), "version": m.group(1) if m else None, "commit": commit}


def build(source: Path, lib: Path, patch: Path, cache: Path) -> Path:
    """Compile source/tools/stress against lib/*.jar into cache/<commit or version>/; returns that directory
    (classes/ and build.json). Reused when build.json matches the source, patch and jars."""
    src = source / "tools" / "stress" / "src"
    if not src.is_dir():
        raise StressMissing(f"{source}: no tools/stress/src (an Apache Cassandra source tree is needed)")
    jars = sorted(lib.glob("*.jar"))
    if not jars:
        raise StressMissing(f"{lib}: no jars (mvn -q -B -f {lib.parent.parent / 'pom.xml'} package)")
    info = source_info(source)
    key = {
        **info,
        "patch": patch.name,
        "patch_sha256": hashlib.sha256(patch.read_bytes()).hexdigest(),
        "classpath_jars": [j.name for j in jars],
        "javac": _javac_version(),
    }
    dest = cache / (info["commit"] or info["version"] or "unknown")[:12]
    if (dest / "build.json").is_file() and _same(json.loads((dest / "build.json").read_text()), key):
        return dest
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(follow_umask(tempfile.mkdtemp(prefix=".stress-", dir=cache)))
    try:
        tree = tmp / "src-patched"
        shutil.copytree(source / "tools" / "stress", tree / "tools" / "stress")
        subprocess.run(["patch", "-s", "-p1", "-d", str(tree), "-i", str(patch.resolve())], check=True)
        files = sorted(str(p) for p in (tree / "tools" / "stress" / "src").rglob("*.java"))
        (tmp / "sources.txt").write_text("\n".join(files) + "\n")
        classes = tmp / "classes"
        cmd = ["javac", "-nowarn", "-encoding", "UTF-8", "--release", "17", "-proc:none"]
        cmd += ["-cp", f"{lib}/*", "-d", str(classes), f"@{tmp / 'sources.txt'}"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"javac of {src} failed: {' | '.join(p.stderr.strip().splitlines()[-5:])}")
        res = source / "tools" / "stress" / "resources"
        if res.is_dir():
            shutil.copytree(res, classes, dirs_exist_ok=True)
        shutil.rmtree(tree)
        (tmp / "sources.txt").unlink()
        (tmp / "build.json").write_text(json.dumps({**key, "java_files": len(files)}, indent=2) + "\n")
        if dest.exists():
            shutil.rmtree(dest)
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _same(old: dict, new: dict) -> bool:
    return all(old.get(k) == v for k, v in new.items())


def _javac_version() -> str | None:
    p = subprocess.run(["javac", "-version"], capture_output=True, text=True)
    return (p.stdout or p.stderr).strip() or None


def configured(settings: dict) -> tuple[str | None, str | None]:
    """(binary, source) paths from the environment or the capture config; either may be None."""
    binary = os.environ.get("BLKSCOPE_CASSANDRA_STRESS") or settings.get("cassandra_stress")
    source = os.environ.get("BLKSCOPE_CASSANDRA_SOURCE") or settings.get("cassandra_source")
    return binary or None, source or None


def export_configured(source: str | None, binary: str | None) -> None:
    """The workflow's configured paths, for `blkscope capture --config none` (it reads the environment); a value
    already in the environment wins."""
    for name, value in (("BLKSCOPE_CASSANDRA_SOURCE", source), ("BLKSCOPE_CASSANDRA_STRESS", binary)):
        if value and not os.environ.get(name):
            os.environ[name] = str(value)


def why_missing(settings: dict) -> str | None:
    """None when a cassandra-stress is configured and present, else the reason (tests print it when skipping)."""
    binary, source = configured(settings)
    if binary:
        return None if Path(binary).is_file() else f"cassandra-stress {binary} (configured) does not exist"
    if source:
        ok = (Path(source) / "tools" / "stress" / "src").is_dir()
        return None if ok else f"{source} (configured Cassandra source) has no tools/stress/src"
    return (
        "no cassandra-stress configured: set $BLKSCOPE_CASSANDRA_STRESS to a binary distribution's "
        "tools/bin/cassandra-stress, or $BLKSCOPE_CASSANDRA_SOURCE (capture: cassandra_source) to an Apache "
        "Cassandra 5.0 source tree (see tools/cassandra/README.md)"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m blkscope.capture.workloads.cassandra_stress", description=__doc__)
    p.add_argument("--source", type=Path, required=True, help="an Apache Cassandra source tree (tools/stress)")
    p.add_argument("--lib", type=Path, default=Path("tools/cassandra/target/lib"), help="the node's jars")
    p.add_argument("--patch", type=Path, default=Path("tools/cassandra") / PATCH)
    p.add_argument("-o", "--cache", type=Path, default=Path("build/cassandra-stress"))
    a = p.parse_args(argv)
    try:
        dest = build(a.source, a.lib, a.patch, a.cache)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        print(f"blkscope cassandra-stress build: error: {e}", file=sys.stderr)
        return 1
    print(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
