"""Decklist parsing: text, Arena, Moxfield/Archidekt exports, Forge .dck, MTGO .dek, Cockatrice
.cod, the deck JSON of Moxfield, Archidekt, MTGJSON and deckcheck, and CSV (Scryfall's deck
export and plain quantity/name CSVs), all into one `Deck`.

    deck = parse_decklist(open("deck.txt", "rb").read())

Parsing knows nothing about cards: it keeps one entry per input line (quantity, name as written,
section, line number, printing) and one `ParseIssue` per line it cannot read. Inputs that cannot
be a decklist at all raise `DecklistError`.
"""

from __future__ import annotations

from operator import attrgetter
from typing import BinaryIO

from validator.decklist.base import (
    MAX_BYTES,
    MAX_LINES,
    MAX_QUANTITY,
    MAX_TEXT_BYTES,
    NOTE_CODES,
    WARNING_CODES,
    DecklistError,
    NoCardLines,
    check_size,
    decode_text,
    printable,
    read_limited,
    unusable_text,
)
from validator.decklist.detect import JSON_SHAPES, is_event_file, json_shape, sniff
from validator.decklist.text import parse_text
from validator.model import Deck, ParseIssue

__all__ = [
    "INPUT_FORMATS",
    "MAX_BYTES",
    "MAX_LINES",
    "MAX_QUANTITY",
    "MAX_TEXT_BYTES",
    "DecklistError",
    "NoCardLines",
    "detect_format",
    "is_event_file",
    "json_shape",
    "parse_decklist",
    "read_limited",
]

#: Names `--input-format` accepts; "auto" (like None) detects the format from the content.
#: "json" reads any JSON deck, its shape detected (deckcheck's own, or a site's); "moxfield",
#: "archidekt" and "mtgjson" force a site's shape; "csv" reads Scryfall's deck CSV and plain
#: quantity/name CSVs.
INPUT_FORMATS = (
    "auto",
    "text",
    "arena",
    "forge",
    "mtgo-dek",
    "cockatrice",
    "json",
    "moxfield",
    "archidekt",
    "mtgjson",
    "csv",
)
_TEXT_FORMATS = ("text", "arena", "forge")


def parse_decklist(
    data: str | bytes | BinaryIO, input_format: str | None = None, filename: str | None = None
) -> Deck:
    """Parse a decklist in any supported format (detected unless `input_format` forces one).

    `data` is text, bytes, or a binary stream (an open file, `sys.stdin.buffer`), of which at
    most MAX_BYTES + 1 bytes are read: a JSON deck may have MAX_BYTES, any other decklist
    MAX_TEXT_BYTES. Raises DecklistError when the input cannot be a decklist (size or line
    limit, undecodable bytes, malformed JSON or XML, XML entities) or holds no card line.
    """
    forced = _format_name(input_format)
    if not isinstance(data, (str, bytes)) and hasattr(data, "read"):
        data = read_limited(data)
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, (str, bytes)):
        raise TypeError(f"decklist data must be str or bytes, not {type(data).__name__}")
    return _something_to_judge(_parse(data, forced, filename, check_size(data)))


_JSON_FAMILIES = frozenset({"json", *JSON_SHAPES})


def _parse(data: str | bytes, forced: str | None, filename: str | None, size: int) -> Deck:
    """`size`: the input's bytes, as `check_size` measured them under MAX_BYTES."""
    family = forced or sniff(data, filename)
    if family not in _JSON_FAMILIES and size > MAX_TEXT_BYTES:
        # Measured once: this call only words the refusal with the text limit.
        check_size(data, MAX_TEXT_BYTES, " for a text, CSV or XML decklist (4 MB for JSON)")
    if family == "mtgo-dek":
        from validator.decklist.dek import parse_dek

        return parse_dek(data)
    if family == "cockatrice":
        from validator.decklist.cockatrice import parse_cockatrice

        return parse_cockatrice(data)
    if family in _JSON_FAMILIES:
        from validator.decklist.jsondeck import parse_json

        text = decode_text(data)
        try:
            return _printable(parse_json(text, forced))
        except DecklistError as exc:
            if forced or text.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
                raise
            # Chosen by the name alone (README "Decklist formats"): a text deck saved as .json.
            raise DecklistError(
                f"{exc}; a .json file is read as JSON: rename it (e.g. to "
                ".txt) or pass --input-format text"
            ) from None
    if family == "csv":
        from validator.decklist.csvdeck import parse_csv

        return parse_csv(decode_text(data))
    return parse_text(decode_text(data), forced)


