"""How `make test` spreads the suite over pytest-xdist's workers (`pytest -n $(TEST_WORKERS)`, Makefile).

Each module stays on one worker, so its module fixtures (the miniature workflow, the SLURM runs) run once. The
modules that run hardware (name `*_root`: loop devices, the tracer, device and memory caps, the qemu guest) are
one scope, run one after another as in a serial run: their captures queue on /tmp/blkscope-hw.lock anyway, and
their checks read host-wide state (current_tracer, loop devices, cgroups) that another capture would change. Those
that only share a build (tools/*/target, the guest's payload, build/guest) take its lock (hwlock.build_lock), so
they run beside the rest: a JVM or a SLURM poll mostly waits, and the other workers fill the waits.

Scopes start longest first (LONGEST_FIRST, from `pytest --durations`; the rest by their number of tests, as
xdist orders them): the hardware chain is the critical path, and a long module handed out last is a tail.
(A scheduler of our own, not `--dist loadgroup`: xdist 3.8 marks a group by rewriting `item._nodeid`, which
pytest 9's items no longer read, so its groups are silently ignored.)

Two more hooks come from modules of their own: `--strict-skips` fails a skip that tests/allowed_skips.toml does
not list (tests/skip_policy.py), and `@pytest.mark.requires(PROGRAM, ...)` fails a test whose program is missing,
naming its Debian package (tests/requires.py)."""

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from requires import pytest_runtest_setup  # noqa: F401 - a hook, found by its name
from skip_policy import (  # noqa: F401 - hooks, found by their names
    pytest_addoption,
    pytest_configure,
    pytest_make_collect_report,
    pytest_runtest_makereport,
)

from blkscope.capture.hwlock import build_lock

ROOT = Path(__file__).resolve().parents[1]

# the niceness of the other scopes' tests beside the hardware chain (pytest_runtest_protocol)
NICE_OTHERS = 10
# `*_root` modules that touch no host-wide state: the node and YCSB in a chroot in namespaces of their own
OWN_NAMESPACES = ("test_cassandra_guest_root",)
# the longest scopes (seconds of a 2-worker run), handed out first
LONGEST_FIRST = ("hardware", "tests/test_workflow_e2e.py", "tests/test_slurm.py", "tests/test_cassandra_guest_root.py",
                 "tests/test_parquet_readers.py", "tests/test_guest_java_payload.py", "tests/test_empty_answers.py",
                 "tests/test_workflow_parts.py")  # fmt: skip

# The JVMs of the suite's captures (Cassandra nodes, nodetool, YCSB and CQL clients): C1 only, one compiler thread,
# the serial collector (after the node's own G1 flags: -UseG1GC first). The captures take them from the environment
# (`blkscope capture` reads $BLKSCOPE_JVM_OPTS) and record them in run.yaml; the root tests check that record.
# A user's own $BLKSCOPE_JVM_OPTS wins (empty: the JVMs as the dataset's captures run them).
TEST_JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:-UseG1GC -XX:+UseSerialGC"
os.environ.setdefault("BLKSCOPE_JVM_OPTS", TEST_JVM_OPTS)

try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pytest without xdist: nothing to schedule
    LoadScopeScheduling = None


def scope(nodeid: str) -> str:
    """The unit a worker takes whole: the module, or "hardware" for the hardware modules."""
    module = nodeid.split("::", 1)[0]
    name = module.rsplit("/", 1)[-1].removesuffix(".py")
    return "hardware" if name.endswith("_root") and name not in OWN_NAMESPACES else module


def rank(scope_: str) -> int:
    """Where a scope starts: the long ones in LONGEST_FIRST's order, then the rest."""
    return LONGEST_FIRST.index(scope_) if scope_ in LONGEST_FIRST else len(LONGEST_FIRST)


if LoadScopeScheduling is not None:

    class ModuleScheduling(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the queue is whole before the first unit leaves it (xdist's schedule())
                for s in sorted(self.workqueue, key=rank):  # stable: the rest keep xdist's order
                    self.workqueue.move_to_end(s)
                self.ordered = True
            super()._assign_work_unit(node)

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(config, log):
        return ModuleScheduling(config, log)


def pytest_runtest_protocol(item, nextitem) -> None:
    """Under xdist, a test outside the hardware scope (with its fixtures and the processes it starts) runs at
    NICE_OTHERS: the hardware chain's captures (a TCG guest, JVMs) are CPU-bound and the critical path, and the
    other workers take what CPU it leaves."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # back from NICE_OTHERS needs root, as the hardware tests do
        with contextlib.suppress(PermissionError):
            os.setpriority(os.PRIO_PROCESS, 0, 0 if scope(item.nodeid) == "hardware" else NICE_OTHERS)


@pytest.fixture(scope="session")
def guest_build() -> Path:
    """The guest's kernel and initramfs (build/guest), built as the guest_build rule does when absent: a failed
    build fails the tests that need it."""
    out = ROOT / "build" / "guest"
    out.parent.mkdir(exist_ok=True)
    with build_lock(out.parent):  # each xdist worker has this session fixture: one builds, the others wait
        if not (out / "manifest.json").exists():
            cmd = [sys.executable, "-m", "blkscope.capture.guest.build", "-o", str(out)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            assert p.returncode == 0, f"guest build failed (exit {p.returncode}): {p.stderr.strip()[-2000:]}"
    return out
