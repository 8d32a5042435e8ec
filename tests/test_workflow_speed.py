"""blkscope.workflow_speed keeps Snakemake's answers: the same jobs for plain and pattern outputs, the same input
checksums in the records, and a changed params still reruns (the record is read through the enlarged cache)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SNAKEFILE = """
{head}
N = int(config.get("size", 1))
rule all:
    input: expand("out/{{i}}.txt", i=range(3)), "sum.txt", "lines.txt"
rule many:  # a batch with plain outputs, as the ingest batches are
    output: expand("out/{{i}}.txt", i=range(3))
    shell: "for i in 0 1 2; do echo $i > out/$i.txt; done"
rule one:  # a pattern output
    output: "pat/{{name}}.txt"
    shell: "echo {{wildcards.name}} > {{output}}"
rule total:  # two outputs: each record holds the checksums (the second from the cache)
    input: expand("out/{{i}}.txt", i=range(3)), "pat/x.txt"
    output: "sum.txt", "lines.txt"
    params: n=N
    shell: "cat {{input}} > {{output[0]}}; echo {{params.n}} >> {{output[0]}}; wc -l < {{output[0]}} > {{output[1]}}"
"""
PATCH = "from blkscope import workflow_speed\nworkflow_speed.apply()"


def _snakemake(d: Path, n: int, *args: str) -> str:
    cmd = [sys.executable, "-m", "snakemake", "--cores", "1", *args, "--config", f"size={n}"]
    r = subprocess.run(cmd, cwd=d, capture_output=True, text=True, env=os.environ | {"PYTHONWARNINGS": "ignore"})
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def _plan(d: Path, n: int) -> list[tuple[str, str]]:
    """(rule, reason) of every job a dry run would start."""
    out = _snakemake(d, n, "-n")
    rules = re.findall(r"^(?:local)?rule (\w+):", out, re.M)
    reasons = re.findall(r"^\s+reason: (.*)$", out, re.M)
    return sorted(zip(rules, reasons, strict=True))


@pytest.mark.parametrize("patched", [False, True])
def test_same_jobs_and_reruns_as_snakemake(tmp_path, patched):
    (tmp_path / "Snakefile").write_text(SNAKEFILE.format(head=PATCH if patched else ""))
    first = _plan(tmp_path, 1)
    assert [r for r, _ in first] == ["all", "many", "one", "total"]
    _snakemake(tmp_path, 1)
    assert _plan(tmp_path, 1) == []  # nothing to do
    # the records of both outputs hold the checksum of every input as it was read (computed once per version)
    records = [json.loads(p.read_text()) for p in (tmp_path / ".snakemake" / "metadata").iterdir()]
    total = [r for r in records if r["rule"] == "total"]
    expect = {f: "sha256:" + hashlib.sha256((tmp_path / f).read_bytes()).hexdigest()
              for f in ["out/0.txt", "out/1.txt", "out/2.txt", "pat/x.txt"]}  # fmt: skip
    assert len(total) == 2 and all(r["input_checksums"] == expect for r in total)
    # a changed param is found in the metadata record (read through the cache): only that job reruns
    again = _plan(tmp_path, 2)
    assert [r for r, _ in again] == ["all", "total"]
    assert "params" in dict(again)["total"].lower()


def test_apply_installs_every_mend_once():
    from snakemake.io import _IOFile
    from snakemake.persistence.file import FilePersistence
    from snakemake.rules import Rule

    from blkscope import workflow_speed

    saved = Rule.is_producer, _IOFile.checksum, FilePersistence._read_record_cached
    try:
        workflow_speed.apply()
        assert FilePersistence._read_record_cached.cache_parameters()["maxsize"] is None
        assert Rule.is_producer._blkscope and _IOFile.checksum._blkscope
        assert not any(workflow_speed.apply().values())  # already in place: nothing wrapped twice
    finally:  # this process's Snakemake as it was (other tests import it)
        Rule.is_producer, _IOFile.checksum, FilePersistence._read_record_cached = saved
