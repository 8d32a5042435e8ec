"""The project's own bookkeeping words (batch and round names, issue letters, commit hashes): they belong in the
repository, not the paper. The PDF check fails on them; the tables leave them out of the cells they print."""

from __future__ import annotations

import re

INTERNAL = [
    (re.compile(r"\bround\s*\d+(?:-[a-z0-9]+)*\b", re.I), "a capture batch or round name"),
    (re.compile(r"\bissue\s*~?\s*[A-Z]\b"), "an issue letter"),
    (re.compile(r"\bissues?\s+#?\d+\b", re.I), "an issue number"),
    (re.compile(r"\bcommit\s+[0-9a-f]{7,40}\b", re.I), "a commit hash"),
    (re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z])"), "a commit hash"),
    (re.compile(r"\bhelper\b|\bcoordinator\b|\binternal review\b", re.I), "a word of the project's process"),
]


def internal_words(text: str) -> list[str]:
    """The internal words in `text`, each with what it is."""
    found = []
    for rx, what in INTERNAL:
        for m in rx.finditer(text):
            found.append(f"{what}: {m.group()!r} in {text[max(0, m.start() - 40):m.end() + 20]!r}")
    return found
