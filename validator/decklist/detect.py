"""Which parser reads an input: decided by its first characters, then by the file name; for
JSON, by the shape of the document (`json_shape`)."""

from __future__ import annotations

import codecs
import csv
import re
from typing import Any

from validator.decklist.base import DecklistError, opens_shop_export

_ROOT_TAG = re.compile(r"<([A-Za-z_][\w.:-]*)")
_XML_FAMILIES = {"deck": "mtgo-dek", "cockatrice_deck": "cockatrice"}
_EXTENSIONS = {
    ".dek": "mtgo-dek",
    ".cod": "cockatrice",
    ".json": "json",
    ".dck": "forge",
    ".csv": "csv",
}
#: The extensions decklist files come with: a text list's (.txt; any other name is read as
#: text too) and those naming a format above. The service's page offers these in its picker.
FILE_EXTENSIONS = (".txt", *_EXTENSIONS)

#: CSV header names (lower-cased, "_" and "-" read as spaces) for the two columns a CSV deck
#: needs, and the optional ones.
CSV_QUANTITY = ("count", "quantity", "qty", "amount", "copies", "number of copies")
CSV_NAME = ("name", "card name", "card", "cardname", "card title")
CSV_SECTION = ("section", "board", "deck section", "zone", "category")
CSV_SET = ("set code", "setcode", "edition code", "set", "edition")
CSV_COLLECTOR = ("collector number", "collectornumber", "number", "cn", "card number")

#: JSON deck shapes, in the order they are tried (README "Decklist formats").
JSON_SHAPES = {
    "moxfield": 'Moxfield deck ("mainboard"/"commanders"... objects, or "boards")',
    "archidekt": 'Archidekt deck ("cards" with "card"."oracleCard", "categories")',
    "mtgjson": 'MTGJSON deck file ("data" with "mainBoard", "sideBoard", "commander")',
    "json": 'deckcheck JSON deck ("main", "sideboard", "commanders", "companion")',
}
#: The boards Moxfield writes (each one's section is the shared vocabulary's,
#: validator/decklist/sections.py): any of them holding card entries makes a Moxfield deck.
MOXFIELD_BOARDS = (
    "mainboard",
    "sideboard",
    "commanders",
    "companions",
    "signatureSpells",
    "attractions",
    "stickers",
    "maybeboard",
    "considering",
    "tokens",
    "planes",
    "schemes",
    "contraptions",
)
_MOXFIELD_KEYS = frozenset(MOXFIELD_BOARDS)
#: Keys of deckcheck's own JSON deck that hold cards.
DECKCHECK_JSON_SECTIONS = (
    "main",
    "mainboard",
    "sideboard",
    "commanders",
    "commander",
    "companion",
    "maybeboard",
    "attractions",
    "stickers",
)


def is_event_file(obj: Any) -> bool:
    """A tournament event file (`{"Decks": [...]}`, MTGO/Melee/Topdeck exports): many decks,
    not one. The batch reader takes these apart; one-deck parsing refuses them."""
    if not isinstance(obj, dict):
        return False
    decks = obj.get("Decks", obj.get("decks"))
    return isinstance(decks, list) and all(isinstance(d, dict) for d in decks[:5])


def json_shape(obj: Any) -> str:
    """Which JSON deck shape `obj` (a parsed document) has: a key of JSON_SHAPES.

    Raises DecklistError for an event file (many decks) and for a document of none of the
    shapes, naming the shapes tried.
    """
    if is_event_file(obj):
        raise DecklistError(
            'this JSON is a tournament event file ("Decks": a list of decks), not one deck; '
            "`deckcheck validate FILE` reads it as one deck per player (in Python: "
            "validator.event.run.collect and run_event)"
        )
    if isinstance(obj, dict):
        # Only the board keys the object has are looked at (a deck has two or three).
        if isinstance(obj.get("boards"), dict) or any(
            _moxfield_board(obj[key]) for key in obj.keys() & _MOXFIELD_KEYS
        ):
            return "moxfield"
        cards = obj.get("cards")
        if isinstance(cards, list) and (
            any(isinstance(c, dict) and isinstance(c.get("card"), dict) for c in cards[:50])
            or _archidekt_categories(obj.get("categories"))
        ):
            return "archidekt"
        data = obj.get("data")
        if (isinstance(data, dict) and "mainBoard" in data) or "mainBoard" in obj:
            return "mtgjson"
        if not obj.keys().isdisjoint(DECKCHECK_JSON_SECTIONS):
            return "json"
    got = (
        f"an object with keys {', '.join(sorted(map(str, obj))[:8])}"
        if isinstance(obj, dict) and obj
        else f"a JSON {_JSON_TYPES.get(type(obj), 'value')}"
    )
    if isinstance(obj, dict) and not obj:
        got = "an empty object"
    raise DecklistError(
        f"this JSON is not a deck deckcheck can read (it is {got}); tried: "
        + "; ".join(JSON_SHAPES.values())
        + ". Force one with --input-format"
    )


