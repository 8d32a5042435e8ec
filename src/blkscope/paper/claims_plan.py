"""The claims plan (config/claims_plan.yaml): each claim's measure, the runs it reads, its band, planned n and
stopping rule, fixed before those runs are captured; and the deviations from it, with the estimate before and after.

`load` reads and checks the file (an error names the file and line); `check` compares the plan with the claims
of blkscope.paper.claims: every claim has an in-memory entry whose quantity and band are the claim's, and a claim's
measure (its `fingerprint`: the estimator's source, its arguments, the quantity and band) is the plan's unless a
deviation dated after the plan names the claim and the new fingerprint. The claims table reads the plan for the
runs each row may read: in-memory rows leave out the exploratory batches (added after a look) and the scale
batches; an entry with `batches` reads those alone (a replication judged on its own runs). The `descriptive`
entries (the cache sweep) fix what a batch that no claim judges will measure, before its capture.
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from pathlib import Path

import yaml

from blkscope.errors import InputError

CONDITIONS = ("in-memory", "scale", "replication")
ENTRY_KEYS = ("id", "condition", "measure", "selection", "band", "n_per_arm", "stopping")
DEVIATION_KEYS = ("date", "commit", "claims", "what", "why", "before", "after")
DEVIATION_KINDS = ("measure", "selection", "verdict rule", "secondary", "correction", "headline", "pooling")
AMENDMENT = "amendment"  # an entry of the plan's `amendments` (a Deviation of this kind)
DESCRIPTIVE_KEYS = ("id", "fixed", "question", "batches", "measures", "against", "estimator", "runs", "window",
                    "repeats", "bytes", "capture_time", "stopping")  # fmt: skip


def _error(path: Path, line, message: str) -> InputError:
    return InputError(path, f"line {line}", message)


class _Loader(yaml.SafeLoader):
    """Mappings carry the 1-based line they start on, as `__line__`, for errors."""


def _mapping(loader: _Loader, node: yaml.MappingNode) -> dict:
    d = loader.construct_mapping(node, deep=True)
    d["__line__"] = node.start_mark.line + 1
    return d


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


@dataclass(frozen=True)
class Entry:
    claim_id: str
    condition: str
    quantity: str
    estimator: str
    runs: str
    window: str
    band: str
    n_per_arm: int
    stopping: str
    batches: tuple[str, ...]  # empty: every batch but the exploratory and scale ones
    fingerprint: str
    line: int

    @property
    def row_id(self) -> str:
        """The claims table's claim_id of this entry's row."""
        return self.claim_id if self.condition == "in-memory" else f"{self.claim_id}-{self.condition}"


@dataclass(frozen=True)
class Deviation:
    date: str
    commit: str
    claims: tuple[str, ...]
    what: str
    why: str
    before: str
    after: str
    fingerprint: dict  # claim id -> its fingerprint after the change (only for changes after the plan's date)
    line: int
    # what it changed: a claim's "measure" (recomputed before and after, claim_deviations), the runs a condition's
    # rows "selection" reads (`condition`: those rows), a "verdict rule" (the condition rule: the rows it moved), or
    # none: a "secondary" measure beside a planned one, whose verdict stays (claim_secondary; recomputed, the planned
    # estimate before and the secondary one after); a "correction" of an error in how runs were labelled (the
    # plan's words before and after); what the "headline" counts (its counts before, and after as the claims table
    # gives them); how strata that disagree are judged, "pooling" (its rows before, as the plan's words give them,
    # and after, as the claims table gives them); an "amendment" of the plan before the runs it concerns were captured
    kind: str = "measure"
    condition: str = "in-memory"
    short: str = ""  # the change in a few words, for a sentence that lists the changes after the plan
    # an amendment's: the deviation (its commit) whose row is the amendment's already, and whether it withdrew rows
    listed: str = ""
    withdrawn: bool = False
    seen: str = ""  # an amendment's: what of the same rows' earlier runs had been captured and seen before it

    @property
    def measure(self) -> bool:
        return self.kind == "measure"

    @property
    def recomputed(self) -> bool:
        """Its estimates before and after come from claim_deviations.recompute (a measure's, a secondary's)."""
        return self.kind in ("measure", "secondary")


@dataclass(frozen=True)
class Descriptive:
    """A descriptive measure (the cache sweep): what it measures over which runs, fixed before they are captured;
    no band and no verdict, so no row of the claims table."""

    measure_id: str
    fixed: str
    batches: tuple[str, ...]
    beside: tuple[str, ...]  # batches drawn beside the measure's own (not planned here)
    repeats: int
    text: dict  # the entry's prose fields (question, measures, against, estimator, runs, window, ...)
    line: int


@dataclass(frozen=True)
class Plan:
    path: Path
    date: str
    exploratory_batches: tuple[str, ...]
    rules: dict
    entries: tuple[Entry, ...]
    deviations: tuple[Deviation, ...]
    descriptive: tuple[Descriptive, ...] = ()
    amendments: tuple[Deviation, ...] = ()  # kind AMENDMENT: changes made before the runs they concern existed

    def entry(self, claim_id: str, condition: str = "in-memory") -> Entry | None:
        return next((e for e in self.entries if e.claim_id == claim_id and e.condition == condition), None)

    @property
    def narrowings(self) -> tuple[Deviation, ...]:
        """The measure deviations that narrowed a claim's runs after its estimate was seen (those with `short`
        words), in date order: the claims table's note and the sentence beside each number read these alike."""
        return tuple(sorted((d for d in self.deviations if d.measure and d.short), key=lambda d: d.date))

    @property
    def scale_batches(self) -> tuple[str, ...]:
        return tuple(sorted({b for e in self.entries if e.condition != "in-memory" for b in e.batches}))


