"""Scryfall card object -> `Card` facts, computed once at sync time.

Pure functions only; `sync` streams card objects through `card_from_scryfall` and writes the
results. Every rule-relevant fact lives here so the validator never re-reads Scryfall JSON.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

from validator.cards.abilities import has_activated_ability, strip_reminder_text
from validator.cards.names import fold_name
from validator.cards.types import creature_off_battlefield
from validator.errors import DeckcheckError
from validator.model import CARD_TYPES, COLOR_ORDER, Card, Face

#: Layouts that are not cards a deck can hold (Scryfall docs "Layouts and Faces").
NON_DECK_LAYOUTS = frozenset(
    {"token", "double_faced_token", "emblem", "art_series", "planar", "scheme", "vanguard"}
)
#: Layouts whose card, outside the stack, has both halves' characteristics (CR 709.4).
#: Scryfall's documented layout for aftermath cards is `split`, but its 2026 data also says
#: `aftermath` (Claim // Fame): an aftermath card is a split card (CR 702.127).
SPLIT_LAYOUTS = frozenset({"split", "aftermath"})
#: Sub-types of more than one word: "Time Lord" is one creature type (Doctor's companion,
#: CR 702.124m).
MULTIWORD_SUBTYPES = ("Time Lord",)
SUPERTYPES = frozenset({"Basic", "Legendary", "Snow", "World", "Ongoing", "Elite", "Host"})

_ANY_NUMBER = re.compile(r"A deck can have any number of cards named", re.IGNORECASE)
_UP_TO = re.compile(r"A deck can have up to (\w+) cards named", re.IGNORECASE)
_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "twenty": 20,
}
_COMPANION = re.compile(r"^(?:Old )?Companion\s*[\u2014-]\s*(.+?)\s*(?:\(.*)?$", re.MULTILINE)
_PARTNER_WITH = re.compile(r"^Partner with ([^(\n]+?)\s*(?:\(.*)?$", re.MULTILINE)
_PARTNER_TEXT = re.compile(r"^Partner\s*[\u2014-]\s*([^(\n]+?)\s*(?:\(.*)?$", re.MULTILINE)
_PARTNER = re.compile(r"^Partner\s*(?:\(.*)?$", re.MULTILINE)
_BACKGROUND = re.compile(r"^Choose a Background\b", re.MULTILINE)
_DOCTORS = re.compile(r"^Doctor['\u2019]s companion\b", re.MULTILINE)
_CAN_BE_COMMANDER = re.compile(r"can be your commander", re.IGNORECASE)


#: Every key of a Scryfall card object `card_from_scryfall` reads (a card face is read whole):
#: a sync decodes only these (`bulkfile.iter_bulk_file(keys=...)`); tests/cards/test_cardfacts.py
#: checks that a card built from objects holding only these keys is the card built from all.
SCRYFALL_KEYS = frozenset(
    {
        "object",
        "id",
        "oracle_id",
        "name",
        "layout",
        "card_faces",
        "all_parts",
        "mana_cost",
        "cmc",
        "type_line",
        "oracle_text",
        "power",
        "toughness",
        "loyalty",
        "color_identity",
        "keywords",
        "legalities",
        "game_changer",
        "reserved",
    }
)


class CardDataError(DeckcheckError, ValueError):
    """A card object lacks a field the validator needs."""

    code = "bad-card-data"


@functools.lru_cache(maxsize=1 << 14)
def parse_type_line(type_line: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Split one face's type line into (card types, subtypes, supertypes) (CR 205).
    Cached: a sync reads 35,000 type lines, a few thousand of them distinct."""
    left, _, right = type_line.partition("\u2014")
    if not right and " - " in type_line:
        left, _, right = type_line.partition(" - ")
    words = left.split()
    types = frozenset(w for w in words if w in CARD_TYPES or w == "Tribal")
    if "Tribal" in types:  # renamed kindred (2024)
        types = (types - {"Tribal"}) | {"Kindred"}
    supertypes = frozenset(w for w in words if w in SUPERTYPES)
    right = right.strip()
    subtypes: set[str] = set()
    for multi in MULTIWORD_SUBTYPES:
        if multi in right:
            subtypes.add(multi)
            right = right.replace(multi, " ")
    subtypes.update(right.split())
    return types, frozenset(subtypes), supertypes


