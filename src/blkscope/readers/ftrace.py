"""tracefs `blk` tracer text (trace_pipe or the `trace` file) -> events, read by blkscope-native
(native/src/text/: the Python parser read ~0.4 M lines/s; bench/RESULTS.md).

Two layouts, both produced by the kernel (kernel/trace/blktrace.c):
- classic (trace_options blk_classic): `  7,0    1   583.245661688  9971  Q  RM 2128 + 8 [fio]`
  (dev, cpu, seconds.nanoseconds, pid, action, rwbs, payload; no sequence number);
- non-classic: the ftrace prefix `fio-10145 [001] d..1. 586.694868:` (task, pid, cpu, flags, time in
  the trace clock's resolution, usually microseconds), then `7,0 [cgroup] Q RM 2128 + 8 [fio]`.
The payload is the one blkparse prints. trace_pipe reports overruns as `CPU:1 [LOST 42 EVENTS]`; those
counts go to ingest.json (trace.lost_events). The regular expressions below are the ones the native reader
uses for lines its fast path does not take (native/src/text/general.rs); here they only sniff.
"""

from __future__ import annotations

from blkscope import native
from blkscope.readers.capture_meta import record_drops
from blkscope.readers.text_sniff import first_lines, matches_any

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    from pathlib import Path

CLASSIC_RE = r"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<s>\d+)\.(?P<f>\d+)\s+(?P<pid>\d+)\s+" \
    r"(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$"  # fmt: skip
NONCLASSIC_RE = (
    r"^\s*(?P<task>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+(?:[^\s:]+\s+)?"
    r"(?P<s>\d+)\.(?P<f>\d+):\s+(?P<maj>\d+),(?P<min>\d+)\s+(?:(?P<cg>/\S*|\[[^\]]*\])\s+)?"
    r"(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$"
)
def sniff(head: bytes) -> bool:
    if b"# tracer: blk" in head[:4096]:
        return True
    return matches_any(first_lines(head), CLASSIC_RE, NONCLASSIC_RE)


def read(inputs: list[str | Path], writer, report) -> None:
    native.run("ftrace", inputs, writer, report)
    record_drops(inputs, report)  # overruns the capture counted in tracefs, from its run.yaml
