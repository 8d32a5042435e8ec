"""The verb registry: verb modules (cli_*.py) register here, cli.py reads it. Below both, so neither imports
the other in a circle."""

from __future__ import annotations

import argparse
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]
VERBS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], str]] = {}


def verb(name: str, help_: str):
    """Register a verb: the decorated function adds its arguments and returns the handler."""

    def deco(add_args: Callable[[argparse.ArgumentParser], Handler]):
        def configure(p: argparse.ArgumentParser) -> None:
            p.set_defaults(_handler=add_args(p))

        VERBS[name] = (configure, help_)
        return add_args

    return deco
