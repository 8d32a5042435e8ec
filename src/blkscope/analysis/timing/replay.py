"""Feed a trace's block events, in time order, to `blkscope-native replay` (native/src/replay.rs), which matches
every bio's latency stages as btt does and integrates the D-to-C queue depth in one pass.

Memory stays bounded: the events are read window by window in time (blkscope.analysis.timing.windows: only the
row groups that overlap a window), each window sorted by time (ties keep the files' order, as the
whole-trace sort did) and streamed to the native program, whose state is only what is in flight. A trace
ingested as parts (blkscope.parts) is the list of its part files in order: the requests in flight at a
part's boundary are carried on, so the answers equal the whole's.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope import native
from blkscope.analysis.timing.windows import ROWS_PER_WINDOW, time_ordered

ACTIONS = ("Q", "G", "I", "M", "F", "D", "C")  # codes 0..6 in replay.rs
NULL = np.iinfo(np.int64).min


class Replay:
    """The native program's outputs in a temporary directory: per-bio columns and the queue depth."""

    def __init__(self, tmp: tempfile.TemporaryDirectory, rw_names: list[str | None]) -> None:
        self._tmp = tmp
        self.dir = Path(tmp.name)
        self.rw_names = rw_names
        self.depth = json.loads((self.dir / "queue_depth.json").read_text())

    def column(self, name: str, mmap: bool = False) -> np.ndarray:
        """One per-bio column; memory-mapped (read slice by slice) when `mmap`."""
        dt = np.uint32 if name == "rw" else np.int64
        path = self.dir / f"{name}.bin"
        if mmap and path.stat().st_size:
            return np.memmap(path, dtype=dt, mode="r")
        return np.fromfile(path, dtype=dt)

    def close(self) -> None:
        self._tmp.cleanup()


def run(events: Sequence[Path] | pl.LazyFrame, bin_s: float = 1.0, rows_per_window: int = ROWS_PER_WINDOW,
        actions: Sequence[str] = ACTIONS) -> Replay:
    """Replay the events of `actions` (all seven for latency stages; D and C are enough for the queue depth)."""
    cols = ["dev_major", "dev_minor", "action", "sector", "nsectors", "rwbs"]
    keep = pl.col("action").is_in(list(actions)) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null()
    t0, t1, chunks = time_ordered(events, cols, rows_per_window, keep)
    select = dict(
        dev=pl.col("dev_major").cast(pl.Int64) * (1 << 20) + pl.col("dev_minor").cast(pl.Int64),
        t=pl.col("time_ns").cast(pl.Int64),
        a=pl.col("action").replace_strict(ACTIONS, list(range(len(ACTIONS))), return_dtype=pl.UInt8),
        s=pl.col("sector").cast(pl.Int64),
        n=pl.col("nsectors").cast(pl.Int64),
        rw=pl.col("rwbs"),
    )  # fmt: skip
    tmp = tempfile.TemporaryDirectory(prefix="blkscope-replay-")
    cmd = [str(native.program()), "replay", "--out", tmp.name, "--t0", str(t0), "--t1", str(t1),
           "--bin", str(int(round(bin_s * 1e9)))]  # fmt: skip
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    rw_codes: dict[str | None, int] = {}
    try:
        for chunk in chunks:  # time-ordered, ties in the files' order
            w = chunk.select(**select)
            del chunk
            if w.is_empty():
                continue
            for v in w["rw"].unique(maintain_order=True).to_list():
                rw_codes.setdefault(v, len(rw_codes))
            rw = w["rw"].replace_strict(rw_codes, return_dtype=pl.UInt32, default=rw_codes.get(None, 0))
            if w["rw"].null_count():
                rw = pl.Series(np.where(w["rw"].is_null().to_numpy(), rw_codes[None], rw.to_numpy()), dtype=pl.UInt32)
            proc.stdin.write(np.uint64(w.height).tobytes())
            for col, dt in (("dev", "<i8"), ("t", "<i8"), ("a", "u1"), ("s", "<i8"), ("n", "<i8")):
                proc.stdin.write(w[col].to_numpy().astype(dt, copy=False).tobytes())
            proc.stdin.write(rw.to_numpy().astype("<u4", copy=False).tobytes())
            del w, rw
        proc.stdin.write(np.uint64(0).tobytes())
        proc.stdin.close()
        if proc.wait() != 0:
            raise RuntimeError(f"blkscope-native replay failed (exit {proc.returncode})")
    except BaseException:
        proc.kill()
        proc.wait()
        tmp.cleanup()
        raise
    names = [None] * len(rw_codes)
    for k, v in rw_codes.items():
        names[v] = k
    return Replay(tmp, names)


def bios_frame(r: Replay) -> pl.DataFrame:
    """One row per tracked Q (dev, rw, sector, nsectors, q_ns, g_ns ... c_ns), in Q order."""
    cols = {"dev": r.column("dev"), "sector": r.column("sector"), "nsectors": r.column("nsectors")}
    df = pl.DataFrame(cols).with_columns(
        rw=pl.Series(r.column("rw"), dtype=pl.UInt32).replace_strict(
            list(range(len(r.rw_names))), r.rw_names, return_dtype=pl.Utf8
        )
    )
    for k in ("q", "g", "i", "m", "d", "c"):
        x = pl.Series(f"{k}_ns", r.column(k))
        df = df.with_columns(pl.when(x != NULL).then(x).alias(x.name))
    return df.sort("q_ns", "dev", "sector").select("dev", "rw", "sector", "nsectors", "q_ns", "g_ns", "i_ns", "m_ns",
                                                   "d_ns", "c_ns")  # fmt: skip
