"""JSON decks: reading the document, choosing its shape, and deckcheck's own JSON deck.

`parse_json` loads the document once and hands it to the reader of its shape (detected by
`detect.json_shape`, or forced): Moxfield, Archidekt, MTGJSON, or deckcheck's own deck for
programs:

    {"name": "...", "main": [...], "sideboard": [...], "commanders": [...], "companion": ...,
     "attractions": [...], "stickers": [...]}

An item is `{"quantity": 4, "name": "...", "set": "m11", "collector_number": "146"}`,
`[4, "Lightning Bolt"]` or a bare name (one copy). Entries have no line number; issues name the
JSON path of the item instead (`main[3]: ...`). Top-level fields deckcheck does not know are
ignored with a note, never an error: sites add fields (`createdAt`), and a deck must not become
illegal because of one.
"""

from __future__ import annotations

import json
import threading
from json.encoder import encode_basestring
from typing import Any

import msgspec

from validator.decklist.base import (
    MAX_JSON_CONTAINERS,
    MAX_JSON_VALUES,
    DecklistError,
    check_entry_count,
    clip,
    name_issue,
    printable,
    quantity_issue,
    unusable_text,
)
from validator.decklist.entry import mark_commander_source
from validator.decklist.sections import lookup_section
from validator.model import Deck, DeckEntry, ParseIssue, Section

# Descriptive keys a program may add; any other key is noted (info), since a misspelt section
# ("sidebaord") would otherwise drop its cards without a word.
_INFO_KEYS = frozenset(
    {
        "name",
        "format",
        "description",
        "author",
        "source",
        "url",
        "id",
        "version",
        "$schema",
        "comment",
        "comments",
        "notes",
        "date",
        "player",
        "as_of",
    }
)


def load_json(text: str) -> Any:
    """The parsed JSON document; DecklistError when it is not JSON."""
    objects = text.count("{")
    containers = objects + text.count("[")  # brackets in strings count too: fine
    if containers > MAX_JSON_CONTAINERS:
        raise DecklistError(
            f"JSON opens {containers:,} objects and lists; the limit is "
            f"{MAX_JSON_CONTAINERS:,} (a deck's card objects hold a few dozen)"
        )
    values = text.count(",")
    if values > MAX_JSON_VALUES:
        raise DecklistError(
            f"JSON holds {values:,} values (commas); the limit is "
            f"{MAX_JSON_VALUES:,} (a deck's card objects hold a few hundred)"
        )
    text = text.lstrip("\ufeff \t\r\n")
    if objects == 1 and text[:1] == "{":
        # One object, the deck itself (an event file's deck, most JSON decks): msgspec reads
        # it in half the json module's time. Each key of the text is followed by a colon, so
        # as many keys as colons means no key came twice. Anything msgspec refuses (NaN, a
        # lone surrogate, an integer of over 4,300 digits...) or a colon elsewhere goes the
        # json module's way, which words the error or finds the duplicated key.
        try:
            document = _FAST_DECODER.decode(text)
        except (msgspec.DecodeError, RecursionError):
            pass
        else:
            if document.__class__ is dict and len(document) == text.count(":"):
                return document
    decoding = _DECODING
    try:
        document = decoding.decoder.decode(text)
    except RecursionError:
        raise DecklistError("malformed JSON: nested too deeply") from None
    except ValueError as exc:
        raise DecklistError(f"malformed JSON: {exc}") from None
    finally:
        duplicated, decoding.duplicated = decoding.duplicated, []
    if duplicated:
        # JSON readers keep the last of two equal keys: the first one's cards would vanish.
        obj, key = duplicated[0]
        path = _path_of(document, obj) or "the document"
        raise DecklistError(
            f"duplicated JSON key {clip(printable(key), 60)!r} in {path}: a JSON object names "
            "each key once (the last would silently win); merge the two into one"
        )
    return document


