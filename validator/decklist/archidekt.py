"""Archidekt's deck JSON: `cards`, each with `quantity`, `categories` (names) and
`card.oracleCard.name`; the deck's `categories` list says which are `includedInDeck`.

Categories decide the section. A card's first category is its primary one: when that category
is not included in the deck ("Maybeboard" by default, or any category the user marked so), the
card is not part of the deck. Otherwise a category the shared section vocabulary knows
(validator/decklist/sections.py) anywhere among its categories chooses the section: "Commander"
(also "Oathbreaker", "Signature Spell") first, then one outside the deck ("Maybeboard",
"Tokens"...), "Companion", "Sideboard", "Attraction(s)", "Sticker(s)"; every other category
("Ramp", "Creature") is the main deck. A card not counted is reported with the category that
put it there.
"""

from __future__ import annotations

from typing import Any

from validator.decklist.base import DecklistError, check_entry_count, json_object
from validator.decklist.entry import add_entry, dump, mark_commander_source
from validator.decklist.sections import lookup_section, section_label
from validator.model import Deck, Section

#: Which section wins when a card's categories name several (module docstring).
_ORDER = (
    Section.COMMANDER,
    Section.IGNORED,
    Section.COMPANION,
    Section.SIDEBOARD,
    Section.ATTRACTION,  # CR 717.2a
    Section.STICKER,  # CR 123.2a
)


def _included(categories: Any) -> dict[str, bool]:
    """Category name (lower-case) -> includedInDeck, from the deck's category list."""
    out: dict[str, bool] = {}
    for item in categories if isinstance(categories, list) else ():
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            out[item["name"].strip().lower()] = item.get("includedInDeck") is not False
    return out


def section_for(
    categories: list[Any], included: dict[str, bool], companion: bool = False
) -> tuple[Section, str | None]:
    """The section of a card with these category names (module docstring), and the
    category that chose it (None for the main deck)."""
    written = [c for c in categories if isinstance(c, str)]
    names = [c.strip().lower() for c in written]
    if names and not included.get(names[0], True) and "commander" not in names:
        # Primary category not in the deck (Maybeboard, or one the user marked so).
        return Section.IGNORED, section_label(written[0])
    found: dict[Section, str] = {}
    for category in written:
        known = lookup_section(category)
        if known is not None:
            found.setdefault(known.section, section_label(category))
    for section in _ORDER:
        if section in found:
            return section, found[section]
    if companion:
        return Section.COMPANION, None
    return Section.MAIN, None


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
        section, board = section_for(categories, included, bool(item.get("companion")))
        if item.get("deletedAt"):
            # Removed from the deck, kept in Archidekt's history.
            section, board = Section.IGNORED, "deleted from the deck"
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
            board=board,
        )
    mark_commander_source(deck)
    return deck
