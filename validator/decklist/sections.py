"""The one vocabulary of section names every decklist reader shares: a text header
(`Sideboard`, `[Planes]`, `// Maybeboard`), a JSON key or board, a CSV section cell, an
Archidekt category, a Cockatrice zone.

A name is of one of three kinds:

* `deck`: the deck's own cards (main deck, sideboard, commander, companion, signature spell).
* `supplementary`: a deck of its own that the Comprehensive Rules know, kept apart from the
  deck: Attractions (CR 717.2a) and sticker sheets (123.2a) are checked on their own; the
  planar deck of Planechase (901.3), the scheme deck of Archenemy (904.3), a Vanguard avatar
  (313.1, 902) and Contraptions are listed, not counted.
* `outside`: not part of any deck: maybeboard, considering, wishlist, tokens (a token is not a
  card, 111.1), dungeons (309.2: not part of a deck or sideboard).

A Conspiracy section is read as the sideboard: conspiracy cards come from the sideboard (CR
315.2, 905.4) and are not used in constructed play (315.1), so each is judged as the
sideboard card it would be, and a constructed format finds it not legal.

Every card a reader puts outside the counted sections is listed in the report (`not_counted`)
with the name of the section it was read from; a name this vocabulary does not know is a
warning (`unknown-section`) naming it, never silent.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from validator.decklist.base import clip
from validator.model import IGNORED, Deck, ParseIssue, Section

DECK: Final = "deck"
SUPPLEMENTARY: Final = "supplementary"
OUTSIDE: Final = "outside"


@dataclass(frozen=True, slots=True)
class SectionName:
    """What a section name means. `bare`: a text list may write it as a line of its own
    (without `#`, `//` or `[...]`): only words that are no card's name ("Conspiracy" is one)."""

    section: Section
    kind: str
    citation: str | None = None
    bare: bool = False


def _names(keys: str, meaning: SectionName) -> dict[str, SectionName]:
    return dict.fromkeys(keys.split(), meaning)


_MAIN = SectionName(Section.MAIN, DECK, "CR 100.2a", bare=True)
_MAIN_GROUP = SectionName(Section.MAIN, DECK, "CR 100.2a")  # type groups (Scryfall's CSV)
_SIDE = SectionName(Section.SIDEBOARD, DECK, "CR 100.4a", bare=True)
_SCRYFALL_OUTSIDE = SectionName(Section.SIDEBOARD, DECK, "CR 100.4a")
_CONSPIRACY = SectionName(Section.SIDEBOARD, DECK, "CR 315.1")
_COMMANDER = SectionName(Section.COMMANDER, DECK, "CR 903.3", bare=True)
_SIGNATURE = SectionName(Section.COMMANDER, DECK, "format:oathbreaker")
_COMPANION = SectionName(Section.COMPANION, DECK, "CR 702.139a", bare=True)
_ATTRACTION = SectionName(Section.ATTRACTION, SUPPLEMENTARY, "CR 717.2a", bare=True)
_STICKER = SectionName(Section.STICKER, SUPPLEMENTARY, "CR 123.2a", bare=True)
_PLANAR = SectionName(Section.IGNORED, SUPPLEMENTARY, "CR 901.3", bare=True)
_SCHEME = SectionName(Section.IGNORED, SUPPLEMENTARY, "CR 904.3", bare=True)
_VANGUARD = SectionName(Section.IGNORED, SUPPLEMENTARY, "CR 313.1", bare=True)
_CONTRAPTION = SectionName(Section.IGNORED, SUPPLEMENTARY, None, bare=True)
_MAYBE = SectionName(Section.IGNORED, OUTSIDE, None, bare=True)
_TOKENS = SectionName(Section.IGNORED, OUTSIDE, "CR 111.1", bare=True)
_DUNGEON = SectionName(Section.IGNORED, OUTSIDE, "CR 309.2", bare=True)
_DISPLAY = SectionName(Section.IGNORED, OUTSIDE, None)

