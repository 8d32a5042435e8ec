"""blkparse default text output -> events; its per-CPU and Total summary -> ingest.json (trace.summary);
read by blkscope-native (native/src/text/).

Lines are split on whitespace, not fixed columns (sequence numbers past 10^8 and absolute timestamps
overflow blkparse's column widths): `  8,0  3  1  0.000000000  697  G  W 223490 + 8 [kjournald]`.
The action/RWBS/payload part is the tracefs one (readers/ftrace.py).
"""

from __future__ import annotations

from blkscope import native
from blkscope.readers.text_sniff import first_lines, matches_any

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    from pathlib import Path

LINE_RE = (
    r"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+(?P<s>\d+)\.(?P<f>\d+)\s+(?P<pid>\d+)\s+"
    r"(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$"
)
def sniff(head: bytes) -> bool:
    return matches_any(first_lines(head), LINE_RE)


def read(inputs: list[str | Path], writer, report) -> None:
    native.run("blkparse", inputs, writer, report)