#: What a parsed JSON value is called in messages (JSON's words, not Python's).
_JSON_TYPES = {
    type(None): "null",
    bool: "true/false",
    int: "number",
    float: "number",
    str: "string",
    list: "list",
}


def _moxfield_board(value: Any) -> bool:
    """A v2 Moxfield board: an object of entries, each an object with "card" or "quantity"."""
    if not isinstance(value, dict) or not value:
        return False
    return all(
        isinstance(e, dict) and ("card" in e or "quantity" in e) for e in list(value.values())[:20]
    )


def _archidekt_categories(categories: Any) -> bool:
    return (
        isinstance(categories, list)
        and bool(categories)
        and all(isinstance(c, dict) and "includedInDeck" in c for c in categories[:5])
    )


def csv_header_key(cell: str) -> str:
    """A CSV header cell as compared: lower-cased, "_"/"-" as spaces, single spaces."""
    return " ".join(cell.replace("_", " ").replace("-", " ").lower().split())


def looks_like_csv(first_line: str) -> bool:
    """Whether a first line is a CSV header with a quantity column and a name column."""
    if "," not in first_line and ";" not in first_line and "\t" not in first_line:
        return False  # tested one by one: a generator costs more (every text deck asks)
    # A line without quotes that holds no quantity header and no name header (a card line:
    # "4 Thalia, Guardian of Thraben") is told apart without reading it as CSV. With quotes
    # the headers may be split ('"Q"ty' is the cell "Qty"): the cells decide.
    lowered = first_line.lower()
    if '"' not in first_line and not (
        any(head in lowered for head in CSV_QUANTITY) and any(head in lowered for head in CSV_NAME)
    ):
        return False
    dialect = ";" if first_line.count(";") > first_line.count(",") else ","
    if "\t" in first_line and "," not in first_line:
        dialect = "\t"
    try:
        cells = next(csv.reader([first_line], delimiter=dialect))
    except (csv.Error, StopIteration):
        return False
    keys = {csv_header_key(c) for c in cells}
    return bool(keys & set(CSV_QUANTITY)) and bool(keys & set(CSV_NAME))


def sniff(data: str | bytes, filename: str | None = None) -> str:
    """The parser family: "mtgo-dek", "cockatrice", "json", "csv", or "text" (any line
    format)."""
    extension = _extension(filename)
    # A file named *.json is JSON whatever its content begins with: a scalar (`null`, `42`,
    # `"hello"`) or a truncated document is then refused as no JSON deck (exit 2), never
    # judged as a text deck with a card named "null" (exit 1). Without the name, the content
    # decides and only an object or a list is JSON: a text deck whose one line is `42` (on
    # stdin, in deck.txt) stays a text deck.
    if extension == ".json":
        return "json"
    head = _head(data)
    if head.startswith("<"):
        match = _ROOT_TAG.search(head)
        root = match.group(1).lower() if match else ""
        if root in _XML_FAMILIES:
            return _XML_FAMILIES[root]
        # An unknown root: the .dek parser names both expected roots in its error.
        return "cockatrice" if extension == ".cod" else "mtgo-dek"
    # "[" opens a JSON list only before a value; "[metadata]" is a Forge section header.
    if head.startswith("{") or (
        head.startswith("[") and head[1:].lstrip()[:1] in tuple('{["]-0123456789')
    ):
        return "json"
    end = head.find("\n")
    first_line = head if end < 0 else head[:end]  # not split(): that copies the rest too
    # A Japanese shop's export opens with an `info` row, not a header (decklist/shopexport.py).
    if extension == ".csv" or looks_like_csv(first_line) or opens_shop_export(first_line):
        return "csv"
    return "text"


def _head(data: str | bytes) -> str:
    """The first characters after any BOM and leading whitespace."""
    if isinstance(data, str):
        return data.lstrip("\ufeff \t\r\n")[:4096]
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data[:8192].decode("utf-16", errors="ignore").lstrip("\ufeff \t\r\n")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    return data.lstrip(b" \t\r\n")[:4096].decode("utf-8", errors="ignore")


def _extension(filename: str | None) -> str:
    if not filename:
        return ""
    dot = filename.rfind(".")
    return filename[dot:].lower() if dot >= 0 else ""
