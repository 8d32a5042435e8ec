"""blkparse text reader on the real samples in ../shared/samples/blkparse (failing when absent)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl
import pytest
import samples

from blkscope.errors import InputError
from blkscope.ingest import run_ingest
from blkscope.readers import blkparse, ftrace

SAMPLES = samples.SAMPLES / "blkparse"
FILES = samples.files("blkparse")
# Independent count: event lines start `maj,min cpu seq time pid action`.
AWK = r"""$1 ~ /^[0-9]+,[0-9]+$/ && $4 ~ /^[0-9]+\.[0-9]+$/ { n[$6]++; if ($6 == "D" && $9 == "+") s += $10 }
END { for (a in n) print a, n[a]; print "Dsum", s + 0 }"""


def _awk(path: Path) -> tuple[dict[str, int], int]:
    out = subprocess.run(["awk", AWK, str(path)], capture_output=True, text=True, check=True).stdout.split("\n")
    pairs = dict(ln.split() for ln in out if ln)
    dsum = int(pairs.pop("Dsum"))
    return {k: int(v) for k, v in pairs.items()}, dsum


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_counts_and_d_sectors_match_awk(tmp_path, path):
    counts, dsum = _awk(path)
    rep = run_ingest("auto", [path], tmp_path / "o")
    ev = pl.read_parquet(tmp_path / "o" / "events.parquet")
    assert rep.kind == "blkparse"
    assert dict(ev.group_by("action").len().iter_rows()) == counts
    assert (ev.filter(pl.col("action") == "D")["nsectors"].sum() or 0) == dsum
    assert rep.unknown == {}


def test_summary_remaps_flushes_thousands(tmp_path):
    path = SAMPLES / "nvme_dmcrypt_flush_barriers_with_summary.txt"
    rep = run_ingest("blkparse", [path], tmp_path / "o")
    ev = pl.read_parquet(tmp_path / "o" / "events.parquet")
    total = rep.trace["summary"]["Total (nvme0n1)"]
    assert total["Events"] == ev.height == 1364  # 'Events (nvme0n1): 1,364 entries'
    assert total["Writes Queued"] == ev.filter((pl.col("action") == "Q") & pl.col("rwbs").str.contains("W")).height
    a = ev.filter(pl.col("action") == "A")
    assert set(a["remap_dev_major"].unique()) == {253, 259}
    c0 = ev.filter((pl.col("action") == "C") & (pl.col("nsectors").is_null()))
    assert c0.height > 0 and (c0["error"] == 0).all()  # 'C FN 0 [0]': no length, error 0
    assert ev["seq"].null_count() == 0


def test_sniff_tells_blkparse_from_tracefs():
    bp = b"  8,0    3        1     0.000000000   697  G   W 223490 + 8 [kjournald]\n"
    tf = b"  7,0    1   581.565840546  9894  Q  RM 2128 + 8 [fio]\n"
    assert blkparse.sniff(bp) and not ftrace.sniff(bp)
    assert ftrace.sniff(tf) and not blkparse.sniff(tf)


def test_handmade_garbage(tmp_path):
    p = tmp_path / "handmade_garbage.txt"
    p.write_text("CPU0 (sda):\nnot an event\n")
    with pytest.raises(InputError, match="line 2: no blkparse events"):
        run_ingest("blkparse", [p], tmp_path / "o")
