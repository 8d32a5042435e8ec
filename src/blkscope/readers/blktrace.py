"""Binary blktrace (struct blk_io_trace v7, blk_io_trace2 v8) -> events.

Inputs: per-CPU files `<name>.blktrace.<cpu>`, a directory of them, a set prefix (`dir/sda`), or single
files such as a merged `blkparse -d` dump; .zst/.gz/.xz read transparently. Unlike blkparse, a gap in the
CPU list does not stop reading; it is reported, like per-CPU sequence gaps and resynchronisations.

One pass, bounded memory: each file of a set is read in fixed-size windows (readers/bin_window.py decodes
them with numpy), and the files advance together up to a common time horizon, so a process name (a notify
record, written on whichever CPU first saw the pid) is known before that pid's events on other CPUs are
written, and time_ns counts from the earliest first event (blkparse's genesis).

Row order: each CPU's events in time order, CPUs interleaved in horizon blocks; NOT one global time order
(blkparse prints that). Sorting 10^8 rows costs more than reading them; `sort("time_ns")` where needed.
"""

from __future__ import annotations

import re
from pathlib import Path

from blkscope.errors import InputError
from blkscope.readers.bin_window import Names, Stream, total_size
from blkscope.readers.trace_text import progress

WINDOW_TOTAL = 96 << 20  # bytes of raw input held per set, split among its files
WINDOW_MIN = 4 << 20
SET_RE = re.compile(r"^(?P<name>.+)\.blktrace\.(?P<cpu>\d+)(?:\.(?:zst|gz|xz))?$")


def sniff(head: bytes) -> bool:
    from blkscope.readers.trace_bin import detect

    return detect(head[:4]) is not None


def resolve(inputs: list[Path]) -> dict[str, list[tuple[int | None, Path]]]:
    """Input paths -> {set name: [(cpu from the file name or None, path)]}."""
    sets: dict[str, list[tuple[int | None, Path]]] = {}
    for p in map(Path, inputs):
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if SET_RE.match(f.name))
            if not files:
                raise InputError(p, None, "directory holds no <name>.blktrace.<cpu> files")
        elif p.exists():
            files = [p]
        else:
            files = sorted(f for f in p.parent.glob(p.name + ".blktrace.*") if SET_RE.match(f.name))
            if not files:
                raise InputError(p, None, "no such file, and no set prefix: no files named " + p.name + ".blktrace.N")
        for f in files:
            m = SET_RE.match(f.name)
            key = str(f.parent / m["name"]) if m else str(f)
            sets.setdefault(key, []).append((int(m["cpu"]) if m else None, f))
    for files in sets.values():
        files.sort(key=lambda t: (t[0] is None, t[0] or 0))
    return sets


def read(inputs: list[Path], writer, report) -> None:
    sets = resolve(inputs)
    tr = report.trace
    tr.update(sets={}, files={}, sequence_gaps={}, resyncs=[], dropped_events=None)
    paths = [p for files in sets.values() for _, p in files]
    with progress(total_size(paths), "blktrace") as bar:
        for name, files in sets.items():
            cpus = [c for c, _ in files if c is not None]
            missing = sorted(set(range(max(cpus) + 1)) - set(cpus)) if cpus else []
            tr["sets"][name] = {"cpu_files": cpus, "missing_cpus": missing}
            if missing:
                report.warn(f"{name}: CPU list has a gap (no file for CPU {missing}); blkparse stops at the first "
                            f"missing CPU and drops the files after it, blkscope reads all {len(files)} files")
            _read_set(name, files, writer, report, bar)
    writer.ensure("events")


def _read_set(name: str, files, writer, report, bar) -> None:
    window = max(WINDOW_MIN, WINDOW_TOTAL // len(files))
    names = Names()
    streams = [Stream(path, cpu, report, window, bar) for cpu, path in files]
    for s in streams:
        s.fill(names)
    firsts = [s.first_time for s in streams if s.first_time is not None]
    origin = min(firsts) if firsts else None
    while True:
        for s in streams:
            while s.empty() and not s.done:
                s.fill(names)
        live = [s for s in streams if not s.empty()]
        if not live:
            break
        bounds = [s.last_time() for s in live if not s.done]
        horizon = min(bounds) if bounds else None
        for s in live:
            batch = s.take(horizon, names, origin)
            if batch is not None:
                writer.write_arrow("events", batch)
    early = sum(s.before_origin for s in streams)
    if early:
        report.warn(f"{name}: {early} events are earlier than the first event of their file (negative time_ns)")
    for s in streams:
        s.finish()
    report.trace["sets"][name].update(time_origin_ns=origin, wall_clock=names.wall, processes=len(names.by_pid))
