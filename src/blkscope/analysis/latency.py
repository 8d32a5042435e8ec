"""Latency stages of every queued bio, matched the way btt (blktrace 1.2, btt 2.09) matches them.

Per device, each Q (with data) is tracked by its start sector until a C covers it:
- G, I, M/F: the tracked Q whose range contains the event's sector gets its G/I/M time
  (Q2G = G - Q; G2I = I - G when a G was seen; Q2M = M - Q);
- D: every tracked Q inside [D.sector, D.sector + D.nsectors) gets its D time (I2D from I, else M2D from M;
  Q2D = D - Q);
- C: every tracked Q inside the C's range completes: Q2C = C - Q, and D2C = C - D when it was issued; then it is
  no longer tracked.
As in btt: events of a device before its first Q are ignored; a Q whose start sector is already tracked is not
tracked; events without data (flushes) are ignored; a stage is defined only when both ends were seen. So a
merged request's D2C counts once per bio in it, which is what btt's D2C average is over.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.uncertainty import mean_ci_boot, quantile_ci

STAGES = ("q2g", "g2i", "q2m", "i2d", "m2d", "q2d", "d2c", "q2c")
QUANTILES = (0.5, 0.9, 0.99, 0.999, 0.9999)
_ACTIONS = ("Q", "G", "I", "M", "F", "D", "C")


class _Dev:
    """Tracked Qs of one device: start sector -> record index, plus the sorted starts for range queries."""

    def __init__(self) -> None:
        self.by_start: dict[int, int] = {}
        self.starts: list[int] = []

    def add(self, start: int, i: int) -> bool:
        if start in self.by_start:
            return False
        self.by_start[start] = i
        bisect.insort(self.starts, start)
        return True

    def containing(self, sector: int, end_of) -> int | None:
        k = bisect.bisect_right(self.starts, sector) - 1
        if k >= 0:
            i = self.by_start[self.starts[k]]
            if sector < end_of(i):
                return i
        return None

    def inside(self, lo: int, hi: int, end_of) -> list[int]:
        a, b = bisect.bisect_left(self.starts, lo), bisect.bisect_left(self.starts, hi)
        return [self.by_start[s] for s in self.starts[a:b] if end_of(self.by_start[s]) <= hi]

    def drop(self, start: int) -> None:
        del self.by_start[start]
        del self.starts[bisect.bisect_left(self.starts, start)]


def per_bio(events: Sequence[Path] | pl.LazyFrame) -> pl.DataFrame:
    """One row per tracked Q: dev, rw, sector, nsectors, q_ns and every stage in ns (null where not seen)."""
    lf = events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events])
    ev = (
        lf.filter(pl.col("action").is_in(_ACTIONS) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null())
        .select(
            dev=pl.col("dev_major").cast(pl.Int64) * (1 << 20) + pl.col("dev_minor").cast(pl.Int64),
            t="time_ns",
            a="action",
            s="sector",
            n="nsectors",
            rw="rwbs",
        )  # fmt: skip
        .with_row_index("order")
        .sort("t", "order")  # time order; ties keep trace order, as btt's merged dump does
        .collect()
    )
    q_t, q_s, q_n, q_dev, q_rw = [], [], [], [], []
    times = {k: [] for k in ("g", "i", "m", "d", "c")}
    devs: dict[int, _Dev] = {}

    def end_of(i: int) -> int:
        return q_s[i] + q_n[i]

    for dev, t, a, s, n, rw in zip(*(ev[c].to_list() for c in ("dev", "t", "a", "s", "n", "rw")), strict=True):
        d = devs.get(dev)
        if a == "Q":
            if d is None:
                d = devs[dev] = _Dev()  # the device's first Q ends btt's pre-culling
            i = len(q_t)
            if d.add(s, i):
                q_t.append(t), q_s.append(s), q_n.append(n), q_dev.append(dev), q_rw.append(rw)
                for v in times.values():
                    v.append(None)
            continue
        if d is None:
            continue
        if a in "GIMF":
            i = d.containing(s, end_of)
            if i is not None:
                times["m" if a == "F" else a.lower()][i] = t
        elif a == "D":
            for i in d.inside(s, s + n, end_of):
                times["d"][i] = t
        else:  # C
            for i in d.inside(s, s + n, end_of):
                times["c"][i] = t
                d.drop(q_s[i])
    df = pl.DataFrame(
        {
            "dev": q_dev,
            "rw": q_rw,
            "sector": q_s,
            "nsectors": q_n,
            "q_ns": q_t,
            **{f"{k}_ns": v for k, v in times.items()},
        },
        schema_overrides={f"{k}_ns": pl.Int64 for k in times},
    )
    return df.select(
        "dev", "rw", "sector", "nsectors", "q_ns",
        q2g=pl.col("g_ns") - pl.col("q_ns"),
        g2i=pl.col("i_ns") - pl.col("g_ns"),
        q2m=pl.col("m_ns") - pl.col("q_ns"),
        i2d=pl.when(pl.col("i_ns").is_not_null()).then(pl.col("d_ns") - pl.col("i_ns")),
        m2d=pl.when(pl.col("i_ns").is_null()).then(pl.col("d_ns") - pl.col("m_ns")),
        q2d=pl.col("d_ns") - pl.col("q_ns"),
        d2c=pl.col("c_ns") - pl.col("d_ns"),
        q2c=pl.col("c_ns") - pl.col("q_ns"),
    )  # fmt: skip


def stage_summary(bios: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Per stage (and group): n, mean with 95% CI (bootstrap up to 1e5 values, t above), min, max and
    quantiles p50..p99.99 with distribution-free 95% CIs, all in microseconds. Stages only count bios where
    both ends were seen (as btt)."""
    rows = []
    groups = bios.group_by(list(by), maintain_order=True) if by else [((), bios)]
    for key, g in groups:
        for st in STAGES:
            x = np.sort(g[st].drop_nulls().to_numpy().astype(np.float64)) / 1e3
            m, lo, hi = mean_ci_boot(x)
            row = dict(zip(by, key, strict=True)) | {
                "stage": st, "n": int(x.size), "mean_us": m, "mean_lo_us": lo, "mean_hi_us": hi,
                "min_us": float(x[0]) if x.size else None, "max_us": float(x[-1]) if x.size else None,
            }  # fmt: skip
            for q in QUANTILES:
                name = f"p{q * 100:g}".replace(".", "_")
                v, qlo, qhi = quantile_ci(x, q)
                row |= {f"{name}_us": v, f"{name}_lo_us": qlo, f"{name}_hi_us": qhi}
            rows.append(row)
    return pl.DataFrame(rows)
