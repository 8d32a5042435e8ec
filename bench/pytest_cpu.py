"""A pytest plugin: each test's CPU (its process and the children it reaped), with its fixtures' set-up and
teardown, one TSV line per test. Load it with `-p pytest_cpu` and bench/ on PYTHONPATH; the lines go to
$PYTEST_CPU_OUT.<worker> (nodeid, wall s, self CPU s, children CPU s, start as Unix time). Summed per module by
bench/pytest_cpu_sum.py (`--timeline`: when each module ran, on which worker). A session or module fixture's cost
falls on the first test that uses it."""

import os
import resource
import time

import pytest


def _cpu() -> tuple[float, float]:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    out = os.environ.get("PYTEST_CPU_OUT")
    start, t0, (s0, c0) = time.time(), time.monotonic(), _cpu()
    yield
    if out:
        t1, (s1, c1) = time.monotonic(), _cpu()
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{out}.{worker}", "a") as f:
            f.write(f"{item.nodeid}\t{t1 - t0:.3f}\t{s1 - s0:.3f}\t{c1 - c0:.3f}\t{start:.3f}\n")