#: Issue codes that are notes or warnings, not a line that could not be read.
_NOT_ERRORS = NOTE_CODES | WARNING_CODES


def _something_to_judge(deck: Deck) -> Deck:
    """Refuse an input without a single card line (an empty file, only comments or headers, a
    CSV header, an empty XML or JSON deck): there is nothing to judge, as for `{}` (exit 2),
    not an empty deck to call illegal. A line that names a card in any section, or that could
    not be read (an error on its line), is something to judge; notes alone are not."""
    if deck.entries or any(issue.code not in _NOT_ERRORS for issue in deck.issues):
        return deck
    raise NoCardLines(
        f"no card lines found ({deck.input_format or 'text'} input): nothing to judge; "
        "a decklist needs at least one line naming a card, such as '4 Lightning Bolt'",
        deck,
    )


def _printable(deck: Deck) -> Deck:
    """JSON escapes can spell lone surrogates ("\\ud800"), which no report can print. Card
    names holding one are already refused on their item (`name_issue`); the deck name and the
    quoted input in issues get them written as escapes."""
    if deck.name is not None and unusable_text(deck.name):
        deck.issues.append(
            ParseIssue(None, f"name: {unusable_text(deck.name)}", printable(deck.name))
        )
        deck.name = None
    for issue in deck.issues:
        issue.message = printable(issue.message)
        issue.text = printable(issue.text) if issue.text is not None else None
    if deck.input_format == "json":
        # deckcheck's own JSON reader already gave each entry a printable text (`jsondeck._dump`)
        # and refused a set or collector number that is no text.
        return deck
    entries = deck.entries
    # Each question asked of all the entries at once first (most decks: ASCII texts, no
    # printing); the entries are gone through only when one may need a change.
    if not all(map(str.isascii, filter(None, map(_TEXT, entries)))):
        for entry in entries:
            text = entry.text
            if text is not None and not text.isascii():  # ASCII is printable as it is
                entry.text = printable(text)
    if any(map(_SET_CODE, entries)) or any(map(_NUMBER, entries)):
        for entry in entries:
            # No printing has a code that is no text: the name is looked up instead.
            if entry.set_code is not None and unusable_text(entry.set_code):
                entry.set_code = None
            if entry.collector_number is not None and unusable_text(entry.collector_number):
                entry.collector_number = None
    return deck


_TEXT, _SET_CODE, _NUMBER = (
    attrgetter("text"),
    attrgetter("set_code"),
    attrgetter("collector_number"),
)


def detect_format(data: str | bytes, filename: str | None = None) -> str:
    """The input_format `parse_decklist` would report for this input (one of INPUT_FORMATS).

    Line formats are told apart by reading the lines, so this costs as much as parsing them.
    """
    family = sniff(data, filename)
    if family not in _TEXT_FORMATS + ("json", "csv"):
        return family
    # Detection only: an input with no card line still has a format (parse_decklist refuses it).
    return _parse(data, None, filename, check_size(data)).input_format or family


def _format_name(input_format: str | None) -> str | None:
    if input_format is None:
        return None
    name = input_format.strip().lower()
    if name == "auto":
        return None
    if name not in INPUT_FORMATS:
        raise DecklistError(
            f"unknown input format {input_format!r}; expected one of {', '.join(INPUT_FORMATS)}"
        )
    return name
