"""iostat -o JSON reader: numbers checked against the fixture parsed independently with json."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import samples

from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers import iostat
from blkscope.readers.iostat_sinceboot import first_report_since_boot

FIX = Path(__file__).parent / "fixtures" / "iostat"
SAMPLES = samples.SAMPLES / "iostat"


def ingest(path: Path, tmp_path: Path, kind: str = "iostat") -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    out = tmp_path / "out"
    run_ingest(kind, [path], out)
    return (pl.read_parquet(out / "iostat.parquet"), pl.read_parquet(out / "iostat_cpu.parquet"),
            json.loads((out / "ingest.json").read_text()))


def stats_of(path: Path) -> list[dict]:
    return [s for h in json.loads(path.read_text())["sysstat"]["hosts"] for s in h["statistics"]]


KEYS_12 = {"r/s": "r_s", "w/s": "w_s", "rkB/s": "rkb_s", "wkB/s": "wkb_s", "rrqm/s": "rrqm_s",
           "wrqm/s": "wrqm_s", "r_await": "r_await_ms", "w_await": "w_await_ms", "aqu-sz": "aqu_sz",
           "rareq-sz": "rareq_sz_kb", "wareq-sz": "wareq_sz_kb", "util": "util_pct", "rrqm": "rrqm_pct"}


@pytest.mark.parametrize("name", ["x_t_y_json_1_3_vda.json", "x_t_json_1_2_sinceboot.json"])
def test_every_value_matches_the_json(name: str, tmp_path: Path) -> None:
    path = FIX / name
    disk, cpu, _ = ingest(path, tmp_path)
    stats = stats_of(path)
    assert disk.height == sum(len(s["disk"]) for s in stats)
    assert cpu.height == len(stats)
    for i, s in enumerate(stats):
        ts = datetime.strptime(s["timestamp"], "%m/%d/%y %H:%M:%S")
        c = cpu.filter(pl.col("sample") == i).row(0, named=True)
        assert c["timestamp"] == ts
        assert [c[k] for k in ("user", "nice", "system", "iowait", "steal", "idle")] == [
            s["avg-cpu"][k] for k in ("user", "nice", "system", "iowait", "steal", "idle")]
        for d in s["disk"]:
            row = disk.filter((pl.col("sample") == i) & (pl.col("device") == d["disk_device"])).row(0, named=True)
            assert row["timestamp"] == ts
            for key, col in KEYS_12.items():
                assert row[col] == d[key], (key, i)
            assert row["await_ms"] is None  # 12.x prints no combined await


def test_since_boot_first_report_flagged(tmp_path: Path) -> None:
    disk, cpu, rep = ingest(FIX / "x_t_json_1_2_sinceboot.json", tmp_path)
    assert disk.filter(pl.col("sample") == 0)["since_boot"].to_list() == [True] * 2
    assert disk.filter(pl.col("sample") > 0)["since_boot"].unique().to_list() == [False]
    assert cpu["since_boot"].to_list() == [True, False]
    assert rep["iostat_runs"][0]["since_boot"] is True


def test_with_y_no_report_is_flagged_since_boot(tmp_path: Path) -> None:
    disk, _, rep = ingest(FIX / "x_t_y_json_1_3_vda.json", tmp_path)
    # the system was idle, so the first report could be either: never claimed since-boot
    assert True not in disk["since_boot"].to_list()
    assert disk.filter(pl.col("sample") > 0)["since_boot"].unique().to_list() == [False]


def test_sigterm_truncated_json_keeps_complete_reports(tmp_path: Path) -> None:
    path = FIX / "x_t_y_json_sigterm_vda.json"
    disk, cpu, rep = ingest(path, tmp_path)
    n_stats = path.read_text().count('"avg-cpu"')
    assert cpu.height == n_stats and disk.height == n_stats
    assert any("SIGTERM" in w for w in rep["warnings"])


def test_sysstat_1156_old_keys_and_sector_units(tmp_path: Path) -> None:
    path = FIX / "s1156_x_t_json_1_2_vda.json"  # real output of iostat 11.5.6 built here
    disk, _, _ = ingest(path, tmp_path)
    for i, s in enumerate(stats_of(path)):
        d = s["disk"][0]
        row = disk.filter(pl.col("sample") == i).row(0, named=True)
        assert (row["r_s"], row["w_s"], row["rkb_s"], row["rrqm_s"]) == (d["r"], d["w"], d["rkB"], d["rrqm"])
        assert row["areq_sz_kb"] == pytest.approx(d["avgrq-sz"] / 2)  # sectors -> kB
        assert (row["aqu_sz"], row["await_ms"], row["svctm_ms"]) == (d["avgqu-sz"], d["await"], d["svctm"])
        assert row["rrqm_pct"] is None
        assert row["timestamp"] == datetime.strptime(s["timestamp"], "%m/%d/%y %H:%M:%S")
    assert disk["since_boot"].to_list() == [True, False]  # run without -y


def test_sysstat_1156_basic_json(tmp_path: Path) -> None:
    path = FIX / "s1156_d_t_json_1_2_vda.json"
    disk, _, _ = ingest(path, tmp_path)
    for i, s in enumerate(stats_of(path)):
        d = s["disk"][0]
        row = disk.filter(pl.col("sample") == i).row(0, named=True)
        assert (row["tps"], row["rkb_s"], row["wkb_s"], row["kb_read"]) == (
            d["tps"], d["kB_read_per_sec"], d["kB_wrtn_per_sec"], d["kB_read"])
    assert disk["since_boot"].to_list() == [True, False]


def test_pkb_sample_iso_timestamps_and_counts(tmp_path: Path) -> None:
    path = SAMPLES / "pkb_iostat_json_sysstat12_ts.json"
    disk, cpu, rep = ingest(path, tmp_path, kind="auto")
    stats = stats_of(path)
    assert cpu.height == len(stats)
    assert disk["sample"].n_unique() == len(stats)
    assert sorted(disk["device"].unique()) == sorted({d["disk_device"] for s in stats for d in s["disk"]})
    first = stats[0]["timestamp"]  # e.g. 2024-03-14T17:53:14-0700: wall-clock kept, offset reported
    assert disk["timestamp"][0] == datetime.strptime(first[:19], "%Y-%m-%dT%H:%M:%S")
    assert rep["utc_offset"] == first[19:]


def test_truncated_inside_a_report_names_line(tmp_path: Path) -> None:
    text = (FIX / "x_t_y_json_1_3_vda.json").read_text()
    cut = text.index('"disk_device"', text.index('"disk_device"') + 1)
    bad = tmp_path / "cut.json"
    bad.write_text(text[:cut])
    with pytest.raises(InputError) as e:
        run_ingest("iostat", [bad], tmp_path / "out")
    assert str(bad) in str(e.value) and "line " in e.value.where and "truncated" in e.value.message
    assert not (tmp_path / "out").exists()


def test_non_number_value_is_an_error(tmp_path: Path) -> None:
    text = (FIX / "x_t_y_json_1_3_vda.json").read_text().replace('"util": 0.00', '"util": "n/a"', 1)
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(InputError, match=r"disk\[0\]\.util"):
        run_ingest("iostat", [bad], tmp_path / "out")


def test_sniff() -> None:
    assert iostat.sniff((FIX / "x_t_y_json_1_3_vda.json").read_bytes()[:4096])
    assert not iostat.sniff(b'{\n  "fio version" : "fio-3.33",\n')


def test_since_boot_verdicts_on_generated_counts() -> None:
    rng = np.random.default_rng(7)
    for itv in (99, 100, 101, 200, 1003):  # interval reports: whole counts over itv centiseconds
        counts = rng.integers(1, 5000, size=6)
        vals = list(np.round(counts * 100 / itv, 2))
        nxt = list(np.round(rng.integers(1, 5000, size=6) * 100 / itv, 2))
        assert first_report_since_boot(vals, nxt, itv / 100) is False
    uptime_cs = 123_456_789  # a since-boot summary divides by the uptime
    vals = list(np.round(rng.integers(10**6, 10**9, size=6) * 100 / uptime_cs, 2))
    nxt = list(np.round(rng.integers(1, 5000, size=6) * 100 / 100, 2))
    assert first_report_since_boot(vals, nxt, 1.0) is True
    assert first_report_since_boot([0.0, 0.0], nxt, 1.0) is None  # idle: cannot tell


def test_cpu_evidence_tolerates_tick_jitter() -> None:
    # a -y capture here: 2 CPUs, 196 ticks in the first interval, 204 in the second (jiffies jitter)
    first = [16 / 196 * 100, 0, 9 / 196 * 100, 0, 0, 171 / 196 * 100]
    second = [4 / 204 * 100, 0, 10 / 204 * 100, 1 / 204 * 100, 0, 189 / 204 * 100]
    r = [round(x, 2) for x in first], [round(x, 2) for x in second]
    assert first_report_since_boot([63.0, 63.0], [100.0, 100.0], 1.0, (r[0], r[1], 2)) is False
    # the same CPU split over the ticks since boot is no interval report
    boot = [round(x, 2) for x in (8.1637, 0.0013, 4.5911, 0.0871, 0.0032, 87.1536)]
    assert first_report_since_boot([63.0, 63.0], [100.0, 100.0], 1.0, (boot, r[1], 2)) is True
