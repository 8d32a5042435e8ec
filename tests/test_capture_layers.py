"""capture/ has one direction (DESIGN.md, Round 2): base modules, then testbeds (loop, device, guest) and
workloads side by side, then the orchestrator (run.py with run_guest.py) on top. Read from the source's imports
(lazy ones inside functions included), so a new two-way tie fails here."""

from __future__ import annotations

import ast
from pathlib import Path

CAPTURE = Path(__file__).resolve().parents[1] / "src" / "blkscope" / "capture"
ORCHESTRATOR = {"run", "run_guest"}
TESTBEDS = {"loop", "device", "guest"}


def _imports() -> dict[str, set[str]]:
    """capture module (dotted, relative to capture/) -> capture modules it imports."""
    out: dict[str, set[str]] = {}
    for p in CAPTURE.rglob("*.py"):
        name = ".".join(p.relative_to(CAPTURE).with_suffix("").parts).removesuffix(".__init__")
        deps: set[str] = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("blkscope.capture"):
                base = node.module.removeprefix("blkscope.capture").lstrip(".")
                deps |= {f"{base}.{a.name}".lstrip(".") for a in node.names} if base in ("", "guest") else {base}
            elif isinstance(node, ast.Import):
                deps |= {a.name.removeprefix("blkscope.capture.") for a in node.names if "capture." in a.name}
        out[name] = deps
    return out


def _top(mod: str) -> str:
    return mod.split(".")[0]


def test_nothing_imports_the_orchestrator() -> None:
    bad = {m: d & ORCHESTRATOR for m, d in _imports().items() if m not in ORCHESTRATOR and d & ORCHESTRATOR}
    assert not bad, f"modules below the orchestrator import it: {bad}"
    assert "run_guest" in _imports()["run"], "the orchestrator's guest path is reached from run.py"


def test_testbeds_and_workloads_do_not_import_each_other_both_ways() -> None:
    imp = _imports()
    pairs = {(_top(a), _top(b)) for a, deps in imp.items() for b in deps if _top(a) != _top(b)}
    two_way = {tuple(sorted(p)) for p in pairs if (p[1], p[0]) in pairs}
    assert not two_way, f"two-way imports between capture modules: {sorted(two_way)}"
    for testbed in TESTBEDS:  # a testbed runs whatever workload it is given; it knows none by name
        for mod, deps in imp.items():
            if _top(mod) == testbed:
                assert not any(_top(d) == "workloads" for d in deps), (mod, deps)


def test_lazy_imports_are_seen() -> None:
    """The walk sees imports inside functions (the form the old two-way ties took): ycsb's payload build."""
    assert "guest.java_payload" in _imports()["workloads.ycsb"]
