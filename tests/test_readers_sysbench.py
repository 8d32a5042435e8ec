"""sysbench fileio reader: 1.0.20 outputs made here, 0.4.12 and 1.0.20 shared samples."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers import sysbench

FIX = Path(__file__).parent / "fixtures" / "sysbench"
SAMPLES = samples.SAMPLES / "sysbench-fileio"


def ingest(path: Path, tmp_path: Path, kind: str = "sysbench") -> tuple[pl.DataFrame, pl.DataFrame]:
    out = tmp_path / "out"
    run_ingest(kind, [path], out)
    return pl.read_parquet(out / "sysbench_fileio.parquet"), pl.read_parquet(out / "sysbench_intervals.parquet")


def grab(path: Path, pattern: str) -> list[float]:
    return [float(m.group(1)) for ln in path.read_text().splitlines() if (m := re.search(pattern, ln))]


V10 = [FIX / "rndrw_prepare_run_cleanup_1020.txt", FIX / "seqwr_seqrd_direct_1020.txt",
       SAMPLES / "coen241_vkled_sb1020_qemu_prepare_run_cleanup.txt"]


@pytest.mark.parametrize("path", V10, ids=lambda p: p.name)
def test_v10_reads_writes_per_second_as_printed(path: Path, tmp_path: Path) -> None:
    df, _ = ingest(path, tmp_path, kind="auto")
    assert df["reads_s"].to_list() == grab(path, r"reads/s:\s+([\d.]+)")
    assert df["writes_s"].to_list() == grab(path, r"writes/s:\s+([\d.]+)")
    assert df["fsyncs_s"].to_list() == grab(path, r"fsyncs/s:\s+([\d.]+)")
    assert df["written_mib_s"].to_list() == grab(path, r"written, MiB/s:\s+([\d.]+)")
    assert df["lat_p95_ms"].to_list() == grab(path, r"95th percentile:\s+([\d.]+)")
    assert df["total_events"].to_list() == [int(v) for v in grab(path, r"total number of events:\s+(\d+)")]
    assert df["version"].unique().to_list() == ["1.0.20"]


def test_modes_threads_and_intervals(tmp_path: Path) -> None:
    df, _ = ingest(FIX / "seqwr_seqrd_direct_1020.txt", tmp_path / "a")
    assert df["test_mode"].to_list() == ["seqwr", "seqrd"]
    df, iv = ingest(FIX / "rndrw_prepare_run_cleanup_1020.txt", tmp_path / "b")
    assert df["test_mode"].to_list() == ["rndrw"] and df["threads"].to_list() == [2]
    path = FIX / "rndrw_prepare_run_cleanup_1020.txt"
    assert iv["reads_mib_s"].to_list() == grab(path, r"\] reads: ([\d.]+) MiB/s")
    assert iv["time_s"].to_list() == grab(path, r"^\[\s*(\d+)s \]")


def test_failed_run_is_an_error(tmp_path: Path) -> None:
    path = FIX / "rndrd_without_prepare_1020.txt"
    fatal = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if ln.startswith("FATAL"))
    with pytest.raises(InputError) as e:
        run_ingest("sysbench", [path], tmp_path / "out")
    assert e.value.where == f"line {fatal}" and "did not finish" in e.value.message


def test_v04_rates_from_printed_totals(tmp_path: Path) -> None:
    path = SAMPLES / "coen241_amandarito_sb0412_qemu_rndrw_x5.txt"
    df, _ = ingest(path, tmp_path, kind="auto")
    ops = [tuple(map(int, m.groups())) for ln in path.read_text().splitlines()
           if (m := re.match(r"Operations performed:\s+(\d+) Read, (\d+) Write, (\d+) Other", ln))]
    times = grab(path, r"total time:\s+([\d.]+)s")
    assert df.height == len(ops) == len(times)
    for row, (r, w, o), t in zip(df.iter_rows(named=True), ops, times, strict=True):
        assert (row["read_ops"], row["write_ops"], row["other_ops"]) == (r, w, o)
        assert row["reads_s"] == pytest.approx(r / t) and row["writes_s"] == pytest.approx(w / t)
        assert row["fsyncs_s"] is None
    assert df["requests_s"].to_list() == grab(path, r"([\d.]+) Requests/sec executed")
    assert df["lat_p95_ms"].to_list() == grab(path, r"95 percentile:\s+([\d.]+)ms")
    read_mb = grab(path, r"^Read ([\d.]+)Mb")
    assert df["read_mib_s"].to_list() == pytest.approx([m / t for m, t in zip(read_mb, times, strict=True)])


def test_sniff() -> None:
    for p in FIX.glob("*.txt"):
        assert sysbench.sniff(p.read_bytes()[:65536])
    assert not sysbench.sniff(b"sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nCPU speed:\n")
