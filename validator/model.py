"""The types every stage shares: cards, decks, problems.

Data flows one way (see README): sync writes `Card` facts into the database, parsing turns text
into a `Deck` of `DeckEntry`, checks read resolved cards and yield `Problem`, reports render them.
Problem codes are public API: add new ones, never rename.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

COLOR_ORDER = "WUBRG"

#: Card types (CR 300.1); kindred included (Umori counts it as a card type).
CARD_TYPES = frozenset(
    {"Artifact", "Battle", "Creature", "Enchantment", "Instant", "Kindred", "Land",
     "Planeswalker", "Sorcery", "Conspiracy", "Dungeon", "Phenomenon", "Plane", "Scheme",
     "Vanguard"}
)
#: CR 110.4a: a permanent card is an artifact, battle, creature, enchantment, land or
#: planeswalker card.
PERMANENT_TYPES = frozenset(
    {"Artifact", "Battle", "Creature", "Enchantment", "Land", "Planeswalker"}
)


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a card as Scryfall prints it (name, cost, types and text of that face)."""

    name: str
    mana_cost: str = ""
    type_line: str = ""
    oracle_text: str = ""
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None


@dataclass(frozen=True, slots=True)
class Card:
    """Everything the deck rules need about one oracle card, computed once at sync time.

    "Deck characteristics" are the card's characteristics outside the game, where deck
    construction looks at it: a double-faced card has only its front face (CR 712.8a), an
    adventurer or flip card its normal characteristics (715.4, 710), a split card both halves
    combined (709.4).
    """

    oracle_id: str
    name: str  # Oracle name; multi-face cards "A // B"
    layout: str
    faces: tuple[Face, ...]
    mana_cost: str  # the mana cost outside the stack: split halves combined, else front/normal face
    mana_value: float  # Scryfall cmc (CR 202.3)
    type_line: str  # the whole printed type line, faces joined by " // "
    types: frozenset[str]  # card types of the deck characteristics
    subtypes: frozenset[str]
    supertypes: frozenset[str]
    oracle_text: str  # text of the deck characteristics (split: both halves, "\n" joined)
    color_identity: str  # letters in WUBRG order, "" for colorless (CR 903.4)
    keywords: frozenset[str] = frozenset()
    legalities: Mapping[str, str] = field(default_factory=dict)
    game_changer: bool = False
    reserved: bool = False
    #: The copy limit the card's own text sets ("up to seven" -> 7), None when it sets none.
    copy_limit: int | None = None
    #: "A deck can have any number of cards named ..." (CR 100.2a / 903.5b exceptions).
    any_number: bool = False
    #: Commander facts (CR 903.3, 903.3a, 903.12c, 702.124).
    commander_eligible: bool = False  # legendary creature / Vehicle / Spacecraft with P/T, or text
    partner: str | None = None  # partner kind: "partner", "partner-with", "partner:<text>",
    #                              "choose-a-background", "doctors-companion"
    partner_with: str | None = None  # the name in "Partner with NAME"
    has_activated_ability: bool = False  # deck characteristics (Zirda)
    companion_condition: str | None = None  # the sentence after "Companion —", no reminder text
    #: True for things a decklist can hold. Tokens, emblems, art cards, planes, schemes and
    #: vanguards are not deck cards and never resolve from a decklist name.
    is_deck_card: bool = True
    #: For the back face of a meld pair (CR 712.4b: not a card), the names of the two cards
    #: that meld into it (Scryfall's `all_parts` "meld_part"); empty for every other card.
    meld_from: tuple[str, ...] = ()

    @property
    def is_basic(self) -> bool:
        return "Basic" in self.supertypes

    @property
    def is_legendary(self) -> bool:
        return "Legendary" in self.supertypes

    @property
    def is_land(self) -> bool:
        return "Land" in self.types

    @property
    def is_permanent(self) -> bool:
        return bool(self.types & PERMANENT_TYPES)

    @property
    def is_sticker_sheet(self) -> bool:
        """CR 123.2: sticker sheets are not cards; Scryfall types them "Stickers"."""
        return self.type_line == "Stickers"

    @property
    def is_attraction(self) -> bool:
        """CR 717.1: an Attraction is an artifact with the subtype Attraction."""
        return "Attraction" in self.subtypes and "Artifact" in self.types

    @property
    def is_meld_result(self) -> bool:
        """CR 712.4b / 712.1: the combined back face of a meld pair, which is not a card.

        Databases synced before `meld_from` existed do not know the parts; there a meld-layout
        card with no mana cost that is not a land (every meld part has a cost or is a land) is
        the result.
        """
        if self.meld_from:
            return True
        return (self.layout == "meld" and not self.mana_cost and "Land" not in self.types
                and not self.faces[1:])

    @property
    def front_name(self) -> str:
        return self.faces[0].name if self.faces else self.name

    def legality(self, key: str) -> str:
        """Scryfall legality for a format key; unknown keys read as not legal."""
        return self.legalities.get(key, "not_legal")


