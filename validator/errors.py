"""The one exception family deckcheck raises: anything that stopped it from judging a deck.

Every error carries a stable `code` (like problem codes: added, never renamed), so a program
can tell "the card database is missing" from "the decklist is not a decklist" without parsing
the message. The message itself says what went wrong and what to do next. The CLI turns every
`DeckcheckError` into one line on stderr and exit code 2; an illegal deck is never an error.
"""

from __future__ import annotations


class DeckcheckError(Exception):
    """Base class: something stopped deckcheck from judging (bad input, no card data...)."""

    code = "deckcheck-error"

    def __init__(self, message: str = "", *args: object, code: str | None = None) -> None:
        super().__init__(message, *args)
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UsageError(DeckcheckError, ValueError):
    """The caller asked for something that cannot be done as asked (an option that does not
    apply to the format, a `--commander` name that is no card, a report path that cannot be
    written); the message says what to do instead."""

    code = "usage"
