"""fit_discrete vs powerlaw.Fit(discrete=True) on the same 1e6 samples; then a 1e8-page frequency table.

Usage: python bench/zipf/bench_fit.py [--skip-powerlaw]. Prints one Markdown table row per measurement.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import polars as pl

from blkscope.analysis.popularity import discrete_powerlaw as dp
from blkscope.analysis.popularity.zipf import counts_of_counts, fit_discrete


def timed(fn, repeat=1):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def samples(alpha: float, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v, c = dp.sample_hist(alpha, 1, n, rng)
    x = np.repeat(v.astype(np.int64), c.astype(np.int64))
    rng.shuffle(x)
    return x


def vs_powerlaw(alpha: float, n: int, skip: bool) -> None:
    x = samples(alpha, n, seed=1)
    mine, t_mine = timed(lambda: fit_discrete(x, compare=False, max_alpha=2.99), repeat=5)
    print(f"| fit_discrete | {alpha} | {n:,} | {mine.distinct:,} | {mine.xmin} | {mine.alpha:.6f} | {t_mine:.4f} s |")
    if skip:
        return
    import powerlaw

    for est in (None, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref, t_ref = timed(lambda est=est: powerlaw.Fit(x, discrete=True, estimate_discrete=est, verbose=0))
        print(
            f"| powerlaw.Fit(discrete=True, estimate_discrete={est}) | {alpha} | {n:,} | | {int(ref.xmin)} | "
            f"{ref.alpha:.6f} | {t_ref:.2f} s ({t_ref / t_mine:,.0f}x fit_discrete; "
            f"|d alpha| = {abs(ref.alpha - mine.alpha):.1e}) |"
        )


def big_table(n_pages: int, alpha: float) -> None:
    x = samples(alpha, n_pages, seed=2)  # per-page access counts of n_pages pages
    df = pl.DataFrame({"op": pl.Series(["all"] * 1, dtype=pl.Utf8).extend_constant("all", n_pages - 1),
                       "page": np.arange(n_pages), "count": x})  # fmt: skip
    fof, t_fof = timed(lambda: counts_of_counts(df))
    fit, t_fit = timed(lambda: fit_discrete(fof["count"].to_numpy(), fof["pages"].to_numpy()))
    direct, t_direct = timed(lambda: fit_discrete(x, compare=False))
    print(f"| 1e8-page table: counts_of_counts (polars) | {alpha} | {n_pages:,} | {fof.height:,} | | | {t_fof:.2f} s |")
    print(f"| then fit_discrete with LR tests | {alpha} | {n_pages:,} | {fit.distinct:,} | {fit.xmin} | "
          f"{fit.alpha:.6f} | {t_fit:.2f} s |")  # fmt: skip
    print(f"| fit_discrete on the raw count column | {alpha} | {n_pages:,} | {direct.distinct:,} | {direct.xmin} | "
          f"{direct.alpha:.6f} | {t_direct:.2f} s |")  # fmt: skip
    boot, t_boot = timed(lambda: fit_discrete(fof["count"].to_numpy(), fof["pages"].to_numpy(), n_boot=100,
                                              compare=False))  # fmt: skip
    print(f"| ... with a 100-replicate bootstrap p ({boot.p_gof:.2f}) | {alpha} | {n_pages:,} | | | | {t_boot:.1f} s |")


if __name__ == "__main__":
    skip = "--skip-powerlaw" in sys.argv
    print("| what | alpha | n | distinct | xmin | alpha-hat | time |")
    print("|---|---|---|---|---|---|---|")
    for alpha in (2.5, 2.0):
        vs_powerlaw(alpha, 1_000_000, skip)
    big_table(100_000_000, 2.0)
