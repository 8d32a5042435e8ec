"""Damaged inputs, generated here from the real fixtures: truncated at many points, garbage lines, wrong kind.

Every outcome must be either an InputError naming the file and where, or rows that the intact file
also gives (a clean cut at a line end may drop whole rows, never change one), with the damage reported
in ingest.json (a warning, or the note of a last line without a line end). A last line without a line end
that reads as a whole line is data: a cut inside its last number cannot be seen, so that one row may
differ, and the note names it. Nothing else: no traceback, no partial output directory.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from blkscope.errors import InputError
from blkscope.ingest import run_ingest

FIX = Path(__file__).parent / "fixtures"
CASES = {  # kind -> (fixture, main table)
    "iostat": [("iostat/x_t_y_json_1_3_vda.json", "iostat"), ("iostat/s12_x_t_y_1_2_vda.txt", "iostat"),
               ("iostat/s917_x_t_1_2_vda.txt", "iostat"), ("iostat/s12_d_m_t_y_1_2_vda.txt", "iostat"),
               ("iostat/handmade_pdsh_two_hosts_interleaved.txt", "iostat")],
    "fio": [("fio/randrw_libaio_qd4.json", "fio_jobs"), ("fio/two_jobs_one_fails.json", "fio_jobs")],
    "ycsb": [("ycsb/run_workloada_target_intended.txt", "ycsb_summary"),
             ("ycsb/run_workloadf_histogram.txt", "ycsb_summary")],
    "sysbench": [("sysbench/rndrw_prepare_run_cleanup_1020.txt", "sysbench_fileio"),
                 ("sysbench/seqwr_seqrd_direct_1020.txt", "sysbench_fileio")],
    "cassandra-stress": [("cstress/handmade_cs21_layout_crlf_driver_error.txt", "cstress_intervals")],
}
ALL = [(kind, f, t) for kind, items in CASES.items() for f, t in items]
GARBAGE = b"@@ garbage 12,34 [READ], x, y: 1 2 3 \xff\xfe\n"


def rows(outdir: Path, table: str) -> Counter:
    df = pl.read_parquet(outdir / f"{table}.parquet")
    # provenance columns (source line, since-boot verdict that may become "unknown", a cut round's flag)
    return Counter(df.drop("since_boot", "line", "complete", strict=False).rows())


def attempt(kind: str, path: Path, out: Path) -> InputError | None:
    try:
        run_ingest(kind, [path], out)
    except InputError as e:
        assert e.path == str(path), e
        assert e.where, e  # line, byte offset, or the JSON path of a structural error
        assert not out.exists(), "partial output left behind"
        return e
    return None


def check_subset(kind: str, table: str, damaged: Path, intact: Counter, tmp_path: Path) -> bool:
    """True when the damage was reported: an InputError, a warning, or the unterminated-last-line note."""
    out = tmp_path / "out"
    if attempt(kind, damaged, out) is None:
        report = json.loads((out / "ingest.json").read_text())
        noted = bool(report.get("last_line_without_line_end"))
        extra = rows(out, table) - intact
        assert len(extra) <= noted, f"{damaged.name}: rows the intact file does not have: {list(extra)[:2]}"
        return bool(report["warnings"]) or noted
    return True


@pytest.mark.parametrize(("kind", "name", "table"), ALL, ids=[f for _, f, _ in ALL])
def test_truncated_at_many_points(kind: str, name: str, table: str, tmp_path: Path) -> None:
    src = FIX / name
    data = src.read_bytes()
    run_ingest(kind, [src], tmp_path / "intact")
    intact = rows(tmp_path / "intact", table)
    newlines = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    cuts = sorted({*range(0, len(data), max(1, len(data) // 40)), *newlines[:: max(1, len(newlines) // 15)]})
    errors = 0
    for cut in cuts:
        damaged = tmp_path / f"cut{cut}_{src.name}"
        damaged.write_bytes(data[:cut])
        errors += check_subset(kind, table, damaged, intact, tmp_path / f"c{cut}")
    assert errors >= len(cuts) // 3  # most cuts land inside a line or a block: those must be reported


@pytest.mark.parametrize(("kind", "name", "table"), ALL, ids=[f for _, f, _ in ALL])
def test_no_final_line_end_is_whole(kind: str, name: str, table: str, tmp_path: Path) -> None:
    """The real fixture without its final line end (as an editor may save it) reads the same, no warning."""
    src = FIX / name
    run_ingest(kind, [src], tmp_path / "intact")
    damaged = tmp_path / f"handmade_no_final_newline_{src.name}"
    damaged.write_bytes(src.read_bytes().rstrip(b"\r\n"))
    report = run_ingest(kind, [damaged], tmp_path / "out")
    assert rows(tmp_path / "out", table) == rows(tmp_path / "intact", table)
    assert not [w for w in report.warnings if "no line end" in w]


@pytest.mark.parametrize(("kind", "name", "table"), ALL, ids=[f for _, f, _ in ALL])
def test_garbage_lines(kind: str, name: str, table: str, tmp_path: Path) -> None:
    src = FIX / name
    lines = src.read_bytes().splitlines(keepends=True)
    run_ingest(kind, [src], tmp_path / "intact")
    intact = rows(tmp_path / "intact", table)
    for at in sorted({0, 1, len(lines) // 3, len(lines) // 2, len(lines) - 1}):
        damaged = tmp_path / f"garbage{at}_{src.name}"
        damaged.write_bytes(b"".join(lines[:at] + [GARBAGE] + lines[at:]))
        check_subset(kind, table, damaged, intact, tmp_path / f"g{at}")


@pytest.mark.parametrize(("kind", "name", "table"), ALL, ids=[f for _, f, _ in ALL])
def test_wrong_kind_forced_is_an_error(kind: str, name: str, table: str, tmp_path: Path) -> None:
    src = FIX / name
    for other in CASES:
        if other != kind:
            assert attempt(other, src, tmp_path / f"as_{other}") is not None, f"{name} read as {other}"


def test_auto_detects_every_fixture_kind(tmp_path: Path) -> None:
    from blkscope.readers.detect import detect

    for kind, name, _ in ALL:
        assert detect([FIX / name]) == kind, name
