"""SHARDS' error against the exact LRU miss-ratio curve on real traces: per run, the mean and largest absolute
difference over every cache size 1..D (blkscope.analysis.characterise.reuse_tables.error), op all, at fixed rates 0.001,
0.01, 0.1 (SHARDS_adj) and fixed sizes 1024 and 8192 pages.

Usage: python shards_error.py OUT.tsv EVENTS.parquet...   (run id: the directory above events.parquet)
"""

import sys
from pathlib import Path

import polars as pl

from blkscope.analysis.characterise import reuse
from blkscope.analysis.characterise import reuse_tables as rt

rows = []
for ev in map(Path, sys.argv[2:]):
    r = reuse.profile([ev], rates=[0.001, 0.01, 0.1], sizes=[1024, 8192], streams=["all"])
    s = rt.summary(r).with_columns(run=pl.lit(ev.parent.name))
    rows.append(s.select("run", "method", "rate", "size_limit", "accesses", "distinct_pages", "sampled_pages", "mae",
                         "max_abs_error"))  # fmt: skip
    print(rows[-1], file=sys.stderr)
pl.concat(rows).write_csv(sys.argv[1], separator="\t")
