"""Put a set's files in the page cache in the state a read from disk leaves: each file dropped from the cache
(posix_fadvise DONTNEED) and read once in 1 MiB reads, so read-ahead fills the cache with large folios.
`--drop`: only drop them (a set done with, and its outputs: the cache stays small, so no run pays for reclaim).

Why: the same trace read from the cache costs the kernel up to 20 % more when its pages are 4 KB folios (files
written 4 KB at a time and never evicted, as tile_binary.py and export-blktrace leave them) than when they came
from disk (bench/RESULTS.md, "the page cache's folio sizes"). ab_binary.sh puts every set in one known state before
each round, for blkparse and blkscope alike. Usage: python page_cache.py [--drop] FILE..."""

import os
import sys

drop = sys.argv[1:2] == ["--drop"]
for path in sys.argv[1 + drop :]:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)  # DONTNEED drops clean pages only
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        while not drop and os.read(fd, 1 << 20):
            pass
    finally:
        os.close(fd)
