"""CSV decks: Scryfall's deck export and the plain CSVs other sites and spreadsheets write.

The first row is the header. A deck needs a quantity column (`count`, `quantity`, `qty`...) and
a name column (`name`, `card`, `card name`...); a section column (`section`, `board`...) or a
`category` column, MTGO's `Sideboarded` column (Yes: the sideboard), and the printing
(`set_code`, `collector_number`) are read when present, every other column is ignored. A CSV
without a header that opens with an `info` row is a Japanese shop's export
(validator/decklist/shopexport.py). Scryfall's sections are `commanders`, `nonlands`, `lands`,
`sideboard`, `maybeboard` and `outside` (cards outside the game: the companion, wishes), read as
the sideboard, where Commander's rules look for a companion.

A card is never dropped for its section: a section value deckcheck does not know reads as main
deck, with an `unknown-section` note (info) naming it. A `category` column (Archidekt's CSV)
holds the user's categories ("Ramp", "Instant"), which are main-deck cards without a word, as
the Archidekt JSON reader reads them; only the categories that name a section ("Commander",
"Sideboard", "Maybeboard"...) choose one.
"""

from __future__ import annotations

import csv
import io
import re

from validator.decklist.archidekt import section_for
from validator.decklist.base import MAX_LINES, DecklistError, clip, csv_rows, opens_shop_export
from validator.decklist.detect import (
    CSV_COLLECTOR,
    CSV_NAME,
    CSV_QUANTITY,
    CSV_SECTION,
    CSV_SET,
    csv_header_key,
)
from validator.decklist.entry import add_entry, mark_commander_source
from validator.decklist.sections import lookup_section, section_label, unknown_section
from validator.decklist.shopexport import parse_shop_export
from validator.model import Deck, ParseIssue, Section

#: A quantity cell written as a text list writes it: `4x`, `4 x` (validator/decklist/text.py).
_X_QUANTITY = re.compile(r"([0-9]+) ?[xX]", re.ASCII)


def _column(keys: list[str], names: tuple[str, ...]) -> int | None:
    """The index of the first header matching `names`, in the order `names` prefers."""
    for wanted in names:
        if wanted in keys:
            return keys.index(wanted)
    return None


def sniff_delimiter(header: str) -> str:
    """The separator of a CSV whose header line is `header`: a tab (a tab-separated export
    with no comma), `;` (a European Excel, where `,` is the decimal mark) when it outnumbers
    `,`, else `,`. Event manifests are read with it too (validator/event/inputs.py)."""
    if "\t" in header and "," not in header:
        return "\t"
    return ";" if header.count(";") > header.count(",") else ","


def parse_csv(text: str) -> Deck:
    """A Deck from a CSV with a header row (module docstring)."""
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise DecklistError(f"input has {len(lines):,} lines; the limit is {MAX_LINES:,}")
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise DecklistError("empty CSV: expected a header row with a quantity and a name column")
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=sniff_delimiter(lines[0]))
    try:
        header = next(reader)
    except csv.Error as exc:
        raise DecklistError(f"malformed CSV header: {exc}") from None
    keys = [csv_header_key(c) for c in header]
    quantity, name = _column(keys, CSV_QUANTITY), _column(keys, CSV_NAME)
    if quantity is None or name is None:
        if opens_shop_export(lines[0]):
            return parse_shop_export("\n".join(lines))
        missing = " and ".join(
            what
            for what, col in (
                ("a quantity column (count, quantity, qty)", quantity),
                ("a name column (name, card, card name)", name),
            )
            if col is None
        )
        raise DecklistError(
            f"the CSV header {clip(lines[0], 120)!r} lacks {missing}; a CSV "
            "deck needs both in its first row"
        )
    section_col = _column(keys, CSV_SECTION)
    # A category column holds the user's categories, not sections (module docstring).
    categories = section_col is not None and keys[section_col] == "category"
    set_col, number_col = _column(keys, CSV_SET), _column(keys, CSV_COLLECTOR)
    # MTGO's deck CSV export marks each row's board in a yes/no column instead.
    sideboarded = _column(keys, ("sideboarded",)) if section_col is None else None
    deck = Deck(input_format="csv")  # Scryfall's export too: one --input-format name
    for line, row, raw in csv_rows(reader, deck):

        def cell(index: int | None, row: list[str] = row) -> str | None:
            return row[index].strip() if index is not None and index < len(row) else None

        section, board = Section.MAIN, None
        written = cell(section_col)
        flag = cell(sideboarded)
        if flag:
            section, board = _sideboarded(flag, deck, line, raw)
        if written:
            # The shared vocabulary (validator/decklist/sections.py): a Scryfall section cell
            # ("nonlands", "maybeboard", "outside"), or a category list (Archidekt's CSV).
            known = lookup_section(written)
            if known is not None:
                section, board = known.section, section_label(written)
            elif categories or "," in written:
                # Archidekt's categories, as its JSON reader reads them ("Ramp,Maybeboard").
                section, board = section_for(written.split(","), {})
            if known is None and not categories and board is None:
                deck.issues.append(unknown_section(line, written, raw))
        count = cell(quantity)
        if count is not None and count and not (count.isascii() and count.isdigit()):
            written_count = _X_QUANTITY.fullmatch(count)
            if written_count is None:
                deck.issues.append(
                    ParseIssue(
                        line,
                        f"quantity {clip(count, 20)!r} is not a number of copies; write it as a "
                        "whole number in digits (4, or 4x as in a text list)",
                        raw,
                        "bad-quantity",
                    )
                )
                continue
            count = written_count.group(1)  # `4x`, as a text list writes it (text.py)
        add_entry(
            deck,
            "",
            section,
            count,
            cell(name),
            cell(set_col),
            cell(number_col),
            text=raw,
            line=line,
            board=board,
        )
    mark_commander_source(deck)
    return deck


#: MTGO's `Sideboarded` cells (CR 100.4a: the sideboard is the player's own list of cards).
_YES, _NO = frozenset({"yes", "y", "true", "1"}), frozenset({"no", "n", "false", "0"})


def _sideboarded(flag: str, deck: Deck, line: int, raw: str) -> tuple[Section, str | None]:
    """The section a `Sideboarded` cell names: yes is the sideboard, no the main deck; any
    other value is counted in the main deck with an `unknown-section` warning naming it."""
    value = flag.lower()
    if value in _YES:
        return Section.SIDEBOARD, "Sideboard"
    if value not in _NO:
        deck.issues.append(
            ParseIssue(
                line,
                f"Sideboarded {clip(flag, 20)!r} is neither yes nor no; its card is counted in "
                "the main deck",
                raw,
                "unknown-section",
            )
        )
    return Section.MAIN, None
