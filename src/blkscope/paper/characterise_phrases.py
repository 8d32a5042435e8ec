"""Phrases of the Characterisation section, picked from the characterisation table
(data/processed/analysis/characterisation.parquet: each host setup's medians per filesystem) by the rules of
blkscope.paper.phrases, where the section once had fixed words ("btrfs marks far more ... as metadata",
"arrivals are bursty everywhere", "none does on btrfs"):

- CharMetaLeadPhrase: the filesystem that marks the largest share of its page accesses as metadata in the most
  host setups (phrases.leader), and in how many;
- CharBurstyPhrase: in how many host setups and filesystems the Q2Q coefficient of variation is above one;
- CharHalfPhrase<Workload><Job><Fs>: the smallest LRU cache that halves the misses, or that none on the curve
  does; CharHalfPhrase<Workload><Job>: the same for every filesystem of the setup in one clause (halves).
- CharSizeMergePhrase<Workload><Job>: what the block layer does to the setup's data writes by their #Q/#D, and
  where the median sizes queued and issued point the other way, why (split_words): one selection, the data writes
  of the same runs, for both.

    python -m blkscope.paper.characterise_phrases --table characterisation.parquet -o char_phrases.tex
"""

from __future__ import annotations

import sys

import polars as pl

from blkscope.paper import table_to_tex
from blkscope.paper.latex import fmt_float, join_and, macro_file, macro_name
from blkscope.paper.phrases import k_of_n, leader


def _per_setup(host: pl.DataFrame, metric: str) -> list[dict[str, float | None]]:
    return [dict(zip(g["filesystem"], g[metric], strict=True))
            for _, g in host.group_by("workload", "job", maintain_order=True)]  # fmt: skip


def macros(table: pl.DataFrame) -> dict[str, str]:
    host = table.filter(pl.col("testbed") == "loop")
    if host.height == 0:
        return {}
    fs, k, n = leader(_per_setup(host, "meta_share"))
    what = "marks the largest share of its page accesses as metadata"
    m = {"CharMetaLeadPhrase": f"{fs} {what} in {k_of_n(k, n, 'host setups')}" if fs else
         f"no filesystem {what} in more host setups than another (of {k_of_n(n, n, 'host setups')})"}  # fmt: skip
    cv = host["q2q_cv"].drop_nulls()
    m["CharBurstyPhrase"] = (f"the Q2Q coefficient of variation is above one in "
                             f"{k_of_n(int((cv > 1).sum()), cv.len(), 'host setups and filesystems')}")  # fmt: skip
    for r in host.iter_rows(named=True):
        name = macro_name("char half phrase", r["workload"], r["job"], r["filesystem"])
        half = r["half_mib"]
        m[name] = (f"an LRU cache of {fmt_float(half, 0)}\\,MiB halves the misses" if half is not None and half == half
                   else "no LRU cache on the curve halves the misses")  # fmt: skip
    for (w, j), g in host.group_by("workload", "job"):
        m[macro_name("char half phrase", w, j)] = halves(dict(zip(g["filesystem"], g["half_mib"], strict=True)))
        by_fs = {r["filesystem"]: r for r in g.iter_rows(named=True)}
        if set(g.columns) >= SPLIT_NEED and (words := split_words(by_fs)):
            m[macro_name("char size merge phrase", w, j)] = words
    return m


SPLIT_NEED = {"data_write_merge_ratio", "q_write_median_kib", "d_write_median_kib", "q_write_mean_kib",
              "d_write_mean_kib"}
DOES = {"split": "splits them", "merge": "merges them", "keep": "issues them as queued"}


def _kind(ratio: float) -> str:
    return "keep" if round(ratio, 2) == 1.0 else "split" if ratio < 1 else "merge"


