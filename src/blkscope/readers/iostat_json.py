"""sysstat iostat `-o JSON` (11.5.1 and later): sysstat.hosts[].statistics[] -> Samples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from blkscope.errors import InputError
from blkscope.readers.iostat_fields import DEVICE_KEYS, json_fields
from blkscope.readers.iostat_sink import IostatSink, Sample
from blkscope.readers.iostat_time import parse_timestamp
from blkscope.readers.jsondoc import decode_all, read_text

CPU_KEYS = ("user", "nice", "system", "iowait", "steal", "idle")
# iostat killed by SIGTERM stops after a complete sample without closing its brackets
SIGTERM_TAIL = "]}]}}"


def read_json(path: Path, sink: IostatSink) -> None:
    text = read_text(path)
    found = decode_all(path, text, "sysstat iostat -o JSON output", repair=SIGTERM_TAIL)
    if found.repaired:
        sink.report.warn(f"{path}: JSON ends without its closing brackets (iostat stopped by SIGTERM?); "
                         "every complete sample kept")
    if found.text_outside:
        sink.report.warn(f"{path}: {len(found.text_outside)} non-JSON line(s) ignored, first: "
                         f"{found.text_outside[0][:80]!r}")
    for i, doc in enumerate(found.docs):
        hosts = _get(path, doc, ("sysstat", "hosts"), list, f"document {i + 1}")
        for h, host in enumerate(hosts):
            _read_host(path, host, f"sysstat.hosts[{h}]", sink)


def _read_host(path: Path, host: Any, at: str, sink: IostatSink) -> None:
    if not isinstance(host, dict):
        raise InputError(path, at, "expected an object for a host")
    name = str(host.get("nodename") or "")
    sink.report.versions.setdefault("kernel", host.get("release"))
    stats = _get(path, host, ("statistics",), list, at)
    sink.start_run(name)
    for k, st in enumerate(stats):
        where = f"{at}.statistics[{k}]"
        if not isinstance(st, dict):
            raise InputError(path, where, "expected an object for a report")
        if not st:  # iostat writes an empty {} when interrupted between reports
            continue
        sample = _sample(path, st, name, where, sink)
        ncpu = host.get("number-of-cpus")
        sample.ncpu = ncpu if isinstance(ncpu, int) and not isinstance(ncpu, bool) else None
        sink.add(sample)


def _sample(path: Path, st: dict[str, Any], host: str, where: str, sink: IostatSink) -> Sample:
    ts = None
    if "timestamp" in st:
        parsed = parse_timestamp(str(st["timestamp"]))
        if parsed is None:
            raise InputError(path, f"{where}.timestamp", f"unrecognised timestamp {st['timestamp']!r}")
        ts, offset = parsed
        if offset:
            sink.report.extra["utc_offset"] = offset
    cpu = None
    if "avg-cpu" in st:
        c = st["avg-cpu"]
        if not isinstance(c, dict) or any(not _is_num(c.get(k)) for k in CPU_KEYS):
            raise InputError(path, f"{where}.avg-cpu", f"expected numbers for {', '.join(CPU_KEYS)}")
        cpu = {k: float(c[k]) for k in CPU_KEYS}
    disks = []
    for j, d in enumerate(st.get("disk", [])):
        disks.append(_disk(path, d, f"{where}.disk[{j}]", sink))
    if cpu is None and not disks:
        raise InputError(path, where, "report has neither avg-cpu nor disk entries")
    return Sample(host=host, timestamp=ts, cpu=cpu, disks=disks, where=where)


def _disk(path: Path, d: Any, where: str, sink: IostatSink) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise InputError(path, where, "expected an object for a device")
    dev_key = next((k for k in DEVICE_KEYS if k in d), None)
    if dev_key is None:
        raise InputError(path, where, f"device entry without {' or '.join(DEVICE_KEYS)}")
    fields = json_fields(list(d))
    row: dict[str, Any] = {"device": str(d[dev_key])}
    for key, value in d.items():
        if key == dev_key:
            continue
        target = fields.get(key)
        if target is None:
            sink.report.count_unknown(f"iostat JSON key {key}")
            continue
        if not _is_num(value):
            raise InputError(path, f"{where}.{key}", f"expected a number, got {value!r}")
        col, factor = target
        row[col] = float(value) * factor
    return row


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _get(path: Path, obj: Any, keys: tuple[str, ...], typ: type, at: str) -> Any:
    for k in keys:
        if not isinstance(obj, dict) or k not in obj:
            raise InputError(path, at, f"missing {'.'.join(keys)}; not sysstat iostat JSON")
        obj = obj[k]
    if not isinstance(obj, typ):
        raise InputError(path, at, f"{'.'.join(keys)} is not a {typ.__name__}")
    return obj
