"""blkscope-native's helper threads (the Parquet writer thread, a read-ahead thread per blktrace file) write
the same file, byte for byte, as one thread does: real sets of ../shared/samples and of the dataset, with many row
groups and windows small enough to cut records, so every hand-over between the threads is exercised. The program
plans its threads for BLKSCOPE_NATIVE_THREADS CPUs: 2 (the writer thread only, for an uncompressed set), enough
for a read-ahead thread per file (which then decodes too), and compressed sets (read-ahead threads on two CPUs;
with more files than CPUs they only read and decompress). BLKSCOPE_NATIVE_SPLIT=1 reads the set twice, on two
threads that each fill and encode part of the columns (the layout for two CPUs the probe finds apart).
BLKSCOPE_NATIVE_MAP=0 reads the files with read() instead of mapping them (mapped.rs): the same bytes again.
BLKSCOPE_NATIVE_GATHER8=0 fills the columns record by record instead of eight records at a time with AVX-512
gathers (native/src/blktrace/gather8.rs, where the build has AVX-512, as on the machines the suite runs on):
the same bytes again, and the split read's halves take the eight-record pass too. BLKSCOPE_NATIVE_HELP=1 has
the decoder encode the last k columns of every row group itself, k = 0 .. 21 in turn (as it does unasked when
the writer thread lags: native/src/sink.rs), the writer the rest: the same bytes again."""

from __future__ import annotations

import gzip
import json
import shutil
import struct
import subprocess

import polars as pl
import pytest
import samples
from test_readers_trace_blktrace import V7, v7_records

from blkscope import native

SAMPLES = samples.SAMPLES / "blktrace-bin"
SETS = {
    "keks": SAMPLES / "influx_keks" / "keks",
    "sda": SAMPLES / "centos7_notes_sda" / "sda",
    # zstd-compressed: decompressed in the read-ahead threads
    "raw-zst": samples.ROOT / "data" / "raw" / "guest-ext4-fio-randrw-r1" / "blktrace",
}
# CPUs as the program plans for them: the writer thread alone on 2 for an uncompressed set; a read-ahead thread
# per file besides the writer with 2 files on 4 and 8 files on 10; "2-split": two threads of half the columns each;
# "-read": the files read() rather than mapped; "-scalar": no eight-record pass; "-help": the decoder encodes the
# last columns of each row group
CPUS = ["2", "2-help", "2-split", "2-split-read", "4", "10", "1-read", "1-scalar"]


def layout(cpus: str) -> dict[str, str]:
    n, _, how = cpus.partition("-")
    return {"BLKSCOPE_NATIVE_THREADS": n, "BLKSCOPE_NATIVE_SPLIT": "1" if "split" in how else "0",
            "BLKSCOPE_NATIVE_MAP": "0" if "read" in how else "1",
            "BLKSCOPE_NATIVE_GATHER8": "0" if "scalar" in how else "1",
            "BLKSCOPE_NATIVE_HELP": "1" if "help" in how else "0"}


def run(tmp_path, prefix, cpus: str, windows: str | None, check: bool = True) -> tuple[bytes | None, dict]:
    out, rep = tmp_path / f"t{cpus}.parquet", tmp_path / f"t{cpus}.json"
    env = {**layout(cpus), **({"BLKSCOPE_BLKTRACE_WINDOWS": windows} if windows else {})}
    cmd = [str(native.program()), "blktrace", "--out", str(out), "--report", str(rep), "--row-group", "97", str(prefix)]
    done = subprocess.run(cmd, env=env)
    assert (done.returncode == 0) == check, done
    return (out.read_bytes() if out.exists() else None), json.loads(rep.read_text())


def same_as_one_thread(tmp_path, prefix, cpus: str, windows: str | None) -> None:
    one, rep1 = run(tmp_path, prefix, "1", windows)
    many, rep = run(tmp_path, prefix, cpus, windows)
    assert rep == rep1
    assert many == one
    ev = pl.read_parquet(tmp_path / f"t{cpus}.parquet")
    assert ev.height == rep1["rows"]["events"] > 97 * 3  # several row groups went through the writer thread


@pytest.mark.parametrize("cpus", CPUS)
@pytest.mark.parametrize("windows", [None, "4096,4093"])
@pytest.mark.parametrize("name", SETS)
def test_threads_write_the_same_bytes(tmp_path, name, windows, cpus):
    same_as_one_thread(tmp_path, SETS[name], cpus, windows)


