"""Skew through the stack: the popularity skew a YCSB run asked for against the skew its block accesses show.

YCSB's zipfian request distribution picks item i (by popularity rank) with probability proportional to
i^-theta (theta = `zipfian_constant`, 0.99 by default), so the requested rank-frequency exponent is
s_req = theta, and the count of requests per item has a tail exponent alpha_req = 1 + 1/theta. (CoreWorkload
scrambles ranks by hashing over a larger key space, which flattens the head; s_req is the nominal value.)
The block level shows s_block = 1/(alpha - 1) from the power-law fit of page access counts (zipf.py), with its
CI. Caches, compaction and the filesystem's placement sit between the two.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope import yamlio
from blkscope.analysis.summaries.run_groups import with_groups


def requested(run_yaml: Path) -> dict:
    """Request distribution parameters from a run's run.yaml (nulls when the run is not YCSB)."""
    meta = yamlio.load(Path(run_yaml).read_text()) or {}
    w = meta.get("workload") or {}
    props = w.get("options") or w.get("properties") or w
    theta = props.get("zipfian_constant")
    dist = props.get("requestdistribution")
    if dist == "zipfian" and theta is None:
        theta = 0.99  # YCSB's default ZIPFIAN_CONSTANT
    num = lambda k: float(props[k]) if props.get(k) is not None else None  # noqa: E731
    return {
        "requestdistribution": dist,
        "recordcount": props.get("recordcount"),
        # what sits between keys and blocks: record size (keys per 4 KiB page), cache, read share
        "record_bytes": num("fieldcount") * num("fieldlength") if num("fieldcount") and num("fieldlength") else None,
        "blockcache_mb": num("rocksdb.blockcachemb"),
        "readproportion": num("readproportion"),
        "zipfian_constant": float(theta) if theta is not None else None,
        "s_requested": float(theta) if dist == "zipfian" and theta is not None else None,
    }


def skew_table(fits: pl.DataFrame, runs: pl.DataFrame, raw: Path) -> pl.DataFrame:
    """One row per run and op: requested vs block-level exponent (block s with its CI, fit quality, n)."""
    req = []
    for rid in fits["run_id"].unique().sort().to_list():
        p = Path(raw) / rid / "run.yaml"
        req.append({"run_id": rid} | (requested(p) if p.exists() else {}))
    keep = ("run_id", "database", "workload", "job", "filesystem", "testbed", "repeat", "load")
    runs = with_groups(runs)
    meta = runs.select([c for c in keep if c in runs.columns])
    cols = ["run_id", "op", "n", "n_tail", "xmin", "alpha", "s", "s_lo", "s_hi", "p_gof", "note"]
    df = fits.select([c for c in cols if c in fits.columns])
    # in the fits' row order: polars keeps none through a join unless told
    out = df.join(pl.DataFrame(req, infer_schema_length=None), on="run_id", how="left", maintain_order="left")
    out = out.join(meta, on="run_id", how="left", maintain_order="left")
    if "s" in out.columns:
        out = out.with_columns(s_ratio=pl.col("s") / pl.col("s_requested"))
    return out


def _zeta_partial(theta: float, n: float, exact: int = 1_000_000) -> float:
    """sum_{i=1..n} i^-theta: the first `exact` terms summed, the rest by the midpoint integral."""
    import numpy as np

    k = int(min(n, exact))
    s = float(np.sum(np.arange(1, k + 1, dtype=np.float64) ** -theta))
    if n > k:
        a, b = k + 0.5, n + 0.5
        s += (b ** (1 - theta) - a ** (1 - theta)) / (1 - theta) if theta != 1 else float(np.log(b / a))
    return s


def scrambled_head(theta: float, records: int, items: float = 1e10) -> tuple[int, float]:
    """YCSB's ScrambledZipfianGenerator draws a rank from a zipfian(theta) over `items` (10^10) ranks and hashes
    it onto `records`: a record's share is then the sum of many random ranks, about 1/records, except for the
    head ranks whose own probability exceeds that. Returns (head ranks with p > 1/records, their share of all
    requests)."""
    z = _zeta_partial(theta, items)
    head = int((records / z) ** (1 / theta))
    return head, _zeta_partial(theta, head) / z
