"""The fast text path of the native reader (native/src/text/fast.rs) gives exactly what its general regex
parser gives (BLKSCOPE_TEXT_GENERAL sends every line through the regular expressions)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.ingest import run_ingest

FIX = Path(__file__).parent / "fixtures" / "trace"
CASES = [("ftrace", p) for p in sorted(FIX.glob("tracefs_blk_*.txt.zst"))]
CASES += [("blkparse", p) for p in samples.files("blkparse")]


def _both(tmp_path: Path, kind: str, path: Path, monkeypatch) -> tuple[pl.DataFrame, pl.DataFrame, dict, dict]:
    run_ingest(kind, [path], tmp_path / "fast")
    with monkeypatch.context() as m:
        m.setenv("BLKSCOPE_TEXT_GENERAL", "1")  # every line through the general parser
        run_ingest(kind, [path], tmp_path / "slow")
    read = [pl.read_parquet(tmp_path / d / "events.parquet") for d in ("fast", "slow")]
    js = [json.loads((tmp_path / d / "ingest.json").read_text()) for d in ("fast", "slow")]
    return read[0], read[1], js[0], js[1]


@pytest.mark.parametrize(("kind", "path"), CASES, ids=lambda c: getattr(c, "name", c))
def test_fast_path_equals_general_parser(tmp_path, kind, path, monkeypatch):
    fast, slow, jf, js = _both(tmp_path, kind, path, monkeypatch)
    assert fast.height > 0 and fast.equals(slow)
    for key in ("rows", "warnings", "unknown", "trace"):
        assert jf[key] == js[key]


def test_mixed_lines_keep_order_and_fall_back(tmp_path, monkeypatch):
    """Handmade: common lines, a process name with a blank, a message, a PC command, a long action name and
    garbage, in one file: the odd ones go to the general parser, order and line numbers are kept."""
    text = (
        "  8,0    0        1     0.000000000   697  Q   W 223490 + 8 [kjournald]\n"
        "  8,0    0        2     0.000001000   698  Q   W 223498 + 8 [Web Content]\n"
        "  8,0    0        0     0.000002000     0  m   N cfq697 insert_request\n"
        "  8,0    0        3     0.000003000   699  D   R 36 (12 34 56) [scsi_id]\n"
        "  8,0    0        4     0.000004000   697  C   W 223490 + 8 [0]\n"
        "this line is garbage\n"
        "  8,0    0        5     0.000005000   697  U   N [kjournald] 1\n"
    )
    p = tmp_path / "handmade_mixed.txt"
    p.write_text(text)
    fast, slow, jf, js = _both(tmp_path, "blkparse", p, monkeypatch)
    assert fast.equals(slow)
    assert fast["action"].to_list() == ["Q", "Q", "m", "D", "C", "U"]
    assert fast["process"].to_list()[:2] == ["kjournald", "Web Content"]
    assert jf["warnings"] == js["warnings"] and any("line(s) 6" in w for w in jf["warnings"])
