"""Decoded blktrace records -> Arrow record batches of the events table, straight from numpy.

Primitive columns are handed to Arrow without per-row Python work; action, rwbs and process are
dictionary-encoded (indices into small lookup tables), which Parquet stores as dictionary pages and
readers get back as plain strings (TableWriter writes no Arrow schema for such tables).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from blkscope.readers import blkcodes as bc

ACTION_DICT = pa.array(bc.ACTION_NAMES, pa.string())
RWBS_DICT = pa.array(bc.RWBS_NAMES, pa.string())
# P, U, UT (and messages) carry no sector; blkparse prints none
NO_SECTOR = np.zeros(len(bc.ACTION_NAMES), bool)
NO_SECTOR[[bc.CODES["P"], bc.CODES["U"], bc.CODES["UT"], bc.MSG]] = True
DENSE_PIDS = 1 << 23  # pid tables up to 32 MB; larger pids (pid_max is at most 4 M) take the sorted lookup
IS_SPLIT = np.zeros(len(bc.ACTION_NAMES), bool)
IS_SPLIT[bc.CODES["X"]] = True

SCHEMA = pa.schema([
    ("dev_major", pa.uint32()), ("dev_minor", pa.uint32()), ("cpu", pa.uint32()), ("seq", pa.int64()),
    ("time_ns", pa.int64()), ("pid", pa.uint32()), ("action", pa.dictionary(pa.int16(), pa.string())),
    ("rwbs", pa.dictionary(pa.int16(), pa.string())), ("sector", pa.int64()), ("nsectors", pa.int64()),
    ("error", pa.int32()), ("process", pa.dictionary(pa.int32(), pa.string())),
    ("remap_dev_major", pa.uint32()), ("remap_dev_minor", pa.uint32()), ("remap_sector", pa.int64()),
    ("split_sector", pa.int64()), ("unplug_count", pa.int64()), ("pc_bytes", pa.int64()), ("cdb", pa.string()),
    ("message", pa.string()), ("cgroup_id", pa.uint64()),
])  # fmt: skip


class Win:
    """The event records of one window (notify records removed, messages kept) and their payload fields.
    Payload arrays are None when no record of the window has that payload."""

    def __init__(self, recs: np.ndarray, code: np.ndarray, cat: np.ndarray) -> None:
        self.recs, self.code, self.cat = recs, code, cat
        self.n = recs.size
        t = recs["time"]
        self.sorted = bool(self.n < 2 or (t[1:] >= t[:-1]).all())
        self.cgroup = self.cgroup_ok = None
        self.remap_dev = self.remap_sector = self.remap_ok = None
        self.eight = self.eight_ok = None  # X: split sector; U/UT: unplug count
        self.text_rows = np.zeros(0, np.int64)  # rows with a message text (m) or SCSI command bytes (cdb)
        self.texts: list[str] = []


class Names:
    """Process names from notify records. A name announced on the event's own CPU wins (pid 0 is the idle
    task of every CPU: swapper/0, swapper/1 ...), else the pid's first name (a task that moved CPUs)."""

    def __init__(self) -> None:
        self.by_pid: dict[int, int] = {}  # pid -> index into values
        self.by_pid_cpu: dict[int, int] = {}  # pid << 32 | cpu -> index into values
        self.values: list[str] = []
        self.wall: dict | None = None
        self._dirty = True

    def add(self, pid: int, cpu: int, name: str) -> None:
        key = pid << 32 | cpu
        if key not in self.by_pid_cpu:
            self.values.append(name)
            self.by_pid_cpu[key] = len(self.values) - 1
            self.by_pid.setdefault(pid, len(self.values) - 1)
            self._dirty = True

    def column(self, pid: np.ndarray, cpu: np.ndarray) -> pa.Array:
        if not self.by_pid:
            return pa.nulls(pid.size, pa.string())
        if self._dirty:
            self._pid = _table(self.by_pid)
            self._pid_cpu = _table(self.by_pid_cpu)
            self._values = pa.array(self.values, pa.string())
            self._dense: dict[int, np.ndarray] = {}
            self._dirty = False
        if cpu.size and cpu[0] == cpu[-1] and (cpu == cpu[0]).all() and self._pid[0][-1] < DENSE_PIDS:
            idx = self._dense_table(int(cpu[0]))[np.minimum(pid, self._pid[0][-1] + 1)]  # one gather per row
            found = idx >= 0
            return pa.DictionaryArray.from_arrays(pa.array(idx, mask=None if found.all() else ~found), self._values)
        idx, found = _lookup(*self._pid_cpu, (pid.astype(np.int64) << 32) | cpu)
        if not found.all():
            idx2, found2 = _lookup(*self._pid, pid.astype(np.int64))
            idx, found = np.where(found, idx, idx2), found | found2
        return pa.DictionaryArray.from_arrays(pa.array(idx, mask=None if found.all() else ~found), self._values)


    def _dense_table(self, cpu: int) -> np.ndarray:
        """pid -> name index (-1: none) for events of one CPU, as a flat array (pids are small numbers)."""
        t = self._dense.get(cpu)
        if t is None:
            t = np.full(int(self._pid[0][-1]) + 2, -1, np.int32)
            t[self._pid[0]] = self._pid[1]
            keys, vals = self._pid_cpu
            mine = (keys & 0xFFFFFFFF) == cpu
            t[keys[mine] >> 32] = vals[mine]
            self._dense[cpu] = t
        return t