def load(path: str | Path) -> Plan:
    path = Path(path)
    try:
        d = yaml.load(path.read_text(), Loader=_Loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise _error(path, mark.line + 1 if mark else "?", f"not YAML: {e}") from e
    if not isinstance(d, dict):
        raise _error(path, 1, "a mapping with date, rules, claims expected")
    for k in ("date", "rules", "claims"):
        if k not in d:
            raise _error(path, 1, f"no `{k}`")
    rules = d["rules"]
    entries = tuple(_entry(path, e) for e in d["claims"])
    seen: dict[tuple[str, str], int] = {}
    for e in entries:
        if (e.claim_id, e.condition) in seen:
            raise _error(path, e.line, f"{e.claim_id} ({e.condition}) planned twice (also line "
                            f"{seen[e.claim_id, e.condition]})")
        seen[e.claim_id, e.condition] = e.line
    devs = tuple(_deviation(path, x) for x in d.get("deviations") or [])
    desc = tuple(_descriptive(path, x, entries) for x in d.get("descriptive") or [])
    amend = tuple(_deviation(path, x, AMENDMENT) for x in d.get("amendments") or [])
    return Plan(path, str(d["date"]), tuple(rules.get("exploratory_batches") or ()), rules, entries, devs, desc,
                amend)


def _need(path: Path, d, keys: tuple[str, ...], what: str) -> None:
    line = d.get("__line__", "?") if isinstance(d, dict) else "?"
    if not isinstance(d, dict):
        raise _error(path, line, f"{what} is not a mapping")
    missing = [k for k in keys if k not in d]
    if missing:
        raise _error(path, line, f"{what} {d.get('id', '')} lacks {', '.join(missing)}")


def _entry(path: Path, e) -> Entry:
    _need(path, e, ENTRY_KEYS, "claims entry")
    _need(path, e["measure"], ("quantity", "estimator"), f"measure of {e['id']}")
    _need(path, e["selection"], ("runs", "window"), f"selection of {e['id']}")
    if e["condition"] not in CONDITIONS:
        raise _error(path, e['__line__'], f"condition {e['condition']!r} not one of {CONDITIONS}")
    if not isinstance(e["n_per_arm"], int) or e["n_per_arm"] < 0:
        raise _error(path, e['__line__'], f"n_per_arm of {e['id']} is not a count")
    batches = e["selection"].get("batches") or ()
    if e["condition"] != "in-memory" and not batches and e["n_per_arm"]:  # a withdrawn entry (0) reads none
        raise _error(path, e['__line__'], f"{e['id']} ({e['condition']}) names no batches")
    return Entry(str(e["id"]), e["condition"], e["measure"]["quantity"], e["measure"]["estimator"],
                 e["selection"]["runs"], e["selection"]["window"], str(e["band"]), e["n_per_arm"],
                 str(e["stopping"]), tuple(batches), str(e["measure"].get("fingerprint", "")), e["__line__"])


def _deviation(path: Path, x, amendment: str = "") -> Deviation:
    _need(path, x, DEVIATION_KEYS, amendment or "deviation")
    kind = amendment or str(x.get("kind") or "measure")
    if not amendment and kind not in DEVIATION_KINDS:
        raise _error(path, x["__line__"], f"kind {kind!r} not one of {DEVIATION_KINDS}")
    return Deviation(str(x["date"]), str(x["commit"]), tuple(x["claims"]), x["what"], x["why"], str(x["before"]),
                     str(x["after"]), {k: str(v) for k, v in (x.get("fingerprint") or {}).items() if k != "__line__"},
                     x["__line__"], kind, str(x.get("condition") or "in-memory"), str(x.get("short") or ""),
                     str(x.get("listed") or ""), bool(x.get("withdrawn")), str(x.get("seen") or ""))


def _descriptive(path: Path, x, entries: tuple[Entry, ...]) -> Descriptive:
    _need(path, x, DESCRIPTIVE_KEYS, "descriptive entry")
    if not isinstance(x["repeats"], int) or x["repeats"] < 1:
        raise _error(path, x["__line__"], f"repeats of {x['id']} is not a count")
    if not x["batches"] or not isinstance(x["batches"], list):
        raise _error(path, x["__line__"], f"{x['id']} names no batches")
    judged = {b for e in entries for b in e.batches} & set(x["batches"])
    if judged:  # a batch is either judged by a claim or described, not both
        raise _error(path, x["__line__"], f"{x['id']}: batch(es) {', '.join(sorted(judged))} are read by a claim")
    text = {k: v for k, v in x.items() if k not in ("id", "fixed", "batches", "beside", "repeats", "__line__")}
    return Descriptive(str(x["id"]), str(x["fixed"]), tuple(x["batches"]), tuple(x.get("beside") or ()),
                       x["repeats"], text, x["__line__"])  # fmt: skip


# -- what a claim's measure is ------------------------------------------------------------------------------


def _sources(fn, seen: set[int]) -> list[str]:
    """The source of an estimator: its own (for a closure, its factory's), the module constants it reads, its
    closure's values, and the sources of the functions it closes over."""
    if id(fn) in seen:
        return []
    seen.add(id(fn))
    mod = inspect.getmodule(fn)
    outer = fn.__qualname__.split(".<locals>")[0]
    owner = getattr(mod, outer, None) if "<lambda>" not in outer else None
    try:
        parts = [inspect.getsource(owner if callable(owner) else fn)]
    except (OSError, TypeError):
        parts = [fn.__code__.co_code.hex()]
    code = owner.__code__ if callable(owner) and hasattr(owner, "__code__") else fn.__code__
    for name in sorted(_names(code)):  # module constants it reads (the workloads, the batch stratum, ...)
        v = fn.__globals__.get(name)
        if isinstance(v, str | int | float | bool | tuple | list | type(None)) and name in fn.__globals__:
            parts.append(f"{name}={v!r}")
    for cell in fn.__closure__ or ():
        v = cell.cell_contents
        if callable(v) and hasattr(v, "__code__"):
            parts += _sources(v, seen)
        elif isinstance(v, str | int | float | bool | tuple | type(None)):
            parts.append(repr(v))
    return parts


def _names(code) -> set[str]:
    out = set(code.co_names)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            out |= _names(c)
    return out


def fingerprint(claim) -> str:
    """12 hex digits over the claim's quantity, band and estimator (blkscope.paper.claims.Claim)."""
    s = claim.size
    text = "\n".join([claim.quantity, f"{s.kind} {s.lo!r} {s.hi!r} {s.text}", *_sources(claim.evaluate, set())])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def check(plan: Plan, claims) -> list[str]:
    """Where the plan and the claims disagree; empty when they agree."""
    out = []
    for c in claims:
        e = plan.entry(c.claim_id)
        if e is None:
            out.append(f"{c.claim_id}: no in-memory entry in {plan.path}")
            continue
        where = f"{plan.path}:{e.line}: {c.claim_id}"
        if e.quantity != c.quantity:
            out.append(f"{where}: quantity {e.quantity!r} in the plan, {c.quantity!r} in claims.py")
        if e.band != c.size.text:
            out.append(f"{where}: band {e.band!r} in the plan, {c.size.text!r} in claims.py")
        fp = fingerprint(c)
        later = [d for d in plan.deviations if d.date > plan.date and d.fingerprint.get(c.claim_id) == fp]
        if e.fingerprint != fp and not later:
            out.append(f"{where}: the measure changed (fingerprint {fp}, plan {e.fingerprint or 'none'}) and no "
                       f"deviation dated after {plan.date} names it")
    ids = {c.claim_id for c in claims}
    out += [f"{plan.path}:{e.line}: {e.claim_id} is planned but is no claim" for e in plan.entries
            if e.claim_id not in ids]
    return out
