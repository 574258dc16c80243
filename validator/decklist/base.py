"""What every decklist parser shares: the input limits, the error, quantity checks, decoding."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from validator.errors import DeckcheckError
from validator.model import Deck, ParseIssue

#: Inputs larger than this are refused before any parsing, and no more is ever read: the limit
#: of a JSON deck export. Deck sites' JSON repeats every card's whole record (a Moxfield card
#: object is about 4.6 KB), so a real export of a 100-card deck with its sideboard, maybeboard
#: and tokens runs past a megabyte; 4 MB holds about 850 such cards.
MAX_BYTES = 4_000_000
#: The limit of every other decklist (text, CSV, XML): a few kilobytes for any real deck.
MAX_TEXT_BYTES = 1_000_000
#: A JSON deck may open at most this many objects and lists (`{`, `[`; a real Moxfield card
#: has about 16), and hold at most this many values past the first of each object or list
#: (its commas; a real Moxfield card has about 130, so 4 MB of real cards about 130,000):
#: what keeps the memory and time of parsing 4 MB of `[{},{},...]` or `["ab","ab",...]` bounded
#: (bench/bench_hostile.py; counted in strings too, which only errs on the safe side).
MAX_JSON_CONTAINERS = 100_000
MAX_JSON_VALUES = 200_000
#: Inputs with more lines (or, for XML/JSON, more card entries) than this are refused.
MAX_LINES = 5_000
#: Larger quantities are reported on their line instead of being read (no overflow, no clipping).
MAX_QUANTITY = 10_000
#: The longest real card name has 141 characters; a longer "name" is a broken line.
MAX_NAME_CHARS = 200
#: Parse issue codes that are notes about how the input was read, not errors in the deck
#: (a JSON field ignored, a Cockatrice tokens zone read but not counted): reported as info,
#: never an error.
NOTE_CODES = frozenset({"ignored-field", "skipped-cards"})
#: Parse issue codes that are warnings, not errors: a section, board or category name
#: deckcheck does not know (validator/decklist/sections.py), named so that it is never silent.
WARNING_CODES = frozenset({"unknown-section"})


class DecklistError(DeckcheckError, ValueError):
    """The input cannot be a decklist at all (too big, not text, malformed XML/JSON...).

    A ValueError so that callers passing a wrong `input_format` name get the same treatment.
    """

    code = "bad-decklist"


class NoCardLines(DecklistError):
    """The input read, but holds no card line (an empty file, only comments or headers): not a
    decklist to judge. `deck` is what was read, for a caller that judges it anyway (an event
    file's registration with no cards is a player's empty deck)."""

    def __init__(self, message: str, deck: Any) -> None:
        super().__init__(message)
        self.deck = deck


def read_limited(stream: BinaryIO, limit: int = MAX_BYTES) -> bytes:
    """Read a decklist from a binary stream (a file, standard input), at most `limit` + 1
    bytes: one byte past the limit tells an input that is too large, so a 1 GB file or an
    endless `< /dev/zero` costs a megabyte and fails at once instead of being read whole."""
    chunks, size = [], 0
    while size <= limit:
        chunk = stream.read(limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise DecklistError(
            f"input is larger than the limit of {limit:,} bytes (stopped reading there)"
        )
    return b"".join(chunks)


def check_size(data: str | bytes, limit: int = MAX_BYTES, what: str = "") -> int:
    """Refuse inputs over `limit` (a str counted in UTF-8 bytes); `what` names the kind of
    input the limit is for (" for a text, CSV or XML decklist"). Returns the size in bytes."""
    if isinstance(data, str):
        if len(data) > limit:
            # Every character is at least one UTF-8 byte: too large without encoding it all.
            raise DecklistError(
                f"input is {len(data):,} characters; the limit{what} is {limit:,} bytes"
            )
        if data.isascii():
            return len(data)  # its own UTF-8 (the common case): as many bytes as characters
        try:
            size = len(data.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise DecklistError(
                f"input is not valid Unicode text (lone surrogate at character {exc.start})"
            ) from None
    else:
        size = len(data)
    if size > limit:
        raise DecklistError(f"input is {size:,} bytes; the limit{what} is {limit:,} bytes")
    return size


def check_entry_count(count: int) -> None:
    if count > MAX_LINES:
        raise DecklistError(f"input has {count:,} card entries; the limit is {MAX_LINES:,}")


def decode_text(data: str | bytes) -> str:
    """Bytes to text: UTF-8 (BOM optional) or UTF-16 with a BOM; anything else is refused.

    No legacy-codepage fallback: guessing cp1252 would silently turn an undecodable file into
    wrong card names.
    """
    if isinstance(data, str):
        text = data
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise DecklistError(f"input is not valid UTF-16 text: {exc.reason}") from None
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            japanese = _shift_jis(data)
            if japanese is not None:
                return decode_text(japanese)
            line = data.count(b"\n", 0, exc.start) + 1
            raise DecklistError(
                f"input is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); "
                "save the decklist as UTF-8"
            ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        raise DecklistError(
            "input contains NUL characters: a binary file, or UTF-16 without a byte-order mark?"
        )
    return text


#: Kana: Shift_JIS text always has some (Japanese card names are written with them), and
#: text in a Western code page read as Shift_JIS practically never does.
_KANA = re.compile("[\u3041-\u3096\u30a1-\u30fa]")


def _shift_jis(data: bytes) -> str | None:
    """The text of a Japanese decklist saved as Shift_JIS (Windows' cp932: Japanese shops'
    exports, `《稲妻/Lightning Bolt》`), or None. Read only when every byte decodes and the
    text has kana, or when it is a Japanese shop's export (its first row an `info` row,
    decklist/shopexport.py: written in Shift_JIS, even when only a mana cost's full-width `Ｘ`
    is not ASCII): a windows-1252 file stays refused (read as Shift_JIS it would give wrong
    card names)."""
    try:
        text = data.decode("cp932")
    except UnicodeDecodeError:
        return None
    return text if _KANA.search(text) or opens_shop_export(text) else None


#: The first cell of the rows of a Japanese shop's export that name no card
#: (decklist/shopexport.py); the export opens with one, where another CSV has its header.
SHOP_INFO = "info"


def opens_shop_export(text: str) -> bool:
    """Whether a text (or its first line) is a Japanese shop's export: it opens with an
    `info` row (decklist/shopexport.py)."""
    return text.lstrip("\ufeff \t\r\n").startswith(SHOP_INFO + ",")


def digits_value(digits: str) -> int | None:
    """int() of an ASCII digit string; None when it is too long to be a sane quantity.

    Keeps absurd inputs ("99999...9", thousands of digits) away from int()'s digit limit.
    """
    significant = digits.lstrip("0") or "0"
    return int(significant) if len(significant) <= 9 else None


def quantity_issue(
    value: int | None, written: str, line: int | None, text: str | None, where: str = ""
) -> ParseIssue | None:
    """The issue for a quantity outside 1..MAX_QUANTITY (None = too many digits), else None."""
    if value is not None and value < 1:
        return ParseIssue(
            line, f"{where}quantity must be at least 1, not {written}", text, "bad-quantity"
        )
    if value is None or value > MAX_QUANTITY:
        if len(written) > 24:
            written = written[:20] + "..."
        return ParseIssue(
            line,
            f"{where}quantity {written} is more than the limit of {MAX_QUANTITY:,}",
            text,
            "quantity-too-large",
        )
    return None


def json_object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one: a field of an export that is
    missing, null or of another type reads as no field."""
    return value if isinstance(value, dict) else {}


