"""Fast path for blkparse-style event lines: whitespace squeezed on the raw bytes, then polars' CSV reader
splits each line on single spaces into fixed token positions. Lines of the common shapes are parsed here
with a few vectorised casts; everything else (messages, SCSI commands, process names with blanks, ftrace
prefixes, summaries, garbage) goes back to the general regex parser by line number.

Common payload shapes (tokens after RWBS):  `S + N [proc]`  `S + N [err]` (C/R)  `S + N <- (M,m) S2`
`S / S2 [proc]` (X)  `S [proc]`  `[proc]` (P)  `[proc] N` (U/UT).
"""

from __future__ import annotations

import io

import numpy as np
import polars as pl

from blkscope.readers.trace_text import ERROR_ACTIONS, ns_from_parts

PAYLOAD = 6  # payload tokens looked at; a line with more goes to the general parser
DIGITS = r"^\d+$"


def squeeze(block: bytes) -> bytes:
    """Runs of blanks -> one space, no leading blanks: lines split on single spaces afterwards."""
    if b"\t" in block:
        block = block.replace(b"\t", b" ")
    if b"\r" in block:
        block = block.replace(b"\r", b"")
    while b"  " in block:
        block = block.replace(b"  ", b" ")
    block = block.replace(b"\n ", b"\n")
    return block[1:] if block[:1] == b" " else block


def split(block: bytes, head: list[str], first_lineno: int, n_lines: int) -> tuple[pl.DataFrame, np.ndarray] | None:
    """(parsed events of the common shapes, line numbers of all other lines), or None when the block
    cannot be split line for line (then the caller parses it the general way)."""
    cols = [*head, *(f"p{i}" for i in range(PAYLOAD + 1))]
    try:
        df = pl.read_csv(io.BytesIO(squeeze(block)), separator=" ", has_header=False,
                         schema=dict.fromkeys(cols, pl.String), truncate_ragged_lines=True, quote_char=None,
                         missing_columns="insert", encoding="utf8-lossy")  # fmt: skip
    except pl.exceptions.PolarsError:
        return None
    if df.height != n_lines:  # blank lines are skipped by the CSV reader: numbering would drift
        return None
    dev = pl.col("dev").str.split_exact(",", 1)
    t = pl.col("time").str.split_exact(".", 1)
    # numbers parsed once; a token that is not one becomes null, which sends its line to the general parser
    df = df.with_row_index("lineno", offset=first_lineno).with_columns(
        maj=_num(dev.struct.field("field_0"), pl.UInt32), min=_num(dev.struct.field("field_1"), pl.UInt32),
        cpu=_num(pl.col("cpu"), pl.UInt32), pid=_num(pl.col("pid"), pl.UInt32),
        seq=_num(pl.col("seq"), pl.Int64) if "seq" in head else pl.lit(0, pl.Int64),
        s=_num(t.struct.field("field_0"), pl.Int64), f=t.struct.field("field_1"),
        n0=_num(pl.col("p0"), pl.Int64), n1=_num(pl.col("p1"), pl.Int64), n2=_num(pl.col("p2"), pl.Int64),
        n5=_num(pl.col("p5"), pl.Int64),
    )  # fmt: skip
    df = df.with_columns(shape=pl.when(_fits()).then(_shape()))
    rest = df.filter(pl.col("shape").is_null())["lineno"].to_numpy()
    return _events(df.filter(pl.col("shape").is_not_null()), head), rest


def _num(e: pl.Expr, dt) -> pl.Expr:
    """The number a token holds, else null (the line then goes to the general parser)."""
    return e.cast(dt, strict=False)


def _bracket(c: str) -> pl.Expr:
    return pl.col(c).str.starts_with("[") & pl.col(c).str.ends_with("]")


def _fits() -> pl.Expr:
    nums = ["maj", "min", "cpu", "pid", "seq", "s"]
    ok = pl.all_horizontal([pl.col(c).is_not_null() for c in nums])
    ok = ok & pl.col("f").str.contains(DIGITS) & pl.col(f"p{PAYLOAD}").is_null() & pl.col("rwbs").is_not_null()
    # actions of the general parser's vocabulary only (long forms, messages go there)
    return ok & pl.col("act").is_in(["Q", "M", "F", "G", "S", "R", "D", "C", "P", "U", "UT", "I", "X", "B", "A"])


def _shape() -> pl.Expr:
    """1: S + N [b]   2: S + N <- (M,m) S2   3: S / S2 [b]   4: S [b]   5: [b]   6: [b] N   (null: other)"""
    p = [pl.col(f"p{i}") for i in range(PAYLOAD)]
    null_from = [pl.all_horizontal([x.is_null() for x in p[k:]]) for k in range(PAYLOAD)]
    n0, n1, n2, n5 = (pl.col(c).is_not_null() for c in ("n0", "n1", "n2", "n5"))
    plus = n0 & (p[1] == "+") & n2
    dev = p[4].str.starts_with("(") & p[4].str.ends_with(")") & p[4].str.contains(r"^\(\d+,\d+\)$")
    return (
        pl.when(plus & _bracket("p3") & null_from[4]).then(1)
        .when(plus & (p[3] == "<-") & n5 & dev).then(2)
        .when(n0 & (p[1] == "/") & n2 & _bracket("p3") & null_from[4]).then(3)
        .when(n0 & _bracket("p1") & null_from[2]).then(4)
        .when(_bracket("p0") & null_from[1]).then(5)
        .when(_bracket("p0") & n1 & null_from[2]).then(6)
    )  # fmt: skip


def _events(df: pl.DataFrame, head: list[str]) -> pl.DataFrame:
    """Columns as trace_text.parse_payload and the line readers produce them."""
    shape = pl.col("shape")
    br_tok = pl.when(shape.is_in([1, 3])).then(pl.col("p3")).when(shape == 4).then(pl.col("p1")) \
        .when(shape.is_in([5, 6])).then(pl.col("p0"))  # fmt: skip
    br = br_tok.str.slice(1).str.strip_suffix("]")
    err_act = pl.col("act").is_in(ERROR_ACTIONS)
    br_int = br.cast(pl.Int32, strict=False)
    rdev = pl.col("p4").str.strip_prefix("(").str.strip_suffix(")").str.split_exact(",", 1)
    return df.select(
        "lineno",
        dev_major="maj",
        dev_minor="min",
        cpu="cpu",
        seq="seq" if "seq" in head else pl.lit(None, pl.Int64),
        pid="pid",
        abs_ns=ns_from_parts(pl.col("s"), pl.col("f")),
        action=pl.col("act"),
        rwbs=pl.col("rwbs"),
        sector=pl.when(shape <= 4).then("n0"),
        nsectors=pl.when(shape <= 2).then("n2"),
        error=pl.when(err_act).then(br_int),
        process=pl.when(err_act & br_int.is_not_null()).then(None).otherwise(br),
        remap_dev_major=pl.when(shape == 2).then(rdev.struct.field("field_0").cast(pl.UInt32)),
        remap_dev_minor=pl.when(shape == 2).then(rdev.struct.field("field_1").cast(pl.UInt32)),
        remap_sector=pl.when(shape == 2).then("n5"),
        split_sector=pl.when(shape == 3).then("n2"),
        unplug_count=pl.when(shape == 6).then("n1"),
        rest=pl.lit(None, pl.String),
        payload_ok=pl.lit(True),
    )
