"""events.parquet -> per-CPU blktrace v7 files (`PREFIX.blktrace.<cpu>`) that blkparse, btt and iowatcher read.

This gives traces captured with the tracefs blk tracer (the only tracer under kernel lockdown) the whole
blktrace tool chain. Records are little-endian v7; each pid gets a notify (process name) record before its
first event on a CPU; remap, split and unplug payloads are big-endian as the kernel writes them; sequence
numbers are kept where the source had them, else numbered 1, 2, ... per CPU.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from blkscope.readers import blkcodes as bc
from blkscope.readers.trace_bin import dtype

SLICE = 1 << 20  # events per write: bounds memory
DT = dtype(bc.V7, "<")


def export(events: list[Path], prefix: Path) -> dict[int, int]:
    """Write one file per CPU; returns {cpu: records written}."""
    lf = pl.scan_parquet([str(p) for p in events])
    cpus = sorted(lf.select(pl.col("cpu").unique()).collect()["cpu"].to_list())
    prefix.parent.mkdir(parents=True, exist_ok=True)
    written = {}
    for cpu in cpus:
        ev = lf.filter(pl.col("cpu") == cpu).collect().sort("time_ns", maintain_order=True)
        ev = ev.with_columns(seq=pl.coalesce(pl.col("seq"), pl.int_range(1, pl.len() + 1, dtype=pl.Int64)))
        seen: set[int] = set()
        n = 0
        tmp = prefix.parent / f".{prefix.name}.blktrace.{cpu}.tmp"
        with open(tmp, "wb") as f:
            for off in range(0, ev.height, SLICE):
                data, k = _encode(ev.slice(off, SLICE), cpu, seen)
                f.write(data)
                n += k
        tmp.rename(prefix.parent / f"{prefix.name}.blktrace.{cpu}")
        written[int(cpu)] = n
    return written


def _col(df: pl.DataFrame, name: str, default, dt) -> np.ndarray:
    if name not in df.columns:
        return np.full(df.height, default, dtype=dt)
    return df[name].fill_null(default).to_numpy().astype(dt)


def _encode(ev: pl.DataFrame, cpu: int, seen: set[int]) -> tuple[bytes, int]:
    """Encode a time-sorted slice of one CPU's events (with notify records for new pids) as bytes."""
    n = ev.height
    action = ev["action"].fill_null("?").to_numpy()
    is_msg = action == "m"
    code = np.array([bc.CODES.get(a, 0) for a in action.tolist()], np.uint64)  # few distinct: fast enough
    cat = bc.categories_from_rwbs(ev["rwbs"]) | np.array([bc.ACTION_CATEGORY.get(a, 0) for a in action], np.uint64)
    is_pc = _col(ev, "pc_bytes", -1, np.int64) >= 0
    cat |= np.where(is_pc, bc.TC_PC, bc.TC_FS).astype(np.uint64)
    cat = np.where(is_msg, bc.TC_NOTIFY, cat).astype(np.uint64)
    code = np.where(is_msg, bc.NOTIFY_MESSAGE, code)

    pdu = np.zeros(n, np.int64)
    payload: list[bytes] = [b""] * n
    is_a = (action == "A") & ~np.isnan(_col(ev, "remap_sector", np.nan, np.float64))
    pdu[is_a] = 16
    pdu[np.isin(action, ["U", "UT", "X"])] = 8
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
    eight = np.where(action == "X", _col(ev, "split_sector", 0, np.int64), _col(ev, "unplug_count", 0, np.int64))
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
    out[starts[:, None] + np.arange(48)] = hdr
    for w in (8, 16):
        m = (pdu == w) & ~is_msg
        if m.any():
            out[(starts[m] + 48)[:, None] + np.arange(w)] = fixed[m, :w]
    for i in np.flatnonzero(is_msg).tolist():
        out[starts[i] + 48 : starts[i] + 48 + pdu[i]] = np.frombuffer(payload[i], np.uint8)
    return out.tobytes()


def _notify(pid: int, name: str, time_ns: int, device: int, cpu: int) -> bytes:
    comm = name.encode()[:15] + b"\0"
    r = np.zeros(1, DT)
    r["magic"], r["time"], r["pid"], r["cpu"], r["pdu_len"] = bc.MAGIC | bc.V7, time_ns, pid, cpu, len(comm)
    r["device"] = device
    r["action"] = bc.NOTIFY_PROCESS | (bc.TC_NOTIFY << bc.TC_SHIFT)
    return r.tobytes() + comm
