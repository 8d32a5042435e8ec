"""events.parquet -> per-CPU blktrace v7 files (`PREFIX.blktrace.<cpu>`) that blkparse, btt and iowatcher read.

This gives traces captured with the tracefs blk tracer (the only tracer under kernel lockdown) the whole
blktrace tool chain. Records are little-endian v7; each pid gets a notify (process name) record before its
first event on a CPU; remap, split and unplug payloads are big-endian as the kernel writes them; sequence
numbers are kept where the source had them, else numbered 1, 2, ... per CPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from blkscope.readers import blkcodes as bc
from blkscope.readers.trace_bin import dtype

SLICE = 1 << 18  # events per batch read and encoded: bounds memory (1 << 20 peaked at 1.2 GB, this at 0.5 GB)
DT = dtype(bc.V7, "<")


def export(events: list[Path], prefix: Path) -> dict[int, int]:
    """Write one file per CPU; returns {cpu: records written}.

    Streams: batches of SLICE rows are split by CPU and appended to that CPU's file, so memory does not grow
    with the trace. That needs each CPU's events in time order in the input, which every blkscope reader
    writes; otherwise one CPU at a time is loaded and sorted (memory then grows with that CPU's events)."""
    files = [str(p) for p in events]
    prefix.parent.mkdir(parents=True, exist_ok=True)
    in_order, cpus = _scan(files)
    tmp = {cpu: prefix.parent / f".{prefix.name}.blktrace.{cpu}.tmp" for cpu in cpus}
    out = {cpu: open(tmp[cpu], "wb") for cpu in cpus}  # noqa: SIM115 - closed below
    seen: dict[int, set[int]] = {cpu: set() for cpu in cpus}
    written = dict.fromkeys(cpus, 0)
    events_of = dict.fromkeys(cpus, 0)  # sources without sequence numbers get 1, 2, ... per CPU
    try:
        for part in _batches(files, cpus, in_order):
            cpu = int(part["cpu"][0])
            n = events_of[cpu]
            events_of[cpu] += part.height
            numbered = pl.int_range(n + 1, n + 1 + pl.len(), dtype=pl.Int64)
            part = part.with_columns(seq=pl.coalesce(pl.col("seq"), numbered))
            data, k = _encode(part, cpu, seen[cpu])
            out[cpu].write(data)
            written[cpu] += k
    except BaseException:
        for cpu in cpus:
            out[cpu].close()
            tmp[cpu].unlink(missing_ok=True)
        raise
    for cpu in cpus:
        out[cpu].close()
        tmp[cpu].rename(prefix.parent / f"{prefix.name}.blktrace.{cpu}")
    return written


def _scan(files: list[str]) -> tuple[bool, list[int]]:
    """(is every CPU's time_ns non-decreasing in file order, the CPUs), reading only those two columns."""
    last: dict[int, int] = {}
    ok = True
    for f in files:
        for b in pq.ParquetFile(f).iter_batches(batch_size=SLICE, columns=["cpu", "time_ns"]):
            df = pl.from_arrow(b)
            g = df.group_by("cpu", maintain_order=True).agg(
                first=pl.col("time_ns").first(), last=pl.col("time_ns").last(),
                sorted=(pl.col("time_ns").diff().fill_null(0) >= 0).all())  # fmt: skip
            for cpu, first, lst, srt in g.iter_rows():
                ok = ok and srt and (cpu not in last or first >= last[cpu])
                last[cpu] = lst
    return ok, sorted(last)


def _batches(files: list[str], cpus: list[int], in_order: bool) -> Iterator[pl.DataFrame]:
    """One CPU's events at a time, in time order: split from streamed batches, or loaded per CPU."""
    if in_order:
        for f in files:
            for b in pq.ParquetFile(f).iter_batches(batch_size=SLICE):
                yield from pl.from_arrow(b).partition_by("cpu", maintain_order=True)
        return
    lf = pl.scan_parquet(files)
    for cpu in cpus:
        ev = lf.filter(pl.col("cpu") == cpu).collect().sort("time_ns", maintain_order=True)
        for off in range(0, ev.height, SLICE):
            yield ev.slice(off, SLICE)


def _col(df: pl.DataFrame, name: str, default, dt) -> np.ndarray:
    if name not in df.columns:
        return np.full(df.height, default, dtype=dt)
    return df[name].fill_null(default).to_numpy().astype(dt)


def _encode(ev: pl.DataFrame, cpu: int, seen: set[int]) -> tuple[bytes, int]:
    """Encode a time-sorted slice of one CPU's events (with notify records for new pids) as bytes."""
    n = ev.height
    act = ev["action"].fill_null("?")
    is_msg = (act == "m").to_numpy()
    # small integers, not per-row Python strings (those took most of the memory of a batch)
    code = act.replace_strict(bc.CODES, default=0, return_dtype=pl.UInt64).to_numpy()
    cat = bc.categories_from_rwbs(ev["rwbs"])
    cat |= act.replace_strict(bc.ACTION_CATEGORY, default=0, return_dtype=pl.UInt64).to_numpy()
    is_pc = _col(ev, "pc_bytes", -1, np.int64) >= 0
    cat |= np.where(is_pc, bc.TC_PC, bc.TC_FS).astype(np.uint64)
    cat = np.where(is_msg, bc.TC_NOTIFY, cat).astype(np.uint64)
    code = np.where(is_msg, bc.NOTIFY_MESSAGE, code)

    pdu = np.zeros(n, np.int64)
    payload: list[bytes] = [b""] * n
    is_a = (code == bc.CODES["A"]) & ~np.isnan(_col(ev, "remap_sector", np.nan, np.float64))
    pdu[is_a] = 16
    pdu[np.isin(code, [bc.CODES["U"], bc.CODES["UT"], bc.CODES["X"]])] = 8
    for i in np.flatnonzero(is_msg).tolist():
        payload[i] = (ev["message"][i] or "").encode()
        pdu[i] = len(payload[i])

    rec = np.zeros(n, DT)
    rec["magic"] = bc.MAGIC | bc.V7
    rec["seq"] = np.where(is_msg, 0, _col(ev, "seq", 0, np.int64))
    rec["time"] = _col(ev, "time_ns", 0, np.int64)
    rec["sector"] = _col(ev, "sector", 0, np.int64)
    nsec = _col(ev, "nsectors", 0, np.int64)
    rec["bytes"] = np.where(is_pc, _col(ev, "pc_bytes", 0, np.int64), nsec * 512)
    rec["action"] = (code | (cat << bc.TC_SHIFT)).astype(np.uint32)
    rec["pid"] = _col(ev, "pid", 0, np.int64)
    rec["device"] = (_col(ev, "dev_major", 0, np.int64) << 20) | _col(ev, "dev_minor", 0, np.int64)
    rec["cpu"] = cpu
    rec["error"] = _col(ev, "error", 0, np.int64)
    rec["pdu_len"] = pdu

    # payload bytes for fixed-size payloads, big-endian
    fixed = np.zeros((n, 16), np.uint8)
    dev = rec["device"]
    rdev = (_col(ev, "remap_dev_major", 0, np.int64) << 20) | _col(ev, "remap_dev_minor", 0, np.int64)
    fixed[:, 0:4] = rdev.astype(">u4").view(np.uint8).reshape(n, 4)
    fixed[:, 4:8] = dev.astype(">u4").view(np.uint8).reshape(n, 4)
    fixed[:, 8:16] = _col(ev, "remap_sector", 0, np.int64).astype(">u8").view(np.uint8).reshape(n, 8)
    is_x = code == bc.CODES["X"]
    eight = np.where(is_x, _col(ev, "split_sector", 0, np.int64), _col(ev, "unplug_count", 0, np.int64))
    is8 = pdu == 8
    fixed[is8, 0:8] = eight[is8].astype(">u8").view(np.uint8).reshape(-1, 8)

    # notify (process name) records for pids not yet announced on this CPU, just before their first event
    names = ev.select("pid", "process", "time_ns").with_row_index("at").filter(pl.col("process").is_not_null())
    names = names.unique("pid", keep="first", maintain_order=True).filter(~pl.col("pid").is_in(list(seen)))
    seen.update(names["pid"].to_list())

    hdr = rec.view(np.uint8).reshape(n, 48)
    lengths = 48 + pdu
    parts: list[bytes] = []
    note_at = {int(at): (pid, proc, t, int(dev[at])) for at, pid, proc, t in names.select(
        "at", "pid", "process", "time_ns").iter_rows()}  # fmt: skip
    # Contiguous runs between notify points are packed with numpy; notifies are spliced in between.
    cuts = sorted(note_at)
    bounds = [0, *cuts, n]
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        if a in note_at:
            parts.append(_notify(*note_at[a], cpu))
        if b > a:
            parts.append(_pack(hdr[a:b], fixed[a:b], pdu[a:b], lengths[a:b], payload[a:b], is_msg[a:b]))
    return b"".join(parts), n + len(names)


def _pack(hdr, fixed, pdu, lengths, payload, is_msg) -> bytes:
    total = int(lengths.sum())
    out = np.zeros(total, np.uint8)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    _rows(out, 48)[starts] = hdr  # rows written in place through a strided view: no (n, 48) index matrix
    for w in (8, 16):
        m = (pdu == w) & ~is_msg
        if m.any():
            _rows(out, w)[starts[m] + 48] = fixed[m, :w]
    for i in np.flatnonzero(is_msg).tolist():
        out[starts[i] + 48 : starts[i] + 48 + pdu[i]] = np.frombuffer(payload[i], np.uint8)
    return out.tobytes()


def _rows(a: np.ndarray, width: int) -> np.ndarray:
    """Overlapping rows a[i : i + width] as a writable 2-D view of `a` (rows assigned never overlap)."""
    return np.lib.stride_tricks.as_strided(a, (a.size - width + 1, width), (1, 1))


def _notify(pid: int, name: str, time_ns: int, device: int, cpu: int) -> bytes:
    comm = name.encode()[:15] + b"\0"
    r = np.zeros(1, DT)
    r["magic"], r["time"], r["pid"], r["cpu"], r["pdu_len"] = bc.MAGIC | bc.V7, time_ns, pid, cpu, len(comm)
    r["device"] = device
    r["action"] = bc.NOTIFY_PROCESS | (bc.TC_NOTIFY << bc.TC_SHIFT)
    return r.tobytes() + comm
