"""Lost events per run: the capture's count (run.yaml) -> ingest.json -> run summary -> the paper's runs table."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl

from blkscope.analysis.summaries.run_summary import lost_events
from blkscope.ingest import run_ingest
from blkscope.paper.tables import runs_table

RUN = Path(__file__).resolve().parents[1] / "data" / "raw" / "guest-ext4-fio-randrw-r1"  # real blktrace capture


def test_dropped_events_reach_the_runs_table(tmp_path: Path) -> None:
    run = tmp_path / "handmade_dropped_run"  # the real run with 7 drops written into its run.yaml
    shutil.copytree(RUN / "blktrace", run / "blktrace")
    meta = (RUN / "run.yaml").read_text()
    assert "  dropped_total: 0\n" in meta
    (run / "run.yaml").write_text(meta.replace("  dropped_total: 0\n", "  dropped_total: 7\n", 1))
    files = sorted((run / "blktrace").iterdir())  # as the workflow passes them: one file per CPU
    rep = run_ingest("blktrace", files, tmp_path / "trace")
    assert rep.trace["dropped_events"] == 7
    assert lost_events(tmp_path / "trace" / "ingest.json") == 7
    run_ingest("blktrace", sorted((RUN / "blktrace").iterdir()), tmp_path / "intact")
    assert lost_events(tmp_path / "intact" / "ingest.json") == 0
    assert lost_events(tmp_path / "absent" / "ingest.json") is None

    row = {"filesystem": "ext4", "job": "randrw", "repeat": 1, "events": 10, "completions": 5, "pages_touched": 3,
           "top1pct_share": 0.5, "fio_read_iops": 1.0, "fio_write_iops": 1.0, "iostat_aqu_sz": 0.1}
    tex = runs_table(pl.DataFrame([{**row, "lost_events": 7}, {**row, "repeat": 2, "lost_events": None}]))
    assert "& lost \\\\" in tex
    body = [ln for ln in tex.splitlines() if ln.startswith("ext4")]
    assert body[0].endswith("& 7 \\\\") and body[1].endswith("& -- \\\\")


def test_runs_that_share_job_and_repeat_are_told_apart_by_their_configuration():
    row = {"filesystem": "ext4", "job": "atime", "repeat": 1, "events": 10, "completions": 5, "pages_touched": 3,
           "top1pct_share": 0.5, "fio_read_iops": 1.0, "fio_write_iops": 1.0, "iostat_aqu_sz": 0.1, "lost_events": 0}
    runs = [{**row, "run_id": f"host-ext4-fio-atime-{opt}-r1"} for opt in ("relatime", "noatime")]
    runs.append({**row, "job": "append", "run_id": "host-ext4-fio-append-r1"})
    body = [ln for ln in runs_table(pl.DataFrame(runs)).splitlines() if ln.startswith("ext4")]
    # the mount option from the run id, where two rows would print the same; a row alone keeps its job
    assert [ln.split(" & ")[1] for ln in body] == ["append", "atime, noatime", "atime, relatime"]
