"""Sort a table by several integer, boolean or string columns as polars would, by one UInt64 key where they fit.

polars sorts several columns by encoding each row's keys into bytes and comparing those; one integer column it
sorts 3-5x faster (bench/RESULTS.md, 2026-11-27 "Sorts"). The per-page counts and the latency histograms are
sorted by a few small codes and two integers, which pack into 64 bits: each column becomes its offset from its
minimum (from its maximum when descending; a string or boolean column its place among its distinct values, in
polars' order), shifted above the columns after it. The order is polars' own: for columns with nulls, or that
need more than 64 bits together, the columns are sorted as they are."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def sort(df: pl.DataFrame, by: Sequence[str], descending: Sequence[bool] | None = None) -> pl.DataFrame:
    """df.sort(by, descending=descending), by one packed key when the columns fit in 64 bits."""
    descending = list(descending) if descending is not None else [False] * len(by)
    key = _packed_key(df, by, descending) if df.height > 1 else None
    if key is None:
        return df.sort(list(by), descending=descending)
    return df.sort(key, maintain_order=True)  # rows equal in every column keep their order


def _packed_key(df: pl.DataFrame, by: Sequence[str], descending: Sequence[bool]) -> pl.Expr | None:
    if df.select(pl.any_horizontal(pl.col(list(by)).is_null().any())).item():
        return None
    parts, bits = [], 0
    for col, desc in zip(by, descending, strict=True):
        s = df[col]
        if s.dtype.is_integer():
            lo, hi = s.min(), s.max()
            width = max(1, (hi - lo).bit_length())
            if width > 63:
                return None
            wide = pl.Int64 if s.dtype.is_signed_integer() else pl.UInt64  # hi - lo fits: no overflow
            code = (pl.lit(hi, wide) - pl.col(col).cast(wide)) if desc else (pl.col(col).cast(wide) - pl.lit(lo, wide))
        elif s.dtype in (pl.Utf8, pl.Boolean):
            values = s.unique().sort(descending=desc)
            code = pl.col(col).replace_strict(values, pl.int_range(values.len(), eager=True))
            width = max(1, (values.len() - 1).bit_length())
        else:
            return None
        parts.append((code, width))
        bits += width
    if bits > 64:
        return None
    key, shift = pl.lit(0, pl.UInt64), 0
    for code, width in reversed(parts):
        key = key + code.cast(pl.UInt64) * pl.lit(1 << shift, pl.UInt64)
        shift += width
    return key
