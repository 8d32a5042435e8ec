"""The jobs of bench/scale/slurm.sh, summed up: `python slurm_summary.py T0 JOBDIR PARTS_JSON WHOLE_INGEST_JSON
EXACT_REUSE`. Prints each job (start and end in seconds after T0, the submission; wall, CPU, peak RSS from
measure.py), each path's span, CPU and largest job, the events of the parts against the whole ingest, and the
fixed-size SHARDS profile's error against the exact one. Exit 1 if a job left no measurement (it failed, or
was cancelled because one it depended on failed)."""

import json
import sys
from pathlib import Path

import polars as pl

t0, jobs = float(sys.argv[1]), Path(sys.argv[2])
parts, whole, exact = (Path(a) for a in sys.argv[3:6])
rows, failed = [], []
for f in sorted(jobs.glob("*.tsv")):
    r = f.read_text().split()
    if len(r) != 7:
        err = f.with_suffix(".err")
        failed.append(f"{f.stem}: {err.read_text().strip().splitlines()[-1:] if err.exists() else 'no log'}")
        continue
    start, wall = float(r[0]) - t0, float(r[2])
    rows.append({"job": f.stem, "start_s": start, "end_s": start + wall, "wall_s": wall, "cpu_s": float(r[3]) +
                 float(r[4]), "user_s": float(r[3]), "sys_s": float(r[4]), "tree_rss_mib": int(r[5]),
                 "max_rss_mib": int(r[6])})  # fmt: skip
df = pl.DataFrame(rows).sort("start_s")
with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=1, tbl_hide_dataframe_shape=True):
    print(df)
    # each path's span, CPU and largest job: its analyses, not the disk's clean-up (the drop-* jobs)
    print(df.filter(~pl.col("job").str.contains(".drop-", literal=True))
          .with_columns(path=pl.col("job").str.extract(r"^(\w+)\."))
          .group_by("path", maintain_order=True)
          .agg(jobs=pl.len(), span_s=pl.col("end_s").max() - pl.col("start_s").min(), cpu_s=pl.col("cpu_s").sum(),
               largest_rss_mib=pl.col("tree_rss_mib").max(),
               largest_job=pl.col("job").sort_by("tree_rss_mib").last()))  # fmt: skip
n_parts = json.loads(parts.read_text())["rows"]["events"] if parts.exists() else None
n_whole = json.loads(whole.read_text())["rows"]["events"] if whole.exists() else None
print(f"# events: parts {n_parts:,} whole {n_whole:,}: {'EQUAL' if n_parts == n_whole else 'DIFFERENT'}"
      if n_parts is not None and n_whole is not None else "# events: a path did not ingest")
if exact.exists():
    s = pl.read_parquet(exact).filter(pl.col("method") != "exact", pl.col("accesses") > 0)
    print(f"# fixed-size SHARDS against exact (split path), {s.height} streams: mae <= {s['mae'].max()}, "
          f"max abs error <= {s['max_abs_error'].max()}; sampled pages <= {s['sampled_pages'].max()}, distinct "
          f"pages <= {s['distinct_pages'].max()}")  # fmt: skip
for f in failed:
    print(f"# FAILED {f}")
sys.exit(1 if failed else 0)
