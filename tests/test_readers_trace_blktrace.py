"""Binary blktrace reader against real blkparse on ../shared/samples (failing when absent)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers import blktrace

SAMPLES = samples.SAMPLES / "blktrace-bin"
SETS = {"keks": SAMPLES / "influx_keks" / "keks", "sda": SAMPLES / "centos7_notes_sda" / "sda"}
needs_blkparse = pytest.mark.requires("blkparse")
LINE = re.compile(r"^\s*\d+,\d+\s+(\d+)\s+(\d+)\s+(\d+)\.(\d+)\s+\d+\s+(\S+)\s+\S+\s*(.*)$")


def blkparse_events(prefix: Path, cwd: Path | None = None) -> pl.DataFrame:
    """cpu, seq, time_ns, action, D-style nsectors of each event line real blkparse prints."""
    out = subprocess.run(["blkparse", "-i", str(prefix)], capture_output=True, text=True, check=True, cwd=cwd).stdout
    rows = []
    for ln in out.splitlines():
        m = LINE.match(ln)
        if m:
            rest = m[6].split()
            n = int(rest[2]) if len(rest) >= 3 and rest[1] == "+" else None
            rows.append((int(m[1]), int(m[2]), int(m[3]) * 10**9 + int(m[4]), m[5], n))
    return pl.DataFrame(rows, schema=["cpu", "seq", "time_ns", "action", "nsectors"], orient="row")


V7 = struct.Struct("<IIQQIIIIIHH")  # struct blk_io_trace, little-endian


def v7_records(data: bytes) -> list[tuple[int, tuple]]:
    """(offset, header fields) of each record of a clean v7 little-endian file (test helper, record by record)."""
    out, pos = [], 0
    while pos + V7.size <= len(data):
        h = V7.unpack_from(data, pos)
        out.append((pos, h))
        pos += V7.size + h[-1]
    return out


def ingest(tmp_path: Path, *inputs: Path):
    rep = run_ingest("blktrace", list(inputs), tmp_path / "out")
    return rep, pl.read_parquet(tmp_path / "out" / "events.parquet")


@needs_blkparse
@pytest.mark.parametrize("name", SETS)
def test_counts_sums_times_equal_blkparse(tmp_path, name):
    ref = blkparse_events(SETS[name])
    rep, ev = ingest(tmp_path, SETS[name])
    assert dict(ev.group_by("action").len().iter_rows()) == dict(ref.group_by("action").len().iter_rows())
    assert ev.filter(pl.col("action") == "D")["nsectors"].sum() == ref.filter(pl.col("action") == "D")["nsectors"].sum()
    j = ref.join(ev.select(pl.col("cpu").cast(pl.Int64), "seq", pl.col("time_ns").alias("t")), on=["cpu", "seq"])
    assert j.height == ref.height and (j["time_ns"] == j["t"]).all()
    assert rep.warnings == [] and rep.unknown == {}


def test_inputs_dir_prefix_files_agree(tmp_path):
    _, a = ingest(tmp_path / "a", SETS["keks"])
    _, b = ingest(tmp_path / "b", SETS["keks"].parent)
    _, c = ingest(tmp_path / "c", *sorted(SETS["keks"].parent.glob("keks.blktrace.*")))
    assert a.equals(b) and a.equals(c)


def test_payloads_names_and_trace_report(tmp_path):
    rep, ev = ingest(tmp_path, SETS["sda"])
    a = ev.filter(pl.col("action") == "A")
    assert a["remap_dev_major"].null_count() == 0 and set(a["remap_dev_major"].unique()) <= {8, 253}
    assert (ev.filter(pl.col("action") == "U")["unplug_count"] >= 1).all()
    assert ev.filter(pl.col("action") == "Q")["process"].null_count() == 0  # names from notify records
    info = rep.trace["files"][str(SETS["sda"]) + ".blktrace.0"]
    assert info["version"] == 7 and info["byte_order"] == "little"
    assert rep.trace["sequence_gaps"] == {}


def _copy_set(src: Path, dst: Path, cpus: dict[int, int]) -> Path:
    """Copy CPU files of a real set under new CPU numbers {old: new} (test inputs only, in tmp)."""
    dst.mkdir(parents=True)
    for old, new in cpus.items():
        shutil.copy(f"{src}.blktrace.{old}", dst / f"{src.name}.blktrace.{new}")
    return dst / src.name


@needs_blkparse
def test_cpu_gap_blkparse_stops_blkscope_keeps_and_warns(tmp_path):
    prefix = _copy_set(SETS["keks"], tmp_path / "gap", {0: 0, 1: 1, 3: 3, 4: 4})  # no CPU 2
    ref = blkparse_events(prefix)
    assert set(ref["cpu"].unique()) == {0, 1}  # blkparse stops at the first missing CPU file
    rep, ev = ingest(tmp_path, prefix)
    assert set(ev["cpu"].unique()) == {0, 1, 3, 4}
    assert rep.trace["sets"][str(prefix)]["missing_cpus"] == [2]
    assert any("gap" in w for w in rep.warnings)


def test_file_named_for_another_cpu_warns(tmp_path):
    prefix = _copy_set(SETS["keks"], tmp_path / "swap", {0: 1, 1: 0})  # names swapped
    rep, ev = ingest(tmp_path, prefix)
    assert ev.height > 0
    assert sum("another CPU" in w for w in rep.warnings) == 2


def test_handmade_truncated_and_bad_magic(tmp_path):
    data = Path(str(SETS["sda"]) + ".blktrace.0").read_bytes()
    _, whole = ingest(tmp_path / "w", Path(str(SETS["sda"]) + ".blktrace.0"))
    cut = tmp_path / "handmade_truncated.blktrace.0"
    cut.write_bytes(data[:-20])
    rep, ev = ingest(tmp_path / "t", cut)
    assert ev.height == whole.height - 1 and any("truncated last record" in w for w in rep.warnings)
    offs = [o for o, _ in v7_records(data)]
    at, size = offs[100], offs[101] - offs[100]
    assert size == 48  # an event record without payload
    bad = bytearray(data)
    bad[at : at + 4] = b"XXXX"  # break the magic of one record in the middle
    p = tmp_path / "handmade_badmagic.blktrace.0"
    p.write_bytes(bytes(bad))
    rep, ev = ingest(tmp_path / "b", p)
    assert ev.height == whole.height - 1
    assert rep.trace["resyncs"] == [{"file": str(p), "byte_offset": at, "bytes_skipped": 48}]
    assert any(f"byte offset {at}" in w for w in rep.warnings)


def test_empty_and_not_blktrace(tmp_path):
    e = tmp_path / "empty.blktrace.0"
    e.write_bytes(b"")
    with pytest.raises(InputError, match="empty file"):
        ingest(tmp_path, e)
    g = tmp_path / "handmade_garbage.blktrace.0"
    g.write_bytes(b"hello" * 20)
    with pytest.raises(InputError, match="byte offset 0: not a blktrace file"):
        ingest(tmp_path, g)
    with pytest.raises(InputError, match="no set prefix"):
        ingest(tmp_path, tmp_path / "nothing")
    assert not (tmp_path / "out").exists()


def test_sniff():
    assert blktrace.sniff(bytes.fromhex("07746165") + b"\0" * 44)
    assert blktrace.sniff(bytes.fromhex("65617408") + b"\0" * 60)  # big-endian v8
    assert not blktrace.sniff(b"  8,0    3        1     0.000000000   697  G   W 223490 + 8 [kjournald]\n")


@pytest.mark.parametrize("name", SETS)
def test_small_windows_change_nothing(tmp_path, name, monkeypatch):
    """Records cut at window edges, carried over, horizons every few hundred records: same table, same report."""
    rep, whole = ingest(tmp_path / "a", SETS[name])
    monkeypatch.setenv("BLKSCOPE_BLKTRACE_WINDOWS", "4096,4093")  # odd: cuts land inside headers and payloads
    rep2, small = ingest(tmp_path / "b", SETS[name])
    # the interleaving of CPUs follows the window size; each CPU's rows and their order do not
    assert small.sort("cpu", maintain_order=True).equals(whole.sort("cpu", maintain_order=True))
    assert rep2.trace == rep.trace and rep2.warnings == rep.warnings


def test_cpus_interleaved_by_time_and_names_across_files(tmp_path):
    """Rows come in per-CPU time order, CPUs interleaved in horizon blocks; a pid named only in another
    CPU's file still gets its name."""
    _, ev = ingest(tmp_path, SETS["sda"])
    for _, part in ev.group_by("cpu"):
        assert part["time_ns"].is_sorted()
    named = ev.drop_nulls("process").select("pid", "process").unique()
    assert ev.join(named, on="pid", how="semi")["process"].null_count() == 0