def _faces(obj: dict[str, Any], raw: Any = None) -> tuple[Face, ...]:
    """The faces of a card object; `raw`: its `card_faces`, when the caller has read them."""
    if raw is None:
        raw = obj.get("card_faces")
    if not raw:  # most cards: one face, the card object itself
        get = obj.get
        return (
            Face(
                get("name", ""),
                get("mana_cost") or "",
                get("type_line") or "",
                get("oracle_text") or "",
                get("power"),
                get("toughness"),
                get("loyalty"),
            ),
        )
    return tuple(
        Face(
            f.get("name") or obj.get("name", ""),
            f.get("mana_cost") or "",
            f.get("type_line") or "",
            f.get("oracle_text") or "",
            f.get("power"),
            f.get("toughness"),
            f.get("loyalty"),
        )  # Face's fields, in order
        for f in raw
    )


def _deck_faces(layout: str, faces: tuple[Face, ...]) -> tuple[Face, ...]:
    """The faces whose characteristics the card has outside the game.

    Split cards have both halves (CR 709.4); double-faced, meld, flip, adventurer and prepare
    cards have only their front or normal characteristics (712.8a, 710, 715.4).
    """
    return faces if layout in SPLIT_LAYOUTS else faces[:1]


def _color_identity(colors: list[str] | None, name: str) -> str:
    """The identity's letters in WUBRG order (CR 903.4). A value that is no list of color
    letters fails the card: dropped, a letter would make the card look colorless, and fit
    every Commander deck."""
    if colors is None:
        return ""
    if type(colors) is list:  # a JSON array
        key: tuple[str, ...] | None = tuple(colors)
        try:
            found = _COLOR_IDENTITIES.get(key)  # type: ignore[arg-type]  # not None yet
        except TypeError:  # a color that is a list or an object: never a letter
            found = key = None
        if found is not None:
            return found
        if key is not None and _COLOR_LETTERS.issuperset(key):
            found = "".join(c for c in COLOR_ORDER if c in key)
            if len(_COLOR_IDENTITIES) < 1 << 10:
                _COLOR_IDENTITIES[key] = found
            return found
    raise CardDataError(
        f"card {name!r} has color_identity {colors!r}; expected a list of the "
        f"letters {', '.join(COLOR_ORDER)}"
    )


#: Color identity letters by the card object's list: 35,000 cards hold a few dozen lists.
_COLOR_IDENTITIES: dict[tuple[Any, ...], str] = {}
_COLOR_LETTERS = frozenset(COLOR_ORDER)


def _copy_limit(text: str) -> tuple[int | None, bool]:
    """(explicit limit, any number) from "A deck can have ..." text (CR 100.2a exceptions)."""
    if "deck can have" not in text.lower():  # a cheap test first: a sync reads 35,000 texts
        return None, False
    if _ANY_NUMBER.search(text):
        return None, True
    m = _UP_TO.search(text)
    if m:
        word = m.group(1).lower()
        limit = int(word) if word.isdigit() else _NUMBER_WORDS.get(word)
        return limit, False
    return None, False


def partner_abilities(text: str) -> tuple[tuple[str, str | None], ...]:
    """Every partner ability of a card's text (CR 702.124a), each as (kind, partner-with name):
    kinds "partner-with", "partner:<text>", "partner", "choose-a-background",
    "doctors-companion". A card may have more than one and use either (702.124g: Amy Pond has
    "Partner with Rory Williams" and "Doctor's companion")."""
    if "artner" not in text and "Background" not in text and "ompanion" not in text:
        return ()
    text = text.replace("\u2019", "'")
    found: list[tuple[str, str | None]] = []
    m = _PARTNER_WITH.search(text)
    if m:
        found.append(("partner-with", m.group(1).strip()))
    m = _PARTNER_TEXT.search(text)
    if m:
        found.append(("partner:" + m.group(1).strip(), None))
    if _PARTNER.search(text):
        found.append(("partner", None))
    if _BACKGROUND.search(text):
        found.append(("choose-a-background", None))
    if _DOCTORS.search(text):
        found.append(("doctors-companion", None))
    return tuple(found)


