"""Locate blktrace binary records in a buffer with numpy, for the bench's tiling script (tile_binary.py)
only: blkscope ingest reads records with blkscope-native (native/src/blktrace/).

Records have variable length (header + pdu_len payload), so a record's offset depends on all before it.
Instead of walking record by record in Python, find every position holding the magic word and check that
each candidate's end is the next candidate: where the chain holds (almost everywhere) all offsets are known
at once; only breaks (a magic look-alike inside a payload, corruption) go through a short Python loop.
Records keep the 4-byte phase of the first one until a payload of odd length shifts it, so candidates are
searched at one phase and the search restarts at the new phase after such a shift; after several shifts,
or to resynchronise after garbage, all four phases are searched (`_walk_all`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from blkscope.readers.blkcodes import HDR, MAGIC, V7, V8

MAX_PHASE_SHIFTS = 3  # per buffer, before searching all phases at once (message-heavy traces)


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
    n, magic = buf.size, MAGIC | version
    parts: list[np.ndarray] = []
    pos = 0
    for _ in range(MAX_PHASE_SHIFTS + 1):
        if pos + 4 > n or _word(buf, pos, order) != magic:
            break
        cnt = (n - pos) // 4
        c = np.flatnonzero(np.frombuffer(buf.data, order + "u4", count=cnt, offset=pos) == magic) * 4 + pos
        nxt = _next(buf, c, version, order)
        good, end, complete = _follow(c, nxt, n)
        parts.append(c[good])
        pos = end
        if not complete or pos == n:
            return Walk(_cat(parts), pos, [])
    if pos >= n:
        return Walk(_cat(parts), pos, [])
    rest = _walk_all(buf[pos:], version, order, last)
    return Walk(_cat([*parts, rest.offsets + pos]), rest.consumed + pos, [(o + pos, k) for o, k in rest.skipped])


def _word(buf: np.ndarray, pos: int, order: str) -> int:
    return int(np.frombuffer(buf.data, order + "u4", count=1, offset=pos)[0])


def _cat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _next(buf: np.ndarray, c: np.ndarray, version: int, order: str) -> np.ndarray:
    """End of the record at each candidate (n + 1 where its header is cut off)."""
    hdr, n = HDR[version], buf.size
    full = c + hdr <= n
    pl_off = hdr - (14 if version == V8 else 2)  # pdu_len sits 2 bytes before the end (v8: before 12 pad)
    i0 = c[full] + pl_off
    lo, hi = buf[i0].astype(np.int64), buf[i0 + 1].astype(np.int64)
    pdu = np.zeros(c.size, np.int64)
    pdu[full] = lo | (hi << 8) if order == "<" else (lo << 8) | hi
    return np.where(full, c + hdr + pdu, n + 1)


def _follow(c: np.ndarray, nxt: np.ndarray, n: int) -> tuple[np.ndarray, int, bool]:
    """Follow the chain from c[0] through candidates: (mask of records on it, where it ends, whether
    the last record is complete). Look-alikes inside payloads are jumped over."""
    ok = np.zeros(c.size, bool)
    ok[:-1] = nxt[:-1] == c[1:]  # the usual case: each record ends where the next candidate starts
    breaks = np.flatnonzero(~ok)
    good = np.zeros(c.size, bool)
    i = 0
    while True:
        j = int(breaks[np.searchsorted(breaks, i)])
        if nxt[j] > n:
            good[i:j] = True
            return good, int(c[j]), False
        good[i : j + 1] = True
        p = int(np.searchsorted(c, nxt[j]))
        if p >= c.size or c[p] != nxt[j]:
            return good, int(nxt[j]), True
        i = p  # the candidates in between were look-alikes inside a payload


def _walk_all(buf: np.ndarray, version: int, order: str, last: bool) -> Walk:
    """The general case: candidates at all four phases, with resynchronisation past garbage."""
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
    nxt = _next(buf, c, version, order)
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


def records(buf: np.ndarray, offsets: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Headers at `offsets` as a structured array: a zero-copy view when they are back to back (no
    payloads), else gathered 8 bytes at a time (6 or 8 takes per record instead of 48 byte indices)."""
    n, size = offsets.size, dt.itemsize
    if n == 0:
        return np.zeros(0, dt)
    if int(offsets[-1] - offsets[0]) == size * (n - 1):
        return np.frombuffer(buf.data, dt, count=n, offset=int(offsets[0]))
    words = size // 8
    res = offsets & 7
    if res.min() == res.max():
        return _take(buf, offsets, int(res[0]), words).view(dt).ravel()
    out = np.empty((n, words), np.uint64)
    for r in np.unique(res).tolist():
        sel = res == r
        out[sel] = _take(buf, offsets[sel], r, words)
    return out.view(dt).ravel()


def _take(buf: np.ndarray, offsets: np.ndarray, r: int, words: int) -> np.ndarray:
    """(n, words) uint64 rows at `offsets` (all = r mod 8). numpy's take copies a whole unaligned source
    on every call, so an unaligned span is first copied once to an aligned array."""
    lo = int(offsets[0])
    hi = int(offsets[-1]) + words * 8
    src = buf[lo:hi]
    if src.ctypes.data % 8:
        src = src.copy()  # fresh arrays are aligned
    w64 = src[: src.size - src.size % 8].view(np.uint64)
    return _rows(w64, words)[(offsets - lo) >> 3]


def _rows(a: np.ndarray, width: int) -> np.ndarray:
    """Overlapping rows a[i : i + width] as a read-only 2-D view, so a row gather needs no index matrix
    (fancy indexing, not np.take: take would first copy the overlapping view into a contiguous array)."""
    return np.lib.stride_tricks.as_strided(a, (a.size - width + 1, width), (a.itemsize, a.itemsize), writeable=False)


def gather(buf: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """Rows of `width` bytes starting at `offsets` -> (n, width) uint8 (contiguous); for the few payloads."""
    if offsets.size == 0:
        return np.zeros((0, width), np.uint8)
    return _rows(buf, width)[offsets]
