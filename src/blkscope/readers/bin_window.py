"""One blktrace file read window by window: records located and decoded with numpy (readers/trace_bin.py),
notify records turned into process names, payload fields (remap, split, unplug, cgroup, message, cdb) taken
from the few records that have a payload, and events handed out up to a time horizon as Arrow batches
(readers/bin_arrow.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from blkscope.errors import InputError
from blkscope.readers import blkcodes as bc
from blkscope.readers.bin_arrow import Names, Win, batch
from blkscope.readers.textio import ZSTD_MAGIC, open_binary
from blkscope.readers.trace_bin import detect, dtype, gather, records, walk

__all__ = ["Names", "Stream", "total_size"]


def total_size(paths: list[Path]) -> int | None:
    """Bytes to read for a progress bar, or None when a compressed input hides its size."""
    total = 0
    for p in paths:
        with open(p, "rb") as f:
            head = f.read(6)
        if head.startswith((ZSTD_MAGIC, b"\x1f\x8b", b"\xfd7zXZ")):
            return None
        total += os.path.getsize(p)
    return total


def _chunks(path: Path, size: int) -> Iterator[tuple[int, np.ndarray, bool]]:
    """(file offset, uint8 buffer, is last) with records cut anywhere; the caller sends how much it used.
    One buffer per file, reused: the caller has handed out every event of a window before asking for the
    next, and nothing it keeps points into the buffer (columns are copies)."""
    buf = bytearray(size + (1 << 16))
    with open_binary(path) as f:
        base, keep = 0, 0
        while True:
            if keep > len(buf) - size:  # an unusually large unused tail: grow
                buf = buf + bytearray(keep + size - len(buf))
            got = _fill(f, memoryview(buf)[keep : keep + size])
            last = got < size
            n = keep + got
            if n == 0:
                return
            used = yield base, np.frombuffer(buf, np.uint8, count=n), last
            if last:
                return
            buf[: n - used] = buf[used:n]  # the cut record moves to the front
            keep = n - used
            base += used


def _fill(f, view: memoryview) -> int:
    """readinto until the view is full or the stream ends (decompressors return short reads)."""
    got = 0
    while got < len(view):
        k = f.readinto(view[got:])
        if not k:
            break
        got += k
    return got


class Stream:
    """Windows of one file; `take` hands out its events up to a time horizon."""

    def __init__(self, path: Path, name_cpu: int | None, report, window: int, bar) -> None:
        self.path, self.name_cpu, self.report, self.bar = path, name_cpu, report, bar
        self.gen = _chunks(path, window)
        self.started = self.done = False
        self.win: Win | None = None
        self.at = 0  # rows of `win` already handed out
        self.consumed = 0
        self.first_time: int | None = None
        self.before_origin = self.n_rec = self.n_ev = self.other_cpu = 0
        self.devices: set[int] = set()
        self.last_seq: dict[tuple[int, int], int] = {}

    # -- reading ------------------------------------------------------------------------------------------
    def fill(self, names: Names) -> None:
        """Decode the next window (or mark the stream done)."""
        if not self.started:
            self.started = True
            try:
                base, buf, last = next(self.gen)
            except StopIteration:
                raise InputError(self.path, None, "empty file: expected blktrace binary records") from None
            fmt = detect(bytes(buf[:4]))
            if fmt is None:
                raise InputError(self.path, "byte offset 0", f"not a blktrace file (magic {bytes(buf[:4]).hex()}, "
                                 "expected 0x656174 with version 7 or 8)")  # fmt: skip
            self.version, self.order = fmt
            self.dt = dtype(*fmt)
            info = self.report.trace["files"].setdefault(str(self.path), {})
            info.update(version=self.version, byte_order="little" if self.order == "<" else "big")
        else:
            try:
                base, buf, last = self.gen.send(self.consumed)
            except StopIteration:
                self.done = True
                return
        w = walk(buf, self.version, self.order, last)
        self._problems(base, buf, w, last)
        self.consumed = w.consumed
        if self.bar is not None:
            self.bar.update(w.consumed if not last else buf.size)
        recs = records(buf, w.offsets, self.dt)
        self.n_rec += recs.size
        self.win = self._decode(buf, w.offsets, recs, names)
        self.at = 0
        self.done = last
        if self.win.n:
            t = self.win.recs["time"]
            if self.first_time is None:
                self.first_time = int(t.min())
            self._check(self.win)

    def _problems(self, base: int, buf: np.ndarray, w, last: bool) -> None:
        for off, nbytes in w.skipped:
            self.report.trace["resyncs"].append({"file": str(self.path), "byte_offset": base + off,
                                                 "bytes_skipped": nbytes})  # fmt: skip
            self.report.warn(f"{self.path}: byte offset {base + off}: no valid record (bad magic or version); "
                             f"skipped {nbytes} bytes to the next record")  # fmt: skip
        if last and w.consumed < buf.size:
            self.report.warn(f"{self.path}: byte offset {base + w.consumed}: truncated last record "
                             f"({buf.size - w.consumed} bytes) ignored")  # fmt: skip
            self.report.trace.setdefault("truncated", []).append({"file": str(self.path),
                                                                  "byte_offset": base + w.consumed})  # fmt: skip

    def _decode(self, buf: np.ndarray, offs: np.ndarray, recs: np.ndarray, names: Names) -> Win:
        act = recs["action"]
        cat = (act >> bc.TC_SHIFT).astype(np.uint32) & 0xFFFF
        notify = (cat & bc.TC_NOTIFY) > 0
        hdr = bc.HDR[self.version]
        is_msg = None
        if notify.any():
            nidx = np.flatnonzero(notify)
            kinds = (act[nidx] & 0xFF).astype(np.int64)
            self._notify(buf, offs[nidx], recs[nidx], kinds, hdr, names)
            keep = ~notify
            keep[nidx[kinds == bc.NOTIFY_MESSAGE]] = True
            recs, offs, act, cat = recs[keep], offs[keep], act[keep], cat[keep]
            is_msg = (cat & bc.TC_NOTIFY) > 0
        code = (act & 0xFF).astype(np.int16)
        if is_msg is not None:
            code[is_msg] = bc.MSG
        win = Win(recs, code, cat)
        pdu = recs["pdu_len"]
        prow = np.flatnonzero(pdu > 0)
        if prow.size:
            self._payloads(win, buf, offs, act, prow, hdr)
        pc = (cat & bc.TC_PC) > 0
        trow = np.flatnonzero(pc if is_msg is None else pc | is_msg)
        if trow.size:
            self._texts(win, buf, offs, act, trow, hdr)
        return win

    def _notify(self, buf, offs, recs, kinds, hdr, names: Names) -> None:
        for o, r, kind in zip(offs.tolist(), recs, kinds.tolist(), strict=True):
            if kind not in (bc.NOTIFY_PROCESS, bc.NOTIFY_TIMESTAMP):
                continue
            start = o + hdr + (8 if int(r["action"]) & bc.CGROUP_BIT else 0)
            data = bytes(buf[start : o + hdr + int(r["pdu_len"])])
            if kind == bc.NOTIFY_PROCESS:
                names.add(int(r["pid"]), int(r["cpu"]), data.split(b"\0", 1)[0].decode("utf-8", "replace"))
            elif names.wall is None and len(data) >= 8:
                sec, nsec = np.frombuffer(data[:8], dtype=self.order + "u4")
                names.wall = {"sec": int(sec), "nsec": int(nsec), "at_time_ns": int(r["time"])}

    def _payloads(self, win: Win, buf, offs, act, prow, hdr) -> None:
        """Fixed-size payload fields (big-endian on every host) and cgroup ids of the records that have them."""
        cg = (act[prow] & bc.CGROUP_BIT) > 0
        skip = np.where(cg, 8, 0)
        start = offs[prow] + hdr + skip
        avail = win.recs["pdu_len"][prow].astype(np.int64) - skip
        code = win.code[prow]
        n = win.n
        has_id = cg & (avail >= 0)  # the id fits in the payload
        if has_id.any():
            win.cgroup = np.zeros(n, np.uint64)
            win.cgroup_ok = np.zeros(n, bool)
            raw = gather(buf, offs[prow][has_id] + hdr, 8).copy().view(self.order + "u8").ravel()
            win.cgroup[prow[has_id]], win.cgroup_ok[prow[has_id]] = raw, True
        a = (code == bc.CODES["A"]) & (avail >= 16)
        if a.any():
            p = gather(buf, start[a], 16)
            win.remap_dev, win.remap_sector = np.zeros(n, np.uint32), np.zeros(n, np.int64)
            win.remap_ok = np.zeros(n, bool)
            win.remap_dev[prow[a]] = p[:, :4].copy().view(">u4").ravel()
            win.remap_sector[prow[a]] = p[:, 8:16].copy().view(">u8").ravel().astype(np.int64)
            win.remap_ok[prow[a]] = True
        e = np.isin(code, [bc.CODES["X"], bc.CODES["U"], bc.CODES["UT"]]) & (avail >= 8)
        if e.any():
            win.eight, win.eight_ok = np.zeros(n, np.int64), np.zeros(n, bool)
            win.eight[prow[e]] = gather(buf, start[e], 8).copy().view(">u8").ravel().astype(np.int64)
            win.eight_ok[prow[e]] = True

    def _texts(self, win: Win, buf, offs, act, trow, hdr) -> None:
        """Message text and SCSI command bytes: few records, read one by one."""
        pdu = win.recs["pdu_len"]
        out = []
        for i in trow.tolist():
            o = int(offs[i])
            start = o + hdr + (8 if int(act[i]) & bc.CGROUP_BIT else 0)
            raw = bytes(buf[start : o + hdr + int(pdu[i])])
            out.append(raw.rstrip(b"\0").decode("utf-8", "replace") if win.code[i] == bc.MSG else raw.hex())
        win.text_rows, win.texts = trow, out

    def _check(self, win: Win) -> None:
        """Sequence gaps per (device, CPU), devices, records from another CPU than the file name says."""
        r = win.recs
        dev, cpu = r["device"], r["cpu"]
        if self.name_cpu is not None:
            self.other_cpu += int((cpu != self.name_cpu).sum())
        counts = np.bincount(win.code, minlength=len(bc.ACTION_NAMES))
        for c in np.flatnonzero(counts).tolist():
            name = bc.ACTION_NAMES[c]
            if name.startswith("?") or name in ("ABORT", "DRV"):
                self.report.count_unknown(f"action {name}", int(counts[c]))
        ev = win.code != bc.MSG
        dev_e, cpu_e, seq = dev[ev], cpu[ev], r["seq"][ev].astype(np.int64)
        if seq.size == 0:
            return
        if dev_e.min() == dev_e.max() and cpu_e.min() == cpu_e.max():  # the usual per-CPU file: one key
            groups = [((int(dev_e[0]), int(cpu_e[0])), seq)]
        else:
            key = (dev_e.astype(np.uint64) << 32) | cpu_e.astype(np.uint64)
            order = np.argsort(key, kind="stable")
            uk, starts = np.unique(key[order], return_index=True)
            parts = np.split(seq[order], starts[1:])
            groups = [((int(k >> 32), int(k & 0xFFFFFFFF)), s) for k, s in zip(uk.tolist(), parts, strict=True)]
        for key, s in groups:
            self.devices.add(key[0])
            prev = self.last_seq.get(key)
            d = np.diff(np.concatenate([[prev], s]) if prev is not None else s)
            missing = int((d[d > 1] - 1).sum())
            backwards = int((d <= 0).sum())
            self.last_seq[key] = int(s[-1])
            if missing or backwards:
                e = self.report.trace["sequence_gaps"].setdefault(f"{key[0] >> 20},{key[0] & 0xFFFFF} cpu{key[1]}",
                                                                  {"missing": 0, "out_of_order": 0})  # fmt: skip
                e["missing"] += missing
                e["out_of_order"] += backwards

    # -- handing out --------------------------------------------------------------------------------------
    def empty(self) -> bool:
        return self.win is None or self.at >= self.win.n

    def last_time(self) -> int:
        t = self.win.recs["time"][self.at :]
        return int(t[-1]) if self.win.sorted else int(t.max())

    def take(self, horizon: int | None, names: Names, origin: int | None):
        """An Arrow batch of the pending events with time <= horizon (all when None or unsorted)."""
        w = self.win
        end = w.n
        if horizon is not None and w.sorted:
            end = self.at + int(np.searchsorted(w.recs["time"][self.at :], horizon, side="right"))
        if end <= self.at:
            return None
        origin = origin or 0
        b = batch(w, self.at, end, names, origin)
        t = w.recs["time"][self.at : end]
        if not w.sorted or t[0] < origin:  # sorted: only a window starting before the origin has any
            self.before_origin += int((t < origin).sum())
        self.n_ev += end - self.at
        self.at = end
        return b

    def finish(self) -> None:
        info = self.report.trace["files"][str(self.path)]
        devs = sorted(self.devices)
        info.update(records=self.n_rec, events=self.n_ev, devices=[f"{d >> 20},{d & 0xFFFFF}" for d in devs])
        if self.other_cpu:
            self.report.warn(f"{self.path}: {self.other_cpu} records are from another CPU than the file name says "
                             f"({self.name_cpu}); kept")  # fmt: skip
            info["records_from_other_cpus"] = self.other_cpu
        if len(devs) > 1 and self.name_cpu is not None:
            self.report.warn(f"{self.path}: records from {len(devs)} devices in one per-device file; kept")