def _partner(text: str) -> tuple[str | None, str | None]:
    """The card's first partner ability (`Card.partner`, `Card.partner_with`); a card with
    more than one is paired by `partner_abilities`."""
    found = partner_abilities(text)
    return found[0] if found else (None, None)


def _commander_eligible(
    front: Face, types: frozenset[str], subtypes: frozenset[str], supertypes: frozenset[str]
) -> bool:
    """CR 903.3: a legendary creature, Vehicle, or Spacecraft with a power/toughness box,
    or a card whose text says it can be your commander (903.3a). Front face only (712.8a)."""
    if "ommander" in front.oracle_text and (
        _CAN_BE_COMMANDER.search(strip_reminder_text(front.oracle_text))
        or re.search(r"^Spell commander\b", front.oracle_text, re.MULTILINE)
    ):
        return True
    if "Legendary" not in supertypes:
        return False
    if "Creature" in types or "Vehicle" in subtypes:
        return True
    # Grist, the Hunger Tide: a creature card outside the battlefield (CR 113.6c, 903.3a).
    if creature_off_battlefield(front.oracle_text) is not None:
        return True
    return "Spacecraft" in subtypes and front.power is not None and front.toughness is not None


def _meld_from(obj: dict[str, Any], name: str) -> tuple[str, ...]:
    """For the back face of a meld pair (CR 712.4b), the two cards that meld into it, from
    Scryfall's `all_parts` ("meld_part" / "meld_result" components); () for any other card."""
    if obj.get("layout") != "meld":  # a cheap test first: a sync reads 35,000 objects
        return ()
    parts = obj.get("all_parts")
    if not isinstance(parts, list):
        return ()
    result = [p for p in parts if isinstance(p, dict) and p.get("component") == "meld_result"]
    if not any(p.get("name") == name for p in result):
        return ()
    return tuple(
        p["name"]
        for p in parts
        if isinstance(p, dict)
        and p.get("component") == "meld_part"
        and isinstance(p.get("name"), str)
    )


#: Text statuses by the card object's legalities, as items: 35,000 cards hold a few hundred
#: distinct ones, so equal ones share one dict (read-only, as in `compact.LegalityInterner`).
_LEGALITIES: dict[tuple[tuple[str, Any], ...], dict[str, str]] = {}


#: The same, by the identity of a read-only mapping: a sync's reader hands equal legalities
#: out as one `MappingProxyType` (`bulkfile.SHARED_VALUE_KEYS`), which nobody can change;
#: each is kept here, so no id is reused.
_LEGALITIES_BY_ID: dict[int, tuple[Any, dict[str, str]]] = {}


def _legalities(raw: Any) -> dict[str, str]:
    """The card's legalities. A status that is not text (`null`, `7`, a list) raises
    `_BadStatus`: read as `not_legal` it would judge by a ban list the data never said."""
    if type(raw) is not MappingProxyType:
        return _legalities_of(raw)
    known = _LEGALITIES_BY_ID.get(id(raw))
    if known is not None and known[0] is raw:
        return known[1]
    found = _legalities_of(raw)
    if len(_LEGALITIES_BY_ID) < 1 << 12:
        _LEGALITIES_BY_ID[id(raw)] = (raw, found)
    return found


class _BadStatus(ValueError):
    """A legality status that is not text; `args`: the format key and the value."""


def _text_statuses(raw: Any) -> dict[str, str]:
    for fmt, status in raw.items():
        if type(status) is not str:
            raise _BadStatus(fmt, status)
    return dict(raw)


