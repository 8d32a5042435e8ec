"""libCacheSim (PyPI `libcachesim`) on the page sequence our reuse pass saw, for bench/characterise/run.sh.

    python lcs_mrc.py convert PAGES.bin TRACE.oracleGeneral   # u64 pages (blkscope reuse --dump-pages) -> trace
    python lcs_mrc.py run TRACE.oracleGeneral MRC.parquet OUT.tsv [K]  # LRU at K cache sizes, one pass each

`run` simulates LRU at K (default 20) of the cache sizes of our exact curve's table (method exact, op all;
evenly spaced in its rows, the smallest and the largest included) and writes each size, libcachesim's miss
ratio, ours and libcachesim's seconds, so the bench also checks that the two agree.
"""

import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))  # the tests' tool, shared with the bench
from page_sequence import write_oracle_general  # noqa: E402


def convert(pages: Path, out: Path) -> None:
    write_oracle_general(np.fromfile(pages, dtype="<u8"), out)


def run(trace: Path, mrc: Path, out: Path, k: Path = Path("20")) -> None:
    import libcachesim as lcs

    ours = pl.read_parquet(mrc).filter((pl.col("op") == "all") & (pl.col("method") == "exact"))
    ours = ours.filter(pl.col("class") == "all") if "class" in ours.columns else ours
    ours = ours[np.unique(np.linspace(0, ours.height - 1, int(str(k))).round().astype(int)).tolist()]
    rows = []
    for c, mr in ours.select("cache_pages", "miss_ratio").iter_rows():
        t = time.perf_counter()
        reader = lcs.TraceReader(str(trace), lcs.TraceType.ORACLE_GENERAL_TRACE,
                                 lcs.ReaderInitParam(ignore_obj_size=True))  # fmt: skip
        theirs, _ = lcs.LRU(cache_size=int(c)).process_trace(reader)
        rows.append(f"{c}\t{theirs!r}\t{mr!r}\t{time.perf_counter() - t:.3f}")
    out.write_text("cache_pages\tlibcachesim\tblkscope\tseconds\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    {"convert": convert, "run": run}[sys.argv[1]](*map(Path, sys.argv[2:]))
