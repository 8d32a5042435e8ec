"""A local run's thread budget: min(--cores, usable CPUs + the largest rule's threads - 1), in a real Snakemake run."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from blkscope import local_cores

SRC = Path(__file__).resolve().parents[1] / "src"


def test_budget_is_the_cpus_and_one_more_thread_per_extra_thread_of_a_rule():
    assert local_cores.budget(8, 2, [1]) == 2
    assert local_cores.budget(8, 2, [1, 2]) == 3
    assert local_cores.budget(8, 4, [1, 2]) == 5


def test_budget_keeps_cores_below_the_cpus():
    assert local_cores.budget(1, 2, [1]) == 1
    assert local_cores.budget(3, 8, [2]) == 3


def test_budget_never_below_a_rules_threads():
    # on one CPU a 2-thread rule still gets its 2: the scheduler refuses a job above the budget
    assert local_cores.budget(8, 1, [1, 2]) == 2
    assert local_cores.budget(8, 1, []) == 1


def _snakemake(tmp_path: Path, cores: int, cpus: str, threads: str = "2") -> str:
    """Run a two-rule workflow whose onstart caps the budget as the project's Snakefile does, on `cpus` (taskset);
    returns stderr. Rule `two` takes `threads` (a number or a lambda), rule `one` 1."""
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "Snakefile").write_text(
        textwrap.dedent(f"""
        onstart:
            from blkscope import local_cores
            local_cores.cap(workflow)

        rule all:
            input: "a", "b"

        rule two:
            output: "a"
            threads: {threads}
            shell: "echo {{threads}} > {{output}}"

        rule one:
            output: "b"
            shell: "touch {{output}}"
        """)
    )
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = ["taskset", "-c", cpus, sys.executable, "-m", "snakemake", "--cores", str(cores), "--quiet", "all"]
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stderr


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs 2 CPUs to pin to")
def test_a_run_on_two_cpus_with_a_two_thread_rule_gets_three(tmp_path):
    err = _snakemake(tmp_path, 8, "0,1")
    assert "--cores 8 on 2 usable CPUs: at most 3 threads at once" in err
    assert (tmp_path / "a").read_text().strip() == "2"  # the rule's threads are its own, not the budget's


def test_a_run_on_one_cpu_keeps_the_two_thread_rule_runnable(tmp_path):
    err = _snakemake(tmp_path, 8, "0")
    assert "--cores 8 on 1 usable CPU: at most 2 threads at once" in err
    assert (tmp_path / "a").read_text().strip() == "2"


def test_a_callable_threads_counts_as_it_evaluates(tmp_path):
    # final review: read from the rules, a callable's 2 threads were missed and the job refused on one CPU
    err = _snakemake(tmp_path, 8, "0", threads="lambda wildcards: 2")
    assert "--cores 8 on 1 usable CPU: at most 2 threads at once" in err
    assert (tmp_path / "a").read_text().strip() == "2"
    err = _snakemake(tmp_path / "x", 8, "0", threads="lambda wildcards: 1")
    assert "--cores 8 on 1 usable CPU: at most 1 thread at once" in err


def test_cores_within_the_budget_are_left_alone(tmp_path):
    assert "usable CPU" not in _snakemake(tmp_path, 1, "0")
