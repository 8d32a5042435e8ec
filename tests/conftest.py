"""How `make test` spreads the suite over pytest-xdist's workers (`pytest -n 2`).

Each module stays on one worker, so its module fixtures (the miniature workflow, the SLURM runs) run once. Every
module that runs hardware (loop devices, the tracer, device caps), a JVM, the qemu guest, or builds what those
share (tools/*/target, the guest's payload) is in one scope, so they run one after another as in a serial run:
the hardware lock would serialise their captures anyway, and two Maven builds of one target must not overlap.
(A scheduler of our own, not `--dist loadgroup`: xdist 3.8 marks a group by rewriting `item._nodeid`, which
pytest 9's items no longer read, so its groups are silently ignored.)

Two more hooks come from modules of their own: `--strict-skips` fails a skip that tests/allowed_skips.toml does
not list (tests/skip_policy.py), and `@pytest.mark.requires(PROGRAM, ...)` fails a test whose program is missing,
naming its Debian package (tests/requires.py)."""

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

ROOT = Path(__file__).resolve().parents[1]

# module-name parts that put a module in the serial scope
SERIAL = ("_root", "capture", "cassandra", "guest", "device_cap", "workloads")

try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pytest without xdist: nothing to schedule
    LoadScopeScheduling = None


def scope(nodeid: str) -> str:
    """The unit a worker takes whole: the module, or "serial" for the modules above."""
    module = nodeid.split("::", 1)[0]
    name = module.rsplit("/", 1)[-1].removesuffix(".py")
    return "serial" if any(part in name for part in SERIAL) else module


if LoadScopeScheduling is not None:

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(config, log):
        return ModuleScheduling(config, log)


@pytest.fixture(scope="session")
def guest_build() -> Path:
    """The guest's kernel and initramfs (build/guest), built as the guest_build rule does when absent: a failed
    build fails the tests that need it."""
    out = ROOT / "build" / "guest"
    if not (out / "manifest.json").exists():
        cmd = [sys.executable, "-m", "blkscope.capture.guest.build", "-o", str(out)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, f"guest build failed (exit {p.returncode}): {p.stderr.strip()[-2000:]}"
    return out
