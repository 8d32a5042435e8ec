"""sysstat iostat, text (9.x-12.x layouts) or `-o JSON` -> tables `iostat` and `iostat_cpu`.

Units follow the contract (sectors and MB converted to kB); `since_boot` is True for a run's
first report when it is the since-boot summary (see iostat_sinceboot), null when that cannot
be told, False otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from blkscope.readers.iostat_json import read_json
from blkscope.readers.iostat_sink import IostatSink
from blkscope.readers.iostat_text import read_text_report
from blkscope.readers.textio import open_binary

if TYPE_CHECKING:
    from blkscope.io import Report, TableWriter

_JSON_HEAD = re.compile(rb'^\s*\{\s*"sysstat"\s*:')
# Text: the banner, or a device/CPU header as any sysstat version prints it (optionally `host: `-prefixed).
_TEXT_HEAD = re.compile(
    rb"^(?:[\w.-]+: )?(?:Linux \S+ \(.*\)\s+\S+\s+_\S+_|avg-cpu:\s+%user|Device:?\s+(?:tps|rrqm/s|r/s))",
    re.MULTILINE,
)


def sniff(head: bytes) -> bool:
    return bool(_JSON_HEAD.match(head) or _TEXT_HEAD.search(head))


def _is_json(path: Path) -> bool:
    with open_binary(path) as f:
        return bool(_JSON_HEAD.match(f.read(4096)))


def read(inputs: list[Path], writer: TableWriter, report: Report) -> None:
    sink = IostatSink(writer, report)
    for path in inputs:
        path = Path(path)
        sink.begin_file(path)
        if _is_json(path):
            report.versions.setdefault("iostat_format", "json")
            read_json(path, sink)
        else:
            report.versions.setdefault("iostat_format", "text")
            read_text_report(path, sink)
    sink.close()
