"""MTGJSON deck files (`AllDeckFiles`, the precon decks): `{"meta": ..., "data": {"name",
"mainBoard": [...], "sideBoard": [...], "commander": [...]}}`, each card an MTGJSON card with
`count`, `name`, `setCode` and `number`.

`displayCommander`, `tokens`, `planes` and `schemes` are not part of the deck. Older files hold
`commander` as one card instead of a list.
"""

from __future__ import annotations

from typing import Any

from validator.decklist.base import DecklistError, check_entry_count
from validator.decklist.entry import add_entry, dump, mark_commander_source
from validator.model import Deck, ParseIssue, Section

BOARDS: dict[str, Section] = {
    "mainBoard": Section.MAIN,
    "sideBoard": Section.SIDEBOARD,
    "commander": Section.COMMANDER,
}


def read_mtgjson(document: Any) -> Deck:
    """A Deck from an MTGJSON deck file (or its `data` object alone)."""
    data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, dict) and isinstance(document, dict) and "mainBoard" in document:
        data = document
    if not isinstance(data, dict):
        raise DecklistError('not an MTGJSON deck file: expected "data" with "mainBoard"')
    deck = Deck(input_format="mtgjson")
    name = data.get("name")
    if isinstance(name, str) and name.strip():
        deck.name = " ".join(name.split())[:200]
    boards = []
    for key, section in BOARDS.items():
        value = data.get(key)
        if isinstance(value, dict):
            value = [value]  # MTGJSON 5.1: one commander card
        if value is None:
            continue
        if not isinstance(value, list):
            deck.issues.append(
                ParseIssue(None, f"data.{key}: expected a list of cards", dump(value))
            )
            continue
        boards.append((key, section, value))
    check_entry_count(sum(len(v) for _, _, v in boards))
    for key, section, cards in boards:
        for index, card in enumerate(cards):
            where = f"data.{key}[{index}]"
            if not isinstance(card, dict):
                add_entry(deck, where, section, None, None, text=dump(card))
                continue
            add_entry(
                deck,
                where,
                section,
                card.get("count", 1),
                card.get("name"),
                card.get("setCode"),
                card.get("number"),
                text=dump({"count": card.get("count"), "name": card.get("name")}),
            )
    mark_commander_source(deck)
    return deck
