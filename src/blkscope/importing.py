"""`blkscope import`: logs that blkscope did not capture become a run like ours.

A user's blktrace set, blkparse or tracefs text, iostat log and YCSB / cassandra-stress / fio / sysbench log are
copied byte for byte into <raw>/<run_id>/ under the names a captured run's logs have (blkscope.run_logs; a
compressed file keeps its .zst/.gz/.xz), each is read once by its reader first (a log that does not read is
refused with the file and line, and nothing is written), and the run gets:
- run.yaml with its provenance under `imported`: where each file came from (path, the origin the user gives),
  its sha256 and size, what the user states (filesystem, workload, database, testbed, ...), the date and the
  blkscope version that imported it;
- a row appended to the sheet of imported runs (config/imported.tsv: the runs sheet's columns, made with its header
  at the first import), which the workflow reads beside the runs sheet (config/runs.tsv, the embedded dataset):
  each imported run is ingested and analysed by the same verbs as ours, in jobs and tables of its own, and drawn on
  a page of its own (notebooks/executed/imported_<run_id>.ipynb, the all_setups notebook on its tables, beside its
  run explorer), while the study's tables, figures and paper, which read the runs sheet alone, stay as they are
  (importing a run reruns none of their jobs: workflow/rules/common.smk, Scope);
- its files appended to data/raw/MANIFEST.tsv when there is one (blkscope.capture.manifest).
Testbed `external` (the default) says the run was made on a machine blkscope did not drive; workload `other`
(the default without a workload log) says the run has no workload log blkscope reads.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml

from blkscope import __version__, yamlio
from blkscope.errors import InputError
from blkscope.io import staged
from blkscope.readers.textio import GZIP_MAGIC, XZ_MAGIC, ZSTD_MAGIC
from blkscope.run_logs import KIND_TABLES, WORKLOAD_LOGS

# trace reader kind -> the runs sheet's tracer
TRACERS = {"blktrace": "blktrace", "blkparse": "blktrace", "ftrace": "tracefs-blk"}
# text trace kind -> its stored name (before a compression suffix); blktrace sets keep their names in blktrace/
TRACE_NAMES = {"ftrace": "trace.txt", "blkparse": "blkparse.txt"}
# reader kind of a workload log -> the runs sheet's workload: the first that reads it (a YCSB log is `ycsb`;
# `cassandra-ycsb` is the same reader on our own captures of a Cassandra node)
WORKLOAD_OF_KIND: dict[str, str] = {}
for _w, (_, _kind, _) in WORKLOAD_LOGS.items():
    WORKLOAD_OF_KIND.setdefault(_kind, _w)


def compression_suffix(path: Path) -> str:
    with open(path, "rb") as f:
        head = f.read(6)
    for magic, sfx in ((ZSTD_MAGIC, ".zst"), (GZIP_MAGIC, ".gz"), (XZ_MAGIC, ".xz")):
        if head.startswith(magic):
            return sfx
    return ""


def _kind(files: list[Path], allowed: set[str], what: str) -> str:
    from blkscope.readers.detect import detect

    kind = detect(files)
    if kind not in allowed:
        raise InputError(files[0], None, f"reads as {kind}, not as {what} ({', '.join(sorted(allowed))})")
    return kind


def plan(trace: list[Path], iostat: Path | None, logs: list[Path], load_log: Path | None) -> list[dict[str, Any]]:
    """(source, stored name, reader kind) of every file, in the order the run's readers take them."""
    out: list[dict[str, Any]] = []
    if trace:
        kind = _kind(trace, set(TRACERS), "a block trace")
        if kind == "blktrace":
            out += [{"source": f, "stored": f"blktrace/{f.name}", "kind": kind} for f in sorted(trace)]
        else:
            if len(trace) > 1:
                raise InputError(trace[1], None, f"one {kind} text per run; a blktrace set may have many files")
            out.append({"source": trace[0], "stored": TRACE_NAMES[kind] + compression_suffix(trace[0]), "kind": kind})
    if iostat:
        _kind([iostat], {"iostat"}, "an iostat log")
        ext = ".json" if _looks_json(iostat) else ".txt"
        out.append({"source": iostat, "stored": f"iostat{ext}{compression_suffix(iostat)}", "kind": "iostat"})
    if logs or load_log:
        kind = _kind(logs or [load_log], set(WORKLOAD_OF_KIND), "a workload log")
        names = WORKLOAD_LOGS[WORKLOAD_OF_KIND[kind]][2]
        if kind == "ycsb":  # (load, run): --log is the run phase, --load-log the load phase
            if load_log is not None:
                out.append({"source": load_log, "stored": names[0] + compression_suffix(load_log), "kind": kind})
            names = names[1:]
        elif load_log is not None:
            raise InputError(load_log, None, f"--load-log is YCSB's load phase; this run's log is {kind}")
        if len(logs) > len(names):
            raise InputError(logs[len(names)], None, f"a {kind} run has {len(names)} log(s) here: "
                             f"{', '.join(names)} (YCSB's load phase: --load-log)")  # fmt: skip
        out += [{"source": f, "stored": n + compression_suffix(f), "kind": kind}
                for f, n in zip(logs, names, strict=False)]
    if not out:
        raise ValueError("nothing to import: give --trace, --iostat or --log")
    return out


def _looks_json(path: Path) -> bool:
    from blkscope.readers.textio import head_text

    return head_text(path, 4096).lstrip().startswith("{")


