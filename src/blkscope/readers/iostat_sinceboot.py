"""Is the first report of an iostat run the since-boot summary?

Neither the text nor the JSON output says whether `-y` was given. What differs is arithmetic:
an interval report divides whole event counts by the interval in centiseconds (itv, from
/proc/uptime), so every count rate (r/s, w/s, tps, ...) printed with two decimals equals
n * 100 / itv for an integer n, with one itv shared by all devices. The since-boot report
divides by the uptime, which no small itv near the interval explains.

The interval is estimated from the second report (certainly an interval report) and, when
present, the timestamp gap. Verdicts: True (no itv fits), False (an itv fits and a chance fit
is unlikely), None (cannot tell, e.g. idle devices or a single report).
"""

from __future__ import annotations

import numpy as np

HALF_ULP = 0.005 + 1e-9  # values are printed with two decimals
MAX_ITV_CS = 3600 * 100  # intervals up to an hour
CHANCE = 0.01  # accept "interval report" only when a chance fit is this unlikely
MAX_VALUES = 64  # plenty of evidence; bounds the work on hosts with many devices
CHUNK = 4096


def _fitting(values: np.ndarray, itvs: np.ndarray) -> np.ndarray:
    """Boolean per itv: does every value equal some integer * 100 / itv (within rounding)?"""
    out = np.empty(itvs.size, dtype=bool)
    for i in range(0, itvs.size, CHUNK):  # chunks bound memory for wide itv ranges
        it = itvs[i : i + CHUNK]
        lo = np.outer(it, values - HALF_ULP) / 100.0
        hi = np.outer(it, values + HALF_ULP) / 100.0
        out[i : i + CHUNK] = (np.floor(hi) >= np.ceil(lo)).all(axis=1)
    return out


def _chance(values: np.ndarray, itvs: np.ndarray) -> float:
    """Expected number of itvs a random set of these values would fit by accident."""
    width = np.minimum(1.0, itvs * (2 * HALF_ULP) / 100.0)
    return float((width ** values.size).sum())


def _positive(values: list[float]) -> np.ndarray:
    v = np.array([x for x in values if x is not None and x > 0], dtype=float)
    return np.sort(v)[-MAX_VALUES:]


def _candidates(gap_s: float | None) -> np.ndarray:
    if gap_s is not None and gap_s > 0:
        # timestamps have one-second resolution
        return np.arange(max(1, int(round((gap_s - 1.5) * 100))), int(round((gap_s + 1.5) * 100)) + 1)
    return np.arange(1, MAX_ITV_CS + 1)


def first_report_since_boot(
    first: list[float], second: list[float] | None, gap_s: float | None
) -> bool | None:
    """Verdict for the first report from its count rates, the second report's, and the timestamp gap."""
    v1 = _positive(first)
    itvs = _candidates(gap_s)
    if second is not None:
        v2 = _positive(second)
        if v2.size:
            narrowed = itvs[_fitting(v2, itvs)]
            if narrowed.size:  # an empty set means rounding surprised us: keep the wide range
                itvs = np.unique(np.clip(np.concatenate([narrowed + d for d in (-2, -1, 0, 1, 2)]), 1, None))
    if v1.size == 0:
        return None
    if not _fitting(v1, itvs).any():
        return True
    if _chance(v1, itvs) < CHANCE:
        return False
    return None
