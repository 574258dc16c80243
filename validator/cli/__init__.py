"""The `deckcheck` command line: a thin skin over the library API."""

from validator.cli.main import main

__all__ = ["main"]
