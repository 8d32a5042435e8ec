"""Our Parquet writer's files read by DuckDB and by arrow-rs (`parquet-check read`), against what the
writer meant: the values polars reads and the statistics of the footer (which must themselves be the
min, max and null count of those values, row group by row group).

    python tools/parquet-check/crosscheck.py FILE.parquet...     # check these files
    python tools/parquet-check/crosscheck.py --runs all          # ingest every traced run of data/raw, check
    python tools/parquet-check/crosscheck.py --checker BIN F...  # with that build of the checker (the bench's)

tests/test_parquet_readers.py runs it on the fixture traces and a few dataset runs; the bench
(bench/parquet_writer/run.sh) on the 10.5 M-event set. Exit 1 with the first difference on a mismatch.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# the tests' build (cargo profile crosscheck, no LTO); the bench passes its release build with --checker
CHECKER = HERE / "target" / "crosscheck" / "parquet-check"
# the types our writer declares (logical UINT_32 ... STRING) as each reader maps them
DUCKDB_TYPES = {"UINTEGER": pl.UInt32, "INTEGER": pl.Int32, "BIGINT": pl.Int64, "UBIGINT": pl.UInt64,
                "VARCHAR": pl.String}  # fmt: skip


class Mismatch(AssertionError):
    pass


def build_checker() -> Path:
    """The Rust checker, built by the Makefile (cargo build --profile crosscheck --locked) when out of date."""
    subprocess.run(["make", "-s", "-C", str(REPO), "parquet-check-test"], check=True)
    return CHECKER


def _same_frames(path: Path, reader: str, want: pl.DataFrame, got: pl.DataFrame) -> None:
    if got.columns != want.columns:
        raise Mismatch(f"{path}: {reader} reads columns {got.columns}, polars {want.columns}")
    if got.height != want.height:
        raise Mismatch(f"{path}: {reader} reads {got.height} rows, polars {want.height}")
    for c in want.columns:
        a, b = want[c], got[c]
        if a.dtype != b.dtype:
            raise Mismatch(f"{path}: column {c}: {reader} reads {b.dtype}, polars {a.dtype}")
        if not a.equals(b, check_names=False):
            diff = (a.is_null() != b.is_null()) | (a != b).fill_null(False)
            i = int(diff.arg_max())
            raise Mismatch(f"{path}: column {c} row {i}: {reader} reads {b[i]!r}, polars {a[i]!r}")


def intended_stats(path: Path, df: pl.DataFrame) -> tuple[list[int], dict[tuple[int, str], tuple | None]]:
    """Row-group sizes and each chunk's (min, max, null count) as the footer has them (None: no min/max),
    after checking them against the values of that row group."""
    md = pq.ParquetFile(path).metadata
    sizes = [md.row_group(g).num_rows for g in range(md.num_row_groups)]
    if sum(sizes) != df.height:
        raise Mismatch(f"{path}: footer row groups hold {sum(sizes)} rows, polars reads {df.height}")
    stats, start = {}, 0
    for g, n in enumerate(sizes):
        part = df.slice(start, n)
        start += n
        for i, c in enumerate(df.columns):
            s = md.row_group(g).column(i).statistics
            footer = (s.min, s.max, s.null_count) if s is not None and s.has_min_max else None
            col = part[c]
            k = col.len() - col.null_count()
            # what the writer means to write: min/max/nulls of every integer chunk that has a value
            data = (col.min(), col.max(), col.null_count()) if k and col.dtype.is_integer() else None
            if footer != data:
                raise Mismatch(f"{path}: row group {g} column {c}: footer statistics {footer}, values give {data}")
            stats[g, c] = footer
    return sizes, stats


def check_duckdb(path: Path, df: pl.DataFrame, sizes: list[int], stats: dict) -> None:
    con = duckdb.connect()
    con.execute("SET threads = 1")  # one core each, and rows in file order
    rel = con.sql(f"SELECT * FROM read_parquet('{path}')")
    # DuckDB's own types for the logical types we declare, then its values (exported through Arrow)
    types = {c: DUCKDB_TYPES.get(str(t)) for c, t in zip(rel.columns, rel.types, strict=True)}
    if types != dict(df.schema):
        named = dict(zip(rel.columns, map(str, rel.types), strict=True))
        raise Mismatch(f"{path}: DuckDB types {named}, polars {df.schema}")
    _same_frames(path, "DuckDB", df, rel.pl())
    rows = con.execute("SELECT row_group_id, path_in_schema, row_group_num_rows, stats_min_value, stats_max_value,"
                       " stats_null_count FROM parquet_metadata(?) ORDER BY row_group_id, column_id",
                       [str(path)]).fetchall()  # fmt: skip
    if [r[2] for r in rows[:: max(1, len(df.columns))]] != sizes:
        raise Mismatch(f"{path}: DuckDB reads other row groups than the footer's {sizes}")
    for g, c, _, lo, hi, nulls in rows:
        want = stats[g, c]
        got = (lo, hi, nulls) if lo is not None or hi is not None else None
        exp = None if want is None else (str(want[0]), str(want[1]), want[2])
        if got != exp:
            raise Mismatch(f"{path}: row group {g} column {c}: DuckDB reads statistics {got}, footer {exp}")


def check_arrow_rs(path: Path, df: pl.DataFrame, sizes: list[int], stats: dict, checker: Path, tmp: Path) -> None:
    ipc, js = tmp / "values.arrow", tmp / "stats.json"
    p = subprocess.run([str(checker), "read", str(path), str(ipc), str(js)], capture_output=True, text=True)
    if p.returncode:
        raise Mismatch(f"{path}: arrow-rs cannot read it: {p.stderr.strip()}")
    _same_frames(path, "arrow-rs", df, pl.read_ipc(ipc))
    doc = json.loads(js.read_text())
    if doc["row_groups"] != sizes:
        raise Mismatch(f"{path}: arrow-rs reads row groups {doc['row_groups']}, footer {sizes}")
    for col in doc["columns"]:
        for g in range(len(sizes)):
            want = stats[g, col["name"]]
            got = (col["min"][g], col["max"][g], col["null_count"][g]) if col["has_min_max"][g] else None
            if got != want:
                raise Mismatch(f"{path}: row group {g} column {col['name']}: arrow-rs reads statistics {got},"
                               f" footer {want}")  # fmt: skip


def check(path: Path, checker: Path) -> dict:
    """Every column of `path` read by DuckDB and arrow-rs equals polars' reading; statistics agree."""
    df = pl.read_parquet(path)
    sizes, stats = intended_stats(path, df)
    check_duckdb(path, df, sizes, stats)
    with tempfile.TemporaryDirectory(prefix="parquet-check-") as tmp:
        check_arrow_rs(path, df, sizes, stats, checker, Path(tmp))
    with_stats = sum(s is not None for s in stats.values())
    return {"rows": df.height, "row_groups": len(sizes), "chunks_with_stats": with_stats}


