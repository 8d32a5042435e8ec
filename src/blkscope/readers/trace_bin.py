"""Locate and decode blktrace binary records in a buffer, vectorised with numpy.

Records have variable length (header + pdu_len payload), so a record's offset depends on all before it.
Instead of walking record by record in Python, find every position holding a valid magic word (four
aligned uint32 views), then check that each candidate's end is the next candidate: where the chain holds
(almost everywhere) all offsets are known at once; only breaks (a magic look-alike inside a payload,
corruption) go through a short Python loop, which resynchronises at the next valid record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from blkscope.readers.blkcodes import HDR, MAGIC, V7, V8


def dtype(version: int, order: str) -> np.dtype:
    u2, u4, u8 = order + "u2", order + "u4", order + "u8"
    if version == V7:
        names = ["magic", "seq", "time", "sector", "bytes", "action", "pid", "device", "cpu", "error", "pdu_len"]
        return np.dtype(list(zip(names, [u4, u4, u8, u8, u4, u4, u4, u4, u4, u2, u2], strict=True)))
    names = ["magic", "seq", "time", "sector", "bytes", "pid", "action", "device", "cpu", "error", "pdu_len", "pad"]
    return np.dtype(list(zip(names, [u4, u4, u8, u8, u4, u4, u8, u4, u4, u2, u2, "V12"], strict=True)))


def detect(head: bytes) -> tuple[int, str] | None:
    """(version, byte order '<' or '>') from the first magic word, or None."""
    if len(head) < 4:
        return None
    for order in ("<", ">"):
        m = int(np.frombuffer(head[:4], dtype=order + "u4")[0])
        if m & 0xFFFFFF00 == MAGIC and m & 0xFF in (V7, V8):
            return m & 0xFF, order
    return None


@dataclass
class Walk:
    offsets: np.ndarray  # record starts within the buffer
    consumed: int  # end of the last complete record (the next buffer starts here)
    skipped: list[tuple[int, int]] = field(default_factory=list)  # (offset, bytes) skipped by resyncs


def walk(buf: np.ndarray, version: int, order: str, last: bool) -> Walk:
    """Record offsets in `buf` (uint8) whose records are complete; buf[0] is expected to start a record."""
    hdr = HDR[version]
    n = buf.size
    magic = MAGIC | version
    cands = []
    for k in range(4):
        cnt = (n - k) // 4
        if cnt <= 0:
            continue
        w = np.frombuffer(buf.data, dtype=order + "u4", count=cnt, offset=k)
        cands.append(np.flatnonzero(w == magic) * 4 + k)
    c = np.sort(np.concatenate(cands)) if cands else np.zeros(0, np.int64)
    if c.size == 0:
        keep = n if last else max(0, n - 3)  # a magic may straddle the cut
        return Walk(np.zeros(0, np.int64), keep, [(0, keep)] if keep else [])
    full = c + hdr <= n
    pdu = np.zeros(c.size, np.int64)
    pl_off = hdr - (14 if version == V8 else 2)  # pdu_len sits 2 bytes before the end (v8: before 12 pad)
    i0 = c[full] + pl_off
    lo, hi = buf[i0].astype(np.int64), buf[i0 + 1].astype(np.int64)
    pdu[full] = lo | (hi << 8) if order == "<" else (lo << 8) | hi
    nxt = np.where(full, c + hdr + pdu, n + 1)
    pos = np.searchsorted(c, nxt)
    linked = (pos < c.size) & (c[np.minimum(pos, c.size - 1)] == nxt)
    idx = np.arange(c.size)
    breaks = np.flatnonzero(~(linked & (pos == idx + 1)))
    good = np.zeros(c.size, bool)
    skipped: list[tuple[int, int]] = []
    if c[0] != 0:
        skipped.append((0, int(c[0])))
    i, consumed = 0, int(c[0])
    while i < c.size:
        j = int(breaks[np.searchsorted(breaks, i)]) if breaks.size and breaks[-1] >= i else c.size - 1
        complete = nxt[j] <= n
        good[i : j + (1 if complete else 0)] = True
        consumed = int(nxt[j]) if complete else int(c[j])
        if not complete:
            break
        if linked[j]:
            i = int(pos[j])  # jump over look-alikes inside a payload
            continue
        if nxt[j] == n:
            break
        # no valid record where this one ends: skip to the next candidate
        k = int(pos[j])
        if k >= c.size:
            if last:
                skipped.append((int(nxt[j]), n - int(nxt[j])))
                consumed = n
            break
        skipped.append((int(nxt[j]), int(c[k] - nxt[j])))
        i = k
    return Walk(c[good], consumed, skipped)


def gather(buf: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """Rows of `width` bytes starting at `offsets` -> (n, width) uint8 (contiguous)."""
    if offsets.size == 0:
        return np.zeros((0, width), np.uint8)
    return buf[offsets[:, None] + np.arange(width)]
