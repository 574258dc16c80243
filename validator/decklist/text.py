"""Line-oriented decklists: MTGO .txt, Arena, Moxfield / Archidekt / MTGGoldfish text, Forge .dck.

These formats differ only in their section headers and in what may trail a card name, so one
reader handles them all. A line is one of: blank, comment, header, metadata, or a card line
`[SB:] [QTY[x]] NAME [(SET) [NUMBER]] [markers] [[categories]]`. Each card line gives exactly one
entry or one issue; lines naming the same card are not merged here.
"""

from __future__ import annotations

import re
from typing import Any

from validator.decklist.base import (
    MAX_LINES,
    DecklistError,
    clip,
    digits_value,
    name_issue,
    quantity_issue,
)
from validator.decklist.sections import SectionName, lookup_section, section_label
from validator.model import (
    COMMANDER,
    COMPANION,
    IGNORED,
    MAIN,
    SIDEBOARD,
    Deck,
    DeckEntry,
    ParseIssue,
    Section,
)

_MAIN, _SIDE, _CMDR, _COMP, _IGN = MAIN, SIDEBOARD, COMMANDER, COMPANION, IGNORED
# Sections of one or two cards that Arena lists before the deck (a blank line ends them).
_LEAD = (_CMDR, _COMP)

# Header words: the shared vocabulary (validator/decklist/sections.py). A line of its own may
# be any name marked `bare` there; a `[...]`, `#` or `//` header may be any name it knows.
# Headers only Arena-style exports write ("Sideboard" alone is common to every format).
_ARENA_HEADERS = frozenset({"deck", "commander", "companion", "about"})
# Card-type group headers (TappedOut, MTGGoldfish, Moxfield "by type"): they sort, not section.
_GROUP_HEADERS = frozenset(
    {
        "creature",
        "creatures",
        "land",
        "lands",
        "instant",
        "instants",
        "sorcery",
        "sorceries",
        "artifact",
        "artifacts",
        "enchantment",
        "enchantments",
        "planeswalker",
        "planeswalkers",
        "battle",
        "battles",
        "spells",
        "other spells",
        "noncreature spells",
    }
)
# Forge .dck's own section names: [metadata] and the sections a Forge deck writes (what
# each one means is the shared vocabulary's: [Planes] is a planar deck, CR 901.3...).
_FORGE_SECTIONS = frozenset(
    {
        "metadata",
        "main",
        "sideboard",
        "commander",
        "attractions",
        "avatar",
        "planes",
        "schemes",
        "conspiracy",
        "dungeon",
        "contraptions",
    }
)

