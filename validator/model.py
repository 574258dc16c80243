"""The types every stage shares: cards, decks, problems.

Data flows one way (see README): sync writes `Card` facts into the database, parsing turns text
into a `Deck` of `DeckEntry`, checks read resolved cards and yield `Problem`, reports render them.
Problem codes are public API: add new ones, never rename.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

_replace = msgspec.structs.replace

COLOR_ORDER = "WUBRG"

#: Card types (CR 300.1); kindred included (Umori counts it as a card type).
CARD_TYPES = frozenset(
    {
        "Artifact",
        "Battle",
        "Creature",
        "Enchantment",
        "Instant",
        "Kindred",
        "Land",
        "Planeswalker",
        "Sorcery",
        "Conspiracy",
        "Dungeon",
        "Phenomenon",
        "Plane",
        "Scheme",
        "Vanguard",
    }
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
    def is_basic_land(self) -> bool:
        """A basic land card (205.4c), which deck construction exempts from copy limits (100.2a,
        903.5b); a "Basic Creature" (a playtest card) is not one."""
        return "Basic" in self.supertypes and "Land" in self.types

    @property
    def is_legendary(self) -> bool:
        return "Legendary" in self.supertypes

    @property
    def is_land(self) -> bool:
        return "Land" in self.types

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
        return (
            self.layout == "meld"
            and not self.mana_cost
            and "Land" not in self.types
            and not self.faces[1:]
        )

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


class DeckEntry(msgspec.Struct, gc=False):
    """One line of a decklist as written: nothing here knows about cards.

    A msgspec Struct, as ResolvedEntry: one is made per line of every deck judged, and a
    Struct's `__init__` (in C) costs half a slots dataclass's. Fields, equality, repr and
    mutability are a dataclass's; `msgspec.structs.replace` is its `replace`. Not tracked by
    the cyclic GC (gc=False): it holds only strings, numbers and a Section."""

    quantity: int
    name: str  # as written, minus set/collector/foil markers
    section: Section = Section.MAIN
    line: int | None = None  # 1-based input line number (None for JSON decks)
    set_code: str | None = None
    collector_number: str | None = None
    text: str | None = None  # the raw input line, for reports
    #: Where an entry without a line number is in its input: the JSON path of a JSON deck's
    #: item ("main[3]", "mainboard['Sol Ring']"), which problems name instead of a line.
    where: str | None = None
    #: The section as the input named it ("Maybeboard", "tokens", "Ramp,Maybeboard"), when
    #: it named one: a card not counted is reported with it (validator/decklist/sections.py).
    board: str | None = None


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


# The members as module names, for the code every deck runs: on Python 3.11 reading
# `Section.MAIN` goes through the enum class (about 150 ns, ten times reading a module name),
# and the checks of one deck read them dozens of times.
MAIN, SIDEBOARD, COMMANDER, COMPANION, IGNORED = (
    Section.MAIN,
    Section.SIDEBOARD,
    Section.COMMANDER,
    Section.COMPANION,
    Section.IGNORED,
)
ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a deck is illegal (or a note about it), rich enough to render any way."""

    code: str  # stable, kebab-case: "deck-too-small", "banned", ...
    message: str  # one line a player understands
    citation: str | None = None  # namespaced: "CR 100.2a", "MTR 3.x", "format:commander"
    severity: Severity = Severity.ERROR
    cards: tuple[str, ...] = ()  # Oracle names involved
    lines: tuple[int, ...] = ()  # input line numbers involved

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "citation": self.citation,
            "message": self.message,
            "cards": list(self.cards),
            "lines": list(self.lines),
        }


#: Scryfall's language codes (the `lang` of a card object), with their names.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "it": "Italian",
    "pt": "Portuguese",
    "ja": "Japanese",
    "ko": "Korean",
    "ru": "Russian",
    "zhs": "Simplified Chinese",
    "zht": "Traditional Chinese",
    "he": "Hebrew",
    "la": "Latin",
    "grc": "Ancient Greek",
    "ar": "Arabic",
    "sa": "Sanskrit",
    "ph": "Phyrexian",
    "qya": "Quenya",
}

#: How a name that is not an Oracle name was read (`NameReading.how`).
ALT_NAME = "mtgo-arena-name"  # an English name MTGO/Arena print (data/alt-names.tsv)
PRINTED_NAME = "printed-name"  # a printing's printed name (a language's, or an English flavor)


