"""Seek distance and sequentiality of the request stream.

For consecutive events of one kind (D: as issued to the device; Q: as the filesystem queued them) on one device,
in time order, the seek distance is start - previous end (sectors; end = sector + nsectors): 0 is a sequential
continuation, negative a jump back. Sequentiality is the share of distance-0 steps (Wilson 95% interval); the
mean absolute distance carries a t interval, the median a distribution-free one. Reads and writes are also
taken separately (op = read / write, each stream on its own), and together (op = all); so are the requests the
filesystem marks as metadata (class meta: `M` in RWBS, REQ_META) and the others (class data), against all of
them (class all): a metadata request's distance is from the previous metadata request's end. A stream is one
(op, class, device); op all takes the requests that are neither reads nor writes too (discards), as it did
before the class split, and class all rows are the streams of before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.stats.log_histogram import LogHistogram
from blkscope.analysis.stats.uncertainty import Sorted


def _variants(base: pl.LazyFrame | pl.DataFrame) -> list:
    """The requests of every stream family, in the tables' row order: (op, class) as given (reads and writes),
    op all (class as given), class all (reads and writes), op and class all."""
    known = base.filter(pl.col("op").is_not_null())
    whole = base.with_columns(op=pl.lit("all"))
    return [known, whole, *(f.with_columns(**{"class": pl.lit("all")}) for f in (known, whole))]


def _select() -> dict:
    from blkscope.analysis.popularity.frequency import class_expr, op_expr

    return dict(dev=pl.col("dev_major").cast(pl.Int64) * (1 << 20) + pl.col("dev_minor").cast(pl.Int64),
                time_ns="time_ns", sector="sector", op=op_expr(), **{"class": class_expr()})  # fmt: skip


def distances(events: Sequence[Path] | pl.LazyFrame, action: str = "D") -> pl.DataFrame:
    """Columns op (read/write/all), class (data/meta/all), dev, time_ns, sector, distance (null for a stream's
    first request)."""
    from blkscope.parts import events_files

    lf = events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events_files(events)])
    base = (
        lf.filter((pl.col("action") == action) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null())
        .select(**_select(), nsectors="nsectors")
        .with_row_index("order")
    )
    keys = ["op", "class", "dev"]

    def dist(lf: pl.LazyFrame) -> pl.LazyFrame:
        lf = lf.sort("time_ns", "order")
        prev_end = (pl.col("sector") + pl.col("nsectors")).shift(1).over(keys, order_by=["time_ns", "order"])
        return lf.with_columns(distance=pl.col("sector") - prev_end).select(
            "op", "class", "dev", "time_ns", "sector", "distance"
        )

    return pl.concat([dist(p) for p in _variants(base)]).collect(engine="streaming")


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return float(c - h), float(c + h)


def summary(dist: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for (op, cls), g in dist.group_by("op", "class", maintain_order=True):
        rows.append(_row(op, cls, g["distance"].drop_nulls().to_numpy()))
    return pl.DataFrame(rows)


# above this many requests in one stream, the median comes from a log histogram of |distance| (within 0.5 %), not
# from the sorted distances (8 bytes per request in memory)
EXACT_MAX = 50_000_000


def summarise(events: Sequence[Path], action: str = "D", rows_per_window: int = 500_000,
              exact_max: int = EXACT_MAX):
    """(summary(distances(events)), histogram(distances(events))) without holding the distances table: the
    events are read in time windows (as blkscope.analysis.timing.replay reads them), each stream's last end carried
    from window to window, and only the distances kept (8 bytes per request and stream: a request is in four,
    its (op, class), op all, class all and both; above exact_max requests a stream keeps counts and a log
    histogram instead, in bounded memory)."""
    from blkscope.analysis.timing.windows import time_ordered

    cols = ["dev_major", "dev_minor", "action", "sector", "nsectors", "rwbs"]
    keep = (pl.col("action") == action) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null()
    _, _, chunks = time_ordered(events, cols, rows_per_window, keep)
    last: dict[tuple[str, str, int], int] = {}  # (op, class, dev) -> end of the stream's last request so far
    found: dict[tuple[str, str], _Distances] = {}  # (op, class) -> its distances so far, in order of first sight
    for chunk in chunks:  # time-ordered, ties in the files' order
        w = chunk.select(**_select(), end=pl.col("sector") + pl.col("nsectors"))
        _add_chunk(w, last, found, exact_max)
    # summary's order: the families in _variants' order, each stream in order of first sight
    streams = sorted(found, key=lambda k: (k[0] == "all") + 2 * (k[1] == "all"))
    rows = [found[k].row(*k) for k in streams]
    hist = [found[k].histogram(*k) for k in streams]
    hs = pl.concat(hist).sort("op", "class", "bucket") if hist else pl.DataFrame(schema=HIST)
    return pl.DataFrame(rows), hs


HIST = {"op": pl.Utf8, "class": pl.Utf8, "bucket": pl.Int64, "count": pl.Int64}
OP_NAMES, CLASS_NAMES = ("read", "write", "all"), ("data", "meta", "all")


def _add_chunk(w: pl.DataFrame, last: dict, found: dict, exact_max: int) -> None:
    """One time-ordered chunk's distances into `found`, stream by stream, in numpy: the families of _variants (op
    and class as given, op all, class all, both), each stream's first distance from the end `last` carried."""
    op = w["op"].replace_strict(list(OP_NAMES[:2]), [0, 1], default=2, return_dtype=pl.Int64).to_numpy()
    cls = (w["class"] == "meta").cast(pl.Int64).to_numpy()
    dev, sector, end = (w[c].to_numpy() for c in ("dev", "sector", "end"))
    devs, dev_code = np.unique(dev, return_inverse=True)
    known = op < 2  # reads and writes: op all also takes the requests that are neither
    for rows, o, c in ((known, op, cls), (None, 2, cls), (known, op, 2), (None, 2, 2)):
        pick = np.arange(op.size) if rows is None else np.flatnonzero(rows)
        if pick.size == 0:  # a chunk of discards alone: no read or write stream in it
            continue
        pair = (np.broadcast_to(o, op.shape)[pick] * 3 + np.broadcast_to(c, op.shape)[pick]).astype(np.int64)
        key = pair * devs.size + dev_code[pick]
        order = np.argsort(key, kind="stable")  # each stream's requests together, in time order
        k, e, sec = key[order], end[pick][order], sector[pick][order]
        first = np.concatenate([[True], k[1:] != k[:-1]])
        dist = np.empty(k.size, dtype=np.int64)
        dist[1:] = sec[1:] - e[:-1]
        ok = np.ones(k.size, dtype=bool)
        stream = {int(x): (OP_NAMES[x // devs.size // 3], CLASS_NAMES[x // devs.size % 3], int(devs[x % devs.size]))
                  for x in np.unique(k)}  # fmt: skip
        for i in np.flatnonzero(first):  # a stream's first request: from the end carried, or none
            prev = last.get(stream[int(k[i])])
            ok[i] = prev is not None
            dist[i] = sec[i] - (prev or 0)
        for i in np.flatnonzero(np.concatenate([first[1:], [True]])):  # a stream's last request
            last[stream[int(k[i])]] = int(e[i])
        back = np.empty_like(order)
        back[order] = np.arange(order.size)
        dist, ok = dist[back], ok[back]  # rows in time order again
        seen, at = np.unique(pair, return_index=True)
        for p in seen[np.argsort(at)]:  # (op, class) in order of first sight, as polars' group_by keeps them
            d = dist[(pair == p) & ok]
            found.setdefault((OP_NAMES[p // 3], CLASS_NAMES[p % 3]), _Distances(exact_max)).add(d)


class _Distances:
    """One (op, class)'s seek distances, window by window: exact counts and the signed log2 histogram always; the
    distances themselves while they fit under exact_max, a log histogram of their absolute values after."""

    def __init__(self, exact_max: int) -> None:
        self.exact_max = exact_max
        self.parts: list[np.ndarray] | None = []
        self.held = 0
        self.hist: LogHistogram | None = None
        self.n = self.zeros = self.back = 0
        self.buckets: dict[int, int] = {}

    def add(self, d: np.ndarray) -> None:
        self.n += d.size
        self.zeros += int(np.sum(d == 0))
        self.back += int(np.sum(d < 0))
        nz = d[d != 0]
        b = np.sign(nz) * (np.floor(np.log2(np.abs(nz).astype(np.float64))).astype(np.int64) + 1)
        keys, counts = np.unique(np.concatenate([b, np.zeros(d.size - nz.size, np.int64)]), return_counts=True)
        for k, c in zip(keys.tolist(), counts.tolist(), strict=True):
            self.buckets[k] = self.buckets.get(k, 0) + c
        if self.parts is not None:
            self.parts.append(d)
            self.held += d.size
            if self.held <= self.exact_max:
                return
            self.hist = LogHistogram()
            for p in self.parts:
                self.hist.add(np.abs(p))
            self.parts = None
        else:
            self.hist.add(np.abs(d))

    def row(self, op: str, cls: str) -> dict:
        if self.parts is not None:
            return _row(op, cls, np.concatenate(self.parts) if self.parts else np.zeros(0, np.int64))
        return _summary(op, cls, self.n, self.zeros, self.back, self.hist)

    def histogram(self, op: str, cls: str) -> pl.DataFrame:
        keys = sorted(self.buckets)
        return pl.DataFrame(  # schema given: a stream with no distances would make `op` a Null column
            {"op": [op] * len(keys), "class": [cls] * len(keys), "bucket": keys,
             "count": [self.buckets[k] for k in keys]}, schema=HIST,
        )  # fmt: skip


def _row(op: str, cls: str, d: np.ndarray) -> dict:
    """One stream's summary from its distances."""
    a = Sorted(np.sort(np.abs(d)).astype(np.float64))
    return _summary(op, cls, int(d.size), int(np.sum(d == 0)), int(np.sum(d < 0)), a)


def _summary(op: str, cls: str, n: int, zeros: int, back: int, a: Sorted | LogHistogram) -> dict:
    """One stream's row from its counts and its absolute distances (sorted, or a log histogram of them)."""
    m, lo, hi = a.mean_ci(0.95)
    med, mlo, mhi = a.quantile_ci(0.5, 0.95)
    slo, shi = _wilson(zeros, n)
    return {
        "op": op, "class": cls, "n": n, "sequential_share": zeros / n if n else None, "sequential_lo": slo,
        "sequential_hi": shi, "backward_share": back / n if n else None, "mean_abs_sectors": m, "mean_abs_lo": lo,
        "mean_abs_hi": hi, "median_abs_sectors": med, "median_abs_lo": mlo, "median_abs_hi": mhi,
    }  # fmt: skip


def histogram(dist: pl.DataFrame) -> pl.DataFrame:
    """Counts per signed log2 bucket of the distance: bucket = sign(d) * (floor(log2 |d|) + 1), 0 for d = 0;
    so +-1 holds |d| = 1, +-2 holds 2..3, +-3 holds 4..7, ..."""
    d = pl.col("distance")
    b = pl.when(d == 0).then(0).otherwise(d.sign() * (d.abs().cast(pl.Float64).log(2).floor().cast(pl.Int64) + 1))
    return (
        dist.filter(d.is_not_null())
        .group_by("op", "class", bucket=b)
        .len(name="count")
        .sort("op", "class", "bucket")
        .with_columns(pl.col("count").cast(pl.Int64))
    )