#: Section names by `section_key` (lower-case letters and digits only: "Main Deck",
#: "main_deck" and "mainDeck" are one name).
SECTION_NAMES: Final[dict[str, SectionName]] = {
    **_names("deck main mainboard maindeck", _MAIN),
    **_names("nonlands lands spells creatures", _MAIN_GROUP),
    **_names("sideboard side sideboards", _SIDE),
    **_names("outside", _SCRYFALL_OUTSIDE),  # Scryfall: the companion, wishes (CSV)
    **_names("conspiracy conspiracies", _CONSPIRACY),
    **_names("commander commanders commandzone", _COMMANDER),
    **_names("oathbreaker signaturespell signaturespells", _SIGNATURE),
    **_names("companion companions", _COMPANION),
    **_names("attraction attractions attractiondeck", _ATTRACTION),
    **_names("sticker stickers stickersheet stickersheets", _STICKER),
    **_names("plane planes planardeck planechase phenomena", _PLANAR),
    **_names("scheme schemes schemedeck archenemy", _SCHEME),
    **_names("avatar avatars vanguard", _VANGUARD),
    **_names("contraption contraptions contraptiondeck", _CONTRAPTION),
    **_names("maybeboard maybe maybes considering wishlist wishboard acquireboard", _MAYBE),
    **_names("token tokens", _TOKENS),
    **_names("dungeon dungeons", _DUNGEON),
    **_names("displaycommander", _DISPLAY),  # MTGJSON: the card shown on the box
    # The same headers in the languages players write lists in (Japanese coverage and shop
    # lists, MTG Arena's localized clients: Italian, Spanish, French, Portuguese).
    **_names("メインデッキ デッキ mazzo mazo", _MAIN),
    **_names("サイドボード banquillo réserve reserva", _SIDE),
    **_names("統率者", _COMMANDER),
    **_names("相棒", _COMPANION),
}


def section_label(name: str) -> str:
    """A section name as a report shows it: `[Maybeboard{noDeck}]`, `# Maybeboard:` and
    `Maybeboard (3)` are all "Maybeboard"."""
    label = name.strip().strip("[]#/").strip()
    if "{" in label:
        label = label.split("{", 1)[0]
    label = label.rstrip().rstrip(":").rstrip()
    if label.endswith(")"):
        head, sep, count = label[:-1].rpartition("(")
        if sep and count.strip().isdigit():
            label = head.rstrip().rstrip(":").rstrip()
    return " ".join(label.split())[:60]


def section_key(name: str) -> str:
    """The key of a section name in SECTION_NAMES (`section_label`, then only its letters
    and digits, lower-cased; in any script: サイドボード, réserve)."""
    return "".join(ch for ch in section_label(name).lower() if ch.isalnum())


@lru_cache(maxsize=4096)
def lookup_section(name: str) -> SectionName | None:
    """What the section name means, or None when deckcheck does not know it. Cached: decks
    repeat their categories on every line ("[Ramp]"), and the cache is bounded."""
    return SECTION_NAMES.get(section_key(name))


#: The kind of a section name deckcheck does not know (a warning names it).
UNKNOWN: Final = "unknown"


def unknown_section(line: int, written: str, raw: str) -> ParseIssue:
    """The warning for a row whose section cell deckcheck does not know: its card is counted
    in the main deck, never dropped (the CSV readers)."""
    return ParseIssue(
        line,
        f"unknown section {clip(written, 60)!r}; its card is counted in the main deck",
        raw,
        "unknown-section",
    )


def kind_of(label: str | None, section: Section) -> str:
    """The kind of the section an entry was read from (`not_counted` in the report): a card
    put outside the deck by its site (`{noDeck}`, an Archidekt category not in the deck, a
    duplicate listing) is `outside` whatever its section's name."""
    # "sideboard (the companion, listed again)": the name before the reader's explanation.
    known = lookup_section(label.split(" (", 1)[0]) if label else None
    if section is not Section.IGNORED:
        return known.kind if known is not None else DECK
    if known is None:
        return UNKNOWN if label else OUTSIDE
    return OUTSIDE if known.kind == DECK else known.kind


def not_counted(deck: Deck) -> list[dict[str, Any]]:
    """Every card the reader put outside the counted sections (a maybeboard, tokens, a planar
    deck...), as the report lists it: quantity, name, the section as the input named it, its
    kind, and its line (text, CSV, XML) or path (JSON)."""
    # IGNORED, the module name: `Section.IGNORED` goes through the enum class on each line
    return [
        {
            "quantity": e.quantity,
            "name": e.name,
            "section": e.board or "not in the deck",
            "kind": kind_of(e.board, e.section),
            "line": e.line,
            "where": e.where,
        }
        for e in deck.entries
        if e.section is IGNORED
    ]