class Section(str, enum.Enum):
    MAIN = "main"
    SIDEBOARD = "sideboard"
    COMMANDER = "commander"
    COMPANION = "companion"
    #: Lines a parser read but that are not part of the deck (Arena "Maybeboard", Moxfield
    #: "Considering", MTGO trade lists...). Kept so that every input line is accounted for.
    IGNORED = "ignored"
    #: CR 717.2: Attraction cards are not in the deck; in constructed play they form a separate
    #: Attraction deck (717.2a). Listed apart, never counted toward the deck's size.
    ATTRACTION = "attractions"
    #: CR 123.2: sticker sheets are not cards; a player may bring ten or more (123.2a).
    STICKER = "stickers"


@dataclass(slots=True)
class DeckEntry:
    """One line of a decklist as written: nothing here knows about cards."""

    quantity: int
    name: str  # as written, minus set/collector/foil markers
    section: Section = Section.MAIN
    line: int | None = None  # 1-based input line number (None for JSON decks)
    set_code: str | None = None
    collector_number: str | None = None
    text: str | None = None  # the raw input line, for reports


@dataclass(slots=True)
class ParseIssue:
    """A line the parser could not read, or a note about how it read the input."""

    line: int | None
    message: str
    text: str | None = None
    code: str = "unreadable-line"


@dataclass(slots=True)
class Deck:
    """A parsed decklist: entries by section, plus what the parser could not read."""

    entries: list[DeckEntry] = field(default_factory=list)
    issues: list[ParseIssue] = field(default_factory=list)
    name: str | None = None
    input_format: str | None = None  # "text", "arena", "mtgo-dek", "cockatrice", "json", ...
    #: How commanders were marked, when they were ("arena-section", "cmdr-marker", "json", ...).
    commander_source: str | None = None
    #: The date the deck is to be judged as of, when the input says (a JSON deck's "as_of").
    as_of: str | None = None

    def section(self, section: Section) -> list[DeckEntry]:
        return [e for e in self.entries if e.section == section]

    def count(self, section: Section) -> int:
        return sum(e.quantity for e in self.entries if e.section == section)


