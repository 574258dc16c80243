"""Moxfield's deck JSON, in both shapes its API has served.

* v2: one object per board at the top level (`mainboard`, `sideboard`, `commanders`,
  `companions`, `signatureSpells`, `attractions`, `stickers`, `maybeboard`), each mapping a
  card name to `{"quantity": 1, "card": {"name": ..., "set": ..., "cn": ...}, ...}`;
* v3: `boards`, an object of the same boards, each `{"count": N, "cards": {id: entry}}`.

The maybeboard is not part of the deck. A companion is listed in `companions` and, marked
`isCompanion`, in `sideboard` too: one card, read once (as the companion).
"""

from __future__ import annotations

from typing import Any

from validator.decklist.base import DecklistError, check_entry_count, json_object
from validator.decklist.entry import add_entry, dump, mark_commander_source
from validator.model import Deck, ParseIssue, Section

#: Moxfield board -> section. Signature spells go with the oathbreaker (Section.COMMANDER),
#: as every other reader does.
BOARDS: dict[str, Section] = {
    "mainboard": Section.MAIN,
    "sideboard": Section.SIDEBOARD,
    "commanders": Section.COMMANDER,
    "companions": Section.COMPANION,
    "signatureSpells": Section.COMMANDER,
    "attractions": Section.ATTRACTION,  # CR 717.2a
    "stickers": Section.STICKER,  # CR 123.2a
    "maybeboard": Section.IGNORED,
    "considering": Section.IGNORED,
    # Not part of a constructed deck.
    "tokens": Section.IGNORED,
    "planes": Section.IGNORED,
    "schemes": Section.IGNORED,
    "contraptions": Section.IGNORED,
}


def _boards(data: dict[str, Any]) -> list[tuple[str, Any]]:
    """(board name, {key: entry}) for each board, from either shape."""
    boards = data.get("boards")
    if isinstance(boards, dict):
        found = []
        for name, board in boards.items():
            cards = board.get("cards") if isinstance(board, dict) else None
            found.append((str(name), cards))
        return found
    return [(key, data[key]) for key in BOARDS if isinstance(data.get(key), dict)]


def _card_name(entry: dict[str, Any]) -> str | None:
    card = entry.get("card")
    name = card.get("name") if isinstance(card, dict) else None
    return name if isinstance(name, str) else None


def read_moxfield(data: Any) -> Deck:
    """A Deck from Moxfield's deck JSON (either shape)."""
    if not isinstance(data, dict):
        raise DecklistError('a Moxfield deck is a JSON object with "boards" or "mainboard"')
    boards = _boards(data)
    v2 = not isinstance(data.get("boards"), dict)
    if not boards:
        raise DecklistError(
            'not a Moxfield deck: expected a "boards" object or board objects such as '
            '"mainboard" (each mapping cards to {"quantity", "card": {"name"}})'
        )
    deck = Deck(input_format="moxfield")
    name = data.get("name")
    if isinstance(name, str) and name.strip():
        deck.name = " ".join(name.split())[:200]
    check_entry_count(sum(len(b) for _, b in boards if isinstance(b, dict)))
    companions = set()
    for board, entries in boards:
        if board == "companions" and isinstance(entries, dict):
            companions = {_card_name(e) for e in entries.values() if isinstance(e, dict)}
    for board, entries in boards:
        section = BOARDS.get(board, Section.IGNORED)
        if not isinstance(entries, dict):
            if entries is not None:
                deck.issues.append(
                    ParseIssue(None, f"{board}: expected an object of cards", dump(entries))
                )
            continue
        for key, entry in entries.items():
            where = f"{board}[{key!r}]"
            if not isinstance(entry, dict):
                add_entry(deck, where, section, None, None, text=dump(entry))
                continue
            card = json_object(entry.get("card"))
            name = card.get("name")
            if name is None and v2 and isinstance(key, str):
                name = key  # v2 boards are keyed by card name
            entry_section = section
            if (
                section is Section.SIDEBOARD
                and entry.get("isCompanion")
                and _card_name(entry) in companions - {None}
            ):
                entry_section = Section.IGNORED  # the companion, listed again in the sideboard
            add_entry(
                deck,
                where,
                entry_section,
                entry.get("quantity", 1),
                name,
                card.get("set"),
                card.get("cn"),
                text=dump({"quantity": entry.get("quantity"), "name": name, "board": board}),
            )
    mark_commander_source(deck)
    return deck
