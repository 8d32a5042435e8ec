"""Logs and import: `blkscope ingest` (raw logs into tidy Parquet tables), `ingest-runs` (every log of captured
runs) and `import` (logs blkscope did not capture, as runs). Light (argparse only): `blkscope ingest` of a trace
starts its native reader ~30 ms after the command starts (issues B and 43 time the whole command)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blkscope.cli.verbs import Handler, verb


@verb("ingest")
def _ingest(p: argparse.ArgumentParser) -> Handler:
    from blkscope.readers import KINDS

    p.add_argument("--kind", default="auto", choices=["auto", *KINDS], help="input format (default: sniff)")
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="output directory (replaced atomically)")
    p.add_argument("--part", metavar="K/N", help="ingest only part K of N of a large trace (blkscope.parts: CPU "
                   "files of a blktrace set, cut at record starts when N exceeds them, or a byte range of a text "
                   "trace cut at line starts)")  # fmt: skip

    def run(a: argparse.Namespace) -> int:
        if a.part:
            from blkscope.parts import ingest_part, parse_part

            rep = ingest_part(a.kind, a.inputs, *parse_part(a.part), a.outdir)
        else:
            from blkscope.ingest import run_ingest

            rep = run_ingest(a.kind, a.inputs, a.outdir)
        _say(rep, f"{rep.kind}: ", f" -> {a.outdir}")
        return 0

    return run


def _say(rep, prefix: str, suffix: str = "") -> None:
    """An ingest's rows and warnings on stderr, each line led by `prefix`."""
    rows = ", ".join(f"{k}={v}" for k, v in rep.rows.items())
    print(f"{prefix}{rows}{suffix}", file=sys.stderr)
    for w in rep.warnings:
        print(f"{prefix}warning: {w}", file=sys.stderr)


@verb("ingest-runs")
def _ingest_runs(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run ids (directories under --raw)")
    p.add_argument("--sheet", required=True, type=Path, help="the runs sheet (config/runs.tsv): each run's workload")
    p.add_argument("--raw", required=True, type=Path, help="raw data directory (data/raw)")
    p.add_argument("-o", "--processed", required=True, type=Path, help="processed data directory (data/processed)")
    p.add_argument("--split", nargs="*", default=[], metavar="RUN",
                   help="runs whose trace is ingested in parts (workflow/rules/parts.smk): their other logs only")

    def run(a: argparse.Namespace) -> int:
        """One process for many runs: the workflow's unit of ingest is a batch of runs, since a Python process
        costs more to start than most of these logs take to read (bench/RESULTS.md, "The main job")."""
        from blkscope.ingest import run_ingest
        from blkscope.run_logs import sources
        from blkscope.runs import load_runs

        sheet = load_runs(a.sheet)
        workload = dict(zip(sheet["run_id"].to_list(), sheet["workload"].to_list(), strict=True))
        for r in a.runs:
            if r not in workload:
                raise ValueError(f"{a.sheet}: no run {r!r}")
            for sub, kind, files in sources(a.raw, r, workload[r]):
                if sub == "trace" and r in a.split:
                    continue
                _say(run_ingest(kind, files, a.processed / r / sub), f"{r} {kind}: ")
        return 0

    return run


@verb("import")
def _import(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("run_id", help="the new run's id (letters, digits, . _ -), e.g. mylab-ext4-ycsb-a-r1")
    g = p.add_argument_group("what you state about the run (its runs-sheet row; run.yaml keeps them)")
    g.add_argument("--filesystem", required=True, help="ext4, xfs, btrfs or f2fs")
    g.add_argument("--workload", help="fio, sysbench, journal, ycsb, cassandra, other (default: the kind of --log; "
                                      "without one, other)")  # fmt: skip
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
    p.add_argument("--sheet", type=Path, default=Path("config/runs.tsv"),
                   help="the runs sheet (the embedded dataset): its columns, and run ids not to take again")
    p.add_argument("--imported", type=Path, help="the sheet of imported runs the row joins (config `imported`; "
                                                 "default: imported.tsv beside --sheet; made at the first import)")
    p.add_argument("--schema", type=Path, help="runs-sheet schema (default: the package's, blkscope/runs.schema.yaml)")

    def run(a: argparse.Namespace) -> int:
        from blkscope.importing import import_run

        statements = {"study": a.study, "database": a.database, "job": a.job, "filesystem": a.filesystem,
                      "mkfs_options": a.mkfs_options, "mount_options": a.mount_options, "testbed": a.testbed,
                      "repeat": a.repeat, "workload": a.workload}  # fmt: skip
        from blkscope.runs import SCHEMA

        schema = a.schema or SCHEMA
        imported = a.imported or a.sheet.with_name("imported.tsv")
        dest = import_run(a.run_id, statements, trace=a.trace, iostat=a.iostat, logs=a.log, load_log=a.load_log,
                          origin=a.origin, raw=a.raw, sheet=a.sheet, imported=imported, schema=schema)  # fmt: skip
        print(f"imported {a.run_id} -> {dest} (provenance in {dest / 'run.yaml'}; a row in {imported})")
        return 0

    return run
