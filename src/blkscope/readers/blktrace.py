"""Binary blktrace (struct blk_io_trace v7, blk_io_trace2 v8) -> events.

Inputs: per-CPU files `<name>.blktrace.<cpu>`, a directory of them, a set prefix (`dir/sda`), or single
files such as a merged `blkparse -d` dump; .zst/.gz/.xz read transparently. Two passes per input set: the
first reads notify records (pid -> process name, wall clock) and the earliest event time (time_ns origin,
as blkparse's genesis), the second writes events chunk by chunk. Unlike blkparse, a gap in the CPU list
does not stop reading; it is reported, like per-CPU sequence gaps and resynchronisations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.errors import InputError
from blkscope.readers import blkcodes as bc
from blkscope.readers.textio import open_binary
from blkscope.readers.trace_bin import detect, dtype, gather, walk
from blkscope.readers.trace_text import select_events

CHUNK = 64 << 20
SET_RE = re.compile(r"^(?P<name>.+)\.blktrace\.(?P<cpu>\d+)(?:\.(?:zst|gz|xz))?$")
NO_SECTOR = ("P", "U", "UT")  # plug/unplug records carry no sector; blkparse prints none


def sniff(head: bytes) -> bool:
    return detect(head[:4]) is not None


def resolve(inputs: list[Path]) -> dict[str, list[tuple[int | None, Path]]]:
    """Input paths -> {set name: [(cpu from the file name or None, path)]}."""
    sets: dict[str, list[tuple[int | None, Path]]] = {}
    for p in map(Path, inputs):
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if SET_RE.match(f.name))
            if not files:
                raise InputError(p, None, "directory holds no <name>.blktrace.<cpu> files")
        elif p.exists():
            files = [p]
        else:
            files = sorted(f for f in p.parent.glob(p.name + ".blktrace.*") if SET_RE.match(f.name))
            if not files:
                raise InputError(p, None, "no such file, and no set prefix: no files named " + p.name + ".blktrace.N")
        for f in files:
            m = SET_RE.match(f.name)
            key = str(f.parent / m["name"]) if m else str(f)
            sets.setdefault(key, []).append((int(m["cpu"]) if m else None, f))
    for files in sets.values():
        files.sort(key=lambda t: (t[0] is None, t[0] or 0))
    return sets


def read(inputs: list[Path], writer, report) -> None:
    sets = resolve(inputs)
    tr = report.trace
    tr.update(sets={}, files={}, sequence_gaps={}, resyncs=[], dropped_events=None)
    for name, files in sets.items():
        cpus = [c for c, _ in files if c is not None]
        missing = sorted(set(range(max(cpus) + 1)) - set(cpus)) if cpus else []
        tr["sets"][name] = {"cpu_files": cpus, "missing_cpus": missing}
        if missing:
            report.warn(f"{name}: CPU list has a gap (no file for CPU {missing}); blkparse stops at the first "
                        f"missing CPU and drops the files after it, blkscope reads all {len(files)} files")  # fmt: skip
        names, origin, wall = _prescan(files, report)
        tr["sets"][name].update(time_origin_ns=origin, wall_clock=wall, processes=len(names))
        for cpu, path in files:
            _read_file(path, cpu, writer, report, names, origin)
    writer.ensure("events")


def _chunks(path: Path) -> Iterator[tuple[int, np.ndarray, bool]]:
    """(file offset, uint8 buffer, is last) with records cut anywhere; the caller says how much it used."""
    with open_binary(path) as f:
        base, carry = 0, b""
        while True:
            data = f.read(CHUNK)
            buf = carry + data if carry else data
            last = len(data) < CHUNK
            if not buf:
                return
            used = yield base, np.frombuffer(buf, np.uint8), last
            if last:
                return
            carry = buf[used:]
            base += used


def _records(path: Path, report, quiet: bool = False) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, int]]:
    """Yield (records as a structured array, their offsets in buf, buf, version) per chunk.

    `quiet`: the pre-scan pass; problems are reported once, by the second pass."""
    gen = _chunks(path)
    try:
        base, buf, last = next(gen)
    except StopIteration:
        raise InputError(path, None, "empty file: expected blktrace binary records") from None
    fmt = detect(bytes(buf[:4]))
    if fmt is None:
        raise InputError(path, "byte offset 0", f"not a blktrace file (magic {bytes(buf[:4]).hex()}, "
                         "expected 0x656174 with version 7 or 8)")  # fmt: skip
    version, order = fmt
    dt = dtype(version, order)
    info = report.trace["files"].setdefault(str(path), {})
    info.update(version=version, byte_order="little" if order == "<" else "big")
    while True:
        w = walk(buf, version, order, last)
        for off, nbytes in [] if quiet else w.skipped:
            report.trace["resyncs"].append({"file": str(path), "byte_offset": base + off, "bytes_skipped": nbytes})
            report.warn(f"{path}: byte offset {base + off}: no valid record (bad magic or version); "
                        f"skipped {nbytes} bytes to the next record")  # fmt: skip
        if last and w.consumed < buf.size and not quiet:
            report.warn(f"{path}: byte offset {base + w.consumed}: truncated last record "
                        f"({buf.size - w.consumed} bytes) ignored")  # fmt: skip
            report.trace.setdefault("truncated", []).append({"file": str(path), "byte_offset": base + w.consumed})
        recs = gather(buf, w.offsets, dt.itemsize).view(dt).ravel()
        yield recs, w.offsets, buf, version
        try:
            base, buf, last = gen.send(w.consumed)
        except StopIteration:
            return


def _is_notify(recs: np.ndarray) -> np.ndarray:
    return (recs["action"].astype(np.uint64) >> bc.TC_SHIFT) & bc.TC_NOTIFY > 0


def _payload(buf: np.ndarray, offs: np.ndarray, recs: np.ndarray, hdr: int, width: int) -> np.ndarray:
    """The first `width` payload bytes after the cgroup id (if any) of each record."""
    cg = (recs["action"].astype(np.uint64) & bc.CGROUP_BIT) > 0
    start = offs + hdr + np.where(cg, 8, 0)
    end = np.minimum(start + width, buf.size)
    rows = gather(buf, np.minimum(start, buf.size - width), width)
    rows[(end - start) < width] = 0
    return rows


def _prescan(files, report) -> tuple[dict[int, str], int | None, dict | None]:
    names: dict[int, str] = {}
    origin: int | None = None
    wall = None
    for _, path in files:
        for recs, offs, buf, version in _records(path, report, quiet=True):
            notify = _is_notify(recs)
            ev_t = recs["time"][~notify]
            if ev_t.size:
                t0 = int(ev_t.min())
                origin = t0 if origin is None else min(origin, t0)
            hdr = bc.HDR[version]
            for r, o in zip(recs[notify], offs[notify], strict=True):
                kind = int(r["action"]) & 0xFF
                start = int(o) + hdr + (8 if int(r["action"]) & bc.CGROUP_BIT else 0)
                data = bytes(buf[start : int(o) + hdr + int(r["pdu_len"])])
                if kind == bc.NOTIFY_PROCESS:
                    names.setdefault(int(r["pid"]), data.split(b"\0", 1)[0].decode("utf-8", "replace"))
                elif kind == bc.NOTIFY_TIMESTAMP and wall is None and len(data) >= 8:
                    sec, nsec = np.frombuffer(data[:8], dtype=recs.dtype["seq"].str[0] + "u4")
                    wall = {"sec": int(sec), "nsec": int(nsec), "at_time_ns": int(r["time"])}
    return names, origin, wall


def _read_file(path: Path, name_cpu: int | None, writer, report, names: dict[int, str], origin: int | None) -> None:
    info = report.trace["files"][str(path)]
    last_seq: dict[tuple[int, int], int] = {}
    gaps = report.trace["sequence_gaps"]
    n_rec = n_ev = other_cpu = 0
    devices: set[int] = set()
    name_df = pl.DataFrame({"pid": list(names), "process": list(names.values())},
                           schema={"pid": pl.UInt32, "process": pl.Utf8})  # fmt: skip
    for recs, offs, buf, version in _records(path, report):
        n_rec += recs.size
        notify = _is_notify(recs)
        act = recs["action"].astype(np.uint64)
        kind = act & 0xFF
        msg = notify & (kind == bc.NOTIFY_MESSAGE)
        keep = ~notify | msg
        recs, offs, act, kind, msg = recs[keep], offs[keep], act[keep], kind[keep], msg[keep]
        if recs.size == 0:
            continue
        cat = act >> bc.TC_SHIFT
        hdr = bc.HDR[version]
        ev = _frame(recs, act, kind, cat, msg, origin)
        ev = ev.with_columns(**_payload_columns(buf, offs, recs, hdr, ev["action"].to_numpy(), cat, msg))
        ev = ev.join(name_df, on="pid", how="left", maintain_order="left")
        ev = ev.with_columns(
            sector=pl.when(pl.col("action").is_in(NO_SECTOR) | pl.col("is_pc") | pl.col("is_msg"))
            .then(None).otherwise(pl.col("sector")),
            nsectors=pl.when(pl.col("action").is_in(NO_SECTOR) | pl.col("is_pc") | pl.col("is_msg"))
            .then(None).otherwise(pl.col("nsectors")),
        )  # fmt: skip
        _count_gaps(ev.filter(~pl.col("is_msg")), last_seq, gaps, str(path))
        if name_cpu is not None:
            other_cpu += int((recs["cpu"] != name_cpu).sum())
        devices.update(np.unique(recs["device"]).tolist())
        unknown = ev.filter(pl.col("action").str.starts_with("?") | pl.col("action").is_in(["ABORT", "DRV"]))
        for a, k in unknown["action"].value_counts().iter_rows():
            report.count_unknown(f"action {a}", k)
        writer.write("events", select_events(ev))
        n_ev += ev.height
    info.update(records=n_rec, events=n_ev, devices=[f"{d >> 20},{d & 0xFFFFF}" for d in sorted(devices)])
    if other_cpu:
        report.warn(f"{path}: {other_cpu} records are from another CPU than the file name says ({name_cpu}); kept")
        info["records_from_other_cpus"] = other_cpu
    if len(devices) > 1 and name_cpu is not None:
        report.warn(f"{path}: records from {len(devices)} devices in one per-device file; kept")


def _frame(recs, act, kind, cat, msg, origin) -> pl.DataFrame:
    t = recs["time"].astype(np.int64)
    letters = bc.action_letters(kind.astype(np.uint32))
    return pl.DataFrame({
        "dev_major": (recs["device"] >> 20).astype(np.uint32),
        "dev_minor": (recs["device"] & 0xFFFFF).astype(np.uint32),
        "cpu": recs["cpu"].astype(np.uint32),
        "seq": recs["seq"].astype(np.int64),
        "time_ns": t - (origin if origin is not None else (int(t.min()) if t.size else 0)),
        "pid": recs["pid"].astype(np.uint32),
        "action": letters,
        "rwbs": bc.rwbs(cat, recs["bytes"]),
        "sector": recs["sector"].astype(np.int64),
        "nsectors": (recs["bytes"] >> 9).astype(np.int64),
        "error": recs["error"].astype(np.int32),
        "is_pc": (cat & bc.TC_PC) > 0,
        "is_msg": msg,
    }).with_columns(action=pl.when(pl.col("is_msg")).then(pl.lit("m")).otherwise(pl.col("action")))  # fmt: skip


def _payload_columns(buf, offs, recs, hdr, action, cat, msg) -> dict[str, pl.Series | pl.Expr]:
    n = recs.size
    cg = (recs["action"].astype(np.uint64) & bc.CGROUP_BIT) > 0
    out: dict[str, pl.Series | pl.Expr] = {}
    rmaj = np.zeros(n, np.uint32)
    rmin = np.zeros(n, np.uint32)
    rsec = np.zeros(n, np.int64)
    split = np.zeros(n, np.int64)
    unplug = np.zeros(n, np.int64)
    is_a, is_x, is_u = action == "A", action == "X", np.isin(action, ["U", "UT"])
    has = recs["pdu_len"] - np.where(cg, 8, 0)
    if is_a.any():
        p = _payload(buf, offs[is_a], recs[is_a], hdr, 16)  # remap payload is big-endian on every host
        dev_from = p[:, :4].copy().view(">u4").ravel()
        rmaj[is_a], rmin[is_a] = dev_from >> 20, dev_from & 0xFFFFF
        rsec[is_a] = p[:, 8:16].copy().view(">u8").ravel().astype(np.int64)
    for mask, arr in ((is_x, split), (is_u, unplug)):
        if mask.any():
            arr[mask] = _payload(buf, offs[mask], recs[mask], hdr, 8).copy().view(">u8").ravel().astype(np.int64)
    out["remap_dev_major"] = pl.Series(rmaj).set(pl.Series(~is_a | (has < 16)), None)
    out["remap_dev_minor"] = pl.Series(rmin).set(pl.Series(~is_a | (has < 16)), None)
    out["remap_sector"] = pl.Series(rsec).set(pl.Series(~is_a | (has < 16)), None)
    out["split_sector"] = pl.Series(split).set(pl.Series(~is_x | (has < 8)), None)
    out["unplug_count"] = pl.Series(unplug).set(pl.Series(~is_u | (has < 8)), None)
    out["pc_bytes"] = pl.when(pl.col("is_pc")).then(pl.Series(recs["bytes"].astype(np.int64))).otherwise(None)
    if cg.any():
        cgid = _payload(buf, offs, recs, hdr - 8, 8).copy().view(recs.dtype["seq"].str[0] + "u8").ravel()
        out["cgroup_id"] = pl.Series(cgid).set(pl.Series(~cg), None)
    raw = _raw_payloads(buf, offs, recs, hdr, msg | ((cat & bc.TC_PC) > 0), cg)
    out["message"] = pl.Series([r.rstrip(b"\0").decode("utf-8", "replace") if m else None
                                for r, m in zip(raw, msg, strict=True)], dtype=pl.Utf8)  # fmt: skip
    out["cdb"] = pl.Series([r.hex() if r is not None and not m else None
                            for r, m in zip(raw, msg, strict=True)], dtype=pl.Utf8)  # fmt: skip
    return out


def _raw_payloads(buf, offs, recs, hdr, mask, cg) -> list[bytes | None]:
    """Payload bytes of the few records that carry text (messages, packet commands); None elsewhere."""
    out: list[bytes | None] = [None] * recs.size
    for i in np.flatnonzero(mask):
        start = int(offs[i]) + hdr + (8 if cg[i] else 0)
        out[i] = bytes(buf[start : int(offs[i]) + hdr + int(recs["pdu_len"][i])])
    return out


def _count_gaps(ev: pl.DataFrame, last_seq: dict, gaps: dict, path: str) -> None:
    """Missing sequence numbers per (device, CPU): the kernel numbers each CPU's events of a device 1, 2, ..."""
    keys = ["dev_major", "dev_minor", "cpu"]
    g = ev.select(*keys, "seq").group_by(keys, maintain_order=True).agg(pl.col("seq"))
    for maj, mnr, cpu, seqs in g.iter_rows():
        key = (maj, mnr, cpu)
        s = np.asarray(seqs, np.int64)
        prev = last_seq.get(key)
        d = np.diff(np.concatenate([[prev], s]) if prev is not None else s)
        missing = int(d[d > 1].sum() - (d > 1).sum())
        backwards = int((d <= 0).sum())
        last_seq[key] = int(s[-1])
        if missing or backwards:
            e = gaps.setdefault(f"{maj},{mnr} cpu{cpu}", {"missing": 0, "out_of_order": 0})
            e["missing"] += missing
            e["out_of_order"] += backwards
