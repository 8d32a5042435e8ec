"""What the claims table's estimators share: which runs speak to a claim, and how two arms are compared.

A claim's evaluation returns a `Result`: an estimate with its interval (None: nothing to judge), what was
measured, the runs per arm, the load they ran at, and a verdict where the rule is not an interval (no runs,
too few repeats, not testable here) with its reason.

Order: polars keeps no row order through a join or a group_by unless told, and a sum of floats depends on the
order of its terms (the last bit of a mean, a bootstrap's resamples of its arms), so the claims table differed
run to run on the same tables. The estimators read their values in a fixed order: `canonical` sorts every input
table on all its columns, and where the estimators' own joins and group_bys (their source is their fingerprint in
the claims plan, left as it is) may have reordered rows, `host`, `by_strata`, `vals` and `saturating_first` put
them back in the order of their runs (`in_run_order`, stable, so a run's several rows keep the canonical order).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from blkscope.analysis.summaries.run_groups import LIGHT, SATURATING, with_groups
from blkscope.paper import claim_verdict as vd
from blkscope.paper.claim_heterogeneity import Heterogeneity, cochran_q, dersimonian_laird

Tables = dict[str, pl.DataFrame]
NO_RUNS = "not tested (no runs)"
# a planned row withdrawn before its runs were captured (a plan amendment): not tested, and no limit of this machine
WITHDRAWN = "not tested (withdrawn before capture)"
FEW = "inconclusive (fewer than 2 repeats per arm)"
NOT_TESTABLE = "not testable here"


@dataclass(frozen=True)
class Result:
    """What an evaluation found: an estimate (None: nothing to judge), its text, n, test, and the runs used."""

    estimate: vd.Estimate | None
    measurement: str
    n: str
    load: str | None = None
    verdict: str | None = None  # set only where the rule is not an interval (e.g. every run >= 1 ms)
    reason: str | None = None  # why the verdict is what it is, where the interval does not say
    het: Heterogeneity | None = None  # of the strata pooled (None: one stratum, or not a pooled estimate)
    # each pooled stratum's own estimate at the claim's level: where the strata disagree, the verdict is theirs
    # (claim_verdict.strata_verdict), not the pooled estimate's
    strata: tuple[vd.Estimate, ...] = ()


# The runs an estimate reads, so that the claims table can state their length (claims.run_length): recorded where
# the estimators draw values from a frame of runs (the strata strata_ratio keeps of by_strata's, vals, and
# saturating_first's chosen load), into the
# innermost `reads()` open. Recorded here, not in the estimators, whose source is their fingerprint in the claims
# plan (blkscope.paper.claims_plan): how a row is measured does not change.
_READS: ContextVar[tuple[set[str], ...]] = ContextVar("claim_reads", default=())


@contextmanager
def _open(var: ContextVar, into):
    """`into` (a set or list the recorders fill) as the innermost collector of `var` for the block."""
    token = var.set((*var.get(), into))
    try:
        yield into
    finally:
        var.reset(token)


def reads() -> AbstractContextManager[set[str]]:
    """The run_ids the estimates made inside the block read (a set filled as they read)."""
    return _open(_READS, set())


def read(t: pl.DataFrame | set[str]) -> None:
    """Records that the innermost `reads()` read the runs of `t` (a frame with run_id, or run_ids)."""
    open_ = _READS.get()
    if open_:
        open_[-1].update(t if isinstance(t, set) else t["run_id"].to_list() if "run_id" in t.columns else [])


# The strata an estimate compared arms in, for the claims table's `confounded` (claims.confounded): each stratum
# with both arms as (run_id, stratum, arm) rows, recorded by by_strata into the innermost `compared()` open.
_COMPARED: ContextVar[tuple[list[pl.DataFrame], ...]] = ContextVar("claim_compared", default=())


def compared() -> AbstractContextManager[list[pl.DataFrame]]:
    """The (run_id, stratum, arm) frames of the strata the estimates made inside the block compared arms in."""
    return _open(_COMPARED, [])


# The arms an estimate compared, run by run, for the machine-load diagnostic beside the claims (claim_load): (run_id,
# arm, how) rows, recorded into the innermost `armed()` open by by_strata and _overhead_at (how "compared": the arms
# the estimate sets against each other) and by vals (how "values": the selection each value array came from, the
# arms of a row whose estimator compares arrays it drew with vals).
_ARMS: ContextVar[tuple[list[pl.DataFrame], ...]] = ContextVar("claim_arms", default=())


def armed() -> AbstractContextManager[list[pl.DataFrame]]:
    """The (run_id, arm, how) frames of the arms the estimates made inside the block compared or drew."""
    return _open(_ARMS, [])


def record_arm(t: pl.DataFrame, name: pl.Expr, how: str = "compared") -> None:
    """Records the runs of `t` (its run_id) as the arms `name` gives them, into the innermost `armed()` open."""
    open_ = _ARMS.get()
    if open_ and "run_id" in t.columns:
        open_[-1].append(t.select("run_id", arm=name.cast(pl.Utf8), how=pl.lit(how)))


def canonical(tb: Tables) -> Tables:
    """Every table's rows sorted on all its columns (run_id first; nested columns are not sort keys), so that no
    estimate depends on the order in which a table was written or its per-run parts concatenated."""
    def sort(t: pl.DataFrame | None) -> pl.DataFrame | None:
        if t is None:
            return None
        keys = [c for c, d in t.schema.items() if not d.is_nested()]
        keys = sorted(keys, key=lambda c: c != "run_id")  # stable: the others in column order
        return t.sort(keys, nulls_last=True, maintain_order=True) if keys else t
    return {k: sort(t) for k, t in tb.items()}


def in_run_order(t: pl.DataFrame) -> pl.DataFrame:
    """`t` sorted on run_id, stably (a run's rows keep their order): the order an estimate reads its values in."""
    return t.sort("run_id", maintain_order=True) if "run_id" in t.columns else t


def not_testable(reason: str) -> Result:
    return Result(None, "--", "0", None, NOT_TESTABLE, reason)


def runs(tb: Tables) -> pl.DataFrame:
    """The runs sheet with load and commitlog groups, and empty mount options and database as ''."""
    r = with_groups(tb["runs"])
    for c in ("mount_options", "database", "batch"):
        r = r.with_columns(pl.col(c).fill_null("")) if c in r.columns else r.with_columns(pl.lit("").alias(c))
    return r


def is_writeback() -> pl.Expr:
    return pl.col("mount_options").str.contains("data=writeback")


def host(t: pl.DataFrame, tb: Tables, *, traced: bool | None, load: str | None = None,
         writeback: bool | None = False) -> pl.DataFrame:
    """Rows of host (loop) runs. ext4 data=writeback is its own configuration: left out by default, alone with
    writeback=True, both with None. The sheet's load, commitlog, mount options, database and device size join in
    where `t` lacks them (and the run's length, runtime_s)."""
    r = runs(tb)
    if writeback is not None:
        r = r.filter(is_writeback() == writeback)
    if "testbed" in r.columns:
        r = r.filter(pl.col("testbed") == "loop")
    if traced is not None:
        r = r.filter(pl.col("traced") == traced)
    if load is not None:
        r = r.filter(pl.col("load") == load)
    extra = ("load", "commitlog", "mount_options", "database", "device_mb", "workload", "job", "filesystem",
             "traced", "testbed", "batch", "runtime_s")
    keep = ["run_id", *[c for c in extra if c in r.columns and c not in t.columns]]
    return in_run_order(t.join(r.select(keep), on="run_id", how="inner", maintain_order="left"))


def saturating_first(t: pl.DataFrame, at: Callable[[pl.DataFrame, str], Result]) -> Result:
    """Judge on the saturating rows; where they cannot be judged (no runs, too few repeats), on the light ones,
    and say so."""
    def tried(load: str) -> tuple[Result, set[str]]:
        rows = in_run_order(t.filter(pl.col("load") == load))
        with reads() as ids:
            r = at(rows, load)
        return r, ids or set(rows["run_id"].to_list() if "run_id" in rows.columns else [])

    sat, sat_ids = tried(SATURATING)
    if sat.estimate is not None:
        read(sat_ids)
        return sat
    light, light_ids = tried(LIGHT)
    if light.estimate is None and sat.verdict != NO_RUNS:
        read(sat_ids)
        return sat
    read(light_ids)
    if sat.verdict == NO_RUNS:
        return light
    note = f" (light runs: the saturating ones cannot be judged, {sat.verdict}, n {sat.n})"
    return replace(light, measurement=light.measurement + note)


def vals(t: pl.DataFrame, metric: str, **where) -> np.ndarray:
    sel = in_run_order(t.filter(pl.col("metric") == metric, *[pl.col(k) == v for k, v in where.items()]))
    read(sel)
    record_arm(sel, pl.lit(" ".join(str(v) for v in where.values())), "values")
    return sel["value" if "value" in sel.columns else "mean"].to_numpy().astype(float)


def two_arms(a: np.ndarray, b: np.ndarray, names: tuple[str, str], size: vd.Size, ratio: bool,
             unit: str = "", digits: int = 2, load: str | None = None) -> Result:
    """Arm a against arm b: ratio of geometric means (ratio=True) or difference of means, at size.level."""
    n = f"{a.size} vs {b.size}"
    if not (a.size and b.size):
        return Result(None, "--", n, load, NO_RUNS)
    means = f"{names[0]} {a.mean():.{digits}f} vs {names[1]} {b.mean():.{digits}f}{' ' + unit if unit else ''}"
    if a.size < 2 or b.size < 2:
        return Result(None, means, n, load, FEW)
    if ratio and (a.min() <= 0 or b.min() <= 0):
        return Result(None, means + " (a value <= 0: no ratio)", n, load, "inconclusive (a value <= 0)")
    margin = size.hi - 1 if size.kind == "same" else None
    est = vd.log_ratio(a, b, size.level, margin) if ratio else vd.welch_diff(a, b, size.level)
    extra = f", TOST p={est.p_tost:.2g}" if margin is not None else f", p={est.p:.2g}"
    return Result(est, means + extra, n, load)


Stratum = tuple[str, np.ndarray, np.ndarray]  # (label, arm a, arm b)


class _Read(tuple):
    """A stratum (label, arm a, arm b) that knows its runs (`run_ids`): strata_ratio records, as read, the runs of
    the strata its estimate keeps, not those of a stratum it leaves out (an arm of one run)."""
    run_ids: set[str] | None = None


def _read_kept(given: list[Stratum], kept: list[Stratum]) -> None:
    """Records the runs of the strata of `given` whose arms are those of `kept` (the strata an estimate reads)."""
    arms = {id(x[1]) for x in kept}
    read(set().union(*[x.run_ids or set() for x in given if isinstance(x, _Read) and id(x[1]) in arms]))


def strata_ratio(strata: list[Stratum], names: tuple[str, str], size: vd.Size, unit: str = "", digits: int = 2,
                 load: str | None = None, ratio: bool = True) -> Result:
    """Arm a against arm b within each stratum (a workload, a filesystem, a capture batch, ...): one stratum is
    `two_arms`; more give the mean over strata of the log ratio (a ratio of geometric means pooled without letting
    the strata's own differences into the arms' spread), or of the difference (ratio=False). Strata with an arm
    of fewer than 2 repeats are left out, and said."""
    given, strata = strata, [(s, a, b) for s, a, b in strata if a.size and b.size]
    if len(strata) <= 1:
        _read_kept(given, strata)
        a, b = (strata[0][1], strata[0][2]) if strata else (np.array([]), np.array([]))
        r = two_arms(a, b, names, size, ratio, unit, digits, load)
        label = f"{strata[0][0]}: " if strata and strata[0][0].strip() else ""
        return Result(r.estimate, label + r.measurement, r.n, load, r.verdict)
    kept = [a.size >= 2 and b.size >= 2 and (not ratio or (a.min() > 0 and b.min() > 0)) for _, a, b in strata]
    full = [x for x, k in zip(strata, kept, strict=True) if k]
    out = [x for x, k in zip(strata, kept, strict=True) if not k]

    def listed(part: list[Stratum]) -> str:
        return "; ".join(f"{s} {a.mean():.{digits}f}/{b.mean():.{digits}f}{' ' + unit if unit else ''}"
                         for s, a, b in part)

    if not full:
        _read_kept(given, strata)
        return Result(None, listed(strata), arms_n(strata), load, FEW)
    _read_kept(given, full)
    # n and the strata listed are those the estimate reads; a stratum left out is named with its runs apart
    n, k, each = arms_n(full), len(full), listed(full)
    est = vd.log_contrast([x for _, a, b in full for x in (a, b)], [w for _ in full for w in (1 / k, -1 / k)],
                          size.level, log=ratio)
    left = (f"; left out (an arm with < 2 runs or a value <= 0): {listed(out)} ({arms_n(out)})" if out else "")
    how = f"{names[0]}/{names[1]}" if ratio else f"{names[0]} - {names[1]}"
    f = np.log if ratio else np.asarray
    y = [float(f(a).mean() - f(b).mean()) for _, a, b in full]
    v = [float(f(a).var(ddof=1) / a.size + f(b).var(ddof=1) / b.size) for _, a, b in full]
    est, het, note = pool(est, y, v, size.level, "log" if ratio else "linear")
    own = tuple(vd.log_contrast([a, b], [1, -1], size.level, log=ratio) for _, a, b in full)
    return Result(est, f"mean over strata of {how}: {each}{left}{pooled_p(est, het)}{note}", n, load, het=het,
                  strata=own)


def pooled_p(est: vd.Estimate, het: Heterogeneity) -> str:
    """The pooled estimate's p for a measurement: where the strata disagree it is the random-effects estimate's,
    not the row's (the row's p is its strata's intersection-union one, claims.csv p_decide), and says so (review:
    "p=0.83" read as S1-hot's own)."""
    return f", random-effects p={est.p:.2g} (not the row's)" if het.disagree else f", p={est.p:.2g}"


def arms_n(strata: list[Stratum]) -> str:
    """Runs per arm over `strata`: "10 vs 10 in 3 strata", or "3 vs 3" for one stratum (as two_arms says)."""
    n = f"{sum(a.size for _, a, _ in strata)} vs {sum(b.size for _, _, b in strata)}"
    return n if len(strata) == 1 else f"{n} in {len(strata)} strata"


def pool(fixed: vd.Estimate, y: list[float], v: list[float], level: float, scale: str
         ) -> tuple[vd.Estimate, Heterogeneity, str]:
    """The pooled estimate over strata with effects y (log ratios or differences) and variances v: `fixed` when
    the strata agree (heterogeneity.cochran_q). Where they disagree no pooled estimate decides (the claims table
    judges each stratum on its own, claim_verdict.strata_verdict): a DerSimonian-Laird random-effects estimate
    stands in as the result's estimate, unprinted (the light runs are tried only where the saturating ones give
    none, claim_runs.saturating_first), and its tau^2, the variance between the strata, is reported in the note.
    Also the test's result and the note."""
    het = cochran_q(y, v)
    if y:  # each stratum's effect as a ratio (log scale) or as it is: the range a disagreement spans
        back_each = np.exp if scale == "log" else float
        het = replace(het, span=(float(back_each(min(y))), float(back_each(max(y)))))
    if not het.disagree:
        return fixed, het, f"; strata agree ({het.text()})"
    re = dersimonian_laird(y, v, level)
    back = np.exp if scale == "log" else float
    est = vd.Estimate(float(back(re.value)), float(back(re.lo)), float(back(re.hi)), re.p,
                      f"DerSimonian-Laird random effects over {het.k} strata, t on {het.k - 1} df", se=re.se,
                      dof=re.dof, scale=scale)
    return est, het, f"; strata disagree ({het.text()}): judged per stratum, tau^2={re.tau2:.3g} between them"


def by_strata(t: pl.DataFrame, strata: list[str], arm: pl.Expr, a: str, b: str, value: str = "value"
              ) -> list[Stratum]:
    """Per stratum (a combination of `strata` columns), the values of the rows whose `arm` is a and b."""
    t = t.with_columns(_arm=arm)
    out: list[Stratum] = []
    order = [*strata, "run_id"] if "run_id" in t.columns else strata  # within a stratum, its runs in order
    open_ = _COMPARED.get()
    for key, g in t.sort(order, maintain_order=True).group_by(strata, maintain_order=True):
        label = " ".join(str(k) for k in key if str(k))
        out.append(_Read((label, g.filter(pl.col("_arm") == a)[value].to_numpy().astype(float),
                          g.filter(pl.col("_arm") == b)[value].to_numpy().astype(float))))
        if "run_id" in g.columns:  # recorded as read by strata_ratio, if its estimate keeps the stratum
            out[-1].run_ids = set(g.filter(pl.col("_arm").is_in([a, b]))["run_id"].to_list())
            record_arm(g.filter(pl.col("_arm").is_in([a, b])), pl.col("_arm"))
        if open_ and "run_id" in g.columns and out[-1][1].size and out[-1][2].size:
            both = g.filter(pl.col("_arm").is_in([a, b]))
            open_[-1].append(both.select("run_id", stratum=pl.lit(label), arm=pl.col("_arm").cast(pl.Utf8)))
    return out
