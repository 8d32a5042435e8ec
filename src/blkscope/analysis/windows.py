"""A trace's events read in time windows with bounded memory, for analyses that need time order over the
whole trace (blkscope.analysis.replay: latency stages and queue depth; seek).

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
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROWS_PER_WINDOW = 500_000  # events per window on average: reading and sorting one takes ~300 MB (measured)


class Source:
    """The events files of one trace and the time range of every row group."""

    def __init__(self, events: Sequence[Path]) -> None:
        from blkscope.parts import events_files

        self.files = [pq.ParquetFile(str(f)) for f in events_files(events)]
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
                    mm = pc.min_max(f.read_row_group(g, columns=["time_ns"]).column(0))
                    lo, hi = mm["min"].as_py(), mm["max"].as_py()
                self.groups.append((k, g, int(lo), int(hi)))
        self.t0 = min((g[2] for g in self.groups), default=0)
        self.t1 = max((g[3] for g in self.groups), default=0)

    def windows(self, rows_per_window: int = ROWS_PER_WINDOW) -> list[tuple[int, int]]:
        """[lo, hi) time ranges of equal width covering the trace, about rows_per_window events each."""
        n = max(1, -(-self.rows // rows_per_window))
        edges = np.linspace(self.t0, self.t1 + 1, n + 1).round().astype(np.int64)
        return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]

    def read(self, lo: int, hi: int, columns: list[str]) -> pl.DataFrame:
        """The events with lo <= time_ns < hi (only `columns`), in file order."""
        cols = list(dict.fromkeys([*columns, "time_ns"]))
        inside = (pl.col("time_ns") >= lo) & (pl.col("time_ns") < hi)
        parts = [
            pl.from_arrow(self.files[k].read_row_group(g, columns=cols)).filter(inside)  # row group by row group
            for k, g, a, b in self.groups
            if a < hi and b >= lo
        ]
        if not parts:
            return pl.DataFrame(schema={c: pl.from_arrow(self.files[0].schema_arrow.empty_table())[c].dtype
                                        for c in cols}) if self.files else pl.DataFrame()  # fmt: skip
        return pl.concat(parts, how="vertical_relaxed", rechunk=False)

    def chunks(self, columns: list[str], rows_per_window: int = ROWS_PER_WINDOW) -> Iterator[pl.DataFrame]:
        """The whole trace in time order, window by window (ties in file order)."""
        for lo, hi in self.windows(rows_per_window):
            w = self.read(lo, hi, columns)
            if w.height:
                yield w.sort("time_ns", maintain_order=True)
