"""blkscope.parallel.map_runs: the runs in order, and its workers sharing the job's threads."""

import os

import pytest

from blkscope.parallel import THREAD_VARS, map_runs


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_come_back_in_the_runs_order(jobs):
    runs = ["a", "bbb", "cc", "dddd"]  # run largest first (size: len), returned as given
    assert map_runs(runs, str.upper, jobs, size=len) == ["A", "BBB", "CC", "DDDD"]


def test_workers_split_the_jobs_thread_pools(monkeypatch):
    # as Snakemake runs a job of 2 threads (OMP and OpenBLAS) with blkscope.cli's polars budget
    for k in THREAD_VARS:
        monkeypatch.setenv(k, "2")
    seen = map_runs(list(THREAD_VARS), os.getenv, 2, size=len)
    assert seen == ["1"] * len(THREAD_VARS)  # one thread each in the two workers
    assert [os.environ[k] for k in THREAD_VARS] == ["2"] * len(THREAD_VARS)  # the parent's own, given back
    monkeypatch.delenv("POLARS_MAX_THREADS")  # unset: a share of the machine's cores, then unset again
    assert map_runs(["POLARS_MAX_THREADS", "x"], os.getenv, 2, size=len)[0] == str(max(1, os.cpu_count() // 2))
    assert "POLARS_MAX_THREADS" not in os.environ