def test_no_progress_bar_without_a_terminal(tmp_path, capsys):
    from blkscope.cli import main

    src = Path(__file__).parent / "fixtures" / "trace" / "tracefs_blk_classic_pipe.txt.zst"
    assert main(["ingest", "--kind", "ftrace", str(src), "-o", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "events=" in err and "%" not in err and "\r" not in err


def _to_v8_big_endian(data: bytes) -> bytes:
    """A v7 little-endian file rewritten as v8 (blk_io_trace2, 64 bytes) big-endian, payloads as they were."""
    v8 = struct.Struct(">IIQQIIQIIHH12x")  # blk_io_trace2: pid before a 64-bit action
    out = bytearray()
    for o, (_, seq, time, sector, nbytes, action, pid, device, cpu, error, pdu_len) in v7_records(data):
        out += v8.pack(0x65617408, seq, time, sector, nbytes, pid, action, device, cpu, error, pdu_len)
        out += data[o + 48 : o + 48 + pdu_len]
    return bytes(out)


def test_v8_big_endian_reads_like_v7(tmp_path):
    src = Path(str(SETS["sda"]) + ".blktrace.0")
    p = tmp_path / "handmade_v8be.blktrace.0"
    p.write_bytes(_to_v8_big_endian(src.read_bytes()))
    rep7, a = ingest(tmp_path / "a", src)
    rep8, b = ingest(tmp_path / "b", p)
    assert a.equals(b) and a.height > 0
    info = rep8.trace["files"][str(p)]
    assert info["version"] == 8 and info["byte_order"] == "big" and rep8.warnings == []


GUEST_RUN = Path(__file__).resolve().parents[1] / "data" / "raw" / "guest-f2fs-fio-randrw-r1"


@pytest.mark.skipif(not GUEST_RUN.is_dir(), reason="embedded dataset absent")
def test_dropped_events_come_from_the_capture(tmp_path):
    """blktrace's own dropped count (run.yaml of the capture) lands in ingest.json; lost events warn."""
    rep, _ = ingest(tmp_path / "a", GUEST_RUN / "blktrace")
    assert rep.trace["dropped_events"] == 0 and rep.trace["dropped_events_source"].endswith("run.yaml")
    run = tmp_path / "handmade_dropped_run"
    shutil.copytree(GUEST_RUN / "blktrace", run / "blktrace")
    meta = (GUEST_RUN / "run.yaml").read_text().replace("  dropped_total: 0\n", "  dropped_total: 7\n", 1)
    (run / "run.yaml").write_text(meta)
    rep2, _ = ingest(tmp_path / "b", run / "blktrace")
    assert rep2.trace["dropped_events"] == 7
    assert any("dropped 7 events" in w for w in rep2.warnings)
    rep3, _ = ingest(tmp_path / "c", SETS["sda"])
    if rep3 is not None:
        assert rep3.trace["dropped_events"] is None  # no capture record beside the shared sample
