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


def _narrow(second: np.ndarray, cands: np.ndarray) -> np.ndarray:
    """The candidates near one the (certainly interval) second report fits.

    Intervals jitter from report to report (scheduling; CPU tick totals differ by a few
    percent), so every candidate within 10 % of a fitting one is kept: a too narrow set would
    wrongly call an interval report since-boot.
    """
    if not second.size:
        return cands
    fit = cands[_fitting(second, cands)]
    if not fit.size:  # rounding surprised us: keep the wide range
        return cands
    idx = np.clip(np.searchsorted(fit, cands), 1, fit.size - 1) if fit.size > 1 else np.zeros(cands.size, int)
    near = np.minimum(np.abs(cands - fit[idx]), np.abs(cands - fit[np.maximum(idx - 1, 0)]))
    return cands[near <= np.maximum(3, 0.1 * cands)]


def _evidence(first: np.ndarray, cands: np.ndarray) -> tuple[bool | None, float]:
    """(fits?, chance of a fit by accident); fits is None when there is nothing to test."""
    if not first.size:
        return None, 1.0
    if not _fitting(first, cands).any():
        return False, 0.0
    return True, _chance(first, cands)


def first_report_since_boot(
    first: list[float],
    second: list[float] | None,
    gap_s: float | None,
    cpu: tuple[list[float], list[float] | None, int] | None = None,
) -> bool | None:
    """Verdict for the first report from its count rates, the second report's, and the timestamp gap.

    `cpu` = (first report's CPU percentages, second's, number of CPUs) adds the same test on CPU
    ticks: a percentage is ticks * 100 / T, with T about ncpu * itv ticks in an interval report.
    """
    itvs = _narrow(_positive(second or []), _candidates(gap_s))
    tests = [_evidence(_positive(first), itvs)]
    if cpu is not None and cpu[2] > 0:
        pct1, pct2, ncpu = cpu
        totals = np.arange(max(1, int(ncpu * itvs.min() * 0.9)), int(ncpu * itvs.max() * 1.1) + 2)
        totals = _narrow(_cpu_values(pct2 or []), totals)
        tests.append(_evidence(_cpu_values(pct1), totals))
    tried = [t for t in tests if t[0] is not None]
    if not tried:
        return None
    if any(fit is False for fit, _ in tried):
        return True
    if float(np.prod([chance for _, chance in tried])) < CHANCE:
        return False
    return None


def _cpu_values(pcts: list[float]) -> np.ndarray:
    # 0 and 100 fit every total: no evidence
    return _positive([p for p in pcts if p is not None and p < 100.0])