def _legalities_of(raw: Any) -> dict[str, str]:
    if type(raw) is not dict:
        raw = dict(raw)
    try:
        key = tuple(raw.items())
        found = _LEGALITIES.get(key)
    except TypeError:  # a status that is a list or an object
        return _text_statuses(raw)
    if found is None:
        found = _text_statuses(raw)
        if len(_LEGALITIES) < 1 << 14:
            _LEGALITIES[key] = found
    return found


_MAPPINGS = (dict, MappingProxyType)
_LEGALITIES_SHAPE = (
    "legalities must be an object of format -> status (such as "
    '{"modern": "legal", "vintage": "restricted"})'
)
_TEXT_KEYS = (
    "id",
    "oracle_id",
    "name",
    "layout",
    "mana_cost",
    "type_line",
    "oracle_text",
    "power",
    "toughness",
    "loyalty",
)


def _shown(value: Any) -> str:
    """A JSON value in a message: its JSON type and the start of its text."""
    kind = {
        dict: "an object",
        MappingProxyType: "an object",
        list: "a list",
        str: "a text",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), "null")
    text = repr(value)
    return f"{kind} ({text[:60]}{'...' if len(text) > 60 else ''})"


def field_problem(obj: dict[str, Any]) -> str | None:
    """Which key of a card object `card_from_scryfall` cannot read, and why, or None: for the
    message when reading it failed (the keys deckcheck does not read are not checked)."""

    def text_problem(where: dict[str, Any], prefix: str) -> str | None:
        for key in _TEXT_KEYS:
            value = where.get(key)
            if value is not None and type(value) is not str:
                return f"{prefix}{key} must be a text, not {_shown(value)}"
        return None

    found = text_problem(obj, "")
    if found:
        return found
    cmc = obj.get("cmc")
    if cmc is not None and type(cmc) not in (int, float):
        return f"cmc must be a number, not {_shown(cmc)}"
    legalities = obj.get("legalities")
    if legalities is not None:
        if type(legalities) not in _MAPPINGS:
            return f"{_LEGALITIES_SHAPE}, not {_shown(legalities)}"
        for fmt, status in legalities.items():
            if type(status) is not str:
                return f"{_LEGALITIES_SHAPE}: the status of {fmt!r} is {_shown(status)}"
    keywords = obj.get("keywords")
    if keywords is not None and (
        type(keywords) is not list or any(type(k) is not str for k in keywords)
    ):
        return f"keywords must be a list of keyword names, not {_shown(keywords)}"
    faces = obj.get("card_faces")
    if faces is not None:
        if type(faces) is not list or any(type(f) is not dict for f in faces):
            return f"card_faces must be a list of face objects, not {_shown(faces)}"
        for number, face in enumerate(faces, 1):
            found = text_problem(face, f"card_faces[{number}].")
            if found:
                return found
    return None


