"""iostat text reader on real outputs of sysstat 9.1.7 to 12.6.1: values checked against a plain split of the file."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.ingest import run_ingest
from blkscope.readers import iostat

FIX = Path(__file__).parent / "fixtures" / "iostat"
SAMPLES = samples.SAMPLES / "iostat"
TEXT = sorted(p for p in FIX.glob("s*.txt"))

# header token -> (column, factor), written out here independently of the reader's table
UNITS = {"r/s": ("r_s", 1), "w/s": ("w_s", 1), "rkB/s": ("rkb_s", 1), "wkB/s": ("wkb_s", 1),
         "rMB/s": ("rkb_s", 1024), "rsec/s": ("rkb_s", 0.5), "wsec/s": ("wkb_s", 0.5), "tps": ("tps", 1),
         "kB_read/s": ("rkb_s", 1), "MB_read/s": ("rkb_s", 1024), "Blk_read/s": ("rkb_s", 0.5),
         "MB_wrtn": ("kb_wrtn", 1024), "avgrq-sz": ("areq_sz_kb", 0.5), "avgqu-sz": ("aqu_sz", 1),
         "aqu-sz": ("aqu_sz", 1), "%util": ("util_pct", 1), "await": ("await_ms", 1), "svctm": ("svctm_ms", 1),
         "rareq-sz": ("rareq_sz_kb", 1), "d/s": ("d_s", 1), "%rrqm": ("rrqm_pct", 1), "kB/s": ("kb_s", 1)}


def ingest(path: Path, tmp_path: Path, kind: str = "iostat") -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    out = tmp_path / "out"
    run_ingest(kind, [path], out)
    return (pl.read_parquet(out / "iostat.parquet"), pl.read_parquet(out / "iostat_cpu.parquet"),
            json.loads((out / "ingest.json").read_text()))


def plain_split(path: Path) -> list[tuple[int, str, dict[str, float]]]:
    """(report index, device, {token: value}) for every device line; reports counted by Device headers."""
    rows, header, report = [], None, -1
    for line in path.read_text().splitlines():
        if line.startswith("Device"):
            header, report = line.split()[1:], report + 1
        elif not line.strip():
            header = None
        elif header:
            f = line.split()
            rows.append((report, f[0], {h: float(v.replace(",", ".")) for h, v in zip(header, f[1:], strict=True)}))
    return rows


@pytest.mark.parametrize("path", TEXT, ids=[p.name for p in TEXT])
def test_values_equal_the_printed_ones(path: Path, tmp_path: Path) -> None:
    disk, cpu, _ = ingest(path, tmp_path, kind="auto")
    expected = plain_split(path)
    assert disk.height == len(expected)
    for report, dev, vals in expected:
        got = disk.filter((pl.col("sample") == report) & (pl.col("device") == dev)).row(0, named=True)
        for tok, v in vals.items():
            if tok in UNITS:
                col, factor = UNITS[tok]
                assert got[col] == pytest.approx(v * factor), (tok, report, dev)
    n_cpu = path.read_text().count("avg-cpu:")
    assert cpu.height == n_cpu


@pytest.mark.parametrize("path", [p for p in TEXT if "_t_1_2" in p.name or "_d_m_1_2" in p.name or "_k_p_" in p.name],
                         ids=lambda p: p.name)
def test_since_boot_found_without_y(path: Path, tmp_path: Path) -> None:
    # with -t (timestamps) or basic totals the reader can prove the first report is the since-boot one
    disk, _, _ = ingest(path, tmp_path)
    assert disk.filter(pl.col("sample") == 0)["since_boot"].unique().to_list() == [True]
    assert disk.filter(pl.col("sample") > 0)["since_boot"].unique().to_list() == [False]


@pytest.mark.parametrize("path", [p for p in TEXT if "_y_" in p.name], ids=lambda p: p.name)
def test_never_since_boot_with_y(path: Path, tmp_path: Path) -> None:
    disk, cpu, _ = ingest(path, tmp_path)
    assert True not in disk["since_boot"].to_list() + cpu["since_boot"].to_list()


@pytest.mark.parametrize(("name", "first", "order"), [
    ("s12_x_t_y_1_2_vda.txt", r"^(\d\d)/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)$", "mdy"),
    ("s12_x_t_y_en_US_12h_1_2_vda.txt", r"^(\d\d)/(\d\d)/(\d{4}) (\d\d):(\d\d):(\d\d) AM$", "mdy"),
    ("s12_x_t_iso_y_1_2_vda.txt", r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)[+-]\d{4}$", "ymd"),
    ("s12_x_t_y_de_DE_1_2_vda.txt", r"^(\d\d)\.(\d\d)\.(\d{4}) (\d\d):(\d\d):(\d\d)$", "dmy"),
    ("s12_d_t_y_en_GB_1_2_vda.txt", r"^(\d\d)/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)$", "dmy"),
])
def test_timestamp_forms(name: str, first: str, order: str, tmp_path: Path) -> None:
    path = FIX / name
    stamps = [m.groups() for line in path.read_text().splitlines() if (m := re.match(first, line))]
    assert len(stamps) == 2
    disk, _, _ = ingest(path, tmp_path)
    got = disk.sort("sample")["timestamp"].to_list()
    for (*date, h, mi, s), ts in zip(stamps, got, strict=True):
        parts = dict(zip(order, date, strict=True))
        y = int(parts["y"]) + (2000 if len(parts["y"]) == 2 else 0)
        assert ts == datetime(y, int(parts["m"]), int(parts["d"]), int(h), int(mi), int(s))


def test_pdsh_interleaved_hosts_match_their_sources(tmp_path: Path) -> None:
    both, cpu, _ = ingest(FIX / "handmade_pdsh_two_hosts_interleaved.txt", tmp_path)
    assert sorted(both["host"].unique()) == ["alpha", "beta"]
    for host, src in (("alpha", "s12_x_t_y_1_2_vda.txt"), ("beta", "s1161_x_t_1_2_vda.txt")):
        alone, _, _ = ingest(FIX / src, tmp_path / host)
        mine = both.filter(pl.col("host") == host).drop("host")
        assert mine.equals(alone.drop("host"))
        assert cpu.filter(pl.col("host") == host).height == 2


def test_cpu_only_and_device_only(tmp_path: Path) -> None:
    disk, cpu, _ = ingest(FIX / "s12_c_y_1_2.txt", tmp_path)
    assert disk.height == 0 and cpu.height == 2
    disk, cpu, _ = ingest(FIX / "s12_x_d_t_y_z_1_2.txt", tmp_path / "d")
    assert cpu.height == 0 and disk["sample"].to_list() == [0, 1]


@pytest.mark.parametrize("path", samples.files("iostat"), ids=lambda p: p.name)
def test_shared_samples_count_of_samples_and_devices(path: Path, tmp_path: Path) -> None:
    disk, cpu, _ = ingest(path, tmp_path, kind="auto")
    expected = plain_split(path)
    assert disk["sample"].n_unique() == len({r for r, _, _ in expected})
    assert sorted(disk["device"].unique()) == sorted({d for _, d, _ in expected})
    assert disk.height == len(expected)
    assert cpu.height == path.read_text().count("avg-cpu:")
    for report, dev, vals in expected[:50]:
        got = disk.filter((pl.col("sample") == report) & (pl.col("device") == dev)).row(0, named=True)
        assert got["util_pct"] == vals["%util"]


def test_sniff_text_layouts() -> None:
    for p in TEXT:
        assert iostat.sniff(p.read_bytes()[:65536]), p.name
    assert iostat.sniff((FIX / "handmade_pdsh_two_hosts_interleaved.txt").read_bytes())
    assert not iostat.sniff(b"sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n")
