"""Archidekt's deck JSON: `cards`, each with `quantity`, `categories` (names) and
`card.oracleCard.name`; the deck's `categories` list says which are `includedInDeck`.

Categories decide the section. A card's first category is its primary one: when that category
is not included in the deck ("Maybeboard" by default, or any category the user marked so), the
card is not part of the deck. Otherwise "Commander" (also "Oathbreaker", "Signature Spell"),
"Companion", "Sideboard", "Attraction(s)" and "Sticker(s)" anywhere among its categories choose
the section; every other category ("Ramp", "Creature") is the main deck.
"""

from __future__ import annotations

from typing import Any

from validator.decklist.base import DecklistError, check_entry_count, json_object
from validator.decklist.entry import add_entry, dump, mark_commander_source
from validator.model import Deck, Section

_SPECIAL: tuple[tuple[frozenset[str], Section], ...] = (
    (frozenset({"commander", "commanders", "oathbreaker", "signature spell"}), Section.COMMANDER),
    (frozenset({"maybeboard", "maybe", "considering"}), Section.IGNORED),
    (frozenset({"companion"}), Section.COMPANION),
    (frozenset({"sideboard"}), Section.SIDEBOARD),
    (frozenset({"attraction", "attractions"}), Section.ATTRACTION),  # CR 717.2a
    (frozenset({"sticker", "stickers", "sticker sheet", "sticker sheets"}), Section.STICKER),
)


def _included(categories: Any) -> dict[str, bool]:
    """Category name (lower-case) -> includedInDeck, from the deck's category list."""
    out: dict[str, bool] = {}
    for item in categories if isinstance(categories, list) else ():
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            out[item["name"].strip().lower()] = item.get("includedInDeck") is not False
    return out


def section_for(
    categories: list[str], included: dict[str, bool], companion: bool = False
) -> Section:
    """The section of a card with these category names (module docstring)."""
    names = [c.strip().lower() for c in categories if isinstance(c, str)]
    if names and not included.get(names[0], True) and "commander" not in names:
        return Section.IGNORED  # primary category not in the deck (Maybeboard, custom)
    for labels, section in _SPECIAL:
        if labels.intersection(names):
            return section
    if companion:
        return Section.COMPANION
    return Section.MAIN


def read_archidekt(data: Any) -> Deck:
    """A Deck from Archidekt's deck JSON."""
    cards = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(cards, list):
        raise DecklistError(
            'not an Archidekt deck: expected a "cards" list of {"quantity", "categories", '
            '"card": {"oracleCard": {"name"}}}'
        )
    check_entry_count(len(cards))
    deck = Deck(input_format="archidekt")
    name = data.get("name")
    if isinstance(name, str) and name.strip():
        deck.name = " ".join(name.split())[:200]
    included = _included(data.get("categories"))
    for index, item in enumerate(cards):
        where = f"cards[{index}]"
        if not isinstance(item, dict):
            add_entry(deck, where, Section.MAIN, None, None, text=dump(item))
            continue
        card = json_object(item.get("card"))
        oracle = json_object(card.get("oracleCard"))
        edition = json_object(card.get("edition"))
        raw_categories = item.get("categories")
        categories: list[Any] = raw_categories if isinstance(raw_categories, list) else []
        section = section_for(categories, included, bool(item.get("companion")))
        if item.get("deletedAt"):
            section = Section.IGNORED  # removed from the deck, kept in Archidekt's history
        name = oracle.get("name") or card.get("name")
        add_entry(
            deck,
            where,
            section,
            item.get("quantity", 1),
            name,
            edition.get("editioncode"),
            card.get("collectorNumber"),
            text=dump({"quantity": item.get("quantity"), "name": name, "categories": categories}),
        )
    mark_commander_source(deck)
    return deck
