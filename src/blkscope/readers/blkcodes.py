"""blktrace action codes and categories (include/uapi/linux/blktrace_api.h) for the exporter
(export_blktrace.py). The reader's tables (codes -> letters, categories -> RWBS as blkparse prints them)
are in native/src/blktrace/codes.rs."""

from __future__ import annotations

import numpy as np
import polars as pl

MAGIC = 0x65617400
V7, V8 = 7, 8
HDR = {V7: 48, V8: 64}

# categories (bits of action >> 16)
TC_READ, TC_WRITE, TC_FLUSH, TC_SYNC, TC_QUEUE, TC_REQUEUE, TC_ISSUE, TC_COMPLETE = (1 << i for i in range(8))
TC_FS, TC_PC, TC_NOTIFY, TC_AHEAD, TC_META, TC_DISCARD, TC_DRV_DATA, TC_FUA = (1 << i for i in range(8, 16))
TC_SHIFT = 16
CGROUP_BIT = 1 << 8  # in the action code: an 8-byte cgroup id leads the payload

# action code (low 8 bits) -> the letters blkparse prints
ACTIONS = {1: "Q", 2: "M", 3: "F", 4: "G", 5: "S", 6: "R", 7: "D", 8: "C", 9: "P", 10: "U", 11: "UT", 12: "I",
           13: "X", 14: "B", 15: "A", 16: "ABORT", 17: "DRV", 18: "ZP", 19: "ZU"}  # fmt: skip
CODES = {v: k for k, v in ACTIONS.items()}
# categories each action carries in the kernel (BLK_TA_* definitions); the exporter sets them
ACTION_CATEGORY = {"Q": TC_QUEUE, "M": TC_QUEUE, "F": TC_QUEUE, "G": TC_QUEUE, "S": TC_QUEUE,
                   "R": TC_REQUEUE, "D": TC_ISSUE, "C": TC_COMPLETE, "P": TC_QUEUE, "U": TC_QUEUE,
                   "UT": TC_QUEUE, "I": TC_QUEUE, "X": 0, "B": 0, "A": TC_QUEUE, "ZP": TC_QUEUE,
                   "ZU": TC_QUEUE}  # fmt: skip

NOTIFY_PROCESS, NOTIFY_TIMESTAMP, NOTIFY_MESSAGE = 0, 1, 2

def categories_from_rwbs(rwbs_s: pl.Series) -> np.ndarray:
    """RWBS strings -> category bits (the inverse of `rwbs`, for export), with polars string ops."""
    s = rwbs_s.fill_null("N")
    flush = s.str.starts_with("F")
    rest = pl.select(pl.when(flush).then(s.str.slice(1)).otherwise(s)).to_series()
    kind = rest.str.slice(0, 1)
    tail = rest.str.slice(1)
    bits = [(flush, TC_FLUSH), (kind == "D", TC_DISCARD | TC_WRITE), (kind == "W", TC_WRITE), (kind == "R", TC_READ)]
    bits += [(tail.str.contains(ch, literal=True), bit) for ch, bit in (("F", TC_FUA), ("A", TC_AHEAD),
                                                                        ("S", TC_SYNC), ("M", TC_META))]  # fmt: skip
    cat = np.zeros(len(s), dtype=np.uint64)
    for mask, bit in bits:
        cat |= np.where(mask.to_numpy(), bit, 0).astype(np.uint64)
    return cat
