"""Tile a binary blktrace set K times on disk (times and sequence numbers shifted per copy), for the
large-input memory check: `python tile_binary.py SRC_PREFIX K DST_PREFIX`. Works window by window."""

import sys
from pathlib import Path

import numpy as np
from bin_records import detect, records, walk  # beside this script

from blkscope.readers.blktrace import resolve
from blkscope.readers.trace_bin import dtype

WINDOW = 64 << 20


def rows(a: np.ndarray, width: int) -> np.ndarray:
    return np.lib.stride_tricks.as_strided(a, (a.size - width + 1, width), (1, 1))


def main() -> None:
    src, k, dst = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    files = next(iter(resolve([src]).values()))
    span = max_seq = 0
    for _, f in files:  # time span and last sequence number over the set
        data = np.fromfile(f, np.uint8)
        version, order = detect(bytes(data[:4]))
        r = records(data, walk(data, version, order, True).offsets, dtype(version, order))
        span, max_seq = max(span, int(r["time"].max()) + 1000), max(max_seq, int(r["seq"].max()))
    dst.parent.mkdir(parents=True, exist_ok=True)
    for cpu, f in files:
        data = np.fromfile(f, np.uint8)
        version, order = detect(bytes(data[:4]))
        offs = walk(data, version, order, True).offsets
        r = records(data, offs, dtype(version, order))
        notify = (r["action"] >> 16) & (1 << 10) > 0
        with open(dst.parent / f"{dst.name}.blktrace.{cpu}", "wb") as out:
            for i in range(k):
                buf = data.copy()
                t = (r["time"] + np.uint64(i * span)).astype(order + "u8")
                rows(buf, 8)[offs + 8] = t.view(np.uint8).reshape(-1, 8)
                s = np.where(notify, r["seq"], r["seq"] + np.uint32(i * max_seq)).astype(order + "u4")
                rows(buf, 4)[offs + 4] = s.view(np.uint8).reshape(-1, 4)
                buf.tofile(out)


if __name__ == "__main__":
    main()
