"""The journal reader on real journal writer output (tests/fixtures/journal, see its README), and on damage."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from blkscope.cli import main
from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers.detect import detect

FIX = Path(__file__).parent / "fixtures" / "journal"


def _ingest(tmp_path: Path, *inputs: Path, kind: str = "auto") -> dict[str, pl.DataFrame]:
    out = tmp_path / "out"
    run_ingest(kind, list(inputs), out)
    return {t: pl.read_parquet(out / f"{t}.parquet") for t in ("journal_latency", "journal_summary")}


def test_detected_as_journal():
    assert detect([FIX / "sparse.json"]) == "journal"


@pytest.mark.parametrize("name", ["sparse.json", "prealloc-reader.json"])
def test_tables_match_the_document(tmp_path, name):
    doc = json.loads((FIX / name).read_text())
    t = _ingest(tmp_path, FIX / name)
    lat, summ = t["journal_latency"], t["journal_summary"]
    ops = set(doc["latency"])
    assert set(summ["op"]) == ops == set(lat["op"])
    assert summ["mode"].unique().to_list() == [doc["options"]["mode"]]
    assert summ["reader"].unique().to_list() == [doc["options"]["reader"]]
    for op, d in doc["latency"].items():
        s = summ.filter(pl.col("op") == op).row(0, named=True)
        assert (s["count"], s["p50_ns"], s["p9999_ns"], s["max_ns"]) == (
            d["count"],
            d["p50_ns"],
            d["p9999_ns"],
            d["max_ns"],
        )
        h = lat.filter(pl.col("op") == op)
        assert h["count"].sum() == d["count"] and h.height == len(d["histogram"])
        # the exact extremes fall in the first and last buckets
        assert h["bucket_lo_ns"][0] <= d["min_ns"] < h["bucket_hi_ns"][0]
        assert h["bucket_lo_ns"][-1] <= d["max_ns"] < h["bucket_hi_ns"][-1]
        # log-linear: relative bucket width at most 1/32 above 64 ns
        wide = h.filter(pl.col("bucket_lo_ns") >= 64)
        assert ((wide["bucket_hi_ns"] - wide["bucket_lo_ns"]) / wide["bucket_lo_ns"]).max() <= 1 / 32
    if doc["options"]["reader"]:
        assert summ.filter(pl.col("op") == "read")["read_rate"].item() == doc["options"]["read_rate"]
    else:
        assert summ["read_rate"].is_null().all()


def test_cli_ingest(tmp_path):
    assert main(["ingest", "--kind", "journal", str(FIX / "sparse.json"), "-o", str(tmp_path / "o")]) == 0
    report = json.loads((tmp_path / "o" / "ingest.json").read_text())
    assert report["format"] == "journal" and report["versions"]["journal"] == "1"


def _damaged(tmp_path: Path, edit) -> Path:
    doc = json.loads((FIX / "sparse.json").read_text())
    edit(doc)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["latency"]["write"].update(count=1), "histogram holds"),
        (lambda d: d["latency"]["write"]["histogram"].reverse(), "out of order"),
        (lambda d: d["latency"]["write"]["histogram"][0].pop(), r"\[lo, hi, count\]"),
        (lambda d: d.pop("latency"), "latency"),
        (lambda d: d.update(tool="other"), "not a blkscope-journal"),
    ],
)
def test_damage_is_an_error(tmp_path, edit, message):
    with pytest.raises(InputError, match=message):
        _ingest(tmp_path, _damaged(tmp_path, edit), kind="journal")
    assert not (tmp_path / "out").exists()


def test_truncated_file_is_an_error(tmp_path):
    p = tmp_path / "cut.json"
    p.write_bytes((FIX / "sparse.json").read_bytes()[:700])
    with pytest.raises(InputError):
        _ingest(tmp_path, p, kind="journal")