def clip(text: str, limit: int = 300) -> str:
    """Shorten a runaway input line before it is copied into entries, issues and reports."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def csv_rows(reader: Any, deck: Deck) -> Iterator[tuple[int, list[str], str]]:
    """(line, cells, the row as text for reports) of each row of a `csv.reader` that holds
    something; a row the reader cannot parse is the deck's issue on its line, never a stop."""
    import csv

    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            deck.issues.append(ParseIssue(reader.line_num, f"malformed CSV row: {exc}"))
            continue
        if any(cell.strip() for cell in row):
            yield reader.line_num, row, clip(",".join(row))


def unusable_text(text: str) -> str | None:
    """Why a string cannot be (part of) a card name, or None: a NUL (no card name has one, and
    PostgreSQL refuses it in a query) or a lone surrogate (JSON's "\\ud800" escape: not text at
    all, so it can be neither looked up nor printed)."""
    if "\x00" in text:
        return "contains a NUL character"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return (
                f"is not valid Unicode (lone surrogate U+{ord(text[exc.start]):04X} at "
                f"character {exc.start + 1})"
            )
    return None


def printable(text: str) -> str:
    """`text` with lone surrogates written as escapes, so that a report can always print it."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def name_issue(name: str, line: int | None, text: str | None, where: str = "") -> ParseIssue | None:
    unusable = unusable_text(name)
    if unusable is not None:
        return ParseIssue(line, f"{where}card name {unusable}", text)
    if len(name) > MAX_NAME_CHARS:
        return ParseIssue(
            line,
            f"{where}card name is {len(name):,} characters long; no card "
            f"name is longer than {MAX_NAME_CHARS}",
            text,
        )
    return None
