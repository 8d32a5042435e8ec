"""fio `--output-format=json` / `json+` (fio 2.x and 3.x) -> table `fio_jobs`.

One row per job and direction (read, write, trim). Directions that moved no I/O are dropped,
except that a job with no I/O at all (it failed, or was interrupted before starting) keeps the
directions its `rw` implies, so its `error` stays visible instead of the job vanishing.
Latencies are in ns: fio 3.x prints clat_ns/lat_ns, fio 2.x clat/lat in usec (times 1000).
Text fio printed before or after the JSON (errors, "terminating on signal") goes to warnings.
Job options are the job's own over the global ones; fio 2.x prints none, so rw, bs, iodepth
and numjobs are null there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from blkscope.errors import InputError
from blkscope.readers.jsondoc import decode_all, read_text
from blkscope.schemas import FIO_JOBS

if TYPE_CHECKING:
    from blkscope.io import Report, TableWriter

DIRECTIONS = ("read", "write", "trim")
_SNIFF = re.compile(rb'^\s*\{\s*"fio version"\s*:', re.MULTILINE)
_RW_DIRECTIONS = {"read": ("read",), "randread": ("read",), "write": ("write",), "randwrite": ("write",),
                  "trim": ("trim",), "randtrim": ("trim",), "trimwrite": ("trim", "write"),
                  "randtrimwrite": ("trim", "write")}
EXTRA: dict[str, pl.DataType] = {
    "fio_version": pl.Utf8,
    "groupid": pl.Int64,
    "total_ios": pl.Int64,
    "io_kib": pl.Float64,
    "clat_mean_ns": pl.Float64,
    "clat_p95_ns": pl.Float64,
    "clat_p999_ns": pl.Float64,
    "slat_mean_ns": pl.Float64,
}
SCHEMA = {**FIO_JOBS, **EXTRA}


def sniff(head: bytes) -> bool:
    return bool(_SNIFF.search(head))


def read(inputs: list[Path], writer: TableWriter, report: Report) -> None:
    for path in map(Path, inputs):
        text = read_text(path)
        found = decode_all(path, text, "fio --output-format=json output")
        for line in found.text_outside:
            report.warn(f"{path}: fio printed: {line[:200]}")
        rows = []
        for i, doc in enumerate(found.docs):
            rows += _rows(path, doc, f"document {i + 1}", report)
        writer.write("fio_jobs", pl.DataFrame(rows, schema=SCHEMA))
    writer.ensure("fio_jobs")


def _rows(path: Path, doc: Any, at: str, report: Report) -> list[dict[str, Any]]:
    if not isinstance(doc, dict) or "fio version" not in doc:
        raise InputError(path, at, 'JSON object without "fio version"; not fio JSON output')
    version = str(doc["fio version"])
    report.versions.setdefault("fio", version)
    jobs = doc.get("jobs")
    if jobs is None and "client_stats" in doc:  # fio --client: per-client entries plus an "All clients" sum
        jobs = [j for j in doc["client_stats"] if j.get("jobname") != "All clients"]
    if not isinstance(jobs, list):
        raise InputError(path, at, 'no "jobs" list in fio JSON')
    glob = doc.get("global options") or {}
    rows = []
    for k, job in enumerate(jobs):
        where = f"{at}, jobs[{k}]"
        if not isinstance(job, dict) or "jobname" not in job:
            raise InputError(path, where, "job entry without jobname")
        opts = {**glob, **(job.get("job options") or {})}
        base = {
            "jobname": str(job["jobname"]),
            "rw": opts.get("rw", opts.get("readwrite")),
            "bs": opts.get("bs", opts.get("blocksize")),
            "iodepth": _int_opt(path, where, opts, "iodepth"),
            "numjobs": _int_opt(path, where, opts, "numjobs"),
            "error": _num(path, where, job, "error", int),
            "fio_version": version,
            "groupid": job.get("groupid"),
        }
        present = [d for d in DIRECTIONS if isinstance(job.get(d), dict)]
        if not present:
            raise InputError(path, where, "job has none of the read/write/trim sections")
        moved = [d for d in present if _moved(path, f"{where}.{d}", job[d])]
        keep = moved or [d for d in _RW_DIRECTIONS.get(str(base["rw"]), ("read", "write")) if d in present]
        for d in keep:
            rows.append({**base, "direction": d, **_direction(path, f"{where}.{d}", job[d])})
    return rows


def _moved(path: Path, where: str, sec: dict[str, Any]) -> bool:
    return any((_num(path, where, sec, k, float) or 0) > 0 for k in ("total_ios", "io_bytes", "io_kbytes", "iops"))


def _direction(path: Path, where: str, sec: dict[str, Any]) -> dict[str, Any]:
    ns = "clat_ns" in sec or "lat_ns" in sec  # fio 3.x; 2.x printed usec
    clat = sec.get("clat_ns" if ns else "clat") or {}
    lat = sec.get("lat_ns" if ns else "lat") or {}
    slat = sec.get("slat_ns" if ns else "slat") or {}
    scale = 1.0 if ns else 1000.0
    pct = clat.get("percentile") or {}
    bw_bytes = _num(path, where, sec, "bw_bytes", float)
    # fio 3.x: io_kbytes (and io_bytes in bytes); fio 2.x: io_bytes held KiB
    io_kib = _num(path, where, sec, "io_kbytes", float) if ns else _num(path, where, sec, "io_bytes", float)

    def t(d: dict[str, Any], key: str) -> float | None:
        v = _num(path, where, d, key, float)
        return None if v is None else v * scale

    return {
        "iops": _num(path, where, sec, "iops", float),
        "bw_kib_s": bw_bytes / 1024 if bw_bytes is not None else _num(path, where, sec, "bw", float),
        "lat_mean_ns": t(lat, "mean"),
        "clat_mean_ns": t(clat, "mean"),
        "slat_mean_ns": t(slat, "mean"),
        "clat_p50_ns": t(pct, "50.000000"),
        "clat_p95_ns": t(pct, "95.000000"),
        "clat_p99_ns": t(pct, "99.000000"),
        "clat_p999_ns": t(pct, "99.900000"),
        "clat_p9999_ns": t(pct, "99.990000"),
        "runtime_ms": _num(path, where, sec, "runtime", float),
        "total_ios": _num(path, where, sec, "total_ios", int),
        "io_kib": io_kib,
    }


def _num(path: Path, where: str, d: dict[str, Any], key: str, typ: type) -> Any:
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise InputError(path, f"{where}.{key}", f"expected a number, got {v!r}")
    return typ(v)


def _int_opt(path: Path, where: str, opts: dict[str, Any], key: str) -> int | None:
    v = opts.get(key)
    if v is None:
        return None
    try:
        return int(str(v).strip())
    except ValueError:
        raise InputError(path, f"{where}, option {key}", f"expected an integer, got {v!r}") from None
