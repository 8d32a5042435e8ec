"""Tile an events.parquet K times, time-shifted copy after copy, into one Parquet file, one copy per write
(memory: one copy), as the scale bench's tile_binary.py tiles the binary set: the 105 M-event set from the
10.5 M-event bench set without a 5 GB binary export and ingest.

Usage: python tile_parquet.py EVENTS.parquet K OUT.parquet
"""

import sys

import polars as pl
import pyarrow.parquet as pq

src, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ev = pl.read_parquet(src)
span = int(ev["time_ns"].max()) + 1000
with pq.ParquetWriter(out, ev.to_arrow().schema) as w:
    for i in range(k):
        w.write_table(ev.with_columns(time_ns=pl.col("time_ns") + i * span).to_arrow(), row_group_size=1 << 20)
