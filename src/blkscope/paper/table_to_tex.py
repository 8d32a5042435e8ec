"""The command line of a generator that reads one analysis table (.parquet) and writes one generated .tex file
(scale_numbers, run_conditions, characterise_phrases): a table that cannot be read, or lacks a column the
generator reads, is one error naming the file, and nothing is written. A generator that reads more inputs adds its
options (`extra`) and reads them in `render(table, args)`; a ValueError it raises names its file, and nothing is
written either."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import polars as pl


def main(argv: list[str] | None, prog: str, doc: str | None, flag: str, need: Iterable[str],
         render: Callable[..., str], extra: Callable[[argparse.ArgumentParser], None] | None = None) -> int:
    p = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc)
    p.add_argument(f"--{flag}", type=Path, required=True, help="the analysis table (.parquet)")
    p.add_argument("-o", "--out", type=Path, required=True, help="output .tex")
    if extra:
        extra(p)
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

    if not extra:
        text = render(table)
    else:
        try:  # the extra inputs: read in render, each error naming its file
            text = render(table, a)
        except (OSError, ValueError, pl.exceptions.PolarsError) as e:
            print(f"blkscope: {e}", file=sys.stderr)
            return 1
    write_text_atomic(text, a.out)
    return 0