def _table(d: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    keys = np.fromiter(d, np.int64, len(d))
    order = np.argsort(keys)
    return keys[order], np.fromiter(d.values(), np.int32, len(d))[order]


def _lookup(keys: np.ndarray, vals: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pos = np.minimum(np.searchsorted(keys, q), keys.size - 1)
    return vals[pos], keys[pos] == q


def _arr(x: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    return pa.array(x) if null is None or not null.any() else pa.array(x, mask=null)


def _opt(values, ok, a: int, b: int, typ, also: np.ndarray | None = None) -> pa.Array:
    """An optional payload column: nulls where the window has none, or where `ok` (and `also`) is False."""
    if values is None:
        return pa.nulls(b - a, typ)
    keep = ok[a:b] if also is None else ok[a:b] & also
    return _arr(values[a:b].astype(typ.to_pandas_dtype()), ~keep)


def batch(w: Win, a: int, b: int, names: Names, origin: int) -> pa.RecordBatch:
    """Rows a..b of window `w` as a record batch with SCHEMA."""
    r = w.recs[a:b]
    n = b - a
    code = w.code[a:b]
    # ufuncs straight from the strided record fields: one pass each, contiguous native output for Arrow
    dev = r["device"]
    nbytes = r["bytes"].astype(np.int64)
    pc = (w.cat[a:b] & bc.TC_PC) > 0
    nosec = NO_SECTOR[code] | pc
    pid = r["pid"].astype(np.uint32)
    split = IS_SPLIT[code]
    time_ns = np.subtract(r["time"], np.uint64(origin)).view(np.int64)  # wraps like int64 arithmetic
    cols = [
        pa.array(np.right_shift(dev, 20, dtype=np.uint32)), pa.array(np.bitwise_and(dev, 0xFFFFF, dtype=np.uint32)),
        pa.array(r["cpu"].astype(np.uint32)), pa.array(r["seq"].astype(np.int64)), pa.array(time_ns), pa.array(pid),
        pa.DictionaryArray.from_arrays(pa.array(code), ACTION_DICT),
        pa.DictionaryArray.from_arrays(pa.array(bc.rwbs_key(w.cat[a:b], nbytes)), RWBS_DICT),
        _arr(r["sector"].astype(np.int64), nosec), _arr(nbytes >> 9, nosec), pa.array(r["error"].astype(np.int32)),
        names.column(pid, r["cpu"].astype(np.int64)),
        _opt(None if w.remap_dev is None else w.remap_dev >> 20, w.remap_ok, a, b, pa.uint32()),
        _opt(None if w.remap_dev is None else w.remap_dev & 0xFFFFF, w.remap_ok, a, b, pa.uint32()),
        _opt(w.remap_sector, w.remap_ok, a, b, pa.int64()),
        _opt(w.eight, w.eight_ok, a, b, pa.int64(), split),
        _opt(w.eight, w.eight_ok, a, b, pa.int64(), ~split),
        _arr(nbytes, ~pc) if pc.any() else pa.nulls(n, pa.int64()),
        *_texts(w, a, b, code),
        _opt(w.cgroup, w.cgroup_ok, a, b, pa.uint64()),
    ]  # fmt: skip
    return pa.RecordBatch.from_arrays(cols, schema=SCHEMA)


def _texts(w: Win, a: int, b: int, code: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """cdb and message columns: the few rows that have one, nulls elsewhere."""
    n = b - a
    lo, hi = np.searchsorted(w.text_rows, [a, b])
    if lo == hi:
        return pa.nulls(n, pa.string()), pa.nulls(n, pa.string())
    rows = w.text_rows[lo:hi] - a
    vals = pa.array(w.texts[lo:hi], pa.string())
    is_msg = code[rows] == bc.MSG
    out = []
    for want in (~is_msg, is_msg):
        idx = np.zeros(n, np.int32)
        has = np.zeros(n, bool)
        idx[rows[want]] = np.flatnonzero(want)
        has[rows[want]] = True
        out.append(vals.take(pa.array(idx, mask=~has)))
    return out[0], out[1]