class Severity(str, enum.Enum):
    ERROR = "error"  # makes the deck illegal
    WARNING = "warning"  # the deck may be legal, but something needs a human look
    INFO = "info"  # worth knowing, no effect on the verdict


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a deck is illegal (or a note about it), rich enough to render any way."""

    code: str  # stable, kebab-case: "deck-too-small", "banned", ...
    message: str  # one line a player understands
    citation: str | None = None  # namespaced: "CR 100.2a", "MTR 3.x", "format:commander"
    severity: Severity = Severity.ERROR
    cards: tuple[str, ...] = ()  # Oracle names involved
    lines: tuple[int, ...] = ()  # input line numbers involved

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "citation": self.citation,
            "message": self.message,
            "cards": list(self.cards),
            "lines": list(self.lines),
        }


#: Bumped whenever a ResolvedEntry gets a new DeckEntry (or card) after it was made: the
#: cheap part of `ResolvedDeck`'s "are my section lists still valid?" (see `_sections`).
_REASSIGNED = [0]
_SET = object.__setattr__


@dataclass(slots=True, init=False)
class ResolvedEntry:
    """A deck entry matched to its card."""

    entry: DeckEntry
    card: Card

    def __init__(self, entry: DeckEntry, card: Card) -> None:
        _SET(self, "entry", entry)  # a new entry reaches a deck only by changing its list
        _SET(self, "card", card)

    def __setattr__(self, name: str, value) -> None:
        # A section changes by giving an entry a new DeckEntry (`commander._move`): say so.
        _SET(self, name, value)
        _REASSIGNED[0] += 1

    @property
    def quantity(self) -> int:
        return self.entry.quantity

    @property
    def section(self) -> Section:
        return self.entry.section


def entry_lines(entries: "Iterable[ResolvedEntry]") -> tuple[int, ...]:
    """The input line numbers of `entries`, sorted, for Problem.lines."""
    return tuple(sorted({e.entry.line for e in entries if e.entry.line}))


def distinct_cards(entries: "Iterable[ResolvedEntry]") -> list["ResolvedEntry"]:
    """The first entry of each oracle card, in listing order."""
    seen: set[str] = set()
    out = []
    for e in entries:
        if e.card.oracle_id not in seen:
            seen.add(e.card.oracle_id)
            out.append(e)
    return out




@dataclass(slots=True)
class ResolvedDeck:
    """A deck whose entries were looked up: the input to every rule check."""

    deck: Deck
    entries: list[ResolvedEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # unknown cards, unreadable lines
    #: Entries whose name matched no card: still counted for the deck size, so one typo gives
    #: one "unknown card" problem rather than a second "deck too small".
    unresolved: list[DeckEntry] = field(default_factory=list)
    #: Sticker sheets listed with the deck: "not cards" (CR 123.2), so outside every count.
    sticker_sheets: list[ResolvedEntry] = field(default_factory=list)
    #: Attraction cards: not in the deck (CR 717.2), a separate Attraction deck (717.2a).
    attractions: list[ResolvedEntry] = field(default_factory=list)
    #: (name as written, line) of the `unresolved` entries that name a card but not a card of
    #: a deck (a meld result, CR 712.4b): they have their own problem, not "unknown card".
    not_cards: set[tuple[str, int | None]] = field(default_factory=set)

    def clone(self) -> "ResolvedDeck":
        """A copy whose entries can be moved between sections without touching this one."""
        return ResolvedDeck(
            deck=self.deck,
            entries=[ResolvedEntry(entry=replace(e.entry), card=e.card) for e in self.entries],
            problems=list(self.problems),
            unresolved=[replace(e) for e in self.unresolved],
            sticker_sheets=list(self.sticker_sheets),
            attractions=list(self.attractions),
            not_cards=set(self.not_cards),
        )

    #: Entries by the sections asked for, built once per deck (every check asks): valid while
    #: `entries` is the same list of the same length and no ResolvedEntry was given a new
    #: DeckEntry since. Sections change only by giving a ResolvedEntry a new DeckEntry
    #: (`commander._move`, which ResolvedEntry.__setattr__ counts) or by adding entries
    #: (the length), never by assigning to a DeckEntry (the parsed Deck is shared by clones)
    #: nor by replacing an item of `entries` in place. Checked in O(1): a 100-card deck asks
    #: about 30 times, and comparing every entry each time cost more than the answers.
    _list: list | None = field(default=None, init=False, repr=False, compare=False)
    _length: int = field(default=-1, init=False, repr=False, compare=False)
    _stamp: int = field(default=-1, init=False, repr=False, compare=False)
    _by_sections: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _counts: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def _sections(self, sections: tuple[Section, ...]) -> list[ResolvedEntry]:
        entries = self.entries
        if (entries is not self._list or len(entries) != self._length
                or _REASSIGNED[0] != self._stamp):
            # One pass buckets every entry by its section; asking for one section (most
            # asks) is then a look-up, however often designation moved entries before.
            stamp = _REASSIGNED[0]
            by_one: dict = {}
            for e in entries:
                section = e.entry.section
                found = by_one.get(section)
                if found is None:
                    by_one[(section,)] = by_one[section] = [e]
                else:
                    found.append(e)
            self._list, self._length, self._stamp = entries, len(entries), stamp
            self._by_sections, self._counts = by_one, {}
        found = self._by_sections.get(sections)
        if found is None:
            present = [s for s in dict.fromkeys(sections) if s in self._by_sections]
            if len(present) == 1:
                found = self._by_sections[present[0]]
            elif not present:
                found = []
            else:  # several sections: in listing order, as they are in `entries`
                found = [e for e in self.entries if e.entry.section in sections]
            self._by_sections[sections] = found
        return found

    def by_card(self, *sections: Section) -> dict[str, list[ResolvedEntry]]:
        """The entries of `sections` grouped by oracle card, in listing order (201.3b:
        interchangeable names are one name). Cached like `cards_in`: do not change it."""
        found = self._sections(sections)  # first: it drops stale groups with stale lists
        groups = self._counts.get(("by_card", sections))
        if groups is None:
            groups = self._counts[("by_card", sections)] = {}
            for e in found:
                group = groups.get(e.card.oracle_id)
                if group is None:
                    groups[e.card.oracle_id] = [e]
                else:
                    group.append(e)
        return groups

    def cards_in(self, *sections: Section) -> list[ResolvedEntry]:
        return list(self._sections(sections))

    def count(self, *sections: Section) -> int:
        found = self._sections(sections)  # first: it drops stale counts with stale lists
        total = self._counts.get(sections)
        if total is None:
            if len(sections) > 1:  # each section's count is kept: summed, not recounted
                total = sum(self.count(s) for s in dict.fromkeys(sections))
            else:
                total = sum([e.entry.quantity for e in found])
            self._counts[sections] = total
        return total
