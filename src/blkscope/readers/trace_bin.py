"""The blktrace record header (struct blk_io_trace v7, blk_io_trace2 v8) as a numpy dtype, for
`blkscope export-blktrace` (export_blktrace.py); reading goes through blkscope-native."""

from __future__ import annotations

import numpy as np

from blkscope.readers.blkcodes import V7


def dtype(version: int, order: str) -> np.dtype:
    u2, u4, u8 = order + "u2", order + "u4", order + "u8"
    if version == V7:
        names = ["magic", "seq", "time", "sector", "bytes", "action", "pid", "device", "cpu", "error", "pdu_len"]
        return np.dtype(list(zip(names, [u4, u4, u8, u8, u4, u4, u4, u4, u4, u2, u2], strict=True)))
    names = ["magic", "seq", "time", "sector", "bytes", "pid", "action", "device", "cpu", "error", "pdu_len", "pad"]
    return np.dtype(list(zip(names, [u4, u4, u8, u8, u4, u4, u8, u4, u4, u2, u2, "V12"], strict=True)))