# After normalisation a line has single spaces, so this cannot backtrack far.
_QTY_LINE = re.compile(r"([0-9]+)(?: ?[xX])? (\S.*)", re.ASCII)
_SET_CODE = re.compile(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*", re.ASCII)
# A trailing "(SET) NUMBER" or "(SET)": a set code of 2-6 letters/digits (not all digits), a
# collector number with a digit ("146", "7a", "GR5", "2024-1", "★12"). "B.F.M. (Big Furry
# Monster)" keeps its parentheses. The lazy name group only stops at " (", so this is linear.
_PRINTING = re.compile(
    r"(.+?) \(((?=[0-9]*[A-Za-z])[A-Za-z0-9]{2,6})\)"
    r"(?: ((?=[^ ]*[0-9])[0-9A-Za-z★☆†.-]{1,12}))?"
)
_TAIL_CHARS = re.compile(r"[(\[*|<^]")
# Trailing tokens that mark a printing, never part of a name (Moxfield, MTGGoldfish).
_MARKERS = frozenset({"*F*", "*E*", "*CMDR*", "(F)"})
_OPENERS = {"]": "[", "^": "^", ">": "<"}
# Real card lines are under 200 characters; longer ones are refused before any stripping, so
# that no input can make the tail loop quadratic.
_MAX_LINE_CHARS = 1_000


def split_lines(text: str) -> list[str]:
    """Lines as an editor numbers them (CRLF, CR or LF); refuses more than MAX_LINES."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\u200b" in text or "\ufeff" in text:
        text = text.replace("\u200b", "").replace("\ufeff", "")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_LINES:
        raise DecklistError(f"input has {len(lines):,} lines; the limit is {MAX_LINES:,}")
    return lines


def parse_text(text: str, input_format: str | None = None) -> Deck:
    """Read a line-oriented decklist; `input_format` forces the reported format name."""
    reader = _Reader()
    reader.read(split_lines(text))
    return reader.finish(input_format)


def header_key(line: str) -> str:
    """ "Sideboard (15):" -> "sideboard": the lookup key for a possible header line."""
    key = line.rstrip(":").rstrip()
    if key.endswith(")"):
        head, sep, count = key[:-1].rpartition("(")
        if sep and count.strip().isdigit():
            key = head.rstrip().rstrip(":").rstrip()
    return key.lower()


class _Tail:
    """What trails a card name: printing, markers and categories."""

    __slots__ = ("name", "set_code", "collector", "section", "source", "error")

    def __init__(self, name: str) -> None:
        self.name = name
        self.set_code: str | None = None
        self.collector: str | None = None
        self.section: Section | None = None
        self.source: str | None = None  # how a commander was marked
        self.error: str | None = None


def split_tail(rest: str) -> _Tail:
    """Separate the card name from a Forge `|SET`, markers, categories and `(SET) NUMBER`."""
    tail = _Tail(rest)
    if _TAIL_CHARS.search(rest) is None:
        return tail
    if "|" in rest:
        _forge_tail(tail)
        return tail
    categories = _strip_markers(tail)
    _strip_printing(tail)
    if tail.set_code is not None and tail.name[-1] in "]^>*)":
        categories += _strip_markers(tail)  # "Name <borderless> (SET) 12": tags before printing
    if categories:
        _apply_categories(tail, categories)
    return tail


def _forge_tail(tail: _Tail) -> None:
    # Forge writes "Name|SET" or "Name|SET|ART_INDEX"; the art index is not a collector number.
    name, _, printing = tail.name.partition("|")
    set_code = printing.split("|", 1)[0].strip()
    tail.name = name.rstrip()
    if len(set_code) <= 8 and _SET_CODE.fullmatch(set_code):
        tail.set_code = set_code
    else:
        tail.error = f"cannot read the set code after '|' ({set_code!r})"


def _strip_markers(tail: _Tail) -> list[str]:
    """Strip trailing `[categories]`, `^labels^`, `<variants>` and foil/commander markers."""
    name = tail.name
    categories: list[str] = []
    while name[-1] in "]^>*)":
        end = name[-1]
        if end in _OPENERS:
            start = name.rfind(_OPENERS[end], 0, len(name) - 1)
            if start <= 0:
                break
            if end == "]":
                categories.append(name[start + 1 : -1])
            name = name[:start].rstrip()
            continue
        space = name.rfind(" ")
        if space > 0 and name[space + 1 :].upper() in _MARKERS:
            if name[space + 1 :].upper() == "*CMDR*":
                tail.section, tail.source = _CMDR, "cmdr-marker"
            name = name[:space]
            continue
        break
    tail.name = name
    return categories


def _strip_printing(tail: _Tail) -> None:
    if " (" not in tail.name:
        return
    match = _PRINTING.fullmatch(tail.name)
    if match is not None:
        tail.name, tail.set_code, tail.collector = match.groups()


#: Which section a line's categories choose when several name one (a Commander category
#: wins over all, then these in order).
_CATEGORY_ORDER = (_COMP, _SIDE, Section.ATTRACTION, Section.STICKER, _IGN)


def _apply_categories(tail: _Tail, categories: list[str]) -> None:
    """Archidekt / Moxfield `[Ramp,Commander{top}]` tags: a category the shared vocabulary
    knows (Commander, Companion, Sideboard, Maybeboard, Tokens...) chooses the section, and a
    `{noDeck}` flag puts the card outside the deck; other categories ("Ramp") are the user's.
    For a section other than the commander's, `tail.source` keeps the category as written,
    which the report names for a card not counted."""
    found: dict[Section, str] = {}
    no_deck: str | None = None
    for group in categories:
        for part in group.split(","):
            label, _, flags = part.partition("{")
            known = lookup_section(label)
            if known is not None:
                found.setdefault(known.section, section_label(label))
            if no_deck is None and "nodeck" in flags.lower():
                no_deck = section_label(label) or "noDeck"
    if _CMDR in found:
        tail.section, tail.source = _CMDR, "category"
        return
    if tail.section is not None:
        return  # *CMDR* marker already decided
    for section in _CATEGORY_ORDER:
        if section in found:
            tail.section, tail.source = section, found[section]
            return
    if no_deck is not None:
        tail.section, tail.source = _IGN, no_deck


#: (quantity, name, set code, collector number, section, commander source, Forge "|") of a
#: card line that reads without any issue.
_Reading = tuple[int, str, "str | None", "str | None", "Section | None", "str | None", bool]

#: Card lines that read without any issue, by their raw text. Outside a Forge [metadata] or an
#: Arena About block, what a line is (comment, header, card line) depends on its text alone, so
#: a raw line read once as a clean card line is one again: decks repeat the same lines ("4
#: Lightning Bolt", "1 Sol Ring"), and each is split once per process. Only lines of real
#: card-line length are kept, and both caches start over when they hold `_LINES_MAX` lines
#: together: hostile input cannot grow them.
#:
#: `_LINES` holds the plain lines, the bulk of every deck: no "SB:", no marker or category that
#: sets a section, no Arena printing (a Forge "|SET" is plain). Their entry depends only on the
#: reader's current section, so a run of them is read in one go (`_Reader._plain_run`). Its
#: values are (quantity, name, set code, collector number, the text kept for reports), or just
#: the name for a line of quantity 1 with no printing whose text is kept as written ("1 NAME",
#: "Sol Ring", "1x Sol Ring", "1 Sol Ring *F*"; not one with trailing spaces): in a run over
#: thousands of decks each object a line reaches is likely a CPU cache miss, and Commander
#: decks are made of these lines.
_Plain = tuple[int, str, str | None, str | None, str] | str
_LINES: dict[str, _Plain] = {}
#: The other clean card lines: (the text kept for reports, whether it starts with "SB:", then
#: its reading; one flat tuple).
_CardLine = tuple[
    str, bool, int, str, "str | None", "str | None", "Section | None", "str | None", bool
]
_MARKED_LINES: dict[str, _CardLine] = {}
_LINES_MAX = 50_000
_CACHED_LINE_CHARS = 200


def _keep(original: str, card_line: _CardLine) -> None:
    """Cache a clean card line (`_LINES` or `_MARKED_LINES`), the cache bounded."""
    if len(original) > _CACHED_LINE_CHARS:
        return
    text, sb, quantity, name, set_code, collector, section, _, forge = card_line
    if not sb and section is None and (set_code is None or forge):
        cache: dict[str, Any] = _LINES
        value: _Plain | _CardLine
        if quantity == 1 and set_code is None and collector is None and text is original:
            value = name  # the common "1 Name": one object fewer to reach per line
        else:
            value = (quantity, name, set_code, collector, text)
    else:
        cache, value = _MARKED_LINES, card_line
    if len(_LINES) + len(_MARKED_LINES) >= _LINES_MAX:  # one bound for both
        _LINES.clear()
        _MARKED_LINES.clear()
    cache[original] = value


def _read_clean(line: str) -> _Reading | None:
    # The same steps and conditions as `_Reader._quantity` and `_card_line`, success only.
    match = _QTY_LINE.fullmatch(line)
    if match is not None:
        digits, rest = match.groups()
        if not (len(digits) < 4 and digits[0] != "0" and rest not in ("x", "X")):
            return None
        quantity = int(digits)
    else:
        first, second = line[:1], line[1:2]
        if (
            not first
            or "0" <= first <= "9"
            or (first == "-" and second.isdigit())
            or (first in "xX" and second in ("", " "))
        ):
            return None
        quantity, rest = 1, line
    if len(rest) > _MAX_LINE_CHARS:
        return None
    tail = split_tail(rest)
    if tail.error or not tail.name or name_issue(tail.name, None, None) is not None:
        return None
    return (
        quantity,
        tail.name,
        tail.set_code,
        tail.collector,
        tail.section,
        tail.source,
        "|" in rest,
    )


class _Reader:
    """State while reading lines: current section, and what the blank-line rule needs."""

    def __init__(self) -> None:
        self.deck = Deck()
        self.section = _MAIN
        self.section_source: str | None = None  # "arena-section" under a Commander header
        self.label: str | None = None  # the current section's header as written ("Maybeboard")
        self.mode = "cards"  # or "about" (Arena About block) or "metadata" (Forge)
        self.saw_header = False  # a header other than Commander/Companion (`_enter`)
        self.saw_sb_prefix = False
        self.arena = False
        self.forge = False
        # MTGO .txt: blank lines split the list into blocks, one of which may be the
        # sideboard (`_blank_line_sideboard`).
        self.gap = False
        self.seen_card_line = False
        self.unmarked: list[DeckEntry] = []  # main-deck lines with no header or marker
        self.block_starts: list[int] = []  # where each block after the first begins in it
        # Lines read when a Commander/Companion header was met: a blank line after its cards
        # ends that section (`feed`).
        self.lead_mark = 0

    def read(self, lines: list[str]) -> None:
        """Feed every line. A run of plain card lines read before (`_LINES`) becomes its
        entries in one go (`_plain_run`); another card line read before (`_MARKED_LINES`)
        skips straight to its entry."""
        hits = list(map(_LINES.get, lines))  # None: any line that is not a known plain one
        known, entries, unmarked = _MARKED_LINES, self.deck.entries, self.unmarked
        count, position = len(hits), 0
        while position < count:
            if hits[position] is not None and self.mode == "cards":  # cached: card lines
                try:
                    end = hits.index(None, position)
                except ValueError:
                    end = count
                self._plain_run(hits, lines, position, end)
                position = end
                continue
            raw = lines[position]
            position += 1
            number = position
            hit = known.get(raw)
            if hit is None or self.mode != "cards":
                hit = self.feed(number, raw)
                if hit is None:
                    continue
            else:
                if self.gap:  # the blank-line rule (`_card_line`)
                    self._new_block()
                self.seen_card_line = True
                if hit[1]:
                    self.saw_sb_prefix = True
            # The entry of a card line (`_card_line` read it, or an earlier deck did).
            text, sb, quantity, name, set_code, collector, tail_section, tail_source, forge = hit
            if tail_section is not None:
                section, source, explicit = tail_section, tail_source, True
                # The category that chose a section other than the commander's (`split_tail`).
                board = None if tail_section is _CMDR else tail_source
            elif sb:
                section, source, explicit, board = _SIDE, None, True, None
            else:
                section, source, explicit = self.section, self.section_source, False
                board = self.label
            if set_code is not None and not forge:
                self.arena = True
            entry = DeckEntry(
                quantity, name, section, number, set_code, collector, text, None, board
            )
            entries.append(entry)
            if section is _CMDR and self.deck.commander_source is None:
                self.deck.commander_source = source or "arena-section"
            if not explicit and section is _MAIN:
                unmarked.append(entry)

    def _plain_run(self, hits: list, raws: list[str], start: int, end: int) -> None:
        """The entries of lines start+1..end, all plain card lines read before."""
        if self.gap:  # the blank-line rule (`_card_line`)
            self._new_block()
        self.seen_card_line = True
        section, board = self.section, self.label
        lines = zip(range(start + 1, end + 1), hits[start:end], raws[start:end])
        added = [
            DeckEntry(1, value, section, number, None, None, raw, None, board)
            if value.__class__ is str  # "1 NAME": the name, the line is the text
            else DeckEntry(
                value[0], value[1], section, number, value[2], value[3], value[4], None, board
            )
            for number, value, raw in lines
        ]
        self.deck.entries += added
        if section is _MAIN:
            self.unmarked += added
        elif section is _CMDR and self.deck.commander_source is None:
            self.deck.commander_source = self.section_source or "arena-section"

    def feed(self, number: int, raw: str) -> _CardLine | None:
        """Read one line; a card line that reads is returned for `read` to add."""
        line = " ".join(raw.split())
        if not line:
            self.gap = True
            if self.mode == "about":
                self.mode = "cards"  # Arena's About block ends at the blank line
            elif self.section in _LEAD and self._lines_read() > self.lead_mark:
                # A Commander or Companion section holds its one or two cards; the blank line
                # after them ends it (Arena writes a `Deck` header next, which reads the same;
                # a hand-made list may not, and its deck must not become 99 commanders).
                self.section, self.section_source, self.label = _MAIN, None, None
            return None
        first = line[0]
        if first == "#" or line.startswith("//"):
            self._comment(line)
        elif first == "[" and line[-1] == "]":
            self._bracket_header(number, raw, line[1:-1].strip())
        elif self.mode == "metadata":
            self._metadata(number, raw, line)
        elif not ("0" <= first <= "9") and len(line) <= 40 and self._header(line, bare=True):
            pass
        elif self.mode == "about":
            self._about(number, raw, line)
        else:
            return self._card_line(number, raw, line)
        return None

    # --- headers, comments, metadata ---------------------------------------------------

    def _header(self, line: str, bare: bool) -> bool:
        key = header_key(line)
        known: SectionName | None = None
        if key in _GROUP_HEADERS:  # "Creatures", "Lands": they sort, not section
            self.saw_header = True
        elif key == "about":
            self.saw_header = True
            self.mode = "about"
        elif (known := lookup_section(line)) is not None and (known.bare or not bare):
            self._enter(known.section, label=section_label(line))
        else:
            return False
        if bare and key in _ARENA_HEADERS:
            self.arena = True
        return True

    def _enter(
        self, section: Section, source: str = "arena-section", label: str | None = None
    ) -> None:
        self.section = section
        self.section_source = source if section is _CMDR else None
        self.label = label
        self.mode = "cards"
        if section in _LEAD:
            # Marks its own cards only: the rest of the list reads as if it were not there
            # (a blank line after the main deck still starts the sideboard).
            self.lead_mark = self._lines_read()
        else:
            self.saw_header = True

    def _lines_read(self) -> int:
        """Card lines read so far (an entry or an issue each)."""
        return len(self.deck.entries) + len(self.deck.issues)

    def _comment(self, line: str) -> None:
        body = line.lstrip("#/").strip()
        if not body or len(body) > 40:
            return
        if body[:5].lower() == "name:" and self.deck.name is None:
            self.deck.name = clip(body[5:].strip(), 200) or None
            return
        self._header(body, bare=False)  # "// Sideboard" is a header; other comments are not

    def _bracket_header(self, number: int, raw: str, word: str) -> None:
        key = word.lower()
        if key in _FORGE_SECTIONS:
            self.forge = True
        if key == "metadata":
            self.saw_header = True
            self.mode = "metadata"
        elif not self._header(word, bare=False):
            # Never silent: a warning naming it; its cards are still counted where they were.
            self.deck.issues.append(
                ParseIssue(
                    number,
                    f"unknown section [{clip(word, 60)}]; its cards are counted in the "
                    f"current section ({self.label or self.section.value})",
                    clip(raw.rstrip()),
                    "unknown-section",
                )
            )

    def _metadata(self, number: int, raw: str, line: str) -> None:
        key, sep, value = line.partition("=")
        if not sep:
            self.deck.issues.append(
                ParseIssue(
                    number, "expected 'key=value' in the [metadata] section", clip(raw.rstrip())
                )
            )
        elif key.strip().lower() == "name" and value.strip():
            self.deck.name = clip(value.strip(), 200)

    def _about(self, number: int, raw: str, line: str) -> None:
        if line[:5].lower() == "name " and len(line) > 5:
            self.deck.name = clip(line[5:], 200)
        else:
            self.deck.issues.append(
                ParseIssue(
                    number, "expected 'Name <deck name>' in the About section", clip(raw.rstrip())
                )
            )

    # --- card lines -------------------------------------------------------------------

    def _card_line(self, number: int, original: str, line: str) -> _CardLine | None:
        raw = clip(original.rstrip())  # the text entries and issues quote
        if self.gap:
            self._new_block()
        self.seen_card_line = True
        sb = line[:3].lower() == "sb:"
        if sb:
            line = line[3:].lstrip()
            self.saw_sb_prefix = True
        reading = _read_clean(line)
        if reading is not None:
            card_line = (raw, sb, *reading)
            _keep(original, card_line)
            return card_line
        # The line has something to report: read it step by step.
        quantity, rest = self._quantity(number, raw, line)
        if rest is None:
            return None
        if len(rest) > _MAX_LINE_CHARS:
            self._issue(
                number,
                raw,
                f"line is {len(line):,} characters long; a card line "
                f"has at most {_MAX_LINE_CHARS:,}",
            )
            return None
        tail = split_tail(rest)
        if tail.error or not tail.name:
            self._issue(number, raw, tail.error or "no card name on this line")
            return None
        too_long = name_issue(tail.name, number, raw)
        if too_long is not None:
            self.deck.issues.append(too_long)
            return None
        return (
            raw,
            sb,
            quantity,
            tail.name,
            tail.set_code,
            tail.collector,
            tail.section,
            tail.source,
            "|" in rest,
        )

    def _new_block(self) -> None:
        """A card line after a blank line: a new block (`_blank_line_sideboard`)."""
        self.gap = False
        if self.seen_card_line:
            self.block_starts.append(len(self.unmarked))

    def _quantity(self, number: int, raw: str, line: str) -> tuple[int, str | None]:
        """(quantity, rest of the line); rest is None when the line gave an issue instead."""
        match = _QTY_LINE.fullmatch(line)
        if match is not None:
            digits, rest = match.groups()
            if len(digits) < 4 and digits[0] != "0" and rest not in ("x", "X"):
                return int(digits), rest  # the common case: 1..999, nothing to check
            value = digits_value(digits)
            issue = quantity_issue(value, digits, number, raw)
            if issue is not None:
                self.deck.issues.append(issue)
                return 0, None
            if rest in ("x", "X"):
                return self._issue(number, raw, "no card name after the quantity")
            return value or 0, rest
        first = line[:1]
        if not first:
            return self._issue(number, raw, "no card name after 'SB:'")
        if "0" <= first <= "9":
            if line.isdigit():
                return self._issue(number, raw, "a quantity needs a card name after it")
            return self._issue(number, raw, "cannot read the quantity at the start of the line")
        if first == "-" and line[1:2].isdigit():
            self.deck.issues.append(
                ParseIssue(number, "quantity must be at least 1", raw, "bad-quantity")
            )
            return 0, None
        if first in "xX" and line[1:2] in ("", " "):
            return self._issue(number, raw, "missing quantity before 'x'")
        return 1, line

    def _issue(self, number: int, raw: str, message: str) -> tuple[int, None]:
        self.deck.issues.append(ParseIssue(number, message, raw, "unreadable-line"))
        return 0, None

    def finish(self, input_format: str | None) -> Deck:
        deck = self.deck
        if not (self.saw_header or self.saw_sb_prefix) and self.block_starts:
            for entry in _blank_line_sideboard(self.unmarked, self.block_starts):
                entry.section = _SIDE
        if input_format is not None:
            deck.input_format = input_format
        else:
            deck.input_format = "forge" if self.forge else "arena" if self.arena else "text"
        return deck


#: CR 100.4a: a constructed sideboard holds at most 15 cards; 100.2a: a constructed main deck
#: at least 60; 903.5a: a Commander deck exactly 100 (a companion outside them, 903.11a);
#: 903.3, 702.124: a deck has one commander, or two with a partner ability.
_MAX_SIDEBOARD = 15
_MIN_MAIN = 60
_COMMANDER_TOTALS = (100, 101)
_MAX_COMMANDERS = 2


def _blank_line_sideboard(unmarked: list[DeckEntry], starts: list[int]) -> list[DeckEntry]:
    """The entries the blank lines make the sideboard, in a list with no section headers.

    Blank lines split the list into blocks (blocks with no unmarked lines, a Commander
    section's cards or `*CMDR*` lines, do not count). MTGO's .txt export has two: the main
    deck, then the sideboard (at most 15 cards in constructed, CR 100.4a; in a Commander export
    the commander, with the companion if any). A "commander block" below holds one or two cards
    (CR 903.3, 702.124); read as the sideboard, it is where designation finds the commander.
    The sideboard is:
    - of two blocks (MTGO's shape): the last, unless it holds more cards than the first and the
      first is a commander block (pasted first). So an oversize sideboard (60 main, 16 after the
      blank line) stays the sideboard, and so does a draft pool's (more than its 40-card deck).
    - of three or more (never an MTGO export; the blank lines may only group the main deck,
      "creatures, spells, lands"):
      1. a first commander block in a list of 100 cards (101 with a companion; CR 903.5a),
         unless the last block is a commander block too (MTGO's commander last: read by 2.);
      2. else the last block, when it holds no more cards than the blocks before it and either
         at most 15 (CR 100.4a) or follows at least 60 (100.2a: a main deck's minimum); a
         larger last block after fewer is the main deck's last group ("16 creatures, 20
         spells, 24 lands"), not a sideboard;
      3. else a first commander block; else none.
    """
    if len(starts) == 1 and 0 < starts[0] < len(unmarked):  # two blocks: every MTGO export
        return _of_two_blocks(unmarked[: starts[0]], unmarked[starts[0] :])
    bounds = [0, *starts, len(unmarked)]
    spans = [(start, end) for start, end in zip(bounds, bounds[1:]) if start < end]
    if len(spans) < 2:
        return []
    first, last = unmarked[slice(*spans[0])], unmarked[slice(*spans[-1])]
    if len(spans) == 2:  # two blocks once those of no unmarked line are left out
        return _of_two_blocks(first, last)
    # Each entry's quantity read once, each block summed from a slice: one pass over the
    # entries, not one per block.
    quantities = [entry.quantity for entry in unmarked]
    cards = [sum(quantities[start:end]) for start, end in spans]
    before = sum(cards[:-1])
    commander_first = cards[0] <= _MAX_COMMANDERS
    if commander_first and cards[-1] > _MAX_COMMANDERS and sum(cards) in _COMMANDER_TOTALS:
        return first
    if cards[-1] <= before and (cards[-1] <= _MAX_SIDEBOARD or before >= _MIN_MAIN):
        return last
    return first if commander_first else []


def _of_two_blocks(first: list[DeckEntry], last: list[DeckEntry]) -> list[DeckEntry]:
    """The sideboard of two blocks (`_blank_line_sideboard`): the last, unless the first is a
    commander block (one or two cards, CR 903.3, 702.124) and the last holds more. The first
    block is summed only until it passes two cards: most decks are decided by their first
    line, not by summing both blocks."""
    held = 0
    for entry in first:
        held += entry.quantity
        if held > _MAX_COMMANDERS:
            return last
    return first if sum([entry.quantity for entry in last]) > held else last
