"""Per-action counts and D sector sum: blkparse text vs blkscope events.parquet."""

import sys

import polars as pl

counts: dict[str, int] = {}
dsum = 0
with open(sys.argv[1]) as f:
    for line in f:
        t = line.split()
        if len(t) >= 7 and "," in t[0] and t[0][0].isdigit():
            counts[t[5]] = counts.get(t[5], 0) + 1
            if t[5] == "D" and len(t) >= 10 and t[8] == "+":
                dsum += int(t[9])
ev = pl.scan_parquet(sys.argv[2])
mine = dict(ev.group_by("action").len().collect().iter_rows())
mdsum = ev.filter(pl.col("action") == "D").select(pl.col("nsectors").sum()).collect().item()
print("blkparse:", sorted(counts.items()), "D sectors", dsum)
print("blkscope:", sorted(mine.items()), "D sectors", mdsum)
print("IDENTICAL" if counts == mine and dsum == mdsum else "DIFFERENT")
