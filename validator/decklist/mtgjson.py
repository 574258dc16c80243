"""MTGJSON deck files (`AllDeckFiles`, the precon decks): `{"meta": ..., "data": {"name",
"mainBoard": [...], "sideBoard": [...], "commander": [...]}}`, each card an MTGJSON card with
`count`, `name`, `setCode` and `number`.

`displayCommander`, `tokens`, `planes`, `schemes` and `maybeBoard` are not part of the deck:
their cards are listed as not counted. Any other list of card objects is a board deckcheck does
not know: a warning names it, and its cards are listed as not counted. Older files hold
`commander` as one card instead of a list.
"""

from __future__ import annotations

from typing import Any

from validator.decklist.base import DecklistError, check_entry_count
from validator.decklist.entry import add_entry, dump, mark_commander_source
from validator.decklist.sections import lookup_section
from validator.model import Deck, ParseIssue, Section

#: The card lists of an MTGJSON deck (each one's section is the shared vocabulary's,
#: validator/decklist/sections.py).
BOARDS = (
    "mainBoard",
    "sideBoard",
    "commander",
    "displayCommander",
    "tokens",
    "planes",
    "schemes",
    "maybeBoard",
)


def _is_card_list(value: Any) -> bool:
    """A list of MTGJSON card objects (`{"name": ..., "count": ...}`)."""
    return isinstance(value, list) and any(
        isinstance(card, dict) and "name" in card and ("count" in card or "uuid" in card)
        for card in value
    )


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
    keys = list(BOARDS) + [k for k, v in data.items() if k not in BOARDS and _is_card_list(v)]
    for key in keys:
        value = data.get(key)
        if isinstance(value, dict):
            value = [value]  # MTGJSON 5.1: one commander card
        if value is None:
            continue
        known = lookup_section(key)
        section = known.section if known is not None else Section.IGNORED
        if known is None:
            deck.issues.append(
                ParseIssue(
                    None,
                    f"data.{key}: not a list of cards deckcheck knows; its cards are not counted",
                    dump(key),
                    "unknown-section",
                )
            )
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
                board=key,
            )
    mark_commander_source(deck)
    return deck
