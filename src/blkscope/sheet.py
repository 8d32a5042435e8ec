"""The runs sheet (config/runs.tsv) as plain rows, read and checked against its row schema for the workflow.

Every `snakemake` start reads the sheet (workflow/rules/common.smk), so this reads it with the csv module and
no polars (bench/RESULTS.md, "issue O1": polars' import alone was a good part of a no-op's own time), and checks
it as validating every row with jsonschema would, validating each distinct value of a column once.
Cells are typed by the schema's declared type, as whole-file inference types blkscope.runs.load_runs's frame:
`true`/`false` in a boolean column -> bool, an integer in an integer column -> int, an empty cell -> None (left
out of the row's check, as the frame's nulls were); a cell that does not parse stays text and the schema refuses
it. The schema's defaults fill the empty cells they name (batch: "").
A bad sheet raises InputError naming the file, the line and the run."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from blkscope.errors import InputError

_INT = re.compile(r"[+-]?[0-9]+")
# keywords of a row schema that validate nothing (annotations): with only these besides type: object, properties
# and required, a row is valid exactly when each of its cells is valid against its property and none is missing
_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "examples"}


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


def read(path: str | Path, schema: dict) -> list[dict[str, Any]]:
    """Rows of the tab-separated sheet at `path` (a dict per row, every header column, in file order), each
    checked against `schema` (a JSON schema of one row); InputError names the first bad line."""
    props = schema.get("properties", {})
    defaults = {k: p["default"] for k, p in props.items() if "default" in p}
    rows, lines = [], []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t")
        header = next(reader, None)
        if not header:
            raise InputError(path, "line 1", "the runs sheet is empty (no header line)")
        if len(set(header)) != len(header):
            raise InputError(path, "line 1", f"a column is named twice: {', '.join(header)}")
        types = [props.get(c, {}).get("type") for c in header]
        for cells in reader:
            if not cells or cells == [""]:  # blank lines
                continue
            if len(cells) > len(header):
                raise InputError(path, f"line {reader.line_num}", f"{len(cells)} fields, the header has {len(header)}")
            cells += [""] * (len(header) - len(cells))  # a short line's missing cells are empty (polars: null)
            row = {c: typed(v, t) for c, v, t in zip(header, cells, types, strict=True)}
            for k, v in defaults.items():
                if row.get(k) is None:
                    row[k] = v
            rows.append(row)
            lines.append(reader.line_num)
    _check(rows, lines, path, schema)
    return rows


def _check(rows: list[dict], lines: list[int], path: str | Path, schema: dict) -> None:
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

    for row, line in zip(rows, lines, strict=True):
        given = {k: v for k, v in row.items() if v is not None}
        if flat and all(k in given for k in required) and all(cell_ok(k, v) for k, v in given.items()):
            continue
        err = jsonschema.exceptions.best_match(whole.iter_errors(given))
        if err is not None:
            column = f"{err.path[0]}: " if err.path else ""
            raise InputError(path, f"line {line} (run {row.get('run_id')})", f"{column}{err.message}")


def load_schema(path: str | Path) -> dict:
    """A row schema from its YAML file."""
    from blkscope import yamlio

    with open(path, encoding="utf-8") as f:
        return yamlio.load(f)
