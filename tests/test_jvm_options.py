"""The capture's extra JVM options (capture config `jvm_options`, from `blkscope capture --jvm-options` or
$BLKSCOPE_JVM_OPTS): none by default, so the dataset's commands are unchanged; when given, on every JVM a host run
starts (the Cassandra node, nodetool, the YCSB clients, the CQL client, cassandra-stress built from source) after
the workload's own options, and in run.yaml's workload: block; never on the emulated guest's JVMs. The suite's own
options (tests/conftest.py) start a JVM with the node's flags and print nothing a version probe would read."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from conftest import TEST_JVM_OPTS

from blkscope.capture import workloads
from blkscope.capture.run import describe, make_plan
from blkscope.capture.sh import version
from blkscope.capture.workloads import base, cassandra, cassandra_node, cassandra_stress, ycsb

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
OPTS = ["-XX:TieredStopAtLevel=1", "-Dblkscope.test=yes"]
JVM_WORKLOADS = {"cassandra-cql": "insert", "cassandra-ycsb": "smoke", "ycsb": "workloada-zipfian"}


def _row(workload: str, testbed: str = "loop", **kw) -> dict:
    return {"run_id": "t", "workload": workload, "job": JVM_WORKLOADS.get(workload, "write"), "device_mb": 1024,
            "runtime_s": 10, "repeat": 1, "testbed": testbed, **kw}  # fmt: skip


def _load(workload: str, opts=None, **kw):
    return workloads.load(_row(workload, **kw), TOOLS, {"jvm_options": opts} if opts is not None else None)


def _jvm_part(cmd: list[str]) -> list[str]:
    """A java command's options, from `java` to its main class (without -cp and the class path)."""
    opts, args = [], iter(cmd[cmd.index("java") + 1 :])
    for a in args:
        if a == "-cp":
            next(args)
        elif a.startswith("-"):
            opts.append(a)
        else:
            return opts
    raise AssertionError(f"no main class in {cmd}")


def _host_jvms(w, tmp_path: Path) -> dict[str, list[str]]:
    """Every JVM command a host run of w starts."""
    if isinstance(w, ycsb.Ycsb):
        return {p: w.command("/m", p) for p in ("load", "run", "read")}
    node = w.new_node(tmp_path)
    cmds = {"node": node.command("/m"), "nodetool": node.nodetool("flush")}
    if isinstance(w, cassandra.CassandraCql):
        return {**cmds, "cql": w.command(9042)}
    return {**cmds, **{p: w.command(p, 9042) for p in ("load", "run", "read")}}


@pytest.mark.parametrize("workload", sorted(JVM_WORKLOADS))
def test_every_host_jvm_takes_the_options_after_its_own(workload, tmp_path):
    default, given = _load(workload), _load(workload, OPTS)
    assert default.info["jvm_options"] == [] and given.info["jvm_options"] == OPTS
    plain, extra = _host_jvms(default, tmp_path), _host_jvms(given, tmp_path)
    assert plain.keys() == extra.keys()
    for name, cmd in extra.items():
        opts = _jvm_part(cmd)
        assert opts[-len(OPTS) :] == OPTS, (name, opts)  # last: a flag given here wins over the workload's
        assert [a for a in cmd if a not in OPTS] == plain[name], name  # and nothing else changed
        assert not set(OPTS) & set(plain[name]), name  # the default adds nothing
    # a string (config.yaml) is split as a shell would
    assert _load(workload, " ".join(OPTS)).info["jvm_options"] == OPTS


def test_cassandra_stress_built_from_source_takes_them(tmp_path, monkeypatch):
    built = tmp_path / "stress"
    built.mkdir()
    (built / "build.json").write_text(json.dumps(dict.fromkeys(
        ("source", "version", "commit", "patch", "patch_sha256", "javac"), "x")))  # fmt: skip
    monkeypatch.setattr(cassandra_stress, "why_missing", lambda s: None)
    monkeypatch.setattr(cassandra_stress, "configured", lambda s: (None, str(tmp_path)))
    monkeypatch.setattr(cassandra_stress, "build", lambda *a: built)
    monkeypatch.setattr(cassandra, "maven_jar", lambda *a: {})
    w = _load("cassandra", OPTS)
    w.build()
    assert _jvm_part(w.stress)[-len(OPTS) :] == OPTS
    # a binary distribution's script starts its own JVM: refused rather than silently not applied
    monkeypatch.setattr(cassandra_stress, "configured", lambda s: (str(tmp_path / "cassandra-stress"), None))
    with pytest.raises(RuntimeError, match="jvm_options do not reach"):
        _load("cassandra", OPTS).build()


def test_not_for_the_guest_nor_for_workloads_without_a_jvm(tmp_path):
    for workload in ("ycsb", "cassandra-ycsb"):
        w = _load(workload, OPTS, testbed="guest", job="workloada-zipfian-small")
        assert "jvm_options" not in w.info and w.jvm_options == ()
        prepare, run = w.guest_steps("/m", "/out")
        assert "java" in " ".join(run) and not any(OPTS[-1] in line for line in (*prepare, *run))
    for workload, job in (("sysbench", "rndrw"), ("journal", "none")):
        w = workloads.load({**_row(workload), "job": job}, TOOLS, {"jvm_options": OPTS})
        assert "jvm_options" not in w.info


