"""Hareruya's deck export (a Japanese shop's deck pages saved as CSV): no header row, one row
per card as `kind,name,quantity,price,url,time`, and `info` rows between the groups (the deck's
name and price, a group's total, the deck's page).

    info,WBConkD09283S 122120
    land,《荒廃した湿原/Blighted Fen》,2,30,http://www.hareruyamtg.com/...,2016-05-15T16:24:04+09:00,,
    creature,《闇の掌握/Grasp of Darkness》,3,150,...
    sideboardCards,《強迫/Duress》,3,50,...

The name is the shop's bilingual `《日本語名/English》` (read and cross-checked by name
resolution, validator/rules/resolve.py) or English alone. The kind is the shop's group: the
`sideboardCards` group is the sideboard (CR 100.4a), the others (`land`, `creature`, which on
these pages holds every spell too) are the main deck (CR 100.2a); a kind deckcheck does not know
is counted in the main deck with an `unknown-section` warning naming it, as the CSV reader does.
These files write a comma inside a name as the word `PERIOD` ("GideonPERIOD Ally of Zendikar"):
they are not quoted CSV, so a comma would split the row.
"""

from __future__ import annotations

import csv
import io

from validator.decklist.base import SHOP_INFO, csv_rows
from validator.decklist.entry import add_entry
from validator.decklist.sections import lookup_section, unknown_section
from validator.model import Deck, Section

#: The shop's groups, by their name lower-cased (module docstring).
_KINDS = {
    "land": Section.MAIN,
    "creature": Section.MAIN,
    "spell": Section.MAIN,
    "sideboardcards": Section.SIDEBOARD,
}
#: How the export writes a comma inside a card's name (module docstring).
_COMMA = "PERIOD"


def parse_shop_export(text: str) -> Deck:
    """A Deck from Hareruya's export (module docstring). Every row is an entry, an issue, or
    an `info` row: none is dropped."""
    deck = Deck(input_format="csv")
    reader = csv.reader(io.StringIO(text))
    for line, row, raw in csv_rows(reader, deck):
        kind = row[0].strip()
        if kind == SHOP_INFO:
            continue
        section = _section(kind, deck, line, raw)
        name = row[1].strip().replace(_COMMA, ",") if len(row) > 1 else None
        quantity = row[2].strip() if len(row) > 2 else None
        add_entry(deck, "", section, quantity, name, text=raw, line=line, board=kind or None)
    return deck


def _section(kind: str, deck: Deck, line: int, raw: str) -> Section:
    """The section of a row of group `kind` (module docstring)."""
    found = _KINDS.get(kind.lower())
    if found is not None:
        return found
    known = lookup_section(kind)
    if known is not None:
        return known.section
    deck.issues.append(unknown_section(line, kind, raw))
    return Section.MAIN
