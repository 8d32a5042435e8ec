"""The runs sheet's one reader (blkscope.runs): the rows the workflow reads at every start (the csv module, no
polars) and the verbs' frame are the same cells typed by the package's row schema (blkscope/runs.schema.yaml);
the frame is what polars' whole-file inference read from the committed sheet; a bad row is refused with the file,
the line and the run, by the checks of the schema."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import polars as pl
import pytest

from blkscope import runs
from blkscope.errors import InputError
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = runs.load_schema()
LINES = (ROOT / "config/runs.tsv").read_text().splitlines()


def test_rows_equal_the_frame_of_the_committed_sheet():
    rows = runs.rows(ROOT / "config/runs.tsv")
    frame = load_runs(ROOT / "config/runs.tsv").to_dicts()
    for r in frame:
        r["batch"] = r["batch"] or ""  # the schema's default, as the workflow fills it
    assert rows == frame
    assert all(type(r["traced"]) is bool and type(r["repeat"]) is int for r in rows)


def test_the_frame_is_polars_whole_file_inference_of_the_committed_sheet():
    """What the verbs read before the schema typed their frame (polars' inference over the whole file, the text
    columns forced): the same dtypes and values, so every table built from the sheet stays as it was."""
    inferred = pl.read_csv(ROOT / "config/runs.tsv", separator="\t", infer_schema_length=None,
                           schema_overrides={c: pl.Utf8 for c in ("mkfs_options", "mount_options", "run_id", "batch")})
    assert load_runs(ROOT / "config/runs.tsv").equals(inferred)
    assert load_runs(ROOT / "config/runs.tsv").schema == inferred.schema


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "runs.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _cells(line: str) -> list[str]:
    return line.split("\t")


def _mutated(column: str, value: str, at: int) -> list[str]:
    """The committed sheet with one cell of data line `at` (1 = the first run) replaced."""
    header = _cells(LINES[0])
    cells = _cells(LINES[at])
    cells[header.index(column)] = value
    return [*LINES[:at], "\t".join(cells), *LINES[at + 1 :]]


@pytest.mark.parametrize(
    "column,value,says",
    [
        ("filesystem", "zfs", "filesystem: 'zfs' is not one of"),
        ("repeat", "two", "repeat: 'two' is not of type 'integer'"),
        ("repeat", "0", "repeat: 0 is less than the minimum of 1"),
        ("traced", "yes", "traced: 'yes' is not of type 'boolean'"),
        ("traced", "", "'traced' is a required property"),
        ("run_id", "bad id", "run_id: 'bad id' does not match"),
        ("batch", "-x", "batch: '-x' does not match"),
        ("device_cap", "wiops=fast", "device_cap: 'wiops=fast' does not match"),
    ],
)
def test_a_bad_cell_is_refused_with_file_line_and_run(tmp_path, column, value, says):
    at = len(LINES) // 2  # far down the sheet: the line, not the first row, is named
    path = _write(tmp_path, _mutated(column, value, at))
    run = _cells(LINES[at])[0] if column != "run_id" else value
    with pytest.raises(InputError) as e:
        runs.rows(path)
    assert str(e.value).startswith(f"{path}: line {at + 1} (run {run}): ")
    assert says in str(e.value)


def test_the_message_is_the_whole_row_validators(tmp_path):
    """Checking each distinct cell once finds a bad row as validating rows whole does, with its best message."""
    at = 7
    path = _write(tmp_path, _mutated("workload", "tpcc", at))
    rows = runs.rows(ROOT / "config/runs.tsv")
    bad = {k: v for k, v in {**rows[at - 1], "workload": "tpcc"}.items() if v is not None}
    want = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(SCHEMA).iter_errors(bad)).message
    with pytest.raises(InputError, match="line 8") as e:
        runs.rows(path)
    assert str(e.value).endswith(f"workload: {want}")


def test_ragged_lines(tmp_path):
    long = _write(tmp_path, [*LINES[:3], LINES[3] + "\textra", *LINES[4:10]])
    with pytest.raises(InputError, match=r"line 4: \d+ fields, the header has \d+"):
        runs.rows(long)
    # a short line's missing cells are empty (as polars reads them: null)
    header = _cells(LINES[0])
    short = _cells(LINES[1])[: header.index("repeat") + 1]
    rows = runs.rows(_write(tmp_path, [LINES[0], "\t".join(short)]))
    assert rows[0]["device_mb"] is None and rows[0]["batch"] == ""


def test_the_frame_names_a_cell_its_type_cannot_read_and_a_run_named_twice(tmp_path):
    at = len(LINES) // 2
    path = _write(tmp_path, _mutated("repeat", "two", at))
    with pytest.raises(InputError, match=rf"line {at + 1} \(run {_cells(LINES[at])[0]}\): repeat: 'two' is not of "
                                         "type 'integer'"):
        load_runs(path)
    twice = _write(tmp_path, [*LINES[:4], LINES[2]])
    for read in (load_runs, runs.rows):
        with pytest.raises(InputError, match=f"duplicate run_id\\(s\\): {_cells(LINES[2])[0]}$"):
            read(twice)


def test_snakemake_refuses_a_bad_sheet_naming_the_line(tmp_path):
    for item in ["Snakefile", "workflow", "config", "profiles"]:
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, tmp_path / item)
    _write(tmp_path / "config", _mutated("testbed", "cloud", 3))
    snakemake = Path(sys.executable).with_name("snakemake")
    proc = subprocess.run([str(snakemake), "-n", "all"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "config/runs.tsv: line 4 (run " in out and "testbed: 'cloud' is not one of" in out
