"""A local run's thread budget: min(--cores, usable CPUs + the largest rule's threads - 1)."""

from types import SimpleNamespace

from blkscope import local_cores


def _workflow(cores, *threads):
    sched = SimpleNamespace(global_resources={"_cores": cores, "_nodes": 1}, resources={"_cores": cores, "_nodes": 1})
    rules = [SimpleNamespace(resources={"_cores": t}) for t in threads]
    return SimpleNamespace(scheduler=sched, rules=rules)


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


def test_cap_lowers_the_schedulers_cores_and_says_so(capsys):
    wf = _workflow(8, 1, 2, lambda wc: 4)  # a callable's threads are not known here and are left out
    assert local_cores.cap(wf, cpus=2) == 3
    assert wf.scheduler.global_resources["_cores"] == 3 and wf.scheduler.resources["_cores"] == 3
    assert wf.scheduler.global_resources["_nodes"] == 1
    assert "--cores 8 on 2 usable CPUs: at most 3 threads" in capsys.readouterr().err


def test_cap_leaves_a_budget_within_the_cpus_alone(capsys):
    wf = _workflow(2, 1, 2)
    assert local_cores.cap(wf, cpus=2) == 2
    assert wf.scheduler.global_resources["_cores"] == 2
    assert capsys.readouterr().err == ""


def test_usable_cpus_follows_the_affinity_mask():
    import os

    assert local_cores.usable_cpus() == len(os.sched_getaffinity(0)) >= 1