class NameReading(msgspec.Struct, gc=False):
    """How a decklist line whose name is not an Oracle name was read: by the English name MTGO
    or Arena prints (`how` "mtgo-arena-name") or a printing's printed name ("printed-name",
    with its language, a Scryfall code). A msgspec Struct as the other records of a deck's
    lines (`DeckEntry`): one is made per line of a deck in another language."""

    line: int | None
    written: str  # the name as the line wrote it
    card: str  # the Oracle name it was read as
    how: str
    language: str = "en"

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "name": self.written,
            "card": self.card,
            "read_by": self.how,
            "language": self.language,
        }


class ResolvedEntry(msgspec.Struct, gc=False):
    """A deck entry matched to its card.

    Its section changes only through `ResolvedDeck.move`, which gives it a new DeckEntry and
    keeps the deck's section lists right: assigning `entry` directly would leave them stale.
    A msgspec Struct like DeckEntry, so that making one (resolve makes one per line) is cheap.
    Not tracked by the cyclic GC: neither its entry nor its card can lead back to it.
    """

    entry: DeckEntry
    card: Card

    @property
    def quantity(self) -> int:
        return self.entry.quantity

    @property
    def section(self) -> Section:
        return self.entry.section


def entry_lines(entries: Iterable[ResolvedEntry]) -> tuple[int, ...]:
    """The input line numbers of `entries`, sorted, for Problem.lines."""
    return tuple(sorted({e.entry.line for e in entries if e.entry.line}))


def distinct_cards(entries: Iterable[ResolvedEntry]) -> list[ResolvedEntry]:
    """The first entry of each oracle card, in listing order."""
    seen: set[str] = set()
    out = []
    for e in entries:
        if e.card.oracle_id not in seen:
            seen.add(e.card.oracle_id)
            out.append(e)
    return out


#: How far `ResolvedDeck.move` looks for an entry in its section's list before it lets the
#: list be rebuilt instead: keeps a hostile list's thousands of moves linear.
_SCAN = 32
#: A section list longer than this is rebuilt once rather than changed at each move.
_LONG = 256


class _Where(enum.Enum):
    """Where a moved entry was in its old section's run (`_SectionIndex.take` / `put`)."""

    ONLY = enum.auto()  # the run's only entry
    FIRST = enum.auto()
    LAST = enum.auto()  # the run's last entry, or right after it
    MIDDLE = enum.auto()
    END = enum.auto()  # appended to the end of `entries`