class _Decoding(threading.local):
    """The JSON decoder of this thread, built once (`json.loads` builds one per call), and
    the first duplicated key of the document it decodes: (its object, the key)."""

    def __init__(self) -> None:
        self.duplicated: list[tuple[dict[str, Any], str]] = []
        self.decoder = json.JSONDecoder(object_pairs_hook=self.pairs)

    def pairs(self, items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) != len(items) and not self.duplicated:
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    self.duplicated.append((obj, key))
                    break
                seen.add(key)
        return obj


_DECODING = _Decoding()
_FAST_DECODER = msgspec.json.Decoder()


def _path_of(document: Any, target: Any, path: str = "$") -> str | None:
    """The JSON path ("$.boards.mainboard") of the object `target` in `document`."""
    stack = [(document, path)]
    while stack:
        value, where = stack.pop()
        if value is target:
            return where
        if isinstance(value, dict):
            stack += [(v, f"{where}.{clip(printable(str(k)), 40)}") for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return None


def parse_json(text: str, shape: str | None = None) -> Deck:
    """A JSON deck of any known shape (`shape` forces one: "moxfield", "archidekt",
    "mtgjson"; "json" or None detect it)."""
    from validator.decklist.detect import is_event_file, json_shape

    data = load_json(text)
    if shape in (None, "json"):
        shape = json_shape(data)
    elif is_event_file(data):
        json_shape(data)  # raises: an event file is never one deck
    if shape == "moxfield":
        from validator.decklist.moxfield import read_moxfield

        return read_moxfield(data)
    if shape == "archidekt":
        from validator.decklist.archidekt import read_archidekt

        return read_archidekt(data)
    if shape == "mtgjson":
        from validator.decklist.mtgjson import read_mtgjson

        return read_mtgjson(data)
    return read_deckcheck_json(data)


def read_deckcheck_json(data: Any) -> Deck:
    """deckcheck's own JSON deck (module docstring)."""
    if not isinstance(data, dict):
        raise DecklistError(
            f'a JSON deck must be an object with "main", "sideboard"...; got a '
            f"{type(data).__name__}"
        )
    deck = Deck(input_format="json")
    _read_name(deck, data.get("name"))
    _read_as_of(deck, data.get("as_of"))
    # Every key the section vocabulary knows holds cards (validator/decklist/sections.py); a
    # list under another key (a descriptive one too, when it holds card entries) is a section
    # deckcheck does not know: its cards are listed as not counted, with a warning naming it.
    # Other fields are noted (info).
    sections = []
    for key, value in data.items():
        known = lookup_section(key) if key not in _INFO_KEYS else None
        if known is not None:
            sections.append((key, known.section, value))
        elif isinstance(value, list) and (key not in _INFO_KEYS or _holds_cards(value)):
            deck.issues.append(
                ParseIssue(
                    None,
                    f"{clip(printable(key), 100)}: not a section deckcheck knows; its cards "
                    "are not counted",
                    _dump(key),
                    "unknown-section",
                )
            )
            sections.append((key, Section.IGNORED, value))
        elif key not in _INFO_KEYS:
            deck.issues.append(
                ParseIssue(
                    None,
                    f"{clip(printable(key), 100)}: not a field of deckcheck's JSON deck, ignored",
                    _dump(key),
                    "ignored-field",
                )
            )
    check_entry_count(sum(len(v) if isinstance(v, list) else 1 for _, _, v in sections))
    for key, section, value in sections:
        _read_section(deck, key, section, value)
    if any(section is Section.COMMANDER for _, section, _ in sections):
        mark_commander_source(deck)
    return deck


def _read_as_of(deck: Deck, value: Any) -> None:
    """ "as_of": the date to judge the deck at (README "Legality as of a date"); the string is
    read when the deck is validated, so a bad date is an error there, not a silent default.
    Anything but a date string (a number, "", a list) is refused here the same way: no
    verdict can be given, neither as of that date nor, silently, as of today (exit 2)."""
    if isinstance(value, str) and value.strip():
        deck.as_of = value.strip()
    elif value is not None:
        from validator.dates import AS_OF_FORMS

        raise DecklistError(
            f"as_of {_dump(value)} is not a date: write it as a string, "
            f"{AS_OF_FORMS}, or leave it out to judge by current legality"
        )


def _read_name(deck: Deck, name: Any) -> None:
    if isinstance(name, str) and unusable_text(name):
        deck.issues.append(ParseIssue(None, f"name: {unusable_text(name)}", _dump(name)))
    elif isinstance(name, str) and name.strip():
        deck.name = clip(" ".join(name.split()), 200)
    elif name is not None:
        deck.issues.append(ParseIssue(None, "name: must be a string", _dump(name)))


def _read_section(deck: Deck, key: str, section: Section, value: Any) -> None:
    if value is None:
        return
    # "companion" and "commander" may hold one item instead of a list.
    if not isinstance(value, list) or _is_pair(value):
        if section in (Section.COMPANION, Section.COMMANDER):
            _read_item(deck, key, section, value)
        else:
            deck.issues.append(ParseIssue(None, f"{key}: expected a list of cards", _dump(value)))
        return
    # The bulk of every deck is `[quantity, "Name"]` pairs, and an event repeats them deck
    # after deck: a pair read cleanly once is an entry again without reading it (`_PAIRS`),
    # a clean one is read by `_clean_pair`; any other item by `_read_item`, which says what
    # is wrong with it. Exactly an int is a quantity here (True equals 1 but is none; 4.0
    # equals 4 but its text is "[4.0, ...]"): `_read_item` reads the others.
    paths = _paths(key, len(value))
    entries, pairs = deck.entries, _PAIRS
    for item, where in zip(value, paths):
        if item.__class__ is list and len(item) == 2:
            quantity, name = item
            if quantity.__class__ is int and name.__class__ is str:
                hit = pairs.get((quantity, name)) or _clean_pair(quantity, name)
                if hit is not None:
                    entries.append(
                        DeckEntry(hit[0], hit[1], section, None, None, None, hit[2], where, key)
                    )
                    continue
        _read_item(deck, where, section, item, key)


#: `[quantity, "Name"]` items that read without any issue, by (quantity, name): the name as
#: read and the item's text for reports. What an item reads as depends on the item alone (its
#: place, `main[3]`, is added per deck), so each distinct pair is read once per process. Only
#: names of real card-name length are kept, and the cache starts over at `_PAIRS_MAX` pairs:
#: hostile input cannot grow it.
_PAIRS: dict[tuple[int, str], tuple[int, str, str]] = {}
_PAIRS_MAX = 50_000
_CACHED_NAME_CHARS = 200


def _clean_pair(quantity: int, name: str) -> tuple[int, str, str] | None:
    """The reading of a `[quantity, "Name"]` pair that `_read_item` reads without an issue
    (the same conditions, for the one shape), kept in `_PAIRS`; None for a pair with something
    to report, which `_read_item` then words."""
    if quantity_issue(quantity, "", None, None) is not None:
        return None
    written = name.strip()
    if not written or name_issue(written, None, None) is not None:
        return None
    hit = (quantity, " ".join(name.split()), _dump([quantity, name]))
    if len(name) <= _CACHED_NAME_CHARS:
        if len(_PAIRS) >= _PAIRS_MAX:
            _PAIRS.clear()
        _PAIRS[quantity, name] = hit
    return hit


#: The JSON paths of a section's items, "main[0]", "main[1]"... by section key, for the
#: section keys deckcheck reads (a hostile deck's own keys are not kept).
_PATHS: dict[str, list[str]] = {}


def _paths(key: str, count: int) -> list[str]:
    """The JSON paths of a section's first `count` items (at least)."""
    paths = _PATHS.get(key)
    if paths is None or len(paths) < count:
        kept = len(key) <= 20 and len(_PATHS) < 100
        paths = [f"{key}[{index}]" for index in range(max(count, 100) if kept else count)]
        if kept:
            _PATHS[key] = paths
    return paths


def _holds_cards(value: list) -> bool:
    """Whether a list holds card entries (`[4, "Name"]`, `{"name": ...}`), not only text."""
    return any(
        (isinstance(item, list) and _is_pair(item)) or (isinstance(item, dict) and "name" in item)
        for item in value
    )


def _is_pair(value: list) -> bool:
    return 2 <= len(value) <= 4 and _is_int(value[0]) and isinstance(value[1], str)


def _read_item(
    deck: Deck, path: str, section: Section, item: Any, board: str | None = None
) -> None:
    text = _dump(item)
    fields = _item_fields(item)
    if isinstance(fields, str):
        deck.issues.append(ParseIssue(None, f"{path}: {fields}", text))
        return
    quantity, name, set_code, collector = fields
    if not _is_int(quantity) or quantity < 1:
        deck.issues.append(
            ParseIssue(
                None, f"{path}: quantity must be a positive whole number", text, "bad-quantity"
            )
        )
        return
    value = int(quantity)
    issue = quantity_issue(
        value, str(value) if value < 10**24 else "(huge)", None, text, where=f"{path}: "
    )
    if issue is not None:
        deck.issues.append(issue)
        return
    if not isinstance(name, str) or not name.strip():
        deck.issues.append(ParseIssue(None, f"{path}: name must be a non-empty string", text))
        return
    too_long = name_issue(name.strip(), None, text, where=f"{path}: ")
    if too_long is not None:
        deck.issues.append(too_long)
        return
    printing = []
    for label, extra in (("set", set_code), ("collector_number", collector)):
        if isinstance(extra, bool) or not isinstance(extra, (str, int, type(None))):
            deck.issues.append(ParseIssue(None, f"{path}: {label} must be a string", text))
            return
        written = "" if extra is None else str(extra).strip()
        if unusable_text(written):
            deck.issues.append(ParseIssue(None, f"{path}: {label} {unusable_text(written)}", text))
            return
        printing.append(written or None)
    deck.entries.append(
        DeckEntry(
            value,
            " ".join(name.split()),
            section,
            None,
            printing[0],
            printing[1],
            text,
            path,
            board or path,
        )
    )


def _item_fields(item: Any) -> tuple[Any, Any, Any, Any] | str:
    """(quantity, name, set, collector number) of an item, or what is wrong with it."""
    if isinstance(item, str):
        return 1, item, None, None
    if isinstance(item, list):
        if not 2 <= len(item) <= 4:
            return "a list item must be [quantity, name] (optionally set, collector number)"
        padded = list(item) + [None] * (4 - len(item))
        return padded[0], padded[1], padded[2], padded[3]
    if isinstance(item, dict):
        if "name" not in item:
            return 'card without a "name"'
        quantity = item.get("quantity", item.get("count", 1))
        set_code = item.get("set", item.get("set_code"))
        collector = item.get("collector_number", item.get("number"))
        return quantity, item["name"], set_code, collector
    return 'expected a card name, [quantity, name] or an object with "name"'


def _is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or isinstance(value, float) and value.is_integer()


def _dump(value: Any) -> str:
    """`value` as JSON text for reports (what `json.dumps(value, ensure_ascii=False)` writes),
    printable and at most 300 characters."""
    if value.__class__ is list and len(value) == 2:
        quantity, name = value
        if quantity.__class__ is int and name.__class__ is str:
            # The common `[4, "Name"]`, written as json.dumps writes it (its own string
            # encoder, ", " between items) without building an encoder per item.
            text = printable(f"[{quantity!r}, {encode_basestring(name)}]")
            return text if len(text) <= 300 else text[:297] + "..."
    text = printable(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= 300 else text[:297] + "..."
