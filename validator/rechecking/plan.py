"""Which stored decks a re-check judges again, and why; everything else keeps its verdict
without being parsed.

A deck is judged again when it is new or edited (its content hash), when a legality change
recorded since STATE's last check touches one of its cards in its format's legality key (or
removed the card), when its verdict depends on something a sync can settle (a name the card
data did not know: `state.OPEN`) and a sync came since, when it was judged by a list in force
on a day that is past (`state.DATED`), and every deck when the rules themselves changed
(deckcheck's version or its data files)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from validator.rechecking.state import DATED, OPEN, StoredDeck

NEW = "new"
EDITED = "edited"
CARD_CHANGED = "card changed"
SETTLE = "unknown name"
DATED_LIST = "dated list"
RULES = "rules changed"


@dataclass(frozen=True, slots=True)
class LoggedChange:
    """One legality change of the database's log: card, legality key ("*": the card was
    removed), statuses, the sync that recorded it and the date of that sync's card data."""

    oracle_id: str
    name: str
    format: str
    old: str | None
    new: str | None
    sync_id: int
    card_data: str | None

    def describe(self, format_name: str) -> str:
        old = (self.old or "not legal").replace("_", " ")
        new = (self.new or "removed").replace("_", " ")
        where = f" in {format_name}" if self.format != "*" else " from the card data"
        day = f", card data of {self.card_data}" if self.card_data else ""
        return f"{self.name}: {old} -> {new}{where}{day}"


class Row(Protocol):
    """What `plan` reads of a row: a `DeckRow`, a `KnownRow`, or a row STATE holds."""

    @property
    def id(self) -> str: ...

    @property
    def digest(self) -> bytes: ...


def plan(
    rows: Iterable[Row],
    stored: Mapping[str, StoredDeck],
    changes: Iterable[LoggedChange],
    decks_with: Callable[[set[str]], Mapping[str, set[Any]]],
    *,
    key: Callable[[StoredDeck], Any],
    settled: set[str],
    today: str,
    everything: bool = False,
) -> dict[str, str]:
    """Deck id -> why it is judged again, for the rows that need it. `changes`: the log's
    changes since STATE's last check; `decks_with(cards)`: per card, the keys (`key(stored)`)
    of the stored decks holding it; `settled`: the ids of the decks one of whose unknown names
    the card data knows now (`settled_decks`)."""
    todo: dict[str, str] = {}
    wanted: dict[str, set[str]] = {}  # card -> the legality keys it changed in
    for ch in changes:
        wanted.setdefault(ch.oracle_id, set()).add(ch.format)
    holding = decks_with(set(wanted)) if wanted and not everything else {}
    touched: dict[Any, set[str]] = {}
    for card, keys in holding.items():
        for deck_key in keys:
            touched.setdefault(deck_key, set()).update(wanted[card])
    for row in rows:
        old = stored.get(row.id)
        if old is None:
            todo[row.id] = NEW
        elif old.digest != row.digest:
            todo[row.id] = EDITED
        elif everything:
            todo[row.id] = RULES
        elif (found := touched.get(key(old))) is not None and (
            old.legality in found or "*" in found
        ):
            todo[row.id] = CARD_CHANGED
        elif old.flags & OPEN and row.id in settled:
            todo[row.id] = SETTLE
        elif old.flags & DATED and old.judged_on != today:
            todo[row.id] = DATED_LIST
    return todo


def settled_decks(open_names: Mapping[str, list[str]], cards: Any) -> set[str]:
    """The decks (of `open_names`: id -> the names the card data did not know when it was
    judged) one of whose names the card source `cards` knows now: one look-up of every
    distinct name."""
    if not open_names:
        return set()
    from validator.cards.names import lookup_key

    names = {n for names in open_names.values() for n in names}
    found = cards.lookup(names)
    known = {n for n in names if found.get(lookup_key(n))}
    return {deck_id for deck_id, names in open_names.items() if known.intersection(names)}
