"""Damaged inputs, generated here from the real fixtures: truncated at many points, garbage lines, wrong kind.

Every damaged input is either refused (an InputError naming the file and the line, byte offset or JSON path,
no partial output directory) or kept, and then:
- truncated: the rows are rows the intact file also gives. A cut between two records (an iostat report, a YCSB
  or sysbench run, a cassandra-stress round) leaves a shorter log of its own: nothing in it was skipped, no
  warning is due. A record kept in part needs a warning of its own (or the note of a last line without a line
  end: a cut inside its last number cannot be seen, so that one row may differ, and the note names it);
- a garbage line: the same rows as the intact file, and the line reported: a warning, or one more line in
  ingest.json's `unknown` counts (logs carry lines no reader knows: banners, JVM messages; they are counted).
No traceback, no threshold: each case is asserted.
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
# what a record of each main table is: the unit a log is written in, so a cut between two leaves whole ones
RECORD = {"iostat": ("host", "sample"), "fio_jobs": ("jobname",), "ycsb_summary": ("run",),
          "sysbench_fileio": ("run",), "cstress_intervals": ("round",)}


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


def kept(kind: str, damaged: Path, out: Path) -> dict | None:
    """ingest.json of the damaged file, or None when it was refused as it must be."""
    if attempt(kind, damaged, out) is not None:
        return None
    return json.loads((out / "ingest.json").read_text())


def records(outdir: Path, table: str) -> dict[tuple, Counter]:
    df = pl.read_parquet(outdir / f"{table}.parquet").drop("since_boot", "line", "complete", strict=False)
    out: dict[tuple, Counter] = {}
    for row in df.iter_rows(named=True):
        out.setdefault(tuple(row[c] for c in RECORD[table]), Counter())[tuple(row.values())] += 1
    return out


def check_truncated(kind: str, table: str, damaged: Path, intact: Path, tmp_path: Path) -> None:
    report = kept(kind, damaged, tmp_path / "out")
    if report is None:
        return
    noted = bool(report.get("last_line_without_line_end"))
    extra = rows(tmp_path / "out", table) - rows(intact, table)
    assert len(extra) <= noted, f"{damaged.name}: rows the intact file does not have: {list(extra)[:2]}"
    whole = records(intact, table)
    partial = [k for k, r in records(tmp_path / "out", table).items() if r != whole.get(k)]
    new = [w for w in report["warnings"] if w.split(": ", 1)[-1] not in intact_warnings(intact)]
    assert not partial or new or noted, f"{damaged.name}: records {partial[:3]} kept in part without a warning"


def intact_warnings(intact: Path) -> set[str]:
    return {w.split(": ", 1)[-1] for w in json.loads((intact / "ingest.json").read_text())["warnings"]}


@pytest.mark.parametrize(("kind", "name", "table"), ALL, ids=[f for _, f, _ in ALL])
def test_truncated_at_many_points(kind: str, name: str, table: str, tmp_path: Path) -> None:
    src = FIX / name
    data = src.read_bytes()
    run_ingest(kind, [src], tmp_path / "intact")
    newlines = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    cuts = sorted({*range(0, len(data), max(1, len(data) // 40)), *newlines[:: max(1, len(newlines) // 15)]})
    for cut in cuts:
        damaged = tmp_path / f"cut{cut}_{src.name}"
        damaged.write_bytes(data[:cut])
        check_truncated(kind, table, damaged, tmp_path / "intact", tmp_path / f"c{cut}")


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
    intact = run_ingest(kind, [src], tmp_path / "intact")
    for at in sorted({0, 1, len(lines) // 3, len(lines) // 2, len(lines) - 1}):
        damaged = tmp_path / f"garbage{at}_{src.name}"
        damaged.write_bytes(b"".join(lines[:at] + [GARBAGE] + lines[at:]))
        report = kept(kind, damaged, tmp_path / f"g{at}")
        if report is None:
            continue
        assert rows(tmp_path / f"g{at}", table) == rows(tmp_path / "intact", table), damaged.name
        warned = any("@@ garbage" in w or f"line {at + 1}" in w for w in report["warnings"])
        counted = sum(report["unknown"].values()) == sum(intact.unknown.values()) + 1
        assert warned or counted, f"{damaged.name}: the garbage line is neither refused, warned of nor counted"


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