def split_words(by_fs: dict[str, dict]) -> str:
    """The data writes' #Q/#D per filesystem, what the block layer does with them by it (below one: splits, above:
    merges), and where the median sizes queued and issued point the other way (an issued median above the queued
    one beside a #Q/#D below one, or the reverse), the mean sizes, which follow #Q/#D, and why: "of these data
    writes, #Q/#D is 0.38 on ext4, 0.26 on xfs and 0.71 on btrfs: the block layer splits them; the medians point
    the other way on ext4, xfs and btrfs, as a median counts requests, not bytes: the mean data write is 2,140,
    2,548 and 1,013 KiB as queued and 824, 663 and 715 KiB as issued" ("" without a filesystem's values)."""
    order = sorted(by_fs, key=lambda f: (FS_ORDER.index(f) if f in FS_ORDER else len(FS_ORDER), f))
    rows = {f: by_fs[f] for f in order if all(by_fs[f].get(k) is not None and by_fs[f][k] == by_fs[f][k]
                                              for k in SPLIT_NEED)}  # fmt: skip
    if not rows:
        return ""
    kinds = {f: _kind(r["data_write_merge_ratio"]) for f, r in rows.items()}
    ratios = join_and([f"{fmt_float(r['data_write_merge_ratio'], 2)} on {f}" for f, r in rows.items()])
    one = len(set(kinds.values())) == 1  # one thing done on every filesystem: said once, unnamed
    does = [DOES[k] + ("" if one else " on " + join_and([f for f in kinds if kinds[f] == k]))
            for k in dict.fromkeys(kinds.values())]
    out = f"of these data writes, \\#Q/\\#D is {ratios}: the block layer {join_and(does)}"
    other = [f for f, r in rows.items() if (kinds[f] == "split" and r["d_write_median_kib"] > r["q_write_median_kib"])
             or (kinds[f] == "merge" and r["d_write_median_kib"] < r["q_write_median_kib"])]  # fmt: skip
    if other:
        q = join_and([fmt_float(rows[f]["q_write_mean_kib"], 0) for f in other])
        d = join_and([fmt_float(rows[f]["d_write_mean_kib"], 0) for f in other])
        out += (f"; the medians point the other way on {join_and(other)}, as a median counts requests, not bytes: "
                f"the mean data write is {q}\\,KiB as queued and {d}\\,KiB as issued")
    return out


FS_ORDER = ("ext4", "xfs", "btrfs", "f2fs")  # the order the text names filesystems in


def halves(by_fs: dict[str, float | None]) -> str:
    """The LRU cache that halves each filesystem's misses, in one clause (the per-filesystem phrase thrice read "on
    ext4 an LRU cache of 145 MiB halves the misses, on xfs an LRU cache of 141 MiB halves the misses and on btrfs no
    LRU cache on the curve halves the misses"): "an LRU cache of 145 MiB halves the misses on ext4 and one of
    141 MiB on xfs; none on the curve does on btrfs"."""
    order = sorted(by_fs, key=lambda f: (FS_ORDER.index(f) if f in FS_ORDER else len(FS_ORDER), f))
    have = [(f, by_fs[f]) for f in order if by_fs[f] is not None and by_fs[f] == by_fs[f]]
    none = [f for f in order if f not in dict(have)]
    parts = []
    if have:
        (f0, v0), *rest = have
        parts.append(join_and([f"an LRU cache of {fmt_float(v0, 0)}\\,MiB halves the misses on {f0}",
                           *(f"one of {fmt_float(v, 0)}\\,MiB on {f}" for f, v in rest)]))
    if none:
        parts.append(f"none on the curve does on {join_and(none)}" if have else
                     f"no LRU cache on the curve halves the misses on {join_and(none)}")  # fmt: skip
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    head = "% Generated by `python -m blkscope.paper.characterise_phrases`; do not edit."
    need = ["testbed", "workload", "job", "filesystem", "meta_share", "q2q_cv", "half_mib"]
    return table_to_tex.main(argv, "blkscope.paper.characterise_phrases", __doc__, "table", need,
                             lambda t: macro_file(head, macros(t)))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
