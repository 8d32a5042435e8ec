"""SIGINT/SIGTERM/SIGHUP become exceptions so every `finally` and context exit runs (teardown). Once one has
been raised, or while a teardown runs, further signals are only noted: a second Ctrl-C must not cut a teardown
short and leave a mount or loop device behind."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


_state = {"raised": False, "defer": 0, "pending": 0}


def _handler(signum: int, frame: object) -> None:
    name = signal.Signals(signum).name
    if _state["raised"] or _state["defer"]:
        if not _state["raised"]:
            _state["pending"] = signum
        print(f"blkscope: {name} received; finishing teardown first", file=sys.stderr, flush=True)
        return
    _state["raised"] = True
    raise Interrupted(signum)


@contextmanager
def raise_on_signals() -> Iterator[None]:
    """Install the raising handlers for the duration of a run; restore the previous ones afterwards."""
    old = {s: signal.getsignal(s) for s in SIGNALS}
    _state.update(raised=False, defer=0, pending=0)
    for s in SIGNALS:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextmanager
def deferred() -> Iterator[None]:
    """Run a block (a teardown) without being interrupted; a signal that arrived meanwhile is raised after."""
    _state["defer"] += 1
    try:
        yield
    finally:
        _state["defer"] -= 1
    if not _state["defer"] and _state["pending"] and not _state["raised"]:
        signum, _state["pending"] = _state["pending"], 0
        _state["raised"] = True
        raise Interrupted(signum)
