"""How `make test` spreads the suite over pytest-xdist's workers (`pytest -n 2 --dist loadgroup`).

Each module stays on one worker, so its module fixtures (the miniature workflow, the SLURM runs) run once. Every
module that runs hardware (loop devices, the tracer, device caps), a JVM, the qemu guest, or builds what those
share (tools/*/target, the guest's payload) is in one group, so they run one after another as in a serial run:
the hardware lock would serialise their captures anyway, and two Maven builds of one target must not overlap."""

import pytest

# module-name parts that put a module in the serial group
SERIAL = ("_root", "capture", "cassandra", "guest", "device_cap", "workloads")


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        group = "serial" if any(part in module for part in SERIAL) else module
        item.add_marker(pytest.mark.xdist_group(group))
