"""The workflow's batch verbs (one process for many runs) give what one call per run gives: `ingest-runs` against
`ingest` of each log, `access-frequency --each` / `frequency --each` against one call per run, `paper-figure` of
several names against one call each. Real runs of the embedded dataset (a host tracefs run, a guest blktrace run)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from blkscope import datasets
from blkscope.cli import main
from blkscope.run_logs import outputs, sources

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data" / "raw"
RUNS = ["host-xfs-fio-randrw-r2", "guest-f2fs-sysbench-rndrw-r1"]
BOTH = "guest-ext4-cassandra-ycsb-workloada-zipfian-small-r1"  # a page counted as metadata and as data
pytestmark = pytest.mark.skipif(not all((RAW / r).is_dir() for r in RUNS), reason="embedded dataset absent")


def same(a: Path, b: Path) -> None:
    assert pl.read_parquet(a).equals(pl.read_parquet(b)), (a, b)


def test_ingest_runs_equals_one_ingest_per_log(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    assert main(["ingest-runs", "--sheet", str(ROOT / "config/runs.tsv"), "--raw", str(RAW), "-o", str(batch),
                 *RUNS]) == 0
    sheet = pl.read_csv(ROOT / "config/runs.tsv", separator="\t")
    for r in RUNS:
        workload = sheet.filter(pl.col("run_id") == r)["workload"][0]
        src = sources(RAW, r, workload)
        assert [s for s, _, _ in src] == ["trace", "iostat", workload]
        for f in outputs(batch, r, src):
            assert f.exists(), f
        for sub, kind, files in src:
            one = tmp_path / "one" / r / sub
            assert main(["ingest", "--kind", kind, *map(str, files), "-o", str(one)]) == 0
            for p in one.glob("*.parquet"):
                same(p, batch / r / sub / p.name)
            assert json.loads((one / "ingest.json").read_text()) == json.loads((batch / r / sub / "ingest.json")
                                                                                .read_text())


def test_each_run_equals_one_call_per_run(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    assert main(["ingest-runs", "--sheet", str(ROOT / "config/runs.tsv"), "--raw", str(RAW), "-o", str(proc),
                 *RUNS]) == 0
    events = [str(proc / r / "trace" / "events.parquet") for r in RUNS]
    tpl = str(proc / "{run}" / "frequency")
    assert main(["access-frequency", "--each", *events, "--mode", "ssd-study", "--fof", tpl + "/fof.parquet",
                 "--rank", tpl + "/rank.parquet"]) == 0
    assert main(["frequency", "--each", *events, "--pages", tpl + "/pages.parquet", "--rank", tpl + "/r.parquet"]) == 0
    for r, ev in zip(RUNS, events, strict=True):
        one = tmp_path / "one" / r
        assert main(["access-frequency", ev, "--mode", "ssd-study", "--fof", str(one / "fof.parquet"),
                     "--rank", str(one / "rank.parquet")]) == 0
        assert main(["frequency", ev, "--pages", str(one / "pages.parquet"), "--rank", str(one / "r.parquet")]) == 0
        for name in ["fof", "rank", "pages", "r"]:
            same(one / f"{name}.parquet", proc / r / "frequency" / f"{name}.parquet")
    with pytest.raises(ValueError):
        from blkscope.cli.common import each_run

        each_run([Path(e) for e in events], True, fof=tmp_path / "fof.parquet")  # no {run}: would overwrite


def test_both_modes_and_the_metadata_in_one_call(tmp_path: Path) -> None:
    """The workflow's access_frequency job: `access-frequency --mode cover,ssd-study --metadata-hot --metadata-rank`
    writes, byte for byte, what one call per mode and `metadata` write, and records one manifest per dataset.
    The job counts with blkscope-native pages; the calls per mode read a copy of the events polars wrote, which
    that program does not take, so they count in polars. BOTH has a page counted as metadata and as data (polars:
    the cover counts are summed from the classes')."""
    runs = [*RUNS, BOTH] if (RAW / BOTH).is_dir() else RUNS
    proc = tmp_path / "proc"
    assert main(["ingest-runs", "--sheet", str(ROOT / "config/runs.tsv"), "--raw", str(RAW), "-o", str(proc),
                 *runs]) == 0
    events = [str(proc / r / "trace" / "events.parquet") for r in runs]
    tables = ["fof", "rank", "pages"]
    modes = {m: [proc / r / "frequency" / f"{k}.{m}.parquet" for r in runs for k in tables]
             for m in ("cover", "ssd-study")}  # fmt: skip
    files = {**modes, "metadata": [proc / r / "characterise" / f"{k}.parquet" for r in runs for k in ("hot", "rank")]}
    manifests = {m: tmp_path / f"{m}.tsv" for m in files}
    args = [a for k in tables for a in (f"--{k}", str(proc / "{run}" / "frequency" / f"{k}.{{mode}}.parquet"))]
    args += [a for k in ("hot", "rank") for a in (f"--metadata-{k}", str(proc / "{run}/characterise" / f"{k}.parquet"))]
    for m, fs in files.items():
        args += ["--record-dataset", str(manifests[m]), "--dataset-files", *map(str, fs)]
    assert main(["access-frequency", "--each", *events, "--mode", "cover,ssd-study", *args]) == 0
    for m, fs in files.items():
        assert datasets.verify(manifests[m]) == sorted(fs)
    for r, ev in zip(runs, events, strict=True):
        one = tmp_path / "one" / r
        one.mkdir(parents=True)
        ev = str(one / "events.parquet")  # the same events, written by polars: counted in polars
        pl.read_parquet(events[runs.index(r)]).write_parquet(ev)
        for m in modes:
            assert main(["access-frequency", ev, "--mode", m,
                         *[a for k in tables for a in (f"--{k}", str(one / f"{k}.{m}.parquet"))]]) == 0  # fmt: skip
        assert main(["metadata", ev, "-o", str(one / "hot.parquet"), "--rank", str(one / "rank.parquet")]) == 0
        for f in [*modes["cover"], *modes["ssd-study"], *files["metadata"]]:
            if f.parts[-3] == r:
                assert (one / f.name).read_bytes() == f.read_bytes(), f
    # two modes, one path: one would overwrite the other
    assert main(["access-frequency", events[0], "--mode", "cover,ssd-study", "--fof", str(tmp_path / "f.parquet")]) == 2


def test_paper_figure_several_names(tmp_path: Path) -> None:
    names = ["latency_stages", "queue_depth"]  # figures whose captions need no table
    assert main(["paper-figure", *names, "-o", str(tmp_path / "{name}.tex")]) == 0
    for n in names:
        assert main(["paper-figure", n, "-o", str(tmp_path / f"one_{n}.tex")]) == 0
        assert (tmp_path / f"{n}.tex").read_text() == (tmp_path / f"one_{n}.tex").read_text()
    assert main(["paper-figure", *names, "-o", str(tmp_path / "x.tex")]) == 2  # no template: refused
