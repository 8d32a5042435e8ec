"""Sniffing helpers of the text trace formats (blkparse, tracefs blk). Kept free of polars: ingesting a
text trace runs blkscope-native and never needs it, and importing it costs ~0.15 s per run."""

from __future__ import annotations

import re


def first_lines(head: bytes, n: int = 20) -> list[str]:
    """The first `n` non-empty, non-comment lines of a sniffed head (its last, maybe cut, line dropped)."""
    text = head.decode("utf-8", errors="replace")
    lines = text.splitlines()[:-1] if not text.endswith("\n") else text.splitlines()
    return [ln for ln in lines if ln.strip() and not ln.startswith("#")][:n]


def matches_any(lines: list[str], *patterns: str) -> bool:
    rxs = [re.compile(p) for p in patterns]
    return any(rx.match(ln) for rx in rxs for ln in lines)
