"""YAML read by libyaml's parser where PyYAML has it (its wheels do): ~10 verbs read the run.yaml of ~1,000 runs,
and the pure-Python parser took ~45 ms a file, a quarter of an ingest batch's CPU. The objects are the same:
CSafeLoader is the C parser under SafeLoader's constructor and resolver."""

from __future__ import annotations

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(stream):
    """yaml.safe_load(stream), faster: a str, bytes or an open file."""
    return yaml.load(stream, Loader=_LOADER)  # noqa: S506 (a safe loader)
