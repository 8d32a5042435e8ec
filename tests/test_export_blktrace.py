"""export-blktrace: the files it writes are read by real blkparse and btt, and round-trip through blkscope."""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl
import pytest
import zstandard

from blkscope.cli import main
from blkscope.ingest import run_ingest

FIX = Path(__file__).parent / "fixtures" / "trace"
needs_tools = pytest.mark.requires("blkparse", "btt")


def _export(tmp_path: Path, name: str) -> tuple[Path, pl.DataFrame]:
    run_ingest("ftrace", [FIX / name], tmp_path / "ing")
    prefix = tmp_path / "bin" / "loop0"
    assert main(["export-blktrace", str(tmp_path / "ing" / "events.parquet"), "-o", str(prefix)]) == 0
    return prefix, pl.read_parquet(tmp_path / "ing" / "events.parquet")


def _fields(line: str, seq_column: bool) -> str:
    """`dev cpu pid act rwbs payload`: blkparse lines have a sequence column, tracefs classic lines do not;
    times are checked by the re-ingest test (exact integers there)."""
    t = line.split()
    t = t[:2] + t[3:] if seq_column else t
    return " ".join(t[:2] + t[3:])


@needs_tools
def test_blkparse_prints_the_same_lines_as_tracefs(tmp_path):
    prefix, _ = _export(tmp_path, "tracefs_blk_classic_pipe.txt.zst")
    out = subprocess.run(["blkparse", "-i", str(prefix)], capture_output=True, text=True, check=True).stdout
    got = sorted(_fields(ln, True) for ln in out.splitlines() if ln[:1] == " " and "," in ln.split()[0])
    raw = zstandard.ZstdDecompressor().stream_reader((FIX / "tracefs_blk_classic_pipe.txt.zst").open("rb")).read()
    assert got == sorted(_fields(ln, False) for ln in raw.decode().splitlines())
    assert "Events (loop0): 3755 entries" in out


@needs_tools
def test_reingest_binary_equals_text(tmp_path):
    prefix, ev = _export(tmp_path, "tracefs_blk_nonclassic_pipe.txt.zst")
    rep = run_ingest("blktrace", [prefix], tmp_path / "re")
    back = pl.read_parquet(tmp_path / "re" / "events.parquet")
    cols = ["cpu", "time_ns", "pid", "action", "rwbs", "remap_sector", "split_sector", "unplug_count"]
    key = ["cpu", "time_ns", "action", "pid"]
    a = ev.select(cols).sort(key)
    b = back.select(cols).sort(key)
    assert a.equals(b)
    d = ev.filter(pl.col("action") == "D")
    assert back.filter(pl.col("action") == "D")["nsectors"].sum() == d["nsectors"].sum()
    # names travel as notify records: every pid named in the text is named in the binary
    assert back.filter(pl.col("action") == "Q")["process"].null_count() == 0
    assert rep.warnings == []


@needs_tools
def test_btt_reads_the_dump(tmp_path):
    prefix, ev = _export(tmp_path, "tracefs_blk_classic_pipe.txt.zst")
    dump = tmp_path / "dump.bin"
    subprocess.run(["blkparse", "-q", "-i", str(prefix), "-d", str(dump), "-O"], check=True, capture_output=True)
    out = subprocess.run(["btt", "-i", str(dump)], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    q2c = next(ln for ln in out.splitlines() if ln.startswith("Q2C"))
    n = int(q2c.split()[-1])
    assert n > 0 and n <= ev.filter(pl.col("action") == "C").height