def _sheet(tmp_path: Path) -> Path:
    row = {**_row("cassandra-ycsb"), "study": "test", "database": "cassandra", "filesystem": "ext4",
           "mkfs_options": "-F -q", "mount_options": "noatime", "tracer": "tracefs-blk", "traced": True}  # fmt: skip
    sheet = tmp_path / "runs.tsv"
    pl.DataFrame([row]).write_csv(sheet, separator="\t")
    return sheet


def _dry_run(tmp_path: Path, *args: str, env_opts: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "BLKSCOPE_JVM_OPTS"}
    if env_opts is not None:
        env["BLKSCOPE_JVM_OPTS"] = env_opts
    cmd = [sys.executable, "-m", "blkscope.cli", "capture", "--runs", str(_sheet(tmp_path)), "--run-id", "t",
           "-o", str(tmp_path / "o"), "--dry-run", "--config", "none", "--tools-dir", str(TOOLS), *args]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout


def test_cli_takes_them_from_the_environment_or_its_option(tmp_path):
    client = [ln for ln in _dry_run(tmp_path, env_opts=None).splitlines() if "site.ycsb.Client" in ln]
    assert client and not any("-Dblkscope.test" in ln for ln in client)
    given = " ".join(OPTS)
    for args, env_opts in (((), given), (("--jvm-options", given), None), (("--jvm-options", given), "-Dother=1")):
        client = [ln for ln in _dry_run(tmp_path, *args, env_opts=env_opts).splitlines() if "site.ycsb.Client" in ln]
        assert len(client) == 3 and all(f"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn {given} -cp" in ln
                                        for ln in client), client  # fmt: skip
    # an empty option overrides the environment: the workload's own options only
    text = _dry_run(tmp_path, "--jvm-options", "", env_opts=given)
    assert "-Dblkscope.test" not in text
    plan = make_plan(_sheet(tmp_path), "t", tmp_path / "o", fio_dir=tmp_path, workdir=tmp_path / "w", allowed=[],
                     tools_dir=TOOLS, settings={"jvm_options": OPTS})  # fmt: skip
    assert given in describe(plan) and plan.workload.info["jvm_options"] == OPTS


@pytest.mark.requires("java")
def test_the_suites_options_start_the_node_jvm_and_print_nothing():
    """tests/conftest.py's options after the node's own flags (G1's among them) start a JVM, and `java -version`
    with them prints what it prints without (JAVA_TOOL_OPTIONS would add a line that sh.version() records)."""
    opts = shlex.split(TEST_JVM_OPTS)
    assert "-XX:TieredStopAtLevel=1" in opts
    p = subprocess.run(["java", *cassandra_node.JVM17, *opts, "-version"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines()[0] == version(["java", "-version"]) and not p.stdout
    assert os.environ["BLKSCOPE_JVM_OPTS"] == TEST_JVM_OPTS  # the captures the suite starts inherit them


def test_maven_runs_c1_only_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("MAVEN_OPTS", raising=False)
    assert base.maven_env()["MAVEN_OPTS"] == base.MAVEN_OPTS == "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    monkeypatch.setenv("MAVEN_OPTS", "-Xmx1g")
    assert base.maven_env()["MAVEN_OPTS"] == "-Xmx1g"


def test_the_cassandra_stress_rule_runs_maven_c1_only_unless_told_otherwise(tmp_path):
    """The workflow's Maven build (rule cassandra_stress) gives Maven's JVM the options maven_env gives the
    captures' builds, and keeps a MAVEN_OPTS the environment sets."""
    for item in ["Snakefile", "workflow", "config", "profiles", "tools/cassandra/pom.xml",
                 "tools/cassandra/stress-snakeyaml2.patch"]:  # fmt: skip
        src, dst = ROOT / item, tmp_path / item
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    p = subprocess.run([snakemake, "-n", "-p", "--cores", "1", "build/cassandra-stress/build-dir.txt"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    # the rule's command up to mvn, with mvn replaced by a command that prints what Maven's JVM would be given
    line = next(ln for ln in p.stdout.splitlines() if " mvn -q -B " in ln)  # "Shell command: MAVEN_OPTS=... mvn ..."
    prefix = line.split("Shell command: ", 1)[-1].split(" mvn ", 1)[0]
    env = {k: v for k, v in os.environ.items() if k != "MAVEN_OPTS"}

    def given(**more: str) -> str:
        cmd = f"{prefix} sh -c 'echo \"$MAVEN_OPTS\"'"
        return subprocess.run(["bash", "-c", cmd], env={**env, **more}, capture_output=True, text=True).stdout.strip()

    assert given() == base.MAVEN_OPTS and given(MAVEN_OPTS="-Xmx1g") == "-Xmx1g"
