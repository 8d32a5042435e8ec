"""The command line of a generator that reads one analysis table (.parquet) and writes one generated .tex file
(scale_numbers, run_conditions, characterise_phrases): a table that cannot be read, or lacks a column the
generator reads, is one error naming the file, and nothing is written."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import polars as pl


def main(argv: list[str] | None, prog: str, doc: str | None, flag: str, need: Iterable[str],
         render: Callable[[pl.DataFrame], str]) -> int:  # fmt: skip
    p = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc)
    p.add_argument(f"--{flag}", type=Path, required=True, help="the analysis table (.parquet)")
    p.add_argument("-o", "--out", type=Path, required=True, help="output .tex")
    a = p.parse_args(argv)
    path = getattr(a, flag)
    try:
        table = pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as e:
        print(f"blkscope: {path}: {e}", file=sys.stderr)
        return 1
    missing = sorted(set(need) - set(table.columns))
    if missing:
        print(f"blkscope: {path}: no column(s) {', '.join(missing)}", file=sys.stderr)
        return 1
    from blkscope.io import write_text_atomic

    write_text_atomic(render(table), a.out)
    return 0
