"""The `deckcheck` command line: a thin skin over the library API."""

from validator.cli.commands import main

__all__ = ["main"]
