"""Decklist names -> cards: exact and folded names only, never a prefix, with suggestions.

Two card sources share one protocol: `CardDB` (one query per deck; a single validation) and
`CardIndex` (every deck card in memory; an organizer's hundreds of decks or a web service).
"""

from __future__ import annotations

import re
from dataclasses import replace
from operator import attrgetter

from validator.cards.names import lookup_key
from validator.cards.printed import ALT_NAME, alt_names, script_of
from validator.decklist.base import NOTE_CODES, WARNING_CODES, unusable_text
from validator.model import (
    Card,
    Deck,
    NameReading,
    Problem,
    ResolvedDeck,
    ResolvedEntry,
    Section,
    Severity,
)
from validator.rules.other_names import deck_language, read_other_name, script_suggestions
from validator.store.index import CardIndex
from validator.store.source import CardSource, choose


class _Suggester:
    """ "Did you mean" for one card source's name list: the names processed once, grouped by
    length, and every answer cached (decks repeat the same unknown names).

    fuzz.ratio is 100 * (1 - indel distance / (len(a) + len(b))), and the indel distance is at
    least the length difference, so a name can reach the cutoff of 80 only when
    5 * |len(a) - len(b)| <= len(a) + len(b): only names of those lengths are scored. The
    candidates keep the list's order, so ties come out as when every name was scored."""

    MAX_CACHED = 50_000  # answers kept per source; the cache starts over when full

    def __init__(self, names: list[str]):
        from rapidfuzz import utils

        self.source_names = names
        # Each face of a multi-face card is a name too, after the whole names: a list names
        # such a card by its front face ("Nissa, Vastwood Seer"), as MTGO and Arena export it,
        # and a face read as its card (resolve) is a face a typo may be close to.
        whole = set(names)
        faces = dict.fromkeys(
            face for n in names if " // " in n for face in n.split(" // ") if face not in whole
        )
        self.names = names + list(faces)
        self.processed = [utils.default_process(n) for n in self.names]
        self.by_length: dict[int, list[int]] = {}
        for i, p in enumerate(self.processed):
            self.by_length.setdefault(len(p), []).append(i)
        self.candidates: dict[int, tuple[list[int], list[str]]] = {}
        self.answers: dict[tuple[str, int], list[str]] = {}

    def _candidates(self, length: int) -> tuple[list[int], list[str]]:
        found = self.candidates.get(length)
        if found is None:
            ids = sorted(
                i
                for n, group in self.by_length.items()
                if 5 * abs(length - n) <= length + n
                for i in group
            )
            found = self.candidates[length] = (ids, [self.processed[i] for i in ids])
        return found

    def __call__(self, name: str, limit: int) -> list[str]:
        key = (name, limit)
        answer = self.answers.get(key)
        if answer is None:
            from rapidfuzz import fuzz, process, utils

            query = utils.default_process(name)
            if not query:
                # No letter or digit ("???", "—"): every name of none ("_____") would score
                # 100 against it; nothing is close to such a name.
                return []
            ids, choices = self._candidates(len(query))
            matches = process.extract(
                query, choices, scorer=fuzz.ratio, processor=None, limit=limit, score_cutoff=80
            )
            answer = [self.names[ids[index]] for _, _, index in matches]
            if len(self.answers) >= self.MAX_CACHED:
                self.answers.clear()
            self.answers[key] = answer
        return list(answer)


#: Suggesters by the identity of a source's name list (a few sources per process at most).
_SUGGESTERS: dict[int, _Suggester] = {}
_MAX_SOURCES = 8


def suggestions(
    name: str, source: CardSource, limit: int = 3, *, short_names: bool = False
) -> list[str]:
    """Names close to an unknown one, for "did you mean".

    Plain edit-distance ratio on whole names: a typo ("Lightnig Bolt") or a missing
    apostrophe ("Smugglers Copter") scores high, while names that merely share a word ("the")
    do not. With `short_names`, a name that is the start of card names, as players call a
    commander by its first name ("Tymna" for "Tymna the Weaver", "Kraum" for "Kraum, Ludevic's
    Opus"), suggests them too. The processed name list is built, and answers are cached, once
    per card source.
    """
    names = source.all_names()
    suggester = _SUGGESTERS.get(id(names))
    if suggester is None or suggester.source_names is not names:
        if len(_SUGGESTERS) >= _MAX_SOURCES:
            _SUGGESTERS.pop(next(iter(_SUGGESTERS)))
        suggester = _SUGGESTERS[id(names)] = _Suggester(names)
    found = suggester(name, limit)
    if short_names and len(found) < limit:
        from rapidfuzz import utils

        query = utils.default_process(name)
        if query:
            start = query + " "
            more = [
                n
                for n, folded in zip(names, suggester.processed)
                if folded.startswith(start) and n not in found
            ]
            found += sorted(more, key=lambda n: _short_name_rank(n, name))[: limit - len(found)]
    return found


