"""Reuse distance, the LRU miss-ratio curve (MRC) and the working-set size of a trace's 4 KiB pages.

The page accesses are those of the access frequency (blkscope.analysis.popularity.frequency): the events of one action
(C completions by default) with data, each counted once per page it touches ("cover"; or the SSD study's rule), reads
and writes told apart by RWBS; in time order (ties in the files' order), each request's pages in ascending order. A
page's reuse (stack) distance is the number of distinct other pages accessed since its last access; an LRU cache of c
pages hits exactly the accesses of distance < c, so the MRC at c is (cold misses + accesses of distance >= c) /
accesses.

One pass of `blkscope-native reuse` (native/src/reuse/) over the events in time order computes every profile at
once. The program reads the events files itself when they are its own Parquet (blkscope-native's writer:
native/src/reuse/parquet_in.rs, the same time order); other files (written by polars, pyarrow ...) are fed to
it window by window (blkscope.analysis.timing.windows). The program also writes the MRC table itself (`mrc`:
native/src/reuse/mrc.rs, the rows reuse_tables.mrc makes), so a curve needs no Python at all: `blkscope-native
reuse --exact --stream all/all:15 --events EVENTS.parquet --mrc MRC.parquet` (bench/RESULTS.md, issue T). The
profiles:
- exact: Olken's algorithm (a Fenwick tree over last-access times), O(log n) per access, memory ~50 bytes per
  distinct page;
- SHARDS (Waldspurger et al., FAST'15) at a fixed rate R, with the SHARDS_adj correction: pages sampled by a
  hash of the page number, distances scaled by 1/R; memory ~R x that of the exact profile;
- SHARDS at a fixed size: at most S sampled pages (the rate drops as the trace shows more pages).
Sampled distances are binned (width 1 below 128, then 2^(1/128) = 0.54 % wide), the exact ones are not.
The working-set size is the number of distinct pages accessed in each time window.
Every profile is of one stream: the requests of an op (all, read, write) and a class (all; meta: `M` in RWBS,
REQ_META; data: the rest), the native pass keeping each stream's own sequence. `exact_max_accesses` (`blkscope
reuse --auto`) keeps the exact profile for traces up to that many page accesses and leaves SHARDS alone above.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from blkscope import native

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

# polars, pyarrow and numpy are imported where needed: on the direct path (the program reads the Parquet) they
# load while it runs, not before (~0.3 s of a 10.5 M-event run, bench/RESULTS.md)

# streams: which requests' pages form the sequence, an (op, class) pair; the native pass takes a mask over the
# request's kind k = is_write + 2 * is_metadata (bit k set: the stream takes it), the op's mask AND the class's
OP_MASKS = {"all": 15, "read": 5, "write": 10}
CLASS_MASKS = {"all": 15, "data": 3, "meta": 12}  # meta: M in RWBS (REQ_META); data: the rest
MIB_PAGES = 256  # 4 KiB pages per MiB
# events per time window read: 4x the default, and at least 8 row groups, as the windows keep 4 numeric columns
# of the requests alone (each window is one query: 2M rows took 0.08 s less than 500k on 10.5 M events, for
# ~30 MiB more; on 105 M events in 1M-row groups, 8M-row windows took 3.4 s against 5.0 s at 2M, +70 MiB)
ROWS_PER_WINDOW = 2_000_000
GROUPS_PER_WINDOW = 8


def stream_key(name: str) -> tuple[str, str]:
    """A stream's (op, class) from its name: `op/class` (read/meta), an op alone (class all), or data or meta
    alone (op all)."""
    op, _, cls = name.partition("/")
    if not cls:
        op, cls = ("all", op) if op in ("data", "meta") else (op, "all")
    if op not in OP_MASKS or cls not in CLASS_MASKS:
        raise ValueError(f"unknown stream {name!r}: op/class with op one of {', '.join(OP_MASKS)} and class one of "
                         f"{', '.join(CLASS_MASKS)} (or all, read, write, data, meta alone)")  # fmt: skip
    return op, cls


def streams_by_class(ops: Sequence[str], classes: Sequence[str]) -> list[str]:
    """Every op of `ops` (all, read, write) crossed with every class of `classes`, as op/class names; the other
    names among `ops` (data, meta, read/meta, ...) stand for themselves."""
    out = []
    for o in ops:
        keys = [stream_key(f"{o}/{c}") for c in classes] if o in OP_MASKS else [stream_key(o)]
        out += [f"{op}/{cls}" for op, cls in keys]
    return list(dict.fromkeys(out))


# `auto` (exact_max_accesses): the exact profile holds every distinct page of every stream (~50 bytes each, and
# a trace's distinct pages are at most its accesses; an access falls in up to four of the nine op x class
# streams), so 25 M page accesses bound its memory at ~5 GB even when no page is touched twice, and about 5 s
# of the pass per stream (bench/RESULTS.md: 34 M accesses in 6.6 s, 16.6 s before 2026-11-27). Above it the
# fixed-size SHARDS profile stands in: memory of AUTO_SHARDS_SIZE sampled pages per stream, whatever the
# trace's size, and within 0.005 of the exact curve at 8,192 sampled pages on our real runs (bench/RESULTS.md).
AUTO_EXACT_MAX_ACCESSES = 25_000_000
AUTO_SHARDS_SIZE = 8192


def page_accesses(events: Sequence[Path] | pl.LazyFrame, action: str = "C", page_kib: int = 4,
                  mode: str = "cover") -> int:  # fmt: skip
    """The page accesses of every request the reuse pass counts (stream all/all), by a streaming sum over the
    events (no order needed): what `auto` compares with its limit."""
    import polars as pl

    from blkscope.parts import events_files

    lf = events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events_files(events)])
    ps, s, n = page_kib * 2, pl.col("sector"), pl.col("nsectors")
    pages = (n + ps - 1) // ps if mode == "ssd-study" else (s + n - 1) // ps - s // ps + 1
    got = lf.filter((pl.col("action") == action) & (n > 0) & s.is_not_null() & (s >= 0) & _has_data()).select(
        pages.cast(pl.Int64).sum()
    ).collect(engine="streaming")  # fmt: skip
    return int(got.item() or 0)


@dataclass
class Profile:
    """One stream's (op, cls) reuse-distance histogram by one method: (distance, mass) in increasing distance,
    and the cold misses (first accesses of a page); masses of a sampled method are scaled to estimate counts."""

    op: str
    cls: str
    method: str
    rate: float
    size_limit: int
    requests: int
    accesses: int
    sampled_accesses: int
    sampled_pages: int
    cold: float
    distance: np.ndarray
    mass: np.ndarray

    @property
    def stream(self) -> str:
        return f"{self.op}/{self.cls}"

    @property
    def total(self) -> float:
        return float(self.cold + self.mass.sum())

    @property
    def distinct_pages(self) -> float:
        """Distinct pages: exact, or the sample's cold misses scaled to the whole (SHARDS' estimate)."""
        return self.cold * (self.accesses / self.total) if self.total else 0.0

    def miss_ratio(self, cache_pages: np.ndarray) -> np.ndarray:
        """LRU miss ratio at each cache size (pages): (cold + mass at distance >= c) / total."""
        import numpy as np

        c = np.asarray(cache_pages, dtype=np.float64)
        if not self.total:
            return np.full(c.shape, np.nan)
        above = np.concatenate([np.cumsum(self.mass[::-1])[::-1], [0.0]])  # mass at index >= k
        return (self.cold + above[np.searchsorted(self.distance, c, side="left")]) / self.total


@dataclass
class Result:
    profiles: list[Profile]
    wss: pl.DataFrame  # op, class, window, start_s, pages
    window_s: float
    action: str
    exact_max_accesses: int | None = None  # the limit `auto` compared the page accesses with (None: not asked)
    counted_accesses: int | None = None  # the page accesses `auto` counted (None: not asked)

    def profile(self, stream: str, method: str = "exact") -> Profile:
        key = stream_key(stream)
        return next(p for p in self.profiles if (p.op, p.cls) == key and p.method == method)


def _rwbs(flag: str) -> pl.Expr:
    import polars as pl

    return pl.col("rwbs").str.contains(flag, literal=True)  # literal: no regex engine, faster


def _has_data() -> pl.Expr:
    return _rwbs("R") | _rwbs("W")


def _class_expr() -> pl.Expr:
    import polars as pl

    write = (~_rwbs("R") & _rwbs("W")).cast(pl.UInt8)
    return (write + 2 * _rwbs("M").cast(pl.UInt8)).cast(pl.UInt8)


def profile(events: Sequence[Path] | pl.LazyFrame, *, exact: bool = True, rates: Sequence[float] = (),
            sizes: Sequence[int] = (), adj: bool = True, streams: Sequence[str] = ("all", "read", "write"),
            action: str = "C", page_kib: int = 4, mode: str = "cover", window_s: float = 1.0,
            rows_per_window: int = ROWS_PER_WINDOW, dump_pages: Path | None = None,
            exact_max_accesses: int | None = None, wss: bool = True, direct: bool | None = None,
            meanwhile: Callable[[], object] | None = None, mrc: Path | None = None) -> Result:  # fmt: skip
    """Every profile asked for (exact; SHARDS at each rate; SHARDS at each size) of every stream, one pass.
    `dump_pages`: also write the first stream's page accesses there, in order (u64 little-endian).
    `exact_max_accesses` (auto): the exact profile only if the trace has at most that many page accesses
    (page_accesses, a pass before); above, the SHARDS profiles asked for alone (fixed-size AUTO_SHARDS_SIZE if
    none is). `wss=False`: no working set (Result.wss empty), which costs ~15 % of the native pass.
    `direct`: the program reads the events files itself (None: when it takes them all, else the pipe; True:
    it must; False: the pipe). `meanwhile`: called once, while the program reads the files itself (else after
    the pass): the caller's own loading (its tables' modules) overlaps the pass instead of following it.
    `mrc`: the program also writes the miss-ratio-curve table there (Parquet), the rows reuse_tables.mrc makes
    from the result (native/src/reuse/mrc.rs; tests/test_reuse.py compares them)."""
    if mode not in ("cover", "ssd-study"):
        raise ValueError(f"mode must be cover or ssd-study, not {mode!r}")
    if not (exact or rates or sizes):
        raise ValueError("no profile asked for: exact, a SHARDS rate or a SHARDS size")
    if any(not 0 < r <= 1 for r in rates) or any(s < 1 for s in sizes):
        raise ValueError(f"SHARDS rates must be in (0, 1] and sizes at least 1 page, not {[*rates, *sizes]}")
    if exact_max_accesses is not None and exact_max_accesses < 0:
        raise ValueError(f"the exact profile's limit must be at least 0 page accesses, not {exact_max_accesses}")
    keys = list(dict.fromkeys(stream_key(s) for s in streams))
    counted = None
    if exact and exact_max_accesses is not None:
        counted = page_accesses(events, action, page_kib, mode)
        if counted > exact_max_accesses:
            exact, sizes = False, sizes if sizes or rates else (AUTO_SHARDS_SIZE,)
    window_ns = int(round(window_s * 1e9)) if wss else 0  # 0: the native pass counts no working set
    cmd = [str(native.program()), "reuse", "--page-sectors", str(page_kib * 2), "--mode", mode, "--window",
           str(window_ns)]  # fmt: skip
    cmd += ["--exact"] * exact + [a for r in rates for a in ("--shards-adj" if adj else "--shards-rate", str(r))]
    cmd += [a for s in sizes for a in ("--shards-size", str(int(s)))]
    cmd += [a for o, c in keys for a in ("--stream", f"{o}/{c}:{OP_MASKS[o] & CLASS_MASKS[c]}")]
    cmd += ["--dump-pages", str(dump_pages)] if dump_pages else []
    cmd += ["--mrc", str(mrc)] if mrc else []
    ran: list[bool] = []

    def once() -> None:
        if meanwhile is not None and not ran:
            ran.append(True)
            meanwhile()

    with tempfile.TemporaryDirectory(prefix="blkscope-reuse-") as tmp:
        cmd += ["--out", tmp]
        r = None
        if direct is not False and not _is_lazy(events):
            r = _direct(cmd, events, action, window_s, required=bool(direct), meanwhile=once)
        if r is None:
            _pipe(cmd, events, action, rows_per_window)
            r = _read(Path(tmp), window_s, action)
    once()
    r.exact_max_accesses, r.counted_accesses = exact_max_accesses, counted
    return r


def _is_lazy(events: object) -> bool:
    import sys

    pl = sys.modules.get("polars")  # a LazyFrame means polars is loaded already
    return pl is not None and isinstance(events, pl.LazyFrame)


REFUSED = 3  # blkscope-native reuse --events: a file its reader does not take (not its own Parquet)


def _direct(cmd: list[str], events: Sequence[Path], action: str, window_s: float, required: bool,
            meanwhile: Callable[[], None]) -> Result | None:  # fmt: skip
    """The pass reading the events files itself; None when it refuses one (unless `required`). polars and
    numpy are imported while it runs (the tables need them after), then `meanwhile` runs."""
    from blkscope.parts import events_files

    files = [a for f in events_files(events) for a in ("--events", str(f))]
    if not files:
        return None
    proc = subprocess.Popen([*cmd, *files, "--action", action], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        import numpy  # noqa: F401  (one OpenBLAS thread: blkscope.cli)
        import polars  # noqa: F401

        meanwhile()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    err = proc.communicate()[1].decode(errors="replace").strip()
    if proc.returncode == REFUSED and not required:
        return None
    if proc.returncode != 0:
        raise RuntimeError(f"blkscope-native reuse failed (exit {proc.returncode}): {err}")
    return _read(Path(cmd[cmd.index("--out") + 1]), window_s, action)


def _pipe(cmd: list[str], events: Sequence[Path] | pl.LazyFrame, action: str, rows_per_window: int) -> None:
    """The pass fed on stdin: the events read here (polars), window by window in time order."""
    import numpy as np
    import polars as pl

    from blkscope.analysis.timing.windows import time_ordered

    keep = (pl.col("action") == action) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null() & _has_data()
    # the class computed before the sort, so the windows sort numbers only, not the action and RWBS strings
    t0, _, chunks = time_ordered(events, ["sector", "nsectors", _class_expr().alias("c")], rows_per_window, keep,
                                 GROUPS_PER_WINDOW)  # fmt: skip
    proc = subprocess.Popen([*cmd, "--t0", str(t0)], stdin=subprocess.PIPE)
    try:
        for chunk in chunks:
            w = chunk.select(t="time_ns", s="sector", n="nsectors", c="c")
            proc.stdin.write(np.uint64(w.height).tobytes())
            for col, dt in (("t", "<i8"), ("s", "<i8"), ("n", "<i8"), ("c", "u1")):
                proc.stdin.write(w[col].to_numpy().astype(dt, copy=False).tobytes())
        proc.stdin.write(np.uint64(0).tobytes())
        proc.stdin.close()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    if proc.wait() != 0:
        raise RuntimeError(f"blkscope-native reuse failed (exit {proc.returncode})")


def _read(d: Path, window_s: float, action: str) -> Result:
    import numpy as np
    import polars as pl

    doc = json.loads((d / "reuse.json").read_text())
    profiles, wss = [], []
    for st in doc["streams"]:
        op, cls = st["name"].split("/")
        for p in st["profiles"]:
            pairs = np.fromfile(d / p["hist"], dtype="<f8").reshape(-1, 2)
            profiles.append(Profile(
                op=op, cls=cls, method=p["method"], rate=p["rate"], size_limit=p["size_limit"],
                requests=st["requests"], accesses=p["accesses"], sampled_accesses=p["sampled_accesses"],
                sampled_pages=p["sampled_pages"], cold=p["cold"], distance=pairs[:, 0].copy(), mass=pairs[:, 1].copy(),
            ))  # fmt: skip
        schema = {"op": pl.Utf8, "class": pl.Utf8, "window": pl.Int64, "pages": pl.Int64}
        cols = {"op": op, "class": cls, "window": st["wss_window"], "pages": st["wss_pages"]}
        wss.append(pl.DataFrame(cols, schema=schema))
    w = pl.concat(wss).with_columns(start_s=pl.col("window") * window_s)
    w = w.select("op", "class", "window", "start_s", "pages")
    return Result(profiles, w, window_s, action)
