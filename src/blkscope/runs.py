"""The runs sheet (config/runs.tsv): one reader, its cells typed by the sheet's row schema (runs.schema.yaml,
beside this module), and run directories.

Cells are read with the csv module and typed by their column's declared type: `true`/`false` in a boolean column
-> bool, an integer in an integer column -> int, an empty cell -> None; a column the schema does not name is text.
Two views of the same cells:
- `rows`: plain dicts, each checked against the schema as validating every row with jsonschema would (each
  distinct value of a column once), the schema's defaults filled (batch: ""). Every `snakemake` start reads the
  sheet this way (workflow/rules/common.smk), so this module imports no polars at its top (bench/RESULTS.md,
  "issue O1": polars' import alone was a good part of a no-op's own time).
- `load_runs`: the verbs' polars frame, one dtype per column from the schema; empty cells stay null. It checks
  the required columns and unique run ids but not every cell against the schema: the workflow checked the sheet
  at its start, and jsonschema's import would cost each of a job's ~110 processes ~0.3 s.
A bad sheet raises InputError naming the file, the line and the run."""

from __future__ import annotations

import csv
import re
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blkscope.errors import InputError

if TYPE_CHECKING:
    import polars as pl

SCHEMA = Path(__file__).with_name("runs.schema.yaml")
REQUIRED = ("run_id", "study", "workload", "job", "filesystem", "testbed", "tracer", "traced", "repeat")

_INT = re.compile(r"[+-]?[0-9]+")
# keywords of a row schema that validate nothing (annotations): with only these besides type: object, properties
# and required, a row is valid exactly when each of its cells is valid against its property and none is missing
_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "examples"}


def load_schema(path: str | Path = SCHEMA) -> dict:
    """A row schema from its YAML file (default: the package's, runs.schema.yaml)."""
    return _load_schema(str(path))


@cache
def _load_schema(path: str) -> dict:
    from blkscope import yamlio

    with open(path, encoding="utf-8") as f:
        return yamlio.load(f)


def typed(value: str, types: Any) -> Any:
    """A cell by its property's declared type(s); empty -> None; text that fits no declared type stays text."""
    if value == "":
        return None
    types = types if isinstance(types, list) else [types]
    if "boolean" in types and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if ("integer" in types or "number" in types) and _INT.fullmatch(value):
        return int(value)
    if "number" in types:
        try:
            return float(value)
        except ValueError:
            pass
    return value


def _text(value: str) -> str | None:
    return value or None


def _is_text(types: Any) -> bool:
    return set(types if isinstance(types, list) else [types]) <= {"string", "null", None}


def _read(path: str | Path, schema: dict) -> tuple[list[str], list[dict[str, Any]], list[int]]:
    """The header, the typed rows (every header column, in file order) and each row's line number."""
    props = schema.get("properties", {})
    rows, lines = [], []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t")
        header = next(reader, None)
        if not header:
            raise InputError(path, "line 1", "the runs sheet is empty (no header line)")
        if len(set(header)) != len(header):
            raise InputError(path, "line 1", f"a column is named twice: {', '.join(header)}")
        # a text column's cells need no parsing (most of the sheet): typed() only where a type is declared
        conv = [_text if _is_text(props.get(c, {}).get("type")) else partial(typed, types=props[c]["type"])
                for c in header]
        for cells in reader:
            if not cells or cells == [""]:  # blank lines
                continue
            if len(cells) > len(header):
                raise InputError(path, f"line {reader.line_num}", f"{len(cells)} fields, the header has {len(header)}")
            cells += [""] * (len(header) - len(cells))  # a short line's missing cells are empty (null)
            rows.append({c: f(v) for c, v, f in zip(header, cells, conv, strict=True)})
            lines.append(reader.line_num)
    return header, rows, lines


def _unique(path: str | Path, rows: list[dict[str, Any]]) -> None:
    seen: set = set()
    dup = [r["run_id"] for r in rows if r.get("run_id") in seen or seen.add(r.get("run_id"))]
    if dup:
        raise InputError(path, None, f"duplicate run_id(s): {', '.join(dict.fromkeys(map(str, dup)))}")


def rows(path: str | Path, schema: dict | None = None) -> list[dict[str, Any]]:
    """Rows of the sheet at `path` (a dict per row, every header column, in file order), each checked against
    `schema` (a JSON schema of one row; default the package's) with its defaults filled; InputError names the
    first bad line."""
    schema = load_schema() if schema is None else schema
    _, out, lines = _read(path, schema)
    defaults = {k: p["default"] for k, p in schema.get("properties", {}).items() if "default" in p}
    for row in out:
        for k, v in defaults.items():
            if row.get(k) is None:
                row[k] = v
    _check(out, lines, path, schema)
    _unique(path, out)
    return out