def _short_name_rank(full: str, short: str) -> tuple[int, int, str]:
    """How a card name reads as the full name of `short`, best first: a legend's "Name, Title"
    or "Name the/of ..." (what a first name stands for), then any other name it starts, a
    possessive ("Krenko's Command") last; then shorter names first, then by name. The same
    order from any card source, whatever order its names come in."""
    rest = full[len(short) :].lstrip() if full.lower().startswith(short.lower()) else full
    if rest.startswith(","):
        rank = 0
    elif rest.split(" ", 1)[0].lower() in ("the", "of"):
        rank = 1
    elif rest.startswith(("'", "\u2019")):
        rank = 3
    else:
        rank = 2
    return rank, len(full), full


#: "Did you mean" is searched for this many unknown names per deck; a list of thousands of
#: unknown names (hostile, or not a decklist) gets plain "unknown card" problems past them.
MAX_SUGGESTED_NAMES = 20


_NAME, _SECTION = attrgetter("name"), attrgetter("section")
#: Sections whose lines `resolve` does not match the common way: ignored lines, and the
#: supplementary decks (stickers, Attractions), which are looked at apart.
_APART = frozenset({Section.IGNORED, Section.STICKER, Section.ATTRACTION})


#: A reader's issue is a note or a warning by its code; any other is a line not read (an error).
_ISSUE_SEVERITY = dict.fromkeys(NOTE_CODES, Severity.INFO) | dict.fromkeys(
    WARNING_CODES, Severity.WARNING
)