def test_more_compressed_files_than_cpus(tmp_path):
    """influx_keks's 8 files gzipped, on 2 CPUs: 8 read-ahead threads that read and decompress, the decoding on
    this thread."""
    src = SETS["keks"]
    for f in sorted(src.parent.glob(src.name + ".blktrace.*")):
        with f.open("rb") as i, gzip.open(tmp_path / f"{f.name}.gz", "wb") as o:
            shutil.copyfileobj(i, o)
    same_as_one_thread(tmp_path, tmp_path / src.name, "2", "4096,4093")


def test_the_decoder_encoding_any_last_columns_writes_the_same_bytes(tmp_path):
    """parquet-sample (every kind of column: nulls, sparse extras, dictionary strings) in row groups of 997 rows:
    with BLKSCOPE_NATIVE_HELP=1 the decoder encodes the last k of the 21 columns of row group g, k = g mod 22,
    so every split of a row group between the two threads is written 13 or 14 times; the file is the one
    thread's, byte for byte, and the decoder says it encoded at least those chunks."""
    rows, group = 300_007, 997
    out = {}
    for cpus in ("1", "2-help"):
        o, r = tmp_path / f"s{cpus}.parquet", tmp_path / f"s{cpus}.json"
        cmd = [str(native.program()), "parquet-sample", "--out", str(o), "--report", str(r), "--rows", str(rows),
               "--row-group", str(group)]
        done = subprocess.run(cmd, env={**layout(cpus), "BLKSCOPE_NATIVE_TIMING": "1"}, check=True,
                              capture_output=True, text=True)
        out[cpus] = o.read_bytes(), done.stderr
    assert out["2-help"][0] == out["1"][0]
    groups = -(-rows // group)
    forced = sum(g % 22 for g in range(groups))
    said = [line.split() for line in out["2-help"][1].splitlines() if "column chunks in the decoder" in line]
    assert len(said) == 1 and int(said[0][4]) >= forced > 0, out["2-help"][1]
    assert "in the decoder" not in out["1"][1]  # one thread: no decoder beside a writer


def test_a_split_read_that_fails_fails_as_one_thread_does(tmp_path):
    """A set whose second file is not blktrace: both threads of a split read meet it; the error is the one
    thread's (file and offset), exit 2, and no table is left."""
    src = SETS["sda"]
    files = sorted(src.parent.glob(src.name + ".blktrace.*"))
    shutil.copy(files[0], tmp_path / "bad.blktrace.0")
    (tmp_path / "bad.blktrace.1").write_bytes(b"not a trace" * 100)
    out1, rep1 = run(tmp_path, tmp_path / "bad", "1", None, check=False)
    out2, rep2 = run(tmp_path, tmp_path / "bad", "2-split", None, check=False)
    assert out1 is None and out2 is None
    assert rep2 == rep1
    assert "bad.blktrace.1" in json.dumps(rep1) and "not a blktrace file" in json.dumps(rep1)



TC_NOTIFY = 1 << 10  # the category bit of notify records (not events)


def both_passes(tmp_path, path, *args: str) -> dict[str, tuple[bytes, dict]]:
    """One thread's table and report of `path` with the eight-record pass ("1") and without it ("0")."""
    out = {}
    for gather8 in "01":
        env = {**layout("1"), "BLKSCOPE_NATIVE_GATHER8": gather8}
        o, r = tmp_path / f"g{gather8}.parquet", tmp_path / f"g{gather8}.json"
        cmd = [str(native.program()), "blktrace", "--out", str(o), "--report", str(r), *args, str(path)]
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        out[gather8] = (o.read_bytes(), json.loads(r.read_text()))
    return out


def test_eight_record_decode_leaves_irregular_records_to_the_scalar_one(tmp_path):
    """The decode takes eight records at a time only when they are regular (gather8::regular); a handmade copy of
    a real file with one irregularity of each kind in the middle (a sequence number ahead, then back; a record of
    another CPU, one of another device, an action blkparse does not know) gives the same table and report, byte
    for byte, with the eight-record pass as without it, and the report counts each irregularity."""
    data = bytearray((SETS["sda"].parent / "sda.blktrace.1").read_bytes())
    offs = [o for o, h in v7_records(bytes(data)) if (h[5] >> 16) & TC_NOTIFY == 0]
    # (field offset, value): sequence number 1000, CPU 7, device 9,3, action 0xFE with no category bits
    edits = [(4, 1000), (40, 7), (36, (9 << 20) | 3), (28, 0xFE)]
    for n, (at, value) in enumerate(edits):  # in events 100, 141, 182, 223: eight-record groups apart
        struct.pack_into("<I", data, offs[100 + 41 * n] + at, value)
    p = tmp_path / "handmade_irregular.blktrace.1"
    p.write_bytes(bytes(data))
    out = both_passes(tmp_path, p)
    assert out["1"] == out["0"]
    rep = out["1"][1]
    info = rep["trace"]["files"][str(p)]
    assert info["records_from_other_cpus"] == 1
    assert info["devices"] == ["8,0", "9,3"]
    assert sum(rep["unknown"].values()) == 1
    assert rep["trace"]["sequence_gaps"] != {}


CGROUP, TC_PC = 1 << 8, 1 << 9  # the action's cgroup-id flag; the category bit of SCSI commands


def test_common_payloads_by_lane_and_the_rest_by_record(tmp_path):
    """The eight-record pass fills the remap (A), split (X) and unplug (U, UT) columns itself, up to the first
    group with another payload (a cgroup id, a SCSI command, a message), where the record-by-record code takes
    over. A handmade copy of a real file (its A and U records) with one of each in the middle, far apart (row groups
    of 97 rows: each in its own chunk), and short payloads that give no value: the same table and report with the
    pass as without it, and the values where they were written."""
    data = (SETS["sda"].parent / "sda.blktrace.1").read_bytes()
    recs = [[list(h), data[o + 48:o + 48 + h[-1]]] for o, h in v7_records(data)]
    events = [r for r in recs if (r[0][5] >> 16) & TC_NOTIFY == 0]
    a = [r for r in events if r[0][5] & 0xFF == 15]
    u = [r for r in events if r[0][5] & 0xFF == 10]
    assert len(a) > 150 and len(u) > 5
    a[20][0][5] = (a[20][0][5] & ~0xFF) | 13  # X, the split sector in 8 bytes
    a[20][1] = (123456789).to_bytes(8, "big")
    a[60][1] = a[60][1][:8]  # a remap too short to read
    u[2][0][5] = (u[2][0][5] & ~0xFF) | 11  # UT
    u[4][1] = u[4][1][:4]  # an unplug count too short to read
    a[100][0][5] |= CGROUP  # a cgroup id before the remap
    a[100][1] = (77).to_bytes(8, "little") + a[100][1]
    d = next(r for r in events[events.index(a[120]):] if r[0][5] & 0xFF == 7)  # a D after the 120th A
    d[0][5] |= TC_PC << 16  # a SCSI command: its bytes and CDB
    d[1] = bytes.fromhex("2a0000001000")
    note = [list(a[140][0]), b"hello from a handmade file\0\0"]  # a message after the 140th A
    note[0][3:6] = [0, 0, (TC_NOTIFY << 16) | 2]
    recs.insert(recs.index(a[140]) + 1, note)
    for h, pdu in recs:
        h[-1] = len(pdu)
    p = tmp_path / "handmade_payloads.blktrace.1"
    p.write_bytes(b"".join(V7.pack(*h) + pdu for h, pdu in recs))
    out = both_passes(tmp_path, p, "--row-group", "97")
    assert out["1"] == out["0"]
    ev = pl.read_parquet(tmp_path / "g1.parquet")
    n = ev.select(pl.all().is_not_null().sum()).row(0, named=True)
    assert n["remap_sector"] == n["remap_dev_major"] == len(a) - 2  # less the X and the short one
    assert (n["split_sector"], n["cgroup_id"], n["pc_bytes"], n["cdb"], n["message"]) == (1, 1, 1, 1, 1)
    assert n["unplug_count"] == len(u) - 1
    assert ev.filter(pl.col("split_sector").is_not_null())["split_sector"].to_list() == [123456789]
    assert ev.filter(pl.col("cgroup_id").is_not_null())["cgroup_id"].to_list() == [77]
    assert ev.filter(pl.col("message").is_not_null())["message"].to_list() == ["hello from a handmade file"]
    assert ev.filter(pl.col("action") == "UT").height == 1