def card_from_scryfall(obj: dict[str, Any]) -> Card:
    """Build the `Card` facts of one Scryfall card object (oracle_cards or default_cards)."""
    get = obj.get  # each key read once
    layout = get("layout") or "normal"
    raw_faces = get("card_faces")
    faces = _faces(obj, raw_faces)
    oracle_id = get("oracle_id")
    if not oracle_id and layout == "reversible_card" and raw_faces:
        # Reversible cards carry the oracle id of their side card on each face.
        oracle_id = raw_faces[0].get("oracle_id")
        faces = faces[:1]
    name = get("name")
    if not oracle_id or not name:
        missing = "oracle_id" if not oracle_id else "name"
        raise CardDataError(f"card {name or get('id') or '?'!r} has no {missing}")
    if layout == "reversible_card" and len(faces) == 1:
        name = faces[0].name
    deck_faces = _deck_faces(layout, faces)
    front = faces[0]
    front_types = parse_type_line(front.type_line)
    types, subtypes, supertypes = front_types
    if len(faces) == 1:  # most cards: no joins
        text = all_text = front.oracle_text
        mana_cost = front.mana_cost
    else:
        for face in deck_faces[1:]:
            t, s, st = parse_type_line(face.type_line)
            types, subtypes, supertypes = types | t, subtypes | s, supertypes | st
        text = "\n".join([f.oracle_text for f in deck_faces])
        all_text = "\n".join([f.oracle_text for f in faces])
        mana_cost = "".join([f.mana_cost for f in deck_faces])
    cmc = get("cmc")
    if cmc is None and raw_faces:
        cmc = raw_faces[0].get("cmc")
    copy_limit, any_number = _copy_limit(all_text)
    partner, partner_with = _partner(front.oracle_text)
    companion = _COMPANION.search(front.oracle_text) if "Companion" in front.oracle_text else None
    raw_legalities = get("legalities")
    if type(raw_legalities) not in _MAPPINGS:  # a list of pairs would pass dict()
        if raw_legalities is not None:
            raise CardDataError(f"card {name!r}: {_LEGALITIES_SHAPE}, not {_shown(raw_legalities)}")
        raw_legalities = {}
    keywords = get("keywords")
    if keywords is not None and type(keywords) is not list:  # a text would become its letters
        raise CardDataError(
            f"card {name!r}: keywords must be a list of keyword names, not {_shown(keywords)}"
        )
    try:
        legalities = _legalities(raw_legalities)
    except _BadStatus as bad:
        fmt, status = bad.args
        raise CardDataError(
            f"card {name!r}: the legality of {fmt!r} is {_shown(status)}, not a status "
            f'(a text such as "legal", "banned" or "not_legal")'
        ) from None
    # Positional, in CARD_FIELDS order (a sync builds 35,000 cards; keywords cost half again).
    return Card(
        oracle_id,
        name,
        layout,
        faces,
        mana_cost,
        float(cmc or 0.0),  # mana_value
        get("type_line") or " // ".join(f.type_line for f in faces),  # type_line
        types,
        subtypes,
        supertypes,
        text,  # oracle_text
        _color_identity(get("color_identity"), name),
        frozenset(keywords or ()),
        legalities,
        bool(get("game_changer")),
        bool(get("reserved")),
        copy_limit,
        any_number,
        _commander_eligible(front, *front_types),
        partner,
        partner_with,
        has_activated_ability(text, types, subtypes),
        companion.group(1).strip() if companion else None,  # companion_condition
        layout not in NON_DECK_LAYOUTS,  # is_deck_card
        _meld_from(obj, name),
    )


#: `Card`'s fields in the order `card_from_scryfall` passes them
#: (tests/cards/test_cardfacts.py checks it against the model).
CARD_FIELDS = (
    "oracle_id",
    "name",
    "layout",
    "faces",
    "mana_cost",
    "mana_value",
    "type_line",
    "types",
    "subtypes",
    "supertypes",
    "oracle_text",
    "color_identity",
    "keywords",
    "legalities",
    "game_changer",
    "reserved",
    "copy_limit",
    "any_number",
    "commander_eligible",
    "partner",
    "partner_with",
    "has_activated_ability",
    "companion_condition",
    "is_deck_card",
    "meld_from",
)


def lookup_names(card: Card, extra: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """(folded name, kind) pairs a decklist may use for this card: the full name, each face
    name, and printed/flavor names from `extra`."""
    faces = card.faces
    if not extra and len(faces) == 1 and faces[0].name == card.name:
        folded = fold_name(card.name)  # most cards: the one face is the name (the sync's
        if folded:  # every card: no set, no second fold of the same text)
            yield folded, "name"
        return
    seen: set[str] = set()
    candidates = [(card.name, "name")] + [(f.name, "face") for f in faces]
    candidates += [(n, "alias") for n in extra]
    for raw, kind in candidates:
        folded = fold_name(raw)
        if folded and folded not in seen:
            seen.add(folded)
            yield folded, kind
