"""Dataset manifests (blkscope.datasets): what the workflow declares in place of every per-run table. A real run
is ingested with `--record-dataset`, read back with `--check-datasets`, then damaged: every kind of damage stops
the reader with the manifest's line and the file named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from blkscope import datasets, run_logs
from blkscope.cli import main
from blkscope.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
RUN = "host-ext4-fio-append-r1"


@pytest.fixture()
def ingested(tmp_path) -> tuple[Path, list[Path]]:
    """RUN's logs ingested by `blkscope ingest-runs` as the workflow's ingest batches do: (manifest, tables)."""
    if not (ROOT / "data/raw" / RUN / "run.yaml").exists():
        pytest.skip("embedded runs not in this checkout")
    processed = tmp_path / "processed"
    manifest = processed / "datasets" / "ingest_test.tsv"
    files = run_logs.outputs(processed, RUN, run_logs.sources(ROOT / "data/raw", RUN, "fio"))
    assert main(["ingest-runs", "--sheet", str(ROOT / "config/runs.tsv"), "--raw", str(ROOT / "data/raw"),
                 "-o", str(processed), RUN, "--record-dataset", str(manifest),
                 "--dataset-files", *map(str, files)]) == 0  # fmt: skip
    return manifest, files


def _read_iostat(manifest: Path, iostat: Path, out: Path) -> int:
    return main(["iostat-summary", "--runs", str(ROOT / "config/runs.tsv"), "-o", str(out), str(iostat),
                 "--check-datasets", str(manifest)])  # fmt: skip


def test_the_manifest_lists_every_table_with_size_and_sha256(ingested, tmp_path):
    manifest, files = ingested
    lines = manifest.read_text().splitlines()
    assert lines[0] == "path\tbytes\tsha256\tmtime_ns" and len(lines) == len(files) + 1
    assert sorted(datasets.verify(manifest)) == sorted(files)
    iostat = next(f for f in files if f.name == "iostat.parquet")
    row = next(line.split("\t") for line in lines if line.startswith(f"../{RUN}/iostat/iostat.parquet"))
    assert int(row[1]) == iostat.stat().st_size and row[2] == datasets.sha256(iostat)
    assert int(row[3]) == iostat.stat().st_mtime_ns
    assert _read_iostat(manifest, iostat, tmp_path / "summary.parquet") == 0
    assert (tmp_path / "summary.parquet").stat().st_size > 0


@pytest.mark.parametrize("damage,says", [
    ("flip", "another sha256 than the manifest's"),
    ("truncate", "bytes, the manifest"),
    ("remove", "is missing"),
])  # fmt: skip
def test_a_reader_refuses_a_table_changed_behind_the_workflow(ingested, tmp_path, capsys, damage, says):
    manifest, files = ingested
    iostat = next(f for f in files if f.name == "iostat.parquet")
    data = iostat.read_bytes()
    if damage == "flip":  # same size, one byte in the middle changed, a second after the record (its mtime moved)
        mtime = iostat.stat().st_mtime_ns
        iostat.write_bytes(data[: len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF]) + data[len(data) // 2 + 1 :])
        os.utime(iostat, ns=(mtime + 10**9, mtime + 10**9))
    elif damage == "truncate":
        iostat.write_bytes(data[:-10])
    else:
        iostat.unlink()
    assert _read_iostat(manifest, iostat, tmp_path / "summary.parquet") == 2
    err = capsys.readouterr().err
    line = next(n for n, s in enumerate(manifest.read_text().splitlines(), start=1) if "iostat/iostat.parquet" in s)
    assert f"{manifest}: line {line}: " in err and str(iostat) in err and says in err, err
    assert not (tmp_path / "summary.parquet").exists()  # nothing read, nothing written


def test_a_malformed_manifest_is_refused_with_its_line(ingested):
    manifest, _ = ingested
    lines = manifest.read_text().splitlines()
    manifest.write_text("\n".join([*lines[:2], "garbage without tabs", *lines[2:]]) + "\n")
    with pytest.raises(InputError, match="line 3: expected path, bytes, sha256, mtime_ns"):
        datasets.verify(manifest)
    manifest.write_text("not\ta\tmanifest\n")
    with pytest.raises(InputError, match="line 1: not a dataset manifest"):
        datasets.verify(manifest)


def test_a_listed_table_the_job_did_not_write_fails_the_job(ingested, tmp_path, capsys):
    manifest, files = ingested
    never = tmp_path / "processed" / RUN / "iostat" / "never_written.parquet"
    rc = main(["iostat-summary", "--runs", str(ROOT / "config/runs.tsv"), "-o", str(tmp_path / "s.parquet"),
               str(files[0].parent.parent / "iostat/iostat.parquet"), "--record-dataset", str(tmp_path / "m.tsv"),
               "--dataset-files", str(never)])  # fmt: skip
    assert rc == 2 and f"{never}: not written" in capsys.readouterr().err
    assert not (tmp_path / "m.tsv").exists()


def test_a_table_with_its_recorded_mtime_is_not_hashed_and_a_copy_with_the_same_bytes_passes(ingested, monkeypatch):
    manifest, files = ingested
    hashed = []
    real = datasets.sha256
    monkeypatch.setattr(datasets, "sha256", lambda f: hashed.append(f) or real(f))
    assert sorted(datasets.verify(manifest)) == sorted(files) and hashed == []
    iostat = next(f for f in files if f.name == "iostat.parquet")
    iostat.write_bytes(iostat.read_bytes())  # the same bytes, a new mtime (a copy that kept no times): hashed, passes
    os.utime(iostat, ns=(1, 1))
    assert sorted(datasets.verify(manifest)) == sorted(files) and hashed == [iostat]
    # a manifest written before the mtime column: every file hashed, as then
    lines = [line.rsplit("\t", 1)[0] for line in manifest.read_text().splitlines()]
    manifest.write_text("\n".join(lines) + "\n")
    hashed.clear()
    assert sorted(datasets.verify(manifest)) == sorted(files) and len(hashed) == len(files)
