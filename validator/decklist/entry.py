"""One card entry of a structured export (JSON or CSV): checked the same way whatever the site.

Each export names its fields differently (Moxfield `quantity` + `card.name`, MTGJSON `count` +
`name`, a CSV's `qty` column...); its reader pulls the values out and hands them here, with
`where` naming the entry in the input ("mainboard['Sol Ring']", "cards[3]", or a CSV line).
"""

from __future__ import annotations

import json
from typing import Any

from validator.decklist.base import (
    clip,
    digits_value,
    name_issue,
    quantity_issue,
)
from validator.model import Deck, DeckEntry, ParseIssue, Section

__all__ = ["add_entry", "dump"]


def dump(value: Any) -> str:
    """Short JSON text of an input value, for reports."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return clip(text)


def _quantity(value: Any) -> tuple[int | None, str] | str:
    """(value, as written) of a quantity; None value = too many digits. A str is what is wrong."""
    if isinstance(value, bool):
        return "quantity must be a positive whole number"
    if isinstance(value, float):
        if not value.is_integer():
            return "quantity must be a positive whole number"
        value = int(value)
    if isinstance(value, int):
        return (value if value < 10**24 else None), (str(value) if value < 10**24 else "(huge)")
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        written = value.strip()
        return digits_value(written), written
    return "quantity must be a positive whole number"


def add_entry(
    deck: Deck,
    where: str,
    section: Section,
    quantity: Any,
    name: Any,
    set_code: Any = None,
    collector: Any = None,
    text: str | None = None,
    line: int | None = None,
    board: str | None = None,
) -> None:
    """Append the entry, or a ParseIssue saying what is wrong with it (prefixed by `where`).
    `board`: the section as the input named it (the report names it for a card not counted)."""
    prefix = f"{where}: " if where else ""
    parsed = _quantity(quantity)
    if isinstance(parsed, str):
        deck.issues.append(ParseIssue(line, prefix + parsed, text, "bad-quantity"))
        return
    value, written = parsed
    issue = quantity_issue(value, written, line, text, where=prefix)
    if issue is not None:
        deck.issues.append(issue)
        return
    if not isinstance(name, str) or not name.strip():
        deck.issues.append(ParseIssue(line, f"{prefix}card name missing", text))
        return
    name = " ".join(name.split())
    too_long = name_issue(name, line, text, where=prefix)
    if too_long is not None:
        deck.issues.append(too_long)
        return
    printing: list[str | None] = []
    for extra in (set_code, collector):
        if isinstance(extra, bool) or not isinstance(extra, (str, int)):
            printing.append(None)  # a printing is a hint only: never a reason to refuse a card
            continue
        written_extra = str(extra).strip()
        printing.append(written_extra[:20] or None)
    assert value is not None
    # An entry without a line (JSON) keeps its path, which problems name (`DeckEntry.where`).
    deck.entries.append(
        DeckEntry(
            value,
            name,
            section,
            line,
            printing[0],
            printing[1],
            text,
            where if line is None and where else None,
            board,
        )
    )


def mark_commander_source(deck: Deck) -> Deck:
    """A deck whose export put cards in its commander zone found them there (the report's
    `commander_source` names the export); returns the deck."""
    if deck.count(Section.COMMANDER):
        deck.commander_source = deck.input_format
    return deck
