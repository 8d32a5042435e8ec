"""A writer SIGKILLed while its output is staged (no `except` runs) leaves its staging beside the target; the next
writer of that target removes it, and nothing of another target's (bench/kill_resume.py found a killed ingest's
`.trace.*/events.parquet` after the rerun)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl

from blkscope.io import Report, run_reader, write_atomic, write_text_atomic

# a process that stages `trace` (a directory, as an ingest does) and a table file, then waits to be killed
STAGE_AND_WAIT = """
import sys, time
from pathlib import Path
import polars as pl
from blkscope.io import run_reader, staged
out = Path(sys.argv[1])
staged(out / "t.parquet")
def reader(inputs, writer, report):
    writer.write("events", pl.DataFrame({"a": list(range(100))}))
    writer.close()
    print("staged", flush=True)
    time.sleep(600)
run_reader(reader, "handmade", [], out / "trace")
"""


def _killed_midway(out: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    p = subprocess.Popen([sys.executable, "-c", STAGE_AND_WAIT, str(out)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout.readline().strip() == "staged"
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=30)


def test_the_next_writer_removes_a_killed_writers_staging(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    other = out / ".trace-other.abcd1234"  # another target's staging (name `.trace-other.`): not ours to remove
    other.mkdir()
    (out / ".t.parquet-notes.txt").write_text("a user's file whose name starts like a staging file\n")
    _killed_midway(out)
    left = sorted(p.name for p in out.iterdir() if p.name.startswith((".trace.", ".t.parquet.")))
    assert len(left) == 2 and any((out / n / "events.parquet").exists() for n in left), left

    def reader(inputs, writer, report: Report):
        writer.write("events", pl.DataFrame({"a": [1]}))

    run_reader(reader, "handmade", [], out / "trace")
    write_atomic(pl.DataFrame({"a": [1]}), out / "t.parquet")
    assert sorted(p.name for p in out.iterdir()) == [".t.parquet-notes.txt", ".trace-other.abcd1234", "t.parquet",
                                                      "trace"]  # fmt: skip
    assert sorted(p.name for p in (out / "trace").iterdir()) == ["events.parquet", "ingest.json"]


def test_text_writer_removes_its_own_leftover_only(tmp_path):
    (tmp_path / ".n.tex.zz9_ab01").write_text("a killed write")  # mkstemp's form: prefix and 8 characters
    (tmp_path / ".n.tex.too-long-suffix").write_text("not mkstemp's")
    write_text_atomic("x\n", tmp_path / "n.tex")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".n.tex.too-long-suffix", "n.tex"]
