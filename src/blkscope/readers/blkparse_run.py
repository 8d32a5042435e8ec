"""Wrapper mode: run the real blkparse on binary sets or dumps with a `-f` format that Arrow's CSV reader
reads straight from the pipe (bounded memory), and write events. For cross-checks against the tool itself
and for inputs blkscope's own binary reader does not know; the payload columns (remap, split, unplug) are
not in blkparse's format vocabulary and stay null. A dump (`blkparse -d`) is fed on stdin (`-i -`); read that
way, blkparse counts some CPUs' times from another origin (seen: CPU 1 shifted by 0.25 s), a blkparse quirk.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.csv as pcsv

from blkscope.errors import InputError
from blkscope.readers.blktrace import resolve
from blkscope.readers.trace_text import select_events

# dev, cpu, seq, seconds.nanoseconds, pid, action, RWBS, sector, blocks, error, bytes, command (last: may hold "|")
FORMAT = r"%M|%m|%c|%s|%T|%t|%p|%a|%d|%S|%n|%e|%N|%C\n"
COLUMNS = ["maj", "min", "cpu", "seq", "s", "ns", "pid", "action", "rwbs", "sector", "n", "error", "bytes", "cmd"]
TYPES = {"action": pa.string(), "rwbs": pa.string(), "cmd": pa.string()}
NO_SECTOR = ("P", "U", "UT", "m")


def read(inputs: list[Path], writer, report) -> None:
    if shutil.which("blkparse") is None:
        raise InputError(inputs[0], None, "blkparse is not installed (Debian package blktrace)")
    report.versions["blkparse"] = _version()
    skipped = 0
    for name, files in resolve(inputs).items():
        dump = len(files) == 1 and files[0][0] is None  # a single file not named <name>.blktrace.N
        cmd = ["blkparse", "-q", "-i", "-" if dump else name, "-f", FORMAT]
        stdin = open(files[0][1], "rb") if dump else subprocess.DEVNULL  # noqa: SIM115 - closed below
        with subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            skipped += _stream(proc.stdout, writer)
            err = proc.stderr.read().decode(errors="replace").strip()
        if dump:
            stdin.close()
        if proc.returncode:
            raise InputError(name, None, f"blkparse failed ({proc.returncode}): {err.splitlines()[-1] if err else ''}")
    if skipped:
        report.count_unknown("blkparse line not in the -f format", skipped)
    writer.ensure("events")


def _stream(pipe, writer) -> int:
    bad = 0

    def skip(row) -> str:
        nonlocal bad
        bad += not row.text.startswith("Input file ")  # blkparse says so on stdout even with -q
        return "skip"

    opts = pcsv.ParseOptions(delimiter="|", quote_char=False, invalid_row_handler=skip)
    reader = pcsv.open_csv(pipe, read_options=pcsv.ReadOptions(column_names=COLUMNS, block_size=16 << 20),
                           parse_options=opts, convert_options=pcsv.ConvertOptions(column_types=TYPES))  # fmt: skip
    for batch in reader:
        df = pl.from_arrow(batch)
        if isinstance(df, pl.DataFrame) and df.height:
            writer.write("events", _events(df))
    return bad


def _events(df: pl.DataFrame) -> pl.DataFrame:
    nosec = pl.col("action").is_in(NO_SECTOR)
    return select_events(df.select(
        dev_major=pl.col("maj").cast(pl.UInt32), dev_minor=pl.col("min").cast(pl.UInt32),
        cpu=pl.col("cpu").cast(pl.UInt32), seq=pl.col("seq").cast(pl.Int64),
        time_ns=pl.col("s").cast(pl.Int64) * 1_000_000_000 + pl.col("ns").cast(pl.Int64),
        pid=pl.col("pid").cast(pl.UInt32), action="action", rwbs="rwbs",
        sector=pl.when(nosec).then(None).otherwise(pl.col("sector").cast(pl.Int64)),
        nsectors=pl.when(nosec).then(None).otherwise(pl.col("n").cast(pl.Int64)),
        error=pl.col("error").cast(pl.Int32),
        process=pl.when(pl.col("cmd") == "(null)").then(None).otherwise(pl.col("cmd")),
    ))  # fmt: skip


def _version() -> str:
    out = subprocess.run(["blkparse", "-V"], capture_output=True, text=True).stdout.strip()
    return out.split()[-1] if out else "unknown"


def to_dir(inputs: list[Path], outdir: Path):
    """events.parquet and ingest.json into `outdir`, atomically (as `blkscope ingest`)."""
    from blkscope.io import run_reader

    return run_reader(read, "blkparse-run", inputs, outdir)
