"""blkscope latency / queue-depth / seek vs blkparse -d + btt on a tiled real trace.

Usage: python bench/analyses/stages_vs_btt.py EVENTS.parquet COPIES WORKDIR
Tiles the events COPIES times (each copy shifted past the previous one in time), then times:
per_bio + stage_summary, dc_pairs + summary, seek distances + summary; and export-blktrace, blkparse -d, btt.
Prints Markdown rows and the largest relative difference of the stage means against btt.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from blkscope.analysis.timing import queue_depth as qd
from blkscope.analysis.timing import seek
from blkscope.analysis.timing.latency import per_bio, stage_summary


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main(events: Path, copies: int, work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    ev = pl.read_parquet(events)
    span = int(ev["time_ns"].max() - ev["time_ns"].min()) + 1_000_000
    tiled = pl.concat([ev.with_columns(pl.col("time_ns") + i * span) for i in range(copies)])
    big = work / "tiled.parquet"
    tiled.write_parquet(big)
    n = tiled.height
    print(f"| input | {n:,} events ({copies} copies of {events.parent.parent.name}) |")
    bios, t_bio = timed(lambda: per_bio([big]))
    summ, t_sum = timed(lambda: stage_summary(bios))
    rate = n / (t_bio + t_sum) / 1e6
    print(f"| blkscope per_bio + stage_summary | {t_bio:.1f} s + {t_sum:.1f} s ({rate:.2f} M events/s) |")
    (pairs, t0, t1), t_pairs = timed(lambda: qd.dc_pairs([big]))
    _, t_qd = timed(lambda: qd.summary(pairs, t0, t1))
    print(f"| blkscope queue depth (dc_pairs + summary) | {t_pairs + t_qd:.1f} s |")
    d, t_seek = timed(lambda: seek.summary(seek.distances([big])))
    print(f"| blkscope seek (distances + summary) | {t_seek:.1f} s |")
    _, t_exp = timed(lambda: subprocess.run(["blkscope", "export-blktrace", str(big), "-o", str(work / "t")],
                                            check=True, capture_output=True))  # fmt: skip
    _, t_dump = timed(lambda: subprocess.run(["blkparse", "-i", "t", "-d", "t.bin", "-O"], cwd=work, check=True,
                                             capture_output=True))  # fmt: skip
    out, t_btt = timed(lambda: subprocess.run(["btt", "-i", "t.bin"], cwd=work, check=True, capture_output=True,
                                              text=True).stdout)  # fmt: skip
    print(f"| export-blktrace + blkparse -d + btt | {t_exp:.1f} s + {t_dump:.1f} s + {t_btt:.1f} s |")
    sec = out.split("All Devices")[1].split("Device Overhead")[0]
    worst = 0.0
    for m in re.finditer(r"^(Q2G|G2I|Q2M|I2D|M2D|D2C|Q2C)\s+\S+\s+(\S+)\s+\S+\s+(\d+)", sec, re.M):
        st, mean_s, cnt = m.group(1).lower(), float(m.group(2)), int(m.group(3))
        row = summ.filter(pl.col("stage") == st).row(0, named=True)
        rel = abs(row["mean_us"] / 1e6 - mean_s) / mean_s
        worst = max(worst, rel)
        print(f"| {st} | btt {mean_s * 1e6:.3f} us (N {cnt:,}) | blkscope {row['mean_us']:.3f} us (n {row['n']:,}) "
              f"| rel diff {rel:.1e} |")  # fmt: skip
    print(f"| worst relative difference of stage means | {worst:.1e} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]))
