"""What the rules read cards from: the `CardSource` protocol, and how a name's candidates are
narrowed to the card it means.

Three sources implement it: `CardDB` (any SQLAlchemy URL; one query per deck), `SqliteCards`
(the lean SQLite reader) and `CardIndex` (every deck card in memory; an organizer's hundreds
of decks or the web service).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from validator.cards.names import fold_name
from validator.model import Card


@runtime_checkable
class CardSource(Protocol):
    """Every method the rules, the API and the interfaces call on a card source."""

    def lookup(self, names: Iterable[str]) -> dict[str, list[Card]]:
        """Cards by the folded form of each name as written (`names.lookup_key`)."""
        ...

    def lookup_folded(self, folded_names: Iterable[str]) -> dict[str, list[Card]]:
        """`lookup` for names already folded by `names.lookup_key`."""
        ...

    def all_names(self) -> list[str]:
        """Every deck card's name, for suggestions."""
        ...

    def printing(self, set_code: str, collector_number: str) -> tuple[str, str] | None:
        """(oracle id, name) of a printing, when printings were synced."""
        ...

    def card_by_id(self, oracle_id: str) -> Card | None: ...

    def lookup_printed(self, folded: Iterable[str]) -> dict[str, list[tuple[str, str, str, int]]]:
        """Deck cards by their printed names (`deckcheck sync --languages`), folded by
        `printed.fold_printed`: folded -> [(oracle_id, lang, name as printed, part: 0 the
        whole card, n its face n)]; {} when none were synced."""
        ...

    def all_printed_names(self) -> list[tuple[str, str, str]]:
        """(printed name, Oracle name, lang) of every deck card's printed names (suggestions)."""
        ...

    def rarities(self, oracle_id: str) -> set[str] | None:
        """Every rarity the card was printed at; None when printings are not known."""
        ...

    def printed_sets(self, oracle_ids: Iterable[str]) -> dict[str, set[str]] | None:
        """The set codes each card was printed in (a card with none known maps to an empty
        set); None when printings are not known."""
        ...

    def formats(self) -> list[str]:
        """The legality keys the card data has; [] when not known."""
        ...

    @property
    def database(self) -> Any:
        """The card database behind the source, with its sync record and legality change log
        (the database itself, for a database); None for cards built in code."""
        ...


class CardDatabase(CardSource, Protocol):
    """A card source that is a database (`validator.open_db`): it holds a connection, closed
    by `close` (reopened on demand)."""

    def check(self) -> None:
        """Raise DatabaseError, saying what to do, when it is not a usable card database."""
        ...

    def close(self) -> None: ...


def choose(folded: str, candidates: Sequence[Card]) -> list[Card]:
    """Narrow the cards a name matched: a card's own full name beats a face of another card
    ("Ancestral Recall" is the Vintage card, not the face of "Emeritus of Ideation // Ancestral
    Recall"), and the front face beats a back face."""
    if len(candidates) <= 1:
        return list(candidates)
    full = [c for c in candidates if fold_name(c.name) == folded]
    if full:
        return full
    front = [c for c in candidates if fold_name(c.front_name) == folded]
    return front or list(candidates)
