"""Tile a real tracefs capture (ingested events.parquet) to N events, time-shifted copy after copy."""

import sys

import polars as pl

src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ev = pl.read_parquet(src).with_columns(seq=pl.lit(None, pl.Int64))
span = int(ev["time_ns"].max()) + 1000
reps = -(-n // ev.height)
tiles = [ev.with_columns(time_ns=pl.col("time_ns") + k * span) for k in range(reps)]
pl.concat(tiles).head(n).write_parquet(out)
