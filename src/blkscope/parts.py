"""A large trace ingested as N parts in parallel jobs, and the parts read back as one dataset.

Part K of N (`blkscope ingest --part K/N`, K from 1):
- a binary blktrace set: the set's per-CPU files in CPU order, cut into N contiguous groups of files (so
  the parts, concatenated in order, list ties of time in the order the whole ingest does); with more parts
  than files, each (uncompressed) file is cut at record starts into byte ranges, in file order;
- a text trace (blkparse or tracefs blk text, uncompressed): bytes [cut(K-1), cut(K)), where cut(k) is the
  first line start at or after k * size / N. Every job finds the same cuts by itself (N short reads).
Every part counts time_ns from the whole trace's origin, found by reading the start of every file of the
set (or the text up to its first event) with `blkscope-native --origin-only`, so the rows of the parts are
the rows of the whole ingest (one exception: a binary part does not see the process-name notify records
written on CPUs of other parts, or earlier in the same file, so `process` may be null there; and a sequence
gap exactly at a cut inside a file is not counted).

`gather` writes parts.json beside the part directories: the parts in order and their reports merged.
`events_files` turns an events.parquet or a parts.json into the list of Parquet files the analyses scan.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from blkscope import native
from blkscope.errors import InputError

PART_KINDS = native.KINDS


def parse_part(spec: str) -> tuple[int, int]:
    """'K/N' -> (K, N), 1 <= K <= N."""
    try:
        k, n = (int(x) for x in spec.split("/"))
    except ValueError:
        raise ValueError(f"--part must be K/N (e.g. 2/8), not {spec!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"--part {spec}: need 1 <= K <= N")
    return k, n


def _compressed(path: Path) -> bool:
    with open(path, "rb") as f:
        h = f.read(6)
    return h.startswith((b"\x28\xb5\x2f\xfd", b"\x1f\x8b", b"\xfd7zXZ\x00"))


def text_cuts(path: Path, n: int) -> list[int]:
    """N + 1 byte offsets: 0, the first line start at or after k * size / N for k = 1 .. N-1, size."""
    size = path.stat().st_size
    cuts = [0]
    with open(path, "rb") as f:
        for k in range(1, n):
            at = max(k * size // n, cuts[-1])
            if at == 0:
                cuts.append(0)
                continue
            f.seek(at - 1)
            while True:  # skip to just after the next newline (the byte before `at` included)
                block = f.read(1 << 16)
                if not block:
                    at = size
                    break
                i = block.find(b"\n")
                if i >= 0:
                    at += i
                    break
                at += len(block)
            cuts.append(min(at, size))
    cuts.append(size)
    return cuts


MAGIC = 0x65617400


def record_cuts(path: Path, n: int) -> list[int]:
    """N + 1 byte offsets of an uncompressed blktrace file: 0, the first record start at or after k * size / N
    (a magic word whose record chains on to 4 more, or to the end of the file), size."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(4)
        order = next((o for o in ("little", "big") if int.from_bytes(head, o) >> 8 == MAGIC >> 8), None)
        if order is None:
            raise InputError(path, "byte offset 0", "not a blktrace file (bad magic)")
        version = int.from_bytes(head, order) & 0xFF
        hdr, pdu_at = (48, 46) if version == 7 else (64, 50)
        pat = (MAGIC | version).to_bytes(4, order)

        def starts_record(buf: bytes, p: int) -> bool:
            for _ in range(5):
                if p == len(buf) and (buf_end == size):
                    return True
                if p + hdr > len(buf) or buf[p : p + 4] != pat:
                    return False
                p += hdr + int.from_bytes(buf[p + pdu_at : p + pdu_at + 2], order)
            return True

        cuts = [0]
        for k in range(1, n):
            at = max(k * size // n, cuts[-1])
            f.seek(at)
            buf = f.read(4 << 20)
            buf_end = at + len(buf)
            p = buf.find(pat)
            while p >= 0 and not starts_record(buf, p):
                p = buf.find(pat, p + 1)
            cuts.append(size if p < 0 else at + p)
    cuts.append(size)
    return cuts


def file_ranges(files: list[Path], n: int) -> list[dict]:
    """More parts than files: each uncompressed file cut at record starts into parts (by size, at least one
    each); parts in file order (CPU order), so the parts in order list ties of time as the whole ingest does."""
    sizes = [0 if _compressed(f) else f.stat().st_size for f in files]
    share = [1] * len(files)
    for _ in range(n - len(files)):  # the next part to the file with the most bytes per part
        k = max(range(len(files)), key=lambda i: sizes[i] / share[i])
        if sizes[k] == 0:
            break
        share[k] += 1
    out = []
    for f, m in zip(files, share, strict=True):
        if m == 1:
            out.append({"files": [str(f)]})
            continue
        cuts = record_cuts(f, m)
        out += [{"files": [str(f)], "range": [a, b]} for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
    out += [{"files": []}] * (n - len(out))  # compressed files cannot be cut: parts left over are empty
    return out


def cpu_groups(files: list[Path], n: int) -> list[list[Path]]:
    """N contiguous groups of the set's files in CPU order (sizes differ by at most one file)."""
    q, r = divmod(len(files), n)
    out, i = [], 0
    for k in range(n):
        m = q + (k < r)
        out.append(files[i : i + m])
        i += m
    return out


def _set_files(inputs: list[Path]) -> list[Path]:
    from blkscope.readers.blktrace import resolve

    sets = resolve(inputs)
    if len(sets) != 1:
        raise InputError(inputs[0], None, f"--part needs one blktrace set, got {len(sets)}: {', '.join(sets)}")
    return [p for _, p in next(iter(sets.values()))]


def origin(kind: str, inputs: list[Path]) -> int | None:
    """The whole trace's time origin (absolute ns), as the whole ingest would take it."""
    with tempfile.TemporaryDirectory(prefix="blkscope-origin-") as tmp:
        out, rep = Path(tmp) / "e.parquet", Path(tmp) / "r.json"
        doc = _native(kind, inputs, out, rep, ["--origin-only"])
    if kind == "blktrace":
        sets = doc["trace"]["sets"]
        return next(iter(sets.values())).get("time_origin_ns")
    return doc["trace"].get("time_origin_ns")


def _native(kind: str, inputs: list[Path], out: Path, rep: Path, args: list[str]) -> dict:
    import subprocess

    cmd = [str(native.program()), kind, "--out", str(out), "--report", str(rep), *args, *map(str, inputs)]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    doc = json.loads(rep.read_text()) if rep.exists() else None
    if doc is None:
        raise RuntimeError(f"blkscope-native {kind} failed (exit {proc.returncode})")
    if "error" in doc:
        e = doc["error"]
        raise InputError(e["path"], e.get("where"), e["message"])
    return doc


def plan(kind: str, inputs: list[Path], n: int) -> dict:
    """What each of the N parts reads: files (binary) or byte ranges (text), and the common origin."""
    if kind not in PART_KINDS:
        raise ValueError(f"--part works on traces ({', '.join(PART_KINDS)}), not {kind}")
    if kind == "blktrace":
        files = _set_files(inputs)
        if n <= len(files):
            parts = [{"files": [str(p) for p in g]} for g in cpu_groups(files, n)]
        else:
            parts = file_ranges(files, n)
    else:
        if len(inputs) != 1:
            raise InputError(inputs[0], None, f"--part of a text trace needs one input file, got {len(inputs)}")
        path = inputs[0]
        if n > 1 and _compressed(path):
            raise InputError(path, "byte offset 0", "a compressed text trace cannot be cut at byte offsets: "
                             "decompress it first (or ingest it whole)")  # fmt: skip
        if n == 1:  # the whole file (also compressed)
            parts = [{"files": [str(path)]}]
        else:
            cuts = text_cuts(path, n)
            parts = [{"files": [str(path)], "range": [a, b]} for a, b in zip(cuts, cuts[1:], strict=False)]
    return {"kind": kind, "parts": n, "origin_ns": origin(kind, inputs), "plan": parts}


def ingest_part(kind: str, inputs: list[Path], k: int, n: int, outdir: Path):
    """Part K of N of the trace into OUTDIR (events.parquet + ingest.json), atomically."""
    from blkscope.io import run_reader
    from blkscope.readers.capture_meta import record_drops

    if kind == "auto":
        from blkscope.readers.detect import detect

        kind = detect(inputs)
    p = plan(kind, inputs, n)
    mine = p["plan"][k - 1]
    args = ["--part"] + (["--origin", str(p["origin_ns"])] if p["origin_ns"] is not None else [])
    if "range" in mine:
        args += ["--range", f"{mine['range'][0]}:{mine['range'][1]}"]

    def reader(_inputs, writer, report):
        files = [Path(f) for f in mine["files"]]
        out = Path(writer.staging) / "events.parquet"
        if files:
            doc = _native(kind, files, out, Path(writer.staging) / ".native.json", args)
        else:  # more parts than CPU files: an empty table of the same schema
            doc = _native("parquet-sample", [], out, Path(writer.staging) / ".native.json", ["--rows", "0"])
        os.unlink(Path(writer.staging) / ".native.json")
        native.merge(report, doc)
        writer.external("events", doc["rows"].get("events", 0))
        report.extra["part"] = {"k": k, "n": n, "origin_ns": p["origin_ns"], **mine}
        if kind == "blktrace" and k == 1:
            record_drops(inputs, report)  # once, not once per part

    return run_reader(reader, kind, inputs, outdir)


def gather(part_dirs: list[Path], out: Path) -> dict:
    """parts.json: the part directories (relative to OUT's directory) in order, rows summed, reports merged."""
    reports = [json.loads((Path(d) / "ingest.json").read_text()) for d in part_dirs]
    ks = [r.get("part", {}).get("k") for r in reports]
    if ks != list(range(1, len(reports) + 1)) or {r["part"]["n"] for r in reports} != {len(reports)}:
        raise ValueError(f"parts must be 1..N of one split, in order; got {ks}")
    base = out.parent.resolve()
    doc = {
        "format": reports[0]["format"],
        "parts": [os.path.relpath(Path(d).resolve() / "events.parquet", base) for d in part_dirs],
        "rows": {"events": sum(r["rows"].get("events", 0) for r in reports)},
        "origin_ns": reports[0]["part"]["origin_ns"],
        "warnings": [w for r in reports for w in r["warnings"]],
        "unknown": {},
    }
    for r in reports:
        for key, v in r.get("unknown", {}).items():
            doc["unknown"][key] = doc["unknown"].get(key, 0) + v
    doc["trace"] = _merge_trace([r.get("trace") or {} for r in reports])
    from blkscope.io import write_text_atomic

    write_text_atomic(json.dumps(doc, indent=2) + "\n", out)
    return doc


def _merge_trace(traces: list[dict]) -> dict:
    """What the analyses read from a trace report (run_summary.lost_events): losses summed over the parts."""
    out: dict = {"dropped_events": next((t["dropped_events"] for t in traces if t.get("dropped_events") is not None),
                                        None)}  # fmt: skip
    for key in ("lost_events", "sequence_gaps"):
        if any(key in t for t in traces):
            merged: dict = {}
            for t in traces:
                for k, v in (t.get(key) or {}).items():
                    if isinstance(v, dict):
                        m = merged.setdefault(k, {})
                        for f, n in v.items():
                            m[f] = m.get(f, 0) + n
                    else:
                        merged[k] = merged.get(k, 0) + v
            out[key] = merged
    out["cpus_seen"] = sorted({c for t in traces for c in t.get("cpus_seen") or []})
    return out


def events_files(paths) -> list[Path]:
    """events.parquet files as given; a parts.json becomes its parts, in order."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.suffix == ".json":
            doc = json.loads(p.read_text())
            out += [p.parent / f for f in doc["parts"]]
        else:
            out.append(p)
    return out