class _SectionIndex:
    """A resolved deck's entries by section, built once per deck (every check asks, a 100-card
    deck about 30 times) and kept right by `ResolvedDeck.move` in place, so that designation's
    moves cost no rebuild.

    Valid while `entries` is the same list of the same length (adding or removing entries
    other than by `move` is seen, also when a `move` follows; replacing an item of `entries`
    in place, or assigning a ResolvedEntry's `entry`, is not: sections change only through
    `move`). `buckets`: each section's entries in listing order, never empty (a section absent
    has none), except the `dirty` sections, whose lists `move` could not keep cheaply: rebuilt
    together, in one pass, when next asked. `order`: the sections in listing order while each
    is one run of `entries` (most lists: the deck, then the sideboard), else None; an ask for
    several sections then joins their lists instead of scanning `entries`. `multi`: the answer
    for each tuple of several sections asked; `counts`: cards by section."""

    __slots__ = ("list", "length", "buckets", "dirty", "order", "multi", "counts")

    def __init__(self) -> None:
        self.list: list[ResolvedEntry] | None = None
        self.length = -1
        self.buckets: dict[Section, list[ResolvedEntry]] = {}
        self.dirty: set[Section] = set()
        self.order: list[Section] | None = None
        self.multi: dict[tuple[Section, ...], list[ResolvedEntry] | tuple[()]] = {}
        self.counts: dict[Section, int] = {}

    def fresh(self, entries: list[ResolvedEntry]) -> bool:
        """Whether the index describes `entries` (the same list, of the same length)."""
        return entries is self.list and len(entries) == self.length

    def rebuild(self, entries: list[ResolvedEntry]) -> None:
        sections = [e.entry.section for e in entries]
        buckets: dict[Section, list[ResolvedEntry]] = {}
        order: list[Section] | None = []
        start, end = 0, len(sections)
        while start < end:
            # Most lists hold each section in one run (the deck, then the sideboard): sliced.
            section = sections[start]
            stop = start + sections.count(section)
            if (
                sections[stop - 1] is not section
                or sections[start:stop].count(section) != stop - start
            ):
                buckets, order = {}, None  # interleaved: one entry at a time
                for e, section in zip(entries, sections):
                    found = buckets.get(section)
                    if found is None:
                        buckets[section] = [e]
                    else:
                        found.append(e)
                break
            buckets[section] = entries[start:stop]
            order.append(section)  # type: ignore[union-attr]  # None only after the break
            start = stop
        self.list, self.length, self.buckets, self.dirty = entries, len(entries), buckets, set()
        self.order, self.multi, self.counts = order, {}, {}

    def refresh(self, entries: list[ResolvedEntry]) -> None:
        """Rebuild the lists of the dirty sections, in one pass."""
        fresh: dict[Section, list[ResolvedEntry]] = {section: [] for section in self.dirty}
        for e in entries:
            found = fresh.get(e.entry.section)
            if found is not None:
                found.append(e)
        buckets = self.buckets
        for section, found in fresh.items():
            if found:
                buckets[section] = found
        self.dirty = set()

    def sections(
        self, entries: list[ResolvedEntry], sections: tuple[Section, ...]
    ) -> list[ResolvedEntry] | tuple[()]:
        """The entries of `sections`, in listing order; shared: do not change it."""
        if entries is not self.list or len(entries) != self.length:  # `fresh`, inlined: hot
            self.rebuild(entries)
        if self.dirty:
            self.refresh(entries)
        if len(sections) == 1:
            return self.buckets.get(sections[0], ())
        found = self.multi.get(sections)
        if found is None:
            buckets = self.buckets
            present = [s for s in dict.fromkeys(sections) if s in buckets]
            if len(present) == 1:
                found = buckets[present[0]]
            elif not present:
                found = ()
            elif self.order is not None:  # one run each: their lists, in the runs' order
                found = []
                for section in self.order:
                    if section in sections:
                        found += buckets[section]
            else:  # several sections: in listing order, as they are in `entries`
                found = [e for e in entries if e.entry.section in sections]
            self.multi[sections] = found
        return found

    def lose(self, section: Section) -> None:
        """Let a section's list be rebuilt when next asked (its runs are no longer known)."""
        self.dirty.add(section)
        self.buckets.pop(section, None)
        self.order = None

    def take(self, item: ResolvedEntry, section: Section) -> _Where | None:
        """Drop `item` from its old section's list, saying where it was in it (designation
        moves entries in listing order: looked for from the front), or let the list be
        rebuilt (then None)."""
        buckets = self.buckets
        found = buckets.get(section)
        if found is None or len(found) > _LONG:  # dirty already, or long (hostile): rebuilt
            self.lose(section)
            return None
        if found[0] is item:
            if len(found) == 1:
                del buckets[section]
                return _Where.ONLY
            del found[0]
            return _Where.FIRST
        if found[-1] is item:
            found.pop()
            return _Where.LAST
        for i, e in enumerate(found[:_SCAN]):
            if e is item:
                del found[i]
                return _Where.MIDDLE
        self.lose(section)
        return None

    def put(
        self,
        item: ResolvedEntry,
        section: Section,
        source: Section,
        where: _Where | None,
        last: bool,
    ) -> None:
        """Add `item` to `section`'s list where the listing has it. `where`: the item was the
        `source` run's only entry, first or last (or right after it), inside it, appended to
        `entries` (END), or not known (None). `last`: it is the last of `entries`."""
        if section in self.dirty:
            return
        buckets = self.buckets
        found = buckets.get(section)
        order = self.order
        if order is None or where is None:
            self.order = None
            if found is None:
                buckets[section] = [item]
            elif last:
                found.append(item)
            else:
                self.lose(section)
            return
        if where is _Where.END:
            if found is None:
                order.append(section)
                buckets[section] = [item]
            else:
                found.append(item)
                if order[-1] != section:
                    self.order = None
            return
        at = order.index(source)
        if found is None:
            buckets[section] = [item]
            if where is _Where.ONLY:
                order[at] = section
            elif where is _Where.FIRST:
                order.insert(at, section)
            elif where is _Where.LAST:
                order.insert(at + 1, section)
            else:
                self.order = None
            return
        # The item lies at the source's run, and the section's run is wholly before or after.
        other = order.index(section)
        if other < at:
            found.append(item)
        else:
            found.insert(0, item)
        if where is _Where.ONLY and (other == at - 1 or other == at + 1):
            del order[at]  # joins the neighbouring run
        elif not (
            (where is _Where.FIRST and other == at - 1)
            or (where is _Where.LAST and other == at + 1)
        ):
            self.order = None

    def forget(self, source: Section, section: Section, quantity: int) -> None:
        """Drop the answers that include either section; keep their counts right."""
        multi = self.multi
        if multi:
            for key in [k for k in multi if source in k or section in k]:
                del multi[key]
        counts = self.counts
        if source in counts:
            counts[source] -= quantity
        if section in counts:
            counts[section] += quantity


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
    #: Lines read by a name that is not an Oracle name (another language's, MTGO's).
    readings: list[NameReading] = field(default_factory=list)

    def clone(self) -> ResolvedDeck:
        """A copy whose entries can be moved between sections without touching this one.

        The DeckEntry objects are shared, the unresolved ones too: nothing changes one after
        parsing (a move gives its ResolvedEntry a new one, and commander/constructed.py gives
        `unresolved` a new list), so only the ResolvedEntry objects are new.
        """
        return ResolvedDeck(
            deck=self.deck,
            entries=list(
                map(ResolvedEntry, [e.entry for e in self.entries], [e.card for e in self.entries])
            ),
            problems=list(self.problems),
            unresolved=list(self.unresolved),
            sticker_sheets=list(self.sticker_sheets),
            attractions=list(self.attractions),
            not_cards=set(self.not_cards),
            readings=list(self.readings),
        )

    #: Entries by section (`_SectionIndex`), kept right by `move`.
    _index: _SectionIndex = field(
        default_factory=_SectionIndex, init=False, repr=False, compare=False
    )

    def move(self, item: ResolvedEntry, section: Section, quantity: int = 1) -> ResolvedEntry:
        """Move `quantity` copies of `item` to `section`, splitting the entry when it has more;
        returns the entry now in `section`.

        Only `entries` changes, with new `DeckEntry` objects: the parsed `Deck` (shared by
        `clone()`) is never touched. A split-off copy keeps its input line; it is listed right
        after its entry, except in IGNORED, where order means nothing and appending keeps
        thousands of moves linear (a hostile list repeating every commander).
        """
        entries, index = self.entries, self._index
        kept = index.fresh(entries)
        if not kept:  # changed by hand since the last ask: rebuilt at the next one, whatever
            index.list = None  # length this move leaves (a split could restore the old one)
        old = item.entry
        source = old.section
        if old.quantity <= quantity:
            item.entry = _replace(old, section=section)
            if kept and section != source:
                where = index.take(item, source)
                index.put(item, section, source, where, bool(entries) and entries[-1] is item)
                index.forget(source, section, old.quantity)
            return item
        item.entry = _replace(old, quantity=old.quantity - quantity)
        moved = ResolvedEntry(_replace(old, quantity=quantity, section=section), item.card)
        if section == IGNORED:
            entries.append(moved)
        else:
            at = next(i for i, e in enumerate(entries) if e is item)
            entries.insert(at + 1, moved)
        if kept:
            index.length = len(entries)
            if section == source:  # one more entry in the section, the same count
                index.lose(section)
            else:
                last = entries[-1] is moved
                found = index.buckets.get(source)
                where = (
                    _Where.END
                    if last
                    else None
                    if found is None
                    else _Where.LAST
                    if found[-1] is item
                    else _Where.MIDDLE
                )
                index.put(moved, section, source, where, last)
            index.forget(source, section, quantity)
        return moved

    def cards_in(self, *sections: Section) -> list[ResolvedEntry]:
        return list(self._index.sections(self.entries, sections))

    def has(self, *sections: Section) -> bool:
        """Whether any entry is in `sections` (`cards_in` without the copy)."""
        return bool(self._index.sections(self.entries, sections))

    def count(self, *sections: Section) -> int:
        """How many cards `sections` hold (each section's count is kept, and summed)."""
        entries, index = self.entries, self._index
        if entries is not index.list or len(entries) != index.length:  # `fresh`, inlined
            index.rebuild(entries)
        counts = index.counts
        total = 0
        for section in sections if len(sections) == 1 else dict.fromkeys(sections):
            found = counts.get(section)
            if found is None:
                found = counts[section] = sum(
                    [e.entry.quantity for e in index.sections(entries, (section,))]
                )
            total += found
        return total
