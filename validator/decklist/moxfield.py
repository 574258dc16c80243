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

from validator.decklist.base import DecklistError, check_entry_count, clip, json_object, printable
from validator.decklist.detect import MOXFIELD_BOARDS
from validator.decklist.entry import add_entry, dump, mark_commander_source
from validator.decklist.sections import lookup_section
from validator.model import Deck, ParseIssue, Section

#: The boards Moxfield writes: a top-level one is read whatever its value holds.
BOARDS = MOXFIELD_BOARDS


def _is_board(value: Any) -> bool:
    """A v2 top-level value that is a board: an object of card entries (`{"card": ...}`)."""
    return isinstance(value, dict) and any(
        isinstance(entry, dict) and "card" in entry for entry in value.values()
    )


def _boards(data: dict[str, Any]) -> list[tuple[str, Any]]:
    """(board name, {key: entry}) for each board, from either shape; in v2, any top-level
    object of card entries is a board, known or not (an unknown one is never dropped)."""
    boards = data.get("boards")
    if isinstance(boards, dict):
        found = []
        for name, board in boards.items():
            cards = board.get("cards") if isinstance(board, dict) else None
            found.append((str(name), cards))
        return found
    return [
        (key, value)
        for key, value in data.items()
        if (key in BOARDS and isinstance(value, dict)) or _is_board(value)
    ]


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
        known = lookup_section(board)
        section = known.section if known is not None else Section.IGNORED
        if known is None and entries:
            deck.issues.append(
                ParseIssue(
                    None,
                    f"board {clip(printable(board), 60)!r} is not one deckcheck knows; its "
                    "cards are not counted",
                    dump(board),
                    "unknown-section",
                )
            )
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
                board=board
                if entry_section is section
                else f"{board} (the companion, listed again)",
            )
    mark_commander_source(deck)
    return deck
