"""iostat column names (text headers and JSON keys) -> table columns in contract units.

One table for every sysstat layout from 9.x to 12.x, so the text and JSON readers agree.
Sectors are 512 bytes (factor 0.5 to kB); MB are 1024 kB. Columns outside the contract
(discard and flush groups, merge percentages, svctm, totals) keep their own names.
"""

from __future__ import annotations

# name as printed -> (column, factor to the contract unit)
FIELDS: dict[str, tuple[str, float]] = {
    "tps": ("tps", 1.0),
    "r/s": ("r_s", 1.0),
    "w/s": ("w_s", 1.0),
    "d/s": ("d_s", 1.0),
    "f/s": ("f_s", 1.0),
    "rkB/s": ("rkb_s", 1.0),
    "wkB/s": ("wkb_s", 1.0),
    "dkB/s": ("dkb_s", 1.0),
    "rMB/s": ("rkb_s", 1024.0),
    "wMB/s": ("wkb_s", 1024.0),
    "dMB/s": ("dkb_s", 1024.0),
    "rsec/s": ("rkb_s", 0.5),
    "wsec/s": ("wkb_s", 0.5),
    "rrqm/s": ("rrqm_s", 1.0),
    "wrqm/s": ("wrqm_s", 1.0),
    "drqm/s": ("drqm_s", 1.0),
    "%rrqm": ("rrqm_pct", 1.0),
    "%wrqm": ("wrqm_pct", 1.0),
    "%drqm": ("drqm_pct", 1.0),
    "r_await": ("r_await_ms", 1.0),
    "w_await": ("w_await_ms", 1.0),
    "d_await": ("d_await_ms", 1.0),
    "f_await": ("f_await_ms", 1.0),
    "await": ("await_ms", 1.0),
    "aqu-sz": ("aqu_sz", 1.0),
    "avgqu-sz": ("aqu_sz", 1.0),
    "rareq-sz": ("rareq_sz_kb", 1.0),
    "wareq-sz": ("wareq_sz_kb", 1.0),
    "dareq-sz": ("dareq_sz_kb", 1.0),
    "areq-sz": ("areq_sz_kb", 1.0),
    "avgrq-sz": ("areq_sz_kb", 0.5),  # printed in sectors before 11.5.7
    "svctm": ("svctm_ms", 1.0),
    "%util": ("util_pct", 1.0),
    "util": ("util_pct", 1.0),
    # short layouts (-s) print read+write together
    "kB/s": ("kb_s", 1.0),
    "MB/s": ("kb_s", 1024.0),
    "rqm/s": ("rqm_s", 1.0),
    # basic (non -x) layouts: rates, then totals over the report's interval
    "kB_read/s": ("rkb_s", 1.0),
    "kB_wrtn/s": ("wkb_s", 1.0),
    "kB_dscd/s": ("dkb_s", 1.0),
    "MB_read/s": ("rkb_s", 1024.0),
    "MB_wrtn/s": ("wkb_s", 1024.0),
    "MB_dscd/s": ("dkb_s", 1024.0),
    "Blk_read/s": ("rkb_s", 0.5),
    "Blk_wrtn/s": ("wkb_s", 0.5),
    "kB_read": ("kb_read", 1.0),
    "kB_wrtn": ("kb_wrtn", 1.0),
    "kB_dscd": ("kb_dscd", 1.0),
    "MB_read": ("kb_read", 1024.0),
    "MB_wrtn": ("kb_wrtn", 1024.0),
    "MB_dscd": ("kb_dscd", 1024.0),
    "Blk_read": ("kb_read", 0.5),
    "Blk_wrtn": ("kb_wrtn", 0.5),
    "kB_read_per_sec": ("rkb_s", 1.0),  # JSON of 11.5.x
    "kB_wrtn_per_sec": ("wkb_s", 1.0),
}

# sysstat 12.x JSON: bare rrqm/wrqm/drqm are the merge percentages (text: %rrqm ...)
JSON_12: dict[str, tuple[str, float]] = {
    "rrqm": ("rrqm_pct", 1.0),
    "wrqm": ("wrqm_pct", 1.0),
    "drqm": ("drqm_pct", 1.0),
}
# sysstat 11.5.1-11.5.6 JSON: bare names are per-second rates, "rkB" is kB/s
JSON_OLD: dict[str, tuple[str, float]] = {
    "r": ("r_s", 1.0),
    "w": ("w_s", 1.0),
    "rkB": ("rkb_s", 1.0),
    "wkB": ("wkb_s", 1.0),
    "rrqm": ("rrqm_s", 1.0),
    "wrqm": ("wrqm_s", 1.0),
}

DEVICE_KEYS = ("disk_device", "disk-device")
CPU_FIELDS = {"%user": "user", "%nice": "nice", "%system": "system", "%iowait": "iowait", "%steal": "steal",
              "%idle": "idle"}

# Rates that count whole events per interval: the since-boot test uses them.
COUNT_RATES = ("tps", "r_s", "w_s", "d_s", "f_s", "rrqm_s", "wrqm_s", "drqm_s")


def json_fields(keys: list[str]) -> dict[str, tuple[str, float]]:
    """The mapping for one JSON disk entry's keys (the layout decides what bare names mean)."""
    if "r/s" in keys or "tps" in keys:
        return {**FIELDS, **JSON_12}
    return {**FIELDS, **JSON_OLD}


def text_fields(header: list[str]) -> list[tuple[str, float] | None]:
    """Column for each header token after the device column; None for an unknown token."""
    return [FIELDS.get(tok) for tok in header]
