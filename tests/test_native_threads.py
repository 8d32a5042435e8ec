"""blkscope-native's helper threads (the Parquet writer thread, a read-ahead thread per blktrace file) write
the same file, byte for byte, as one thread does: real sets of ../shared/samples and of the dataset, with many row
groups and windows small enough to cut records, so every hand-over between the threads is exercised."""

from __future__ import annotations

import json
import subprocess

import polars as pl
import pytest
import samples

from blkscope import native

SAMPLES = samples.SAMPLES / "blktrace-bin"
SETS = {
    "keks": SAMPLES / "influx_keks" / "keks",
    "sda": SAMPLES / "centos7_notes_sda" / "sda",
    # zstd-compressed: decompressed in the read-ahead threads
    "raw-zst": samples.ROOT / "data" / "raw" / "guest-ext4-fio-randrw-r1" / "blktrace",
}


def run(tmp_path, prefix, threads: int, windows: str | None) -> tuple[bytes, dict]:
    out, rep = tmp_path / f"t{threads}.parquet", tmp_path / f"t{threads}.json"
    env = {"BLKSCOPE_NATIVE_THREADS": str(threads), **({"BLKSCOPE_BLKTRACE_WINDOWS": windows} if windows else {})}
    cmd = [str(native.program()), "blktrace", "--out", str(out), "--report", str(rep), "--row-group", "97", str(prefix)]
    subprocess.run(cmd, check=True, env=env)
    return out.read_bytes(), json.loads(rep.read_text())


@pytest.mark.parametrize("windows", [None, "4096,4093"])
@pytest.mark.parametrize("name", SETS)
def test_threads_write_the_same_bytes(tmp_path, name, windows):
    one, rep1 = run(tmp_path, SETS[name], 1, windows)
    two, rep2 = run(tmp_path, SETS[name], 2, windows)
    assert rep2 == rep1
    assert two == one
    ev = pl.read_parquet(tmp_path / "t2.parquet")
    assert ev.height == rep1["rows"]["events"] > 97 * 3  # several row groups went through the writer thread

