"""Run the real btt on a blktrace set, a `blkparse -d` dump or an events table, and read what it writes.

- `btt_avg`: the MIN/AVG/MAX/N tables of its .avg report (All Devices: Q2Q, Q2G, G2I, Q2M, I2D, M2D, D2C,
  Q2C ...; with per-process and per-device breakdowns): section, subject, metric, min_s, avg_s, max_s, n.
- `btt_latency`: its per-IO latency files (-l D2C, -q Q2C, -z Q2D), `<name>_<maj>,<min>_<kind>.dat` holding
  `time latency` pairs in seconds: device, kind, time_s, latency_s.
Events tables go through export-blktrace first, so traces captured with the tracefs blk tracer get btt too.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import polars as pl

from blkscope.errors import InputError
from blkscope.io import staged

AVG_SCHEMA = {"section": pl.Utf8, "subject": pl.Utf8, "metric": pl.Utf8, "min_s": pl.Float64,
              "avg_s": pl.Float64, "max_s": pl.Float64, "n": pl.Int64}  # fmt: skip
LAT_SCHEMA = {"device": pl.Utf8, "kind": pl.Utf8, "time_s": pl.Float64, "latency_s": pl.Float64}
LATENCIES = {"-l": "d2c", "-q": "q2c", "-z": "q2d"}
HEADER = re.compile(r"^\s*(\S+)\s+MIN\s+AVG\s+MAX\s+N\s*$")
ROW = re.compile(r"^(.*?)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+)\s*$")
SECTION = re.compile(r"^=+ (.*?) =+$")
LAT_FILE = re.compile(r"^lat_(\d+,\d+)_(\w+)\.dat$")


def run(inputs: list[Path], workdir: Path) -> tuple[pl.DataFrame, pl.DataFrame, str]:
    """(btt_avg, btt_latency, the .avg text) for `inputs`; btt's files are left in `workdir`."""
    for tool in ("btt", "blkparse"):
        if shutil.which(tool) is None:
            raise InputError(inputs[0], None, f"{tool} is not installed (Debian package blktrace)")
    dump = _dump(inputs, workdir)
    cmd = ["btt", "-i", str(dump), "-o", "btt", "-A"]
    for flag in LATENCIES:
        cmd += [flag, "lat"]  # btt appends _<maj>,<min>_<kind>.dat
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if proc.returncode:
        raise InputError(dump, None, f"btt failed ({proc.returncode}): {proc.stderr.strip()[-200:]}")
    text = (workdir / "btt.avg").read_text(errors="replace")
    return parse_avg(text), read_latencies(workdir), text


def _dump(inputs: list[Path], workdir: Path) -> Path:
    """One merged, time-ordered dump (what btt reads): made by blkparse -d, from events via export-blktrace."""
    from blkscope.readers.blktrace import resolve

    if all(p.suffix == ".parquet" for p in inputs):
        from blkscope.export_blktrace import export

        export(inputs, workdir / "export" / "trace")
        inputs = [workdir / "export" / "trace"]
    sets = resolve(inputs)
    if len(sets) == 1 and len(files := next(iter(sets.values()))) == 1 and files[0][0] is None:
        return files[0][1].resolve()  # already a dump
    if len(sets) != 1:
        raise InputError(inputs[0], None, f"btt takes one trace; got {len(sets)} sets")
    name = next(iter(sets))
    out = workdir / "dump.bin"
    proc = subprocess.run(["blkparse", "-q", "-i", name, "-d", str(out), "-O"], capture_output=True, text=True)
    if proc.returncode:
        raise InputError(name, None, f"blkparse -d failed ({proc.returncode}): {proc.stderr.strip()[-200:]}")
    return out


def parse_avg(text: str) -> pl.DataFrame:
    """btt's .avg report -> rows of its MIN/AVG/MAX/N tables (seconds)."""
    rows = []
    section = metric = None
    for ln in text.splitlines():
        if m := SECTION.match(ln):
            section, metric = m[1], None
        elif m := HEADER.match(ln):
            metric = m[1]
        elif metric and "|" not in ln and (m := ROW.match(ln)):
            name = m[1].strip()
            subject, what = ("all", name) if metric == "ALL" else (name, metric)
            rows.append((section, subject, what, float(m[2]), float(m[3]), float(m[4]), int(m[5])))
        elif not ln.strip() or ln.startswith("---"):
            continue
        else:
            metric = None  # another kind of table
    return pl.DataFrame(rows, schema=AVG_SCHEMA, orient="row")


def read_latencies(workdir: Path) -> pl.DataFrame:
    frames = []
    for f in sorted(workdir.glob("lat_*.dat")):
        m = LAT_FILE.match(f.name)
        if not m or f.stat().st_size == 0:
            continue
        df = pl.read_csv(f, separator=" ", has_header=False, new_columns=["time_s", "latency_s"],
                         schema={"time_s": pl.Float64, "latency_s": pl.Float64})  # fmt: skip
        frames.append(df.select(device=pl.lit(m[1]), kind=pl.lit(m[2]), time_s="time_s", latency_s="latency_s"))
    return pl.concat(frames) if frames else pl.DataFrame(schema=LAT_SCHEMA)


def to_dir(inputs: list[Path], outdir: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Write btt_avg.parquet, btt_latency.parquet and btt.avg into `outdir`, atomically."""
    outdir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(staged(outdir, directory=True))
    try:
        with tempfile.TemporaryDirectory(prefix="btt.") as work:
            avg, lat, text = run(inputs, Path(work))
        avg.write_parquet(staging / "btt_avg.parquet")
        lat.write_parquet(staging / "btt_latency.parquet")
        (staging / "btt.avg").write_text(text)
        if outdir.exists():
            shutil.rmtree(outdir)
        staging.rename(outdir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return avg, lat
