"""How the Commander problems name cards and color identities, and cite Oathbreaker.

Shared by `leaders`, `designation` and `rules` (and `constructed`, for `_LISTED`) so that each
is written once. It imports only the model, so that `constructed`, run for every constructed
deck, can use it without loading the Commander rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from validator.model import COLOR_ORDER, Card

_OATHBREAKER = "format:oathbreaker"
#: How many names a message lists before "and N more".
_LISTED = 10


def identity_text(colors: Iterable[str]) -> str:
    """ "WUB" in WUBRG order, or "colorless"."""
    wanted = set(colors)
    return "".join(c for c in COLOR_ORDER if c in wanted) or "colorless"


def _names(cards: Iterable[Card]) -> str:
    return ", ".join(c.name for c in cards)


def _some_names(cards: Sequence[Card]) -> str:
    """The first names of a long list, for messages that stay short on hostile input."""
    shown = _names(cards[:_LISTED])
    return shown + (f" and {len(cards) - _LISTED:,} more" if len(cards) > _LISTED else "")
