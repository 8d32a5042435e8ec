"""mrc_ab.sh's checks and ratios, from its OUT directory: A's and B's MRC tables equal in every round and equal
to the reference; the largest difference of libCacheSim's miss ratios from B's table; L's time over B's per
round and in the worst pairing (libCacheSim's fastest run against B's slowest), for L's whole process and for
its strict span (the sum of its per-size seconds). Usage: python mrc_ab_check.py OUT"""

import sys
from pathlib import Path

import polars as pl
from compare_tables import same

o = Path(sys.argv[1])
times = pl.read_csv(o / "times.tsv", separator="\t", has_header=False, new_columns=["step", "wall", "user", "sys",
                                                                                    "tree_mib", "max_mib"])
times = times.with_columns(side=pl.col("step").str.slice(0, 1), round=pl.col("step").str.extract(r"(\d+)$").cast(int))
ref = pl.read_parquet(o / "mrc-ref.parquet")
rounds = sorted(set(times["round"]))
for i in rounds:
    a, b = pl.read_parquet(o / f"mrc-A-{i}.parquet"), pl.read_parquet(o / f"mrc-B-{i}.parquet")
    print(f"# round {i}: A's and B's MRC tables equal: {same(a, b)}; B equal to the reference: {same(b, ref)}")
strict = {i: pl.read_csv(o / f"lcs-{i}.tsv", separator="\t")["seconds"].sum() for i in rounds}
lcs = pl.read_csv(o / f"lcs-{rounds[0]}.tsv", separator="\t")
diff = (lcs["libcachesim"] - lcs["blkscope"]).abs().max()
print(f"# libCacheSim at {lcs.height} sizes: max |theirs - ours (B's table)| = {diff:.3g}")
wall = {(s, i): w for s, i, w in times.select("side", "round", "wall").iter_rows()}
print("# round\tA_s\tB_s\tL_s\tL_strict_s\tL/B\tL_strict/B\tL/A")
for i in rounds:
    a, b, lw, ls = wall[("A", i)], wall[("B", i)], wall[("L", i)], strict[i]
    print(f"# {i}\t{a:.3f}\t{b:.3f}\t{lw:.2f}\t{ls:.2f}\t{lw / b:.1f}x\t{ls / b:.1f}x\t{lw / a:.1f}x")
worst_b, worst_a = max(wall[("B", i)] for i in rounds), max(wall[("A", i)] for i in rounds)
best_l, best_ls = min(wall[("L", i)] for i in rounds), min(strict.values())
print(f"# worst pairing (fastest L, slowest B): {best_l / worst_b:.1f}x (L whole process), {best_ls / worst_b:.1f}x "
      f"(L strict span); A (main): {best_l / worst_a:.1f}x, {best_ls / worst_a:.1f}x")
