"""`blkscope import`: register logs that blkscope did not capture as a run (blkscope.importing)."""

from __future__ import annotations

import argparse
from pathlib import Path

from blkscope.verbs import Handler, verb


@verb("import", "register logs blkscope did not capture (blktrace, blkparse, iostat, YCSB, cassandra-stress ...) as a "
                "run under <raw>/<run_id>/ with their provenance, and a row of the runs sheet")  # fmt: skip
def _import(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("run_id", help="the new run's id (letters, digits, . _ -), e.g. mylab-ext4-ycsb-a-r1")
    g = p.add_argument_group("what you state about the run (its runs-sheet row; run.yaml keeps them)")
    g.add_argument("--filesystem", required=True, help="ext4, xfs, btrfs or f2fs")
    g.add_argument("--workload", help="fio, sysbench, journal, ycsb, cassandra (default: the kind of --log)")
    g.add_argument("--job", required=True, help="the workload's job, e.g. workloada, randrw, write")
    g.add_argument("--database", help="the database under the workload (e.g. redis, rocksdb, cassandra)")
    g.add_argument("--testbed", default="external", help="default external: a machine blkscope did not drive")
    g.add_argument("--study", default="imported", help="the runs sheet's study column (default imported)")
    g.add_argument("--mkfs-options", help="how the filesystem was made")
    g.add_argument("--mount-options", help="how it was mounted")
    g.add_argument("--repeat", type=int, default=1, help="repeat number of this configuration (default 1)")
    g.add_argument("--origin", help="where the logs come from: a URL, a paper, a machine (run.yaml)")
    f = p.add_argument_group("the logs (each read once before anything is written)")
    f.add_argument("--trace", nargs="+", type=Path, default=[],
                   help="a blktrace set (its per-CPU *.blktrace.N files), a blkparse text or a tracefs blk text")
    f.add_argument("--iostat", type=Path, help="an iostat log (text, -t or not, or -o JSON)")
    f.add_argument("--log", nargs="+", type=Path, default=[],
                   help="the workload's log: YCSB run output, cassandra-stress, fio JSON or sysbench output")
    f.add_argument("--load-log", type=Path, help="YCSB's load-phase output (beside the run's --log)")
    p.add_argument("--raw", type=Path, default=Path("data/raw"), help="raw data directory (default data/raw)")
    p.add_argument("--sheet", type=Path, default=Path("config/runs.tsv"), help="the runs sheet it joins")
    p.add_argument("--schema", type=Path, help="runs-sheet schema (default: the package's, blkscope/runs.schema.yaml)")

    def run(a: argparse.Namespace) -> int:
        from blkscope.importing import import_run

        statements = {"study": a.study, "database": a.database, "job": a.job, "filesystem": a.filesystem,
                      "mkfs_options": a.mkfs_options, "mount_options": a.mount_options, "testbed": a.testbed,
                      "repeat": a.repeat, "workload": a.workload}  # fmt: skip
        from blkscope.runs import SCHEMA

        schema = a.schema or SCHEMA
        dest = import_run(a.run_id, statements, trace=a.trace, iostat=a.iostat, logs=a.log, load_log=a.load_log,
                          origin=a.origin, raw=a.raw, sheet=a.sheet, schema=schema)  # fmt: skip
        print(f"imported {a.run_id} -> {dest} (provenance in {dest / 'run.yaml'}; a row in {a.sheet})")
        return 0

    return run
