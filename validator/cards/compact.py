"""The compact card encoding: how a card's facts are stored (`cards.data`, schema version 2).
One place encodes it at sync time (`db.card_batches`) and decodes it for every reader
(`db.CardDB`, `store_sqlite.SqliteCards`, the in-memory `CardIndex`).

A card is one JSON array of its facts, kept as bytes in the index until a deck first names
the card: an index over the full card file then loads in one read of small rows, and only the
cards decks use are ever turned into `Card` objects. Legalities are stored as the JSON text of
the card's statuses (those other than `not_legal`), one row of `legality_sets` per distinct
text; a few hundred cover every card, so each is parsed once and the dict shared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from validator.model import Card, Face

#: The card database's schema version (`db` describes the layout), here beside the encoding
#: so that the writer (`db`) and the lean reader (`store_sqlite`) share one number without the
#: reader importing SQLAlchemy.
SCHEMA_VERSION = 2

#: Bump when the array layout changes. Version 2: the card's mana cost, type line and text,
#: and its front face's name, are null when they equal the front face's (or the card's name):
#: most cards have one face, whose text was stored twice. Version 1 rows still decode.
ENCODING_VERSION = 2


# orjson is imported where it is used: the cold CLI reads no compact rows and skips it.


def legality_text(legalities: dict[str, str]) -> str:
    """The stored form of a card's legalities: statuses other than `not_legal`, sorted."""
    import orjson

    return orjson.dumps({f: s for f, s in sorted(legalities.items()) if s != "not_legal"}).decode()


def encode_card(card: Card) -> bytes:
    """Everything of `card` but its oracle id, name and legalities (columns of their own),
    each text once (see ENCODING_VERSION)."""
    import orjson

    faces: list[list[Any]] = [
        [f.name, f.mana_cost, f.type_line, f.oracle_text, f.power, f.toughness, f.loyalty]
        for f in card.faces
    ]  # Face's fields, in order
    mana_cost: str | None = card.mana_cost
    type_line: str | None = card.type_line
    text: str | None = card.oracle_text
    if faces:
        front = faces[0]
        if front[0] == card.name:
            front[0] = None
        if mana_cost == front[1]:
            mana_cost = None
        if type_line == front[2]:
            type_line = None
        if text == front[3]:
            text = None
    return orjson.dumps(
        [
            ENCODING_VERSION,
            card.layout,
            faces,
            mana_cost,
            card.mana_value,
            type_line,
            sorted(card.types),
            sorted(card.subtypes),
            sorted(card.supertypes),
            text,
            card.color_identity,
            sorted(card.keywords),
            card.game_changer,
            card.reserved,
            card.copy_limit,
            card.any_number,
            card.commander_eligible,
            card.partner,
            card.partner_with,
            card.has_activated_ability,
            card.companion_condition,
            card.is_deck_card,
            list(card.meld_from),
        ]
    )


def decode_card(
    oracle_id: str,
    name: str,
    data: bytes,
    legalities: dict[str, str],
    loads: Callable[[bytes], Any] | None = None,
) -> Card:
    """The `Card` of an encoded row. `loads` parses JSON (default orjson; the lean SQLite
    reader passes the standard library's, which a cold run has imported anyway)."""
    if loads is None:
        import orjson

        loads = orjson.loads

    v = loads(data)
    raw_faces, mana_cost, type_line, text = v[2], v[3], v[5], v[9]
    if v[0] == ENCODING_VERSION:
        if raw_faces:
            front = raw_faces[0]
            if front[0] is None:
                front[0] = name
            mana_cost = front[1] if mana_cost is None else mana_cost
            type_line = front[2] if type_line is None else type_line
            text = front[3] if text is None else text
    elif v[0] != 1:
        raise ValueError(
            f"the card data of {name!r} has encoding {v[0]}, expected {ENCODING_VERSION}"
        )
    return Card(
        oracle_id=oracle_id,
        name=name,
        layout=v[1],
        faces=tuple(Face(*f) for f in raw_faces),
        mana_cost=mana_cost,
        mana_value=float(v[4]),
        type_line=type_line,
        types=frozenset(v[6]),
        subtypes=frozenset(v[7]),
        supertypes=frozenset(v[8]),
        oracle_text=text,
        color_identity=v[10],
        keywords=frozenset(v[11]),
        legalities=legalities,
        game_changer=bool(v[12]),
        reserved=bool(v[13]),
        copy_limit=v[14],
        any_number=bool(v[15]),
        commander_eligible=bool(v[16]),
        partner=v[17],
        partner_with=v[18],
        has_activated_ability=bool(v[19]),
        companion_condition=v[20],
        is_deck_card=bool(v[21]),
        meld_from=tuple(v[22]) if len(v) > 22 else (),
    )


class LegalityInterner:
    """Parses each distinct legality text once; equal texts share one dict (read-only use)."""

    def __init__(self) -> None:
        self._seen: dict[str, dict[str, str]] = {}

    def __call__(self, text: str) -> dict[str, str]:
        found = self._seen.get(text)
        if found is None:
            import orjson

            found = self._seen[text] = orjson.loads(text)
        return found

    def __len__(self) -> int:
        return len(self._seen)


# ---------------------------------------------------------------------------- what an index holds


@dataclass(frozen=True)
class SyncStamp:
    """The sync a card index was read from: the newest `sync_runs` row in the same snapshot
    as the cards (a long-lived index can tell whether the database has moved on)."""

    id: int
    bulk_type: str
    updated_at: str | None
    finished_at: str


@dataclass
class IndexData:
    """Everything a `CardIndex` is built from, read in one snapshot.

    `rows`: every deck card's compact row (oracle_id, name, legalities text, data); `names`:
    (folded name, oracle_id) from `card_names`.
    """

    sync: SyncStamp | None
    rows: list[tuple[str, str, str, bytes]] = field(default_factory=list)
    names: list[tuple[str, str]] = field(default_factory=list)
