"""iostat -t timestamps in the forms sysstat prints them (locale and S_TIME_FORMAT decide).

  11/22/26 07:37:30            C / en_US locale, two-digit year (%x %X)
  03/14/2024 05:53:14 PM       en_US with 12-hour clock
  22/11/2026 07:37:30          day first (en_GB ...): recognised when the first field exceeds 12
  22.11.2026 07:37:30          dotted (de_DE ...), day first
  2024-03-14T17:53:14-0700     S_TIME_FORMAT=ISO; the offset is dropped (local wall-clock time kept,
                               as in every other form) and returned separately
"""

from __future__ import annotations

import re
from datetime import datetime

_SLASH = re.compile(
    r"^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})[ T]+(\d{1,2}):(\d{2}):(\d{2})(?:\s*([AaPp])\.?[Mm]\.?)?$"
)
_DOT = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{2}|\d{4})[ T]+(\d{1,2}):(\d{2}):(\d{2})$")
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$")


def _year(y: str) -> int:
    return int(y) + 2000 if len(y) == 2 else int(y)


def _hour(h: str, ampm: str | None) -> int:
    hour = int(h)
    if ampm is None:
        return hour
    hour %= 12
    return hour + 12 if ampm.lower() == "p" else hour


def parse_timestamp(s: str) -> tuple[datetime, str | None] | None:
    """(local time, UTC offset or None) for a timestamp iostat printed, or None if not one."""
    s = s.strip()
    if m := _ISO.match(s):
        y, mo, d, h, mi, se, off = m.groups()
        try:
            return datetime(int(y), int(mo), int(d), int(h), int(mi), int(se)), off
        except ValueError:
            return None
    if m := _SLASH.match(s):
        a, b, y, h, mi, se, ampm = m.groups()
        month, day = (int(a), int(b)) if int(a) <= 12 else (int(b), int(a))
        try:
            return datetime(_year(y), month, day, _hour(h, ampm), int(mi), int(se)), None
        except ValueError:
            return None
    if m := _DOT.match(s):
        d, mo, y, h, mi, se = m.groups()
        try:
            return datetime(_year(y), int(mo), int(d), int(h), int(mi), int(se)), None
        except ValueError:
            return None
    return None


def looks_like_timestamp(s: str) -> bool:
    return parse_timestamp(s) is not None