def resolve(deck: Deck, source: CardSource, *, suggest: bool = True) -> ResolvedDeck:
    """Match every entry of `deck` to a card; unknown names and unreadable lines become
    problems, so every input line is accounted for."""
    resolved = ResolvedDeck(deck=deck)
    for issue in deck.issues:
        resolved.problems.append(
            Problem(
                code=issue.code,
                message=f"line {issue.line}: {issue.message}" if issue.line else issue.message,
                citation="deckcheck:input",
                severity=_ISSUE_SEVERITY.get(issue.code, Severity.ERROR),
                lines=(issue.line,) if issue.line else (),
            )
        )
    # A name written the same way resolves to the same card for the same source: an index
    # keeps the names that gave one card of a deck (`_remember`), so most lines of a deck are
    # one dict hit. Only the other names are folded and looked up, in one batch (one query
    # for a database).
    known: dict[str, Card] = source.deck_cards if isinstance(source, CardIndex) else {}
    entries = deck.entries
    hits = list(map(known.get, map(_NAME, entries)))
    # Every line named a card it named before (most decks of a run), and no line is in a
    # section looked at apart (ignored, supplementary: below): one pass each, in C. all(): a
    # Card is never false, and `None in hits` would call Card.__eq__ on each.
    together = _APART.isdisjoint(map(_SECTION, entries))
    if all(hits) and together:
        resolved.entries = list(map(ResolvedEntry, entries, hits))  # type: ignore[arg-type]
        return resolved
    # A deck in another language: its other names were read before too (`read_names`).
    read_names = source.read_names if isinstance(source, CardIndex) else None
    if read_names and together and _all_read(resolved, entries, hits, read_names):
        return resolved
    ignored = Section.IGNORED
    supplementary = (Section.STICKER, Section.ATTRACTION)  # looked at apart (below)
    wanted = [e for e in entries if e.section != ignored]
    hits = [known.get(e.name) if e.section not in supplementary else None for e in wanted]
    folded_names = {e.name: lookup_key(e.name) for e, hit in zip(wanted, hits) if hit is None}
    if not folded_names:
        found = {}
    else:
        # can_look_up, its common case (ASCII, no NUL) inlined: a call per line otherwise.
        found = source.lookup_folded(
            {
                f
                for n, f in folded_names.items()
                if (n.isascii() and "\x00" not in n) or can_look_up(n)
            }
        )
    suggested = 0
    latin_unknown: list[tuple[int, str]] = []  # (problem index, name): `_suggest_in_deck_language`
    alt = alt_names()
    out = resolved.entries
    for entry, card in zip(wanted, hits):
        if card is not None:
            out.append(ResolvedEntry(entry, card))
            continue
        folded = folded_names[entry.name]
        candidates = found.get(folded, ())
        if len(candidates) == 1:
            card = candidates[0]
            # Most lines: one card that is no meld result (CR 712.4b), sticker sheet (123.2)
            # or Attraction (717.2), in no supplementary section: the last branch below, with
            # the facts those properties read tested inline.
            if not (
                card.meld_from
                or card.layout == "meld"
                or card.type_line == "Stickers"
                or "Attraction" in card.subtypes
                or entry.section in supplementary
                or folded in alt
            ):
                out.append(ResolvedEntry(entry, card))
                _remember(known, entry.name, card)
                continue
        cards = candidates if len(candidates) == 1 else choose(folded, candidates)
        reading, reread = None, True
        if folded in alt and len(cards) == 1:
            # An MTGO/Arena name the database knows as an alias (`sync --printings`): said.
            reading = NameReading(entry.line, entry.name, cards[0].name, ALT_NAME)
        if not cards:
            # Not an Oracle name: an MTGO/Arena name, a bilingual line, another language's.
            cards, reading, problems = read_other_name(entry, source)
            if problems:
                reread = False  # its problem is said again each time
                resolved.problems += problems
                if not cards:  # a name of several cards: never a guess
                    resolved.unresolved.append(entry)
                    continue
        if (
            not cards
            and entry.set_code
            and entry.collector_number
            and can_look_up(entry.set_code + entry.collector_number)
        ):
            hit = source.printing(entry.set_code, entry.collector_number)
            if hit:
                card = source.card_by_id(hit[0])
                cards = [card] if card else []
        if reading is not None and len(cards) == 1:
            resolved.readings.append(reading)
        if len(cards) == 1 and cards[0].is_meld_result:
            # CR 712.4b: never a card of the deck; counted like an unknown name, so that it
            # gives one problem rather than also "deck too small".
            resolved.unresolved.append(entry)
            resolved.not_cards.add((entry.name, entry.line))
            resolved.problems.append(meld_result_problem(cards[0], _lines(entry)))
        elif len(cards) == 1 and (cards[0].is_sticker_sheet or entry.section == Section.STICKER):
            # CR 123.2: not cards; a non-sheet in a Stickers section is reported by the check.
            resolved.sticker_sheets.append(ResolvedEntry(entry=entry, card=cards[0]))
        elif len(cards) == 1 and (cards[0].is_attraction or entry.section == Section.ATTRACTION):
            # CR 717.2: Attraction cards are not part of the deck.
            resolved.attractions.append(ResolvedEntry(entry=entry, card=cards[0]))
        elif len(cards) == 1:
            resolved.entries.append(ResolvedEntry(entry=entry, card=cards[0]))
            if candidates and reading is None:  # found by its name, not by its printing
                _remember(known, entry.name, cards[0])
            elif reading is not None and reread and read_names is not None:
                if len(read_names) >= MAX_KNOWN_NAMES:
                    read_names.clear()
                read_names[entry.name] = (cards[0], reading.how, reading.language)
        elif cards:
            resolved.unresolved.append(entry)
            names = sorted({c.name for c in cards})
            resolved.problems.append(
                Problem(
                    code="ambiguous-card",
                    message=f"{_path(entry)}{entry.name!r} could be any of: {'; '.join(names)}; "
                    "write the full name",
                    citation="deckcheck:input",
                    cards=tuple(names),
                    lines=_lines(entry),
                )
            )
        else:
            resolved.unresolved.append(entry)
            hint, reordered = [], ""
            if suggest and suggested < MAX_SUGGESTED_NAMES and can_look_up(entry.name):
                suggested += 1
                latin = entry.name.isascii() or script_of(entry.name) == "latin"
                hint = (
                    suggestions(entry.name, source)
                    if latin
                    else script_suggestions(entry.name, source)
                )
                reordered = _quantity_after_name(entry.name, source)
                if latin and not hint and not reordered:
                    latin_unknown.append((len(resolved.problems), entry.name))
            where = f"line {entry.line}: " if entry.line else _path(entry)
            message = f"{where}unknown card {entry.name!r}{reordered}"
            if hint:
                message += f"; did you mean {' or '.join(repr(h) for h in hint)}?"
            resolved.problems.append(
                Problem(
                    code="unknown-card",
                    message=message,
                    citation="deckcheck:input",
                    cards=(entry.name,),
                    lines=_lines(entry),
                )
            )
    if latin_unknown and resolved.readings:
        _suggest_in_deck_language(resolved, latin_unknown, source)
    return resolved