def check_readable(files: list[dict[str, Any]]) -> dict[str, int]:
    """Read every log with its reader into a scratch directory: a log that does not read is refused here, with
    the file and line, before anything is written. The rows each kind gives (the user sees what was read)."""
    from blkscope.ingest import run_ingest

    rows: dict[str, int] = {}
    traces = [Path(f["source"]) for f in files if f["kind"] in TRACERS]
    # a trace is read whole (a blktrace set is one trace); every other log alone, so an error names its file
    units = ([(files[0]["kind"], traces)] if traces else []) + [
        (f["kind"], [Path(f["source"])]) for f in files if f["kind"] not in TRACERS]
    with tempfile.TemporaryDirectory(prefix="blkscope-import-") as tmp:
        for i, (kind, sources) in enumerate(units):
            rep = run_ingest(kind, sources, Path(tmp) / str(i))
            for table in KIND_TABLES[kind]:
                rows[f"{kind}:{table}"] = rows.get(f"{kind}:{table}", 0) + rep.rows.get(table, 0)
    return rows


def sheet_row(header: list[str], statements: dict[str, Any], files: list[dict[str, Any]]) -> dict[str, str]:
    trace_kind = next((f["kind"] for f in files if f["kind"] in TRACERS), None)
    workload_kind = next((f["kind"] for f in files if f["kind"] in WORKLOAD_OF_KIND), None)
    stated_workload = statements.get("workload")
    workload = WORKLOAD_OF_KIND.get(workload_kind or "", stated_workload)
    if stated_workload and workload_kind and stated_workload != workload:
        raise ValueError(f"--workload {stated_workload}, but the log given is a {workload_kind} log ({workload})")
    workload = workload or "other"  # a trace or an iostat log alone (the schema's `other`)
    row = {
        **{k: v for k, v in statements.items() if v is not None},
        "workload": workload,
        "tracer": TRACERS[trace_kind] if trace_kind else "none",
        "traced": "true" if trace_kind else "false",
    }
    unknown = sorted(set(row) - set(header))
    if unknown:
        raise ValueError(f"the runs sheet has no column(s) {', '.join(unknown)}")
    return {c: str(row.get(c, "")) for c in header}


def check_row(row: dict[str, str], schema_path: Path | None) -> None:
    """The row against the runs sheet's schema (default the package's: blkscope/runs.schema.yaml), as the workflow
    checks it."""
    if schema_path is None or not schema_path.exists():
        return
    import jsonschema

    from blkscope.runs import typed

    schema = yamlio.load(schema_path.read_text())
    props = schema["properties"]
    cells = {k: typed(v, props.get(k, {}).get("type")) for k, v in row.items()}  # as the workflow types them
    try:
        jsonschema.validate({k: v for k, v in cells.items() if v is not None}, schema)
    except jsonschema.ValidationError as e:
        raise ValueError(f"{'.'.join(map(str, e.path)) or 'row'}: {e.message} ({schema_path})") from None


def import_run(
    run_id: str, statements: dict[str, Any], *, trace: list[Path], iostat: Path | None, logs: list[Path],
    load_log: Path | None, origin: str | None, raw: Path, sheet: Path, imported: Path, schema: Path | None,
) -> Path:  # fmt: skip
    """Register the logs as run `run_id` (module docstring): its row joins `imported` (made with the header of
    `sheet`, the runs sheet, when absent); returns its raw directory."""
    from blkscope.capture.manifest import build, sha256
    from blkscope.runs import load_runs

    runs = load_runs(sheet)
    for path, known in ((sheet, runs), (imported, load_runs(imported) if imported.exists() else None)):
        if known is not None and run_id in known["run_id"].to_list():
            raise ValueError(f"{path}: run {run_id!r} is already in the runs sheet")
    dest = raw / run_id
    if dest.exists():
        raise ValueError(f"{dest} exists: a run's raw directory is never overwritten")
    files = plan(trace, iostat, logs, load_log)
    row = sheet_row(runs.columns, {"run_id": run_id, **statements}, files)
    check_row(row, schema)
    read = check_readable(files)

    staging = Path(staged(raw / run_id, directory=True))
    try:
        for f in files:
            (staging / f["stored"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f["source"], staging / f["stored"])
        meta = {"run_id": run_id, "imported": {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "by": f"blkscope import {__version__}",
            "origin": origin,
            "statements": {k: v for k, v in statements.items() if v not in (None, "")},
            "runs_sheet_row": {k: v for k, v in row.items() if v != ""},  # with what the logs themselves say
            "rows_read": read,
            "files": [{"source": str(Path(f["source"]).resolve()), "stored": f["stored"], "kind": f["kind"],
                       "bytes": (staging / f["stored"]).stat().st_size, "sha256": sha256(staging / f["stored"])}
                      for f in files],
        }}  # fmt: skip
        (staging / "run.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
        staging.rename(dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if not imported.exists():
        imported.write_text("\t".join(runs.columns) + "\n")
    _append_line(imported, "\t".join(row.values()))
    manifest = raw / "MANIFEST.tsv"
    if manifest.exists():
        import polars as pl

        one = pl.DataFrame([row]).with_columns(traced=pl.col("traced") == "true", repeat=pl.col("repeat").cast(int))
        _append_line(manifest, build(raw, one).write_csv(separator="\t", include_header=False).rstrip("\n"))
    return dest


def _append_line(path: Path, line: str) -> None:
    """Append one line (or lines) to a text table, atomically: a copy with the line, renamed over it."""
    text = path.read_text()
    if text and not text.endswith("\n"):
        text += "\n"
    tmp = path.with_name(f".{path.name}.import")
    tmp.write_text(text + line + "\n")
    tmp.replace(path)
