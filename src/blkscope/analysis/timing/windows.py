"""A trace's events read in time windows with bounded memory, for analyses that need time order over the
whole trace (blkscope.analysis.timing.replay: latency stages and queue depth; seek).

Row groups are the unit: their time ranges are taken once (from Parquet statistics where the file has them,
else from one read of the time_ns column: blkscope-native's writer stores no min/max for it), and a window
reads only the row groups that overlap it, in file order (so a stable sort by time keeps the files' order of
ties, as a sort of the whole trace does). Files that are time-ordered per CPU, as the ingest writes them, put
each row group in one or two windows: the trace is read about once. A trace split into parts is the list of
its part files in order (blkscope.parts.events_files).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

ROWS_PER_WINDOW = 500_000  # events per window on average: reading and sorting one takes ~300 MB (measured)
# the columns read: names, or expressions of the filtered events (fewer, narrower columns to sort: `where` may
# test columns that are not kept)
Columns = Sequence[str | pl.Expr]


def _with_time(columns: Columns) -> list[str | pl.Expr]:
    names = [c for c in columns if isinstance(c, str)]
    exprs = [c for c in columns if not isinstance(c, str)]
    return [*dict.fromkeys(names), *exprs, *["time_ns"] * ("time_ns" not in names)]


class Source:
    """The events files of one trace and the time range of every row group."""

    def __init__(self, events: Sequence[Path]) -> None:
        from blkscope.parts import events_files

        files = [str(f) for f in events_files(events)]
        self.files = [pq.ParquetFile(f) for f in files]
        self.groups: list[tuple[int, int, int, int]] = []  # (file, row group, min time, max time)
        self.rows = 0
        for k, f in enumerate(self.files):
            col = f.schema_arrow.get_field_index("time_ns")
            for g in range(f.metadata.num_row_groups):
                md = f.metadata.row_group(g)
                self.rows += md.num_rows
                if md.num_rows == 0:
                    continue
                st = md.column(col).statistics
                if st is not None and st.has_min_max:
                    lo, hi = st.min, st.max
                else:
                    import pyarrow.compute as pc  # only here: its import alone takes ~60 ms

                    mm = pc.min_max(f.read_row_group(g, columns=["time_ns"]).column(0))
                    lo, hi = mm["min"].as_py(), mm["max"].as_py()
                self.groups.append((k, g, int(lo), int(hi)))
        self.scans = [pl.scan_parquet(f) for f in files]
        self.offsets = [np.concatenate([[0], np.cumsum([f.metadata.row_group(g).num_rows
                                                        for g in range(f.metadata.num_row_groups)])]).astype(int)
                        for f in self.files]  # fmt: skip
        self.t0 = min((g[2] for g in self.groups), default=0)
        self.t1 = max((g[3] for g in self.groups), default=0)
        self.group_rows = max((f.metadata.row_group(g).num_rows for f in self.files
                               for g in range(f.metadata.num_row_groups)), default=0)  # fmt: skip

    def windows(self, rows_per_window: int = ROWS_PER_WINDOW) -> list[tuple[int, int]]:
        """[lo, hi) time ranges of equal width covering the trace, about rows_per_window events each."""
        n = max(1, -(-self.rows // rows_per_window))
        edges = np.linspace(self.t0, self.t1 + 1, n + 1).round().astype(np.int64)
        return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]

    def read(self, lo: int, hi: int, columns: Columns, where: pl.Expr | None = None) -> pl.DataFrame:
        """The events with lo <= time_ns < hi (and `where`), only `columns`, in file order: polars reads the
        runs of overlapping row groups as row slices (2x faster than pyarrow row group by row group)."""
        cols = _with_time(columns)
        cond = (pl.col("time_ns") >= lo) & (pl.col("time_ns") < hi)
        cond = cond if where is None else cond & where
        runs: list[tuple[int, int, int]] = []  # (file, first row, rows) of consecutive overlapping groups
        for k, g, a, b in self.groups:
            if a < hi and b >= lo:
                start, n = self.offsets[k][g], self.offsets[k][g + 1] - self.offsets[k][g]
                if runs and runs[-1][0] == k and runs[-1][1] + runs[-1][2] == start:
                    runs[-1] = (k, runs[-1][1], runs[-1][2] + n)
                else:
                    runs.append((k, start, n))
        frames = [self.scans[k].slice(start, n).filter(cond).select(cols) for k, start, n in runs]
        if not frames:
            return self.scans[0].select(cols).clear().collect() if self.scans else pl.DataFrame()
        return pl.concat(frames, how="vertical_relaxed").collect()

    def chunks(self, columns: Columns, rows_per_window: int = ROWS_PER_WINDOW,
               where: pl.Expr | None = None) -> Iterator[pl.DataFrame]:  # fmt: skip
        """The whole trace in time order, window by window (ties in file order)."""
        for lo, hi in self.windows(rows_per_window):
            w = self.read(lo, hi, columns, where)
            if w.height:
                yield w.sort("time_ns", maintain_order=True)


def time_ordered(events: Sequence[Path] | pl.LazyFrame, columns: Columns, rows_per_window: int = ROWS_PER_WINDOW,
                 where: pl.Expr | None = None,
                 groups_per_window: int = 0) -> tuple[int, int, Iterator[pl.DataFrame]]:  # fmt: skip
    """(t0, t1 of all events, time-ordered chunks of the events `where` holds): Source windows for files; a
    LazyFrame (small inputs) as one chunk. `groups_per_window`: windows of at least that many of the largest
    row group (a window reads every group it overlaps whole: 2M-row windows of 1M-row groups read the trace
    ~1.5 times, 8M-row ones ~1.1 times)."""
    if isinstance(events, pl.LazyFrame):
        t = pl.col("time_ns")
        span, df = pl.collect_all([events.select(t.min(), t.max().alias("hi")),
                                   (events if where is None else events.filter(where)).select(_with_time(columns))])
        lo, hi = span.row(0)
        return int(lo or 0), int(hi or 0), iter([df.sort("time_ns", maintain_order=True)] * bool(df.height))
    src = Source(events)
    return src.t0, src.t1, src.chunks(columns, max(rows_per_window, groups_per_window * src.group_rows), where)
