"""blkscope journal writer JSON (tools/journal/journal.c) -> tables `journal_latency` and `journal_summary`.

One document per file: the options (mode none / sparse / prealloc, concurrent reader or not, rate, record size,
fdatasync interval) and, per operation (write, fdatasync, read), exact count / mean / min / p50 / p99 / p99.99 /
max in ns and a log-linear histogram of [lo, hi, count] buckets (lo <= latency < hi). The histogram must add up
to the count and its buckets must be ordered and disjoint; anything else is an error, not a warning, since the
latency distribution is the point of the file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from blkscope.errors import InputError
from blkscope.readers.jsondoc import decode_all, read_text
from blkscope.schemas import JOURNAL_LATENCY, JOURNAL_SUMMARY

if TYPE_CHECKING:
    from blkscope.io import Report, TableWriter

TOOL = "blkscope-journal"
STATS = ("count", "mean_ns", "min_ns", "p50_ns", "p99_ns", "p9999_ns", "max_ns")


def sniff(head: bytes) -> bool:
    return b'"tool": "blkscope-journal"' in head


def read(inputs: list[Path], writer: TableWriter, report: Report) -> None:
    for path in map(Path, inputs):
        found = decode_all(path, read_text(path), "blkscope journal JSON")
        for line in found.text_outside:
            report.warn(f"{path}: outside the JSON: {line[:200]}")
        for i, doc in enumerate(found.docs):
            hist, summ = _rows(path, doc, f"document {i + 1}", report)
            writer.write("journal_latency", pl.DataFrame(hist, schema=JOURNAL_LATENCY, orient="row"))
            writer.write("journal_summary", pl.DataFrame(summ, schema=JOURNAL_SUMMARY))
    writer.ensure("journal_latency")
    writer.ensure("journal_summary")


def _rows(path: Path, doc: Any, at: str, report: Report) -> tuple[list[tuple], list[dict]]:
    if not isinstance(doc, dict) or doc.get("tool") != TOOL:
        raise InputError(path, at, f'not a {TOOL} document (no "tool": "{TOOL}")')
    report.versions.setdefault("journal", str(doc.get("version")))
    opts, lat = doc.get("options"), doc.get("latency")
    if not isinstance(opts, dict) or not isinstance(lat, dict) or "write" not in lat:
        raise InputError(path, at, 'missing "options" or "latency.write"')
    mode, reader = str(opts.get("mode")), bool(opts.get("reader"))
    hist: list[tuple] = []
    summ: list[dict] = []
    for op, d in lat.items():
        where = f"{at}, latency.{op}"
        if not isinstance(d, dict) or not isinstance(d.get("count"), int):
            raise InputError(path, where, "expected an object with an integer count")
        buckets = d.get("histogram")
        if not isinstance(buckets, list):
            raise InputError(path, where, "no histogram list")
        total, prev_hi = 0, -1
        for k, b in enumerate(buckets):
            if not (isinstance(b, list) and len(b) == 3 and all(isinstance(x, int) and x >= 0 for x in b)):
                raise InputError(path, f"{where}.histogram[{k}]", f"expected [lo, hi, count] integers, got {b!r}")
            lo, hi, n = b
            if not lo < hi or lo < prev_hi:
                raise InputError(path, f"{where}.histogram[{k}]", f"bucket [{lo}, {hi}) out of order or empty")
            prev_hi, total = hi, total + n
            hist.append((mode, reader, op, lo, hi, n))
        if total != d["count"]:
            raise InputError(path, where, f"histogram holds {total} samples but count is {d['count']}")
        summ.append(
            {
                "mode": mode,
                "reader": reader,
                "op": op,
                **{s: d.get(s) for s in STATS},
                "elapsed_s": doc.get("elapsed_s"),
                "late_writes": doc.get("late_writes"),
                "rate": opts.get("rate"),
                "record": opts.get("record"),
                "sync_every": opts.get("sync_every"),
                "read_rate": opts.get("read_rate") if reader else None,
                "version": str(doc.get("version")),
            }
        )
    return hist, summ