def traced_runs(raw: Path) -> list[tuple[str, str, list[Path]]]:
    """(run, kind, trace files) of each traced run, as workflow/rules/common.smk picks them."""
    out = []
    for d in sorted(p for p in raw.iterdir() if p.is_dir()):
        if (d / "trace.txt.zst").exists():
            out.append((d.name, "ftrace", [d / "trace.txt.zst"]))
        elif files := sorted(d.glob("blktrace/*.blktrace.*")):
            out.append((d.name, "blktrace", files))
    return out


def ingest(kind: str, files: list[Path], out: Path) -> Path:
    subprocess.run(["blkscope", "ingest", "--kind", kind, *map(str, files), "-o", str(out)], check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    return out / "events.parquet"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--runs", help="'all' or a number: ingest that many traced runs of data/raw and check them")
    ap.add_argument("--checker", type=Path, help="a built parquet-check (default: build the tests' one)")
    a = ap.parse_args()
    checker = a.checker or build_checker()
    with tempfile.TemporaryDirectory(prefix="parquet-crosscheck-") as tmp:
        todo = [(str(f), f) for f in a.files]
        if a.runs:
            runs = traced_runs(REPO / "data" / "raw")
            runs = runs if a.runs == "all" else runs[: int(a.runs)]
            todo += [(r, ingest(k, fs, Path(tmp, r))) for r, k, fs in runs]
        total = 0
        for name, f in todo:
            try:
                s = check(f, checker)
            except Mismatch as e:
                print(f"MISMATCH {name}: {e}", file=sys.stderr)
                return 1
            total += s["rows"]
            print(f"identical {name}: {s['rows']} rows, {s['row_groups']} row groups, "
                  f"{s['chunks_with_stats']} chunks with statistics (polars, DuckDB, arrow-rs, footer)")
        print(f"all {len(todo)} files identical in DuckDB and arrow-rs ({total} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
