"""packed_sort.sort gives polars' own order, packed into one key or (too wide, nulls) by the columns."""

import numpy as np
import polars as pl
import pytest

from blkscope.analysis.stats import packed_sort


def _table(seed: int, wide: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = 4000
    return pl.DataFrame({
        "op": rng.choice(["write", "all", "read"], n), "meta": rng.random(n) < 0.3,
        "code": rng.integers(-3, 3, n).astype(np.int8), "count": rng.integers(1, wide, n, endpoint=True),
        "page": rng.integers(-5, 1 << 30, n),
    })  # fmt: skip


@pytest.mark.parametrize("wide", [9, 2**40])  # with 2**40 counts the five columns need more than 64 bits
@pytest.mark.parametrize(("by", "descending"), [
    (["op", "count", "page"], [False, True, False]), (["op", "meta", "count", "page"], [False, False, True, False]),
    (["code", "meta", "page"], [True, True, False]), (["meta", "op", "code", "count", "page"], None),
])  # fmt: skip
def test_the_order_is_polars_sort_by_the_columns(wide, by, descending):
    df = _table(wide, wide)
    want = df.sort(by, descending=descending if descending else False, maintain_order=True)
    assert packed_sort.sort(df, by, descending).equals(want)


def test_a_key_needs_no_more_than_64_bits_and_no_nulls():
    df = _table(1, 9)
    assert packed_sort._packed_key(df, ["op", "meta", "count", "page"], [False] * 4) is not None
    assert packed_sort._packed_key(_table(1, 2**40), ["op", "meta", "code", "count", "page"], [False] * 5) is None
    nulls = df.with_columns(count=pl.when(pl.col("page") % 7 == 0).then(pl.col("count")))
    assert packed_sort._packed_key(nulls, ["count", "page"], [True, False]) is None
    assert packed_sort.sort(nulls, ["count", "page"], [True, False]).equals(
        nulls.sort(["count", "page"], descending=[True, False]))
