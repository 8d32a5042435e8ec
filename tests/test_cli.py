"""The CLI contract: --help on every verb; bad input -> one line, exit 2, no output left behind."""

import subprocess
import sys

import pytest

from blkscope.cli import build_parser
from blkscope.cli.verbs import TOPICS


def _verbs() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "verb")
    return list(sub.choices)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "blkscope", *args], capture_output=True, text=True)


def test_contract_verbs_exist():
    assert {"ingest", "frequency"} <= set(_verbs())


def test_every_verb_is_in_the_table_of_contents_and_registered_by_its_topic():
    """blkscope.cli.verbs.TOPICS lists each verb once, and the verb's topic module registers exactly its verbs."""
    from blkscope.cli import verbs

    build_parser()
    assert set(verbs.VERBS) == set(verbs.TOPIC_OF) == set(_verbs())
    for v, configure in verbs.VERBS.items():
        assert configure.__module__ == "blkscope.cli.verbs"  # the registry's wrapper, around the topic's function
        assert configure.__closure__[0].cell_contents.__module__ == f"blkscope.cli.{verbs.TOPIC_OF[v]}", v


def test_help_groups_the_verbs_by_topic():
    out = _run("--help").stdout
    headings = [h for h, _ in TOPICS.values()]
    at = [out.index(f"\n  {h}\n") for h in headings]
    assert at == sorted(at)
    assert out.index("\n    ingest ") < at[1] < out.index("\n    split ") < at[2] < out.index("\n    zipf ")


@pytest.mark.parametrize("verb", _verbs())
def test_help_on_every_verb(verb):
    proc = _run(verb, "--help")
    assert proc.returncode == 0 and "usage:" in proc.stdout


def test_empty_input_is_one_clear_line_and_no_output(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    out = tmp_path / "out"
    proc = _run("ingest", str(empty), "-o", str(out))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(empty) in lines[0] and "byte offset 0" in lines[0]
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["empty.txt"]  # no staging directory left


def test_missing_input(tmp_path):
    proc = _run("ingest", str(tmp_path / "nope.json"), "-o", str(tmp_path / "o"))
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_the_native_program_missing_or_killed_leaves_nothing(tmp_path):
    """blkscope.native starts its program itself (posix_spawnp, as subprocess would): a missing program is one line
    and exit 2, as any OSError; a bare name is found on PATH, the program's stdout goes to /dev/null, its SIGPIPE is
    back at the default (Python ignores it), and its death by a signal is a failure with that exit status (-9);
    neither leaves output or staging behind."""
    import os
    import signal

    trace = tmp_path / "x.blktrace.0"
    trace.write_bytes(b"")
    args = [sys.executable, "-m", "blkscope", "ingest", "--kind", "blktrace", str(trace), "-o", str(tmp_path / "o")]
    missing = tmp_path / "missing"
    proc = subprocess.run(args, env={**os.environ, "BLKSCOPE_NATIVE": str(missing)}, capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"blkscope ingest: error: [Errno 2] No such file or directory: '{missing}'"]
    prog = tmp_path / "bin" / "fake-native"
    prog.parent.mkdir()
    prog.write_text(f"#!/bin/sh\necho to-stdout\ngrep SigIgn /proc/$$/status > {tmp_path}/sigign\nkill -9 $$\n")
    prog.chmod(0o755)
    env = {**os.environ, "BLKSCOPE_NATIVE": prog.name, "PATH": f"{prog.parent}:{os.environ['PATH']}"}
    proc = subprocess.run(args, env=env, capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1].startswith("RuntimeError: blkscope-native blktrace failed (exit -9)")
    assert not int((tmp_path / "sigign").read_text().split()[1], 16) & 1 << (signal.SIGPIPE - 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "sigign", "x.blktrace.0"]