def _suggest_in_deck_language(
    resolved: ResolvedDeck, unknown: list[tuple[int, str]], source: CardSource
) -> None:
    """An unknown name in Latin letters with no English name close to it, in a deck read in
    another language (Italian, French...): suggestions from that language's printed names."""
    language = deck_language(resolved.readings)
    if language is None:
        return
    for index, name in unknown:
        hint = script_suggestions(name, source, language=language)
        if hint:
            problem = resolved.problems[index]
            message = f"{problem.message}; did you mean {' or '.join(repr(h) for h in hint)}?"
            resolved.problems[index] = replace(problem, message=message)


#: Names as written kept per index (`CardIndex.deck_cards`); the dict starts over when full, so
#: a stream of distinct names (hostile input) cannot grow it without bound.
MAX_KNOWN_NAMES = 50_000


#: `Lightning Bolt x4`, `Lightning Bolt 4`: a quantity written after the name.
_TRAILING_QUANTITY = re.compile(r"(.*\S)\s+[xX]?([0-9]{1,5})", re.ASCII)


def _quantity_after_name(name: str, source: CardSource) -> str:
    """For an unknown name that is a card's name followed by a number (`Lightning Bolt x4`),
    a hint to write the quantity first. Only a hint: the line stays an unknown card, since a
    name can end in a number and the list may mean something else."""
    hit = _TRAILING_QUANTITY.fullmatch(name)
    if hit is None or not can_look_up(hit.group(1)):
        return ""
    folded = lookup_key(hit.group(1))
    candidates = source.lookup([hit.group(1)]).get(folded, [])
    cards = choose(folded, candidates)  # as resolve narrows them
    if len(cards) != 1 or not cards[0].is_deck_card:
        return ""
    card = cards[0]
    return (
        f"; if {int(hit.group(2))} is the number of copies, write it first: "
        f"'{int(hit.group(2))} {card.name}'"
    )


def _all_read(
    resolved: ResolvedDeck,
    entries: list,
    hits: list,
    read_names: dict[str, tuple[Card, str, str]],
) -> bool:
    """Fill `resolved` when every line names a card it named before, by its Oracle name or by
    another name read before (`read_names`, whose readings are said again); False, leaving
    `resolved` untouched, when some line does not."""
    readings = []
    cards = list(hits)
    for i, entry in enumerate(entries):
        if cards[i] is None:
            other = read_names.get(entry.name)
            if other is None:
                return False
            cards[i] = other[0]
            readings.append(NameReading(entry.line, entry.name, other[0].name, other[1], other[2]))
    resolved.entries = list(map(ResolvedEntry, entries, cards))
    resolved.readings = readings
    return True


def _remember(known: dict[str, Card], name: str, card: Card) -> None:
    """Keep `name` -> `card`: the name gave this one card of a deck (no meld result, sticker
    sheet or Attraction), and will again from the same source."""
    if len(known) >= MAX_KNOWN_NAMES:
        known.clear()
    known[name] = card


def meld_result_problem(card: Card, lines: tuple[int, ...] = (), where: str = "") -> Problem:
    """CR 712.4b / 712.1: the back face of a meld pair is not a card; name the two cards that
    meld into it."""
    if card.meld_from:
        parts = " and ".join(card.meld_from)
        how = f"it exists only when {parts} meld; list those two cards instead"
    else:  # a database synced before meld parts were recorded
        how = "it exists only when its two meld cards meld; list those instead"
    return Problem(
        "meld-result",
        f"{where}{card.name} is the back face of a meld pair, not a card: {how} (CR 712.4b)",
        "CR 712.4b",
        cards=(card.name, *card.meld_from),
        lines=lines,
    )


def can_look_up(text: str) -> bool:
    """No card name holds a NUL or a lone surrogate, and databases refuse them in a query
    (PostgreSQL raises on NUL, SQLite cannot encode a surrogate): such a name is unknown.
    The same test as the parsers' (`decklist.base.unusable_text`), so both agree."""
    return unusable_text(text) is None


def _lines(entry) -> tuple[int, ...]:
    return (entry.line,) if entry.line else ()


def _path(entry) -> str:
    """For an entry without a line (a JSON deck's item), the prefix naming its JSON path
    ("main[3]: "); a line is named by the problem's `lines`."""
    return f"{entry.where}: " if entry.where and not entry.line else ""
