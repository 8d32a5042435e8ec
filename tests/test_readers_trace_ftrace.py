"""tracefs blk reader on real captures (tests/fixtures/trace/README.md says how they were made)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import polars as pl
import pytest
import zstandard

from blkscope.cli import main
from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers import ftrace

FIX = Path(__file__).parent / "fixtures" / "trace"
FIXTURES = sorted(FIX.glob("tracefs_blk_*.txt.zst"))

# Independent count with awk: classic lines start with `maj,min cpu time pid` before the action;
# non-classic ones put the action right after the `maj,min` token.
AWK = r"""
{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+,[0-9]+$/) break
  if (i > NF || $1 ~ /^#/) next
  if (i == 1) i += 3
  a = $(i + 1); n[a]++
  if ((a == "D" || a == "C") && $(i + 4) == "+") s[a] += $(i + 5) }
END { for (a in n) print "n", a, n[a]; for (a in s) print "s", a, s[a] }
"""


def _text(path: Path) -> str:
    return zstandard.ZstdDecompressor().stream_reader(path.open("rb")).read().decode()


def _awk_counts(path: Path) -> tuple[dict[str, int], dict[str, int]]:
    out = subprocess.run(["awk", AWK], input=_text(path), capture_output=True, text=True, check=True).stdout
    counts, sums = {}, {}
    for kind, act, v in (ln.split() for ln in out.splitlines()):
        (counts if kind == "n" else sums)[act] = int(v)
    return counts, sums


def _ingest(tmp_path: Path, *inputs: Path, kind: str = "ftrace"):
    rep = run_ingest(kind, list(inputs), tmp_path / "out")
    return rep, pl.read_parquet(tmp_path / "out" / "events.parquet")


def test_fixtures_present():
    names = {p.name for p in FIXTURES}
    assert {"tracefs_blk_classic_pipe.txt.zst", "tracefs_blk_nonclassic_pipe.txt.zst"} <= names


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_counts_and_sector_sums_match_awk(tmp_path, path):
    counts, sums = _awk_counts(path)
    rep, ev = _ingest(tmp_path, path)
    got = dict(ev.group_by("action").len().iter_rows())
    assert got == counts
    for act in ("D", "C"):
        assert ev.filter(pl.col("action") == act)["nsectors"].sum() == sums[act]
    assert rep.rows["events"] == sum(counts.values())
    assert rep.unknown == {} and rep.warnings == []


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_time_pid_process_and_contract(tmp_path, path):
    _, ev = _ingest(tmp_path, path)
    assert ev["time_ns"][0] == 0
    assert ev["time_ns"].dtype == pl.Int64 and ev["time_ns"].min() == 0
    assert ev["seq"].null_count() == ev.height  # tracefs has no sequence numbers
    assert set(ev["cpu"].unique()) <= {0, 1}
    assert (ev["dev_major"] == 7).all()
    # Queued I/O of the fio job carries its pid and name; the bracket or the task prefix says "fio".
    q = ev.filter((pl.col("action") == "Q") & (pl.col("process") == "fio"))
    assert q.height > 100
    assert 1 <= q["pid"].n_unique() <= 2  # fio's job process (and its parent, which lays out the file)
    # a pid keeps its name
    assert ev.drop_nulls("process").group_by("pid").agg(pl.col("process").n_unique())["process"].max() == 1
    # Completions print the error code in brackets, never a command name.
    c = ev.filter(pl.col("action") == "C")
    assert (c["error"] == 0).all()
    assert "0" not in c["process"].drop_nulls().to_list()


def test_classic_vs_nonclassic_process_source(tmp_path):
    _, cl = _ingest(tmp_path, FIX / "tracefs_blk_classic_pipe.txt.zst")
    _, nc = _ingest(tmp_path / "b", FIX / "tracefs_blk_nonclassic_pipe.txt.zst")
    # Classic C lines name no task: unknown. Non-classic prefix names the completing task (softirq here).
    assert cl.filter(pl.col("action") == "C")["process"].null_count() == cl.filter(pl.col("action") == "C").height
    assert nc.filter(pl.col("action") == "C")["process"].null_count() == 0
    # Non-classic timestamps are microseconds: multiples of 1000 ns; classic ones are not.
    assert (nc["time_ns"] % 1000 == 0).all()
    assert not (cl["time_ns"] % 1000 == 0).all()


def test_payload_variants(tmp_path):
    _, ev = _ingest(tmp_path, FIX / "tracefs_blk_classic_pipe.txt.zst")
    a = ev.filter(pl.col("action") == "A")
    # The partition (259,0) is remapped onto the loop disk 2048 sectors further on (MBR partition at 2048).
    assert (a["remap_dev_major"] == 259).all()
    assert (a["sector"] - a["remap_sector"] == 2048).all()
    x = ev.filter(pl.col("action") == "X")
    assert x.height > 0 and (x["split_sector"] > x["sector"]).all()
    u = ev.filter(pl.col("action") == "U")
    assert (u["unplug_count"] >= 1).all() and u["sector"].null_count() == u.height
    flush_c = ev.filter((pl.col("action") == "C") & (pl.col("rwbs") == "FN"))
    assert flush_c.height > 0 and (flush_c["sector"] == 0).all() and flush_c["nsectors"].null_count() == flush_c.height


def test_sniff_and_auto_detect(tmp_path):
    for p in FIXTURES:
        head = zstandard.ZstdDecompressor().stream_reader(p.open("rb")).read(65536)
        assert ftrace.sniff(head), p
    assert not ftrace.sniff(b"  8,0    3        1     0.000000000   697  G   W 223490 + 8 [kjournald]\n")
    assert not ftrace.sniff(b'{"sysstat": {}}\n')
    rep = run_ingest("auto", [FIX / "tracefs_blk_nonclassic_pipe.txt.zst"], tmp_path / "o")
    assert rep.kind == "ftrace"


def _real_lines(n: int) -> list[str]:
    return _text(FIX / "tracefs_blk_classic_pipe.txt.zst").splitlines()[:n]


def test_handmade_truncated_and_garbage_lines_are_counted(tmp_path):
    lines = _real_lines(20)
    bad = tmp_path / "handmade_truncated.txt"
    # a garbage line in the middle, a lost-events marker, and a last line cut mid-field without newline
    bad.write_text("\n".join([*lines[:10], "\x00\x01garbage", "CPU:1 [LOST 42 EVENTS]", *lines[10:], "  7,0    1  "]))
    rep, ev = _ingest(tmp_path, bad)
    assert ev.height == 20
    assert rep.unknown == {"unparsed line": 2}
    assert any("line(s) 11, 23" in w for w in rep.warnings)
    assert rep.trace["lost_events"] == {"1": 42}


def test_handmade_bad_payload_is_counted(tmp_path):
    lines = _real_lines(5)
    p = tmp_path / "handmade_bad_payload.txt"
    p.write_text("\n".join([*lines, "  7,0    1   581.565840546  9894  Q  RM 2128 + eight [fio]"]) + "\n")
    rep, ev = _ingest(tmp_path, p)
    assert ev.height == 6 and rep.unknown == {"unparsed payload": 1}
    assert any("line 6" in w for w in rep.warnings)


def test_garbage_only_names_first_line(tmp_path):
    p = tmp_path / "handmade_garbage.txt"
    p.write_text("# tracer: blk\nhello world\nnot a trace\n")
    with pytest.raises(InputError, match=r"line 2: no tracefs blk events"):
        _ingest(tmp_path, p)
    assert not (tmp_path / "out").exists()


def test_empty_file_clear_error_and_exit_2(tmp_path, capsys):
    p = tmp_path / "empty.txt"
    p.write_text("")
    with pytest.raises(InputError, match="empty file"):
        _ingest(tmp_path, p)
    assert main(["ingest", "--kind", "ftrace", str(p), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "empty file" in err[0] and str(p) in err[0]
    assert not (tmp_path / "o").exists()


def test_chunk_boundaries_do_not_change_result(tmp_path, monkeypatch):
    for path in (FIX / "tracefs_blk_nonclassic_pipe.txt.zst", FIX / "tracefs_blk_classic_file.txt.zst"):
        _, whole = _ingest(tmp_path / "a" / path.name, path)
        monkeypatch.setenv("BLKSCOPE_TEXT_BLOCK", "4097")  # lines cut at odd block edges
        _, small = _ingest(tmp_path / "b" / path.name, path)
        monkeypatch.undo()
        assert small.equals(whole)


def test_ingest_json_trace_section(tmp_path):
    run_ingest("ftrace", [FIX / "tracefs_blk_classic_file.txt.zst"], tmp_path / "o")
    js = json.loads((tmp_path / "o" / "ingest.json").read_text())
    assert js["trace"]["cpus_seen"] == [0, 1]
    assert js["trace"]["sequence_numbers"] is False
    assert js["trace"]["layouts"] == ["classic"]


HOST_RUN = Path(__file__).resolve().parents[1] / "data" / "raw" / "host-ext4-fio-randrw-r1"


@pytest.mark.skipif(not HOST_RUN.is_dir(), reason="embedded dataset absent")
def test_dropped_events_come_from_the_capture(tmp_path):
    rep = run_ingest("ftrace", [HOST_RUN / "trace.txt.zst"], tmp_path / "o")
    assert rep.trace["dropped_events"] == 0 and rep.trace["dropped_events_source"].endswith("run.yaml")
    fixture = run_ingest("ftrace", [FIX / "tracefs_blk_classic_file.txt.zst"], tmp_path / "f")
    assert fixture.trace["dropped_events"] is None  # no capture record beside a test fixture