def _check(rows_: list[dict], lines: list[int], path: str | Path, schema: dict) -> None:
    import jsonschema  # only here: most of the package never validates

    cls = jsonschema.validators.validator_for(schema)
    whole = cls(schema)
    props = schema.get("properties", {})
    required = schema.get("required", [])
    # a flat row schema: validate each distinct (column, value) once; otherwise every row whole
    flat = schema.get("type") == "object" and set(schema) <= {"type", "properties", "required", *_ANNOTATIONS}
    cell = {k: cls(p) for k, p in props.items()}
    seen: dict[tuple, bool] = {}

    def cell_ok(k: str, v: Any) -> bool:
        key = (k, type(v), v)
        if key not in seen:
            seen[key] = k not in cell or cell[k].is_valid(v)
        return seen[key]

    for row, line in zip(rows_, lines, strict=True):
        given = {k: v for k, v in row.items() if v is not None}
        if flat and all(k in given for k in required) and all(cell_ok(k, v) for k, v in given.items()):
            continue
        err = jsonschema.exceptions.best_match(whole.iter_errors(given))
        if err is not None:
            column = f"{err.path[0]}: " if err.path else ""
            raise InputError(path, f"line {line} (run {row.get('run_id')})", f"{column}{err.message}")


# the polars dtype of a column by its declared type (the first that is not "null"); text otherwise
_DTYPES = {"boolean": "Boolean", "integer": "Int64", "number": "Float64"}


def load_runs(path: str | Path) -> pl.DataFrame:
    """The sheet at `path` as a polars frame (module docstring): a column per header column, typed by the
    package's schema, empty cells null."""
    import polars as pl

    header, out, lines = _read(path, load_schema())
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(path, "line 1", f"runs sheet lacks column(s) {', '.join(missing)}")
    props = load_schema().get("properties", {})
    dtypes = {}
    for c in header:
        declared = props.get(c, {}).get("type")
        declared = [t for t in (declared if isinstance(declared, list) else [declared]) if t != "null"]
        dtypes[c] = getattr(pl, _DTYPES.get(declared[0] if declared else "", "Utf8"))
        want = {pl.Boolean: bool, pl.Int64: int, pl.Float64: (int, float)}.get(dtypes[c])
        if want:  # a cell its declared type could not read stays text: name it instead of failing in polars
            for row, line in zip(out, lines, strict=True):
                if row[c] is not None and not isinstance(row[c], want):
                    raise InputError(path, f"line {line} (run {row.get('run_id')})",
                                     f"{c}: {row[c]!r} is not of type {declared[0]!r}")
    _unique(path, out)
    return pl.DataFrame({c: [r[c] for r in out] for c in header}, schema=dtypes)


# a run's setup as the figures and the tables across runs name it (run_meta)
META = ["run_id", "filesystem", "fs", "workload", "job", "setup", "testbed", "traced", "repeat"]


def run_meta(runs: pl.DataFrame) -> pl.DataFrame:
    """The runs sheet reduced to META: what the figures and the tables across runs group by (`fs`: the
    filesystem, " wb" for data=writeback; `setup`: workload and job, the testbed where it is not loop)."""
    import polars as pl

    mount = pl.col("mount_options").fill_null("") if "mount_options" in runs.columns else pl.lit("")
    fs = pl.col("filesystem") + pl.when(mount.str.contains("data=writeback")).then(pl.lit(" wb")).otherwise(pl.lit(""))
    loop = pl.col("testbed") == "loop"
    setup = (
        pl.col("workload")
        + " "
        + pl.col("job")
        + pl.when(loop).then(pl.lit("")).otherwise(pl.lit(" (") + pl.col("testbed") + pl.lit(")"))
    )
    return runs.with_columns(fs=fs, setup=setup).select(META)


def run_id_of(path: str | Path) -> str:
    """Run id of a file under <processed_dir>/<run_id>/<stage>/<file>."""
    return Path(path).parent.parent.name


def uncaptured_note(table: pl.DataFrame, name_batches: bool = True) -> str | None:
    """What a table's rows with `captured` false are (runs of a planned batch without raw data yet), for the
    table's note and its figure; None when there are none. A figure (`name_batches` false) counts the batches
    instead of naming them: a batch's name is internal and stays out of the paper (pdf_text)."""
    import polars as pl

    if "captured" not in table.columns:
        return None
    gone = table.filter(~pl.col("captured"))
    if gone.is_empty():
        return None
    names = sorted(set(gone["batch"].drop_nulls())) if "batch" in gone.columns else []
    if name_batches:
        batches = f"batch {', '.join(names) or '?'}"
    else:
        batches = f"{len(names)} planned batch" + ("" if len(names) == 1 else "es")
    configs = gone.select([c for c in ("job", "memory_cap") if c in gone.columns]).unique().height
    return (f"not captured yet: {gone.height} run(s) of {batches} ({configs} configuration(s)); "
            "their points are missing")
