"""Feed a trace's block events, in time order, to `blkscope-native replay` (native/src/replay.rs), which matches
every bio's latency stages as btt does and integrates the D-to-C queue depth in one pass.

Memory stays bounded: the events are read window by window in time (a polars scan of the events files
filtered on time_ns, which Parquet statistics prune to the row groups of the window), each window sorted
by time (ties keep the files' order, as the whole-trace sort did) and streamed to the native program, whose
state is only what is in flight. A trace ingested as parts (blkscope.parts) is the list of its part files
in order: the requests in flight at a part's boundary are carried on, so the answers equal the whole's.
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

ACTIONS = ("Q", "G", "I", "M", "F", "D", "C")  # codes 0..6 in replay.rs
ROWS_PER_WINDOW = 2_000_000  # events per window on average: ~100 MB of columns in flight
NULL = np.iinfo(np.int64).min


def _scan(events: Sequence[Path] | pl.LazyFrame) -> pl.LazyFrame:
    if isinstance(events, pl.LazyFrame):
        return events
    from blkscope.parts import events_files

    return pl.scan_parquet([str(p) for p in events_files(events)])


def time_windows(lf: pl.LazyFrame, rows_per_window: int = ROWS_PER_WINDOW) -> list[tuple[int, int]]:
    """[lo, hi) time ranges covering the trace with about rows_per_window events each (equal widths)."""
    span = lf.select(t0=pl.col("time_ns").min(), t1=pl.col("time_ns").max(), n=pl.len()).collect().row(0)
    t0, t1, n = int(span[0] or 0), int(span[1] or 0), int(span[2])
    edges = np.linspace(t0, t1 + 1, max(1, -(-n // rows_per_window)) + 1).round().astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


class Replay:
    """The native program's outputs in a temporary directory: per-bio columns and the queue depth."""

    def __init__(self, tmp: tempfile.TemporaryDirectory, rw_names: list[str | None]) -> None:
        self._tmp = tmp
        self.dir = Path(tmp.name)
        self.rw_names = rw_names
        self.depth = json.loads((self.dir / "queue_depth.json").read_text())

    def column(self, name: str) -> np.ndarray:
        dt = np.uint32 if name == "rw" else np.int64
        return np.fromfile(self.dir / f"{name}.bin", dtype=dt)

    def close(self) -> None:
        self._tmp.cleanup()


def run(events: Sequence[Path] | pl.LazyFrame, bin_s: float = 1.0, rows_per_window: int = ROWS_PER_WINDOW) -> Replay:
    lf = _scan(events)
    windows = time_windows(lf, rows_per_window)
    t0, t1 = windows[0][0], windows[-1][1] - 1
    io = lf.filter(
        pl.col("action").is_in(ACTIONS) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null()
    ).select(
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
        for lo, hi in windows:
            w = io.filter((pl.col("t") >= lo) & (pl.col("t") < hi)).collect()
            if w.is_empty():
                continue
            w = w.sort("t", maintain_order=True)  # ties keep the files' order
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
