"""sysstat iostat text output, every layout from 9.x to 12.x -> Samples.

A report is: optional timestamp line (-t), optional `avg-cpu:` header and values, optional
`Device` header (with or without colon; columns as FIELDS names them) and one line per device.
Reports are separated by a timestamp, a new `avg-cpu:` header, or a `Device` header after
devices; a banner (`Linux 6.1 (host) date _arch_ (N CPU)`) starts a new run. Lines may carry a
pdsh `host: ` prefix, with hosts interleaved: each host is parsed with its own state.
Anything else is an error naming the line: iostat prints nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from blkscope.errors import InputError
from blkscope.readers.iostat_fields import CPU_FIELDS, FIELDS
from blkscope.readers.iostat_sink import IostatSink, Sample
from blkscope.readers.iostat_time import parse_timestamp
from blkscope.readers.numbers import guess_decimal, parse_number
from blkscope.readers.textlines import cut_line, numbered_lines, unterminated

_BANNER = re.compile(r"^Linux\s+(\S+)\s+\((.*?)\)\s+(\S+)\s+_(\S+)_(?:\s+\((\d+) CPU\))?\s*$")
_TIME_ONLY = re.compile(r"^Time:\s+(\d{1,2}):(\d{2}):(\d{2})(?:\s*([AaPp])[Mm])?\s*$")  # sysstat < 8.1
_DEVICE_HEADER = re.compile(r"^Device:?\s+(\S.*)$")
_PDSH = re.compile(r"^([A-Za-z0-9_.\-\[\]@]+): ?(.*)$")
_IOSTAT_START = re.compile(r"^(Linux\s|avg-cpu:|Device:?\s|\d|Time:|$)")


@dataclass
class _HostState:
    host: str | None
    date: str | None = None  # banner date, for `Time:` lines
    ncpu: int | None = None  # banner "(2 CPU)"
    header: list[tuple[str, float] | None] | None = None  # current device columns
    in_cpu: bool = False  # the next line holds avg-cpu values
    cpu_header: list[str] = field(default_factory=list)
    sample: Sample | None = None
    timestamp: datetime | None = None


class _Parser:
    def __init__(self, path: Path, sink: IostatSink) -> None:
        self.path, self.sink = path, sink
        self.states: dict[str | None, _HostState] = {}
        self.decimal: str | None = None
        self.pdsh: bool | None = None
        self.reports = 0
        self.complete = True  # the current line ends with a newline
        self.last_devices: dict[str | None, int] = {}  # devices in each host's previous report

    def err(self, lineno: int, msg: str) -> InputError:
        return InputError(self.path, f"line {lineno}", msg)

    def feed(self, lineno: int, line: str, complete: bool) -> None:
        self.complete = complete
        host: str | None = None
        if self.pdsh is None and line.strip():
            self.pdsh = self._is_pdsh(line)
        if self.pdsh:
            m = _PDSH.match(line)
            if not m:
                if not line.strip():
                    return
                raise self.err(lineno, f"expected a pdsh 'host: ' prefix, got {line[:60]!r}")
            host, line = m.group(1), m.group(2)
        st = self.states.get(host)
        if st is None:
            st = self.states[host] = _HostState(host=host)
        if complete:
            self._line(st, lineno, line.strip())
            return
        try:  # the file's last line, without a line end: data if it reads whole
            self._line(st, lineno, line.strip())
        except InputError as e:
            cut_line(self.sink.report, self.path, lineno, f"does not read ({e.message})")
            return
        unterminated(self.sink.report, self.path, lineno)

    @staticmethod
    def _is_pdsh(line: str) -> bool:
        m = _PDSH.match(line)
        return bool(m and m.group(1) not in ("avg-cpu", "Device", "Time") and _IOSTAT_START.match(m.group(2)))

    def _line(self, st: _HostState, n: int, line: str) -> None:
        if not line:
            st.header = None  # a blank line ends a device block
            return
        if st.in_cpu:
            self._cpu_values(st, n, line)
            return
        if m := _BANNER.match(line):
            self._finish(st)
            if self.pdsh is False or st.host is None:
                st.host = m.group(2)
            st.date = m.group(3)
            st.ncpu = int(m.group(5)) if m.group(5) else None
            self.sink.report.versions.setdefault("kernel", m.group(1))
            self.sink.start_run(st.host or "")
            return
        if line.startswith("avg-cpu:"):
            self._new_report_if_started(st)
            st.cpu_header = line.split()[1:]
            unknown = [t for t in st.cpu_header if t not in CPU_FIELDS]
            if unknown:
                raise self.err(n, f"unknown avg-cpu column(s) {unknown}")
            self._open(st, n)
            st.in_cpu = True
            return
        if m := _DEVICE_HEADER.match(line):
            if st.sample is not None and st.sample.disks:
                self._finish(st)
            tokens = m.group(1).split()
            st.header = [FIELDS.get(t) for t in tokens]
            for t, f in zip(tokens, st.header, strict=True):
                if f is None:
                    self.sink.report.count_unknown(f"iostat column {t}")
            self._open(st, n)
            return
        ts = self._timestamp(st, line)
        if ts is not None:
            self._finish(st)
            st.timestamp = ts
            return
        if st.header is not None:
            self._device(st, n, line)
            return
        raise self.err(n, f"not an iostat line: {line[:80]!r}")

    def _timestamp(self, st: _HostState, line: str) -> datetime | None:
        parsed = parse_timestamp(line)
        if parsed is not None:
            ts, offset = parsed
            if offset:
                self.sink.report.extra["utc_offset"] = offset
            return ts
        m = _TIME_ONLY.match(line)
        if m and st.date:
            day = parse_timestamp(f"{st.date} 00:00:00")
            h = int(m.group(1)) % 12 + (12 if (m.group(4) or "").lower() == "p" else 0) if m.group(4) \
                else int(m.group(1))
            if day:
                return day[0].replace(hour=h, minute=int(m.group(2)), second=int(m.group(3)))
        return None

    def _open(self, st: _HostState, n: int) -> None:
        if st.sample is None:
            st.sample = Sample(host=st.host or "", timestamp=st.timestamp, cpu=None, where=f"line {n}", ncpu=st.ncpu)

    def _new_report_if_started(self, st: _HostState) -> None:
        if st.sample is not None and (st.sample.cpu is not None or st.sample.disks):
            self._finish(st)

    def _finish(self, st: _HostState) -> None:
        if st.sample is not None and (st.sample.cpu is not None or st.sample.disks):
            self.last_devices[st.host] = len(st.sample.disks)
            self.sink.add(st.sample)
            self.reports += 1
        st.sample, st.header, st.timestamp = None, None, None

    def _numbers(self, n: int, tokens: list[str]) -> list[float]:
        if self.decimal is None:
            self.decimal = guess_decimal(tokens)
        try:
            return [parse_number(t, self.decimal) for t in tokens]
        except ValueError as e:
            raise self.err(n, str(e)) from None

    def _cpu_values(self, st: _HostState, n: int, line: str) -> None:
        tokens = line.split()
        if len(tokens) != len(st.cpu_header):
            raise self.err(n, f"expected {len(st.cpu_header)} avg-cpu values, found {len(tokens)}")
        vals = self._numbers(n, tokens)
        assert st.sample is not None
        st.sample.cpu = {CPU_FIELDS[h]: v for h, v in zip(st.cpu_header, vals, strict=True)}
        st.in_cpu = False

    def _device(self, st: _HostState, n: int, line: str) -> None:
        assert st.header is not None and st.sample is not None
        tokens = line.split()
        if len(tokens) != len(st.header) + 1:
            raise self.err(n, f"expected a device name and {len(st.header)} values, found {len(tokens)} fields")
        vals = self._numbers(n, tokens[1:])
        row: dict[str, Any] = {"device": tokens[0]}
        for f, v in zip(st.header, vals, strict=True):
            if f is not None:
                row[f[0]] = v * f[1]
        st.sample.disks.append(row)

    def close(self, lineno: int) -> None:
        for st in self.states.values():
            if st.in_cpu:
                raise self.err(lineno, "file ends after an avg-cpu header, without its values (truncated?)")
            before = self.last_devices.get(st.host)
            if st.sample is not None and before is not None and len(st.sample.disks) < before:
                self.sink.report.warn(
                    f"{self.path}: {st.sample.where}: last report of host {st.host!r} lists {len(st.sample.disks)} "
                    f"device(s), the one before {before}: file truncated?"
                )
            self._finish(st)
        if self.reports == 0:
            raise self.err(lineno, "no iostat report found")


def read_text_report(path: Path, sink: IostatSink) -> None:
    p = _Parser(path, sink)
    n = 0
    for n, line, complete in numbered_lines(path, "iostat output"):
        p.feed(n, line, complete)
    p.close(n)
