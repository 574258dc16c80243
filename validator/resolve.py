"""Decklist names -> cards: exact and folded names only, never a prefix, with suggestions.

Two card sources share one protocol: `CardDB` (one query per deck; a single validation) and
`CardIndex` (every deck card in memory; an organizer's hundreds of decks or a web service).
"""

from __future__ import annotations

from typing import Iterable, Protocol, Sequence

from .model import Card, Deck, Problem, ResolvedDeck, ResolvedEntry, Section, Severity
from .names import fold_name


class CardSource(Protocol):
    def lookup(self, names: Iterable[str]) -> dict[str, list[Card]]: ...

    def all_names(self) -> list[str]: ...

    def printing(self, set_code: str, collector_number: str) -> tuple[str, str] | None: ...

    def card_by_id(self, oracle_id: str) -> Card | None: ...

    def rarities(self, oracle_id: str) -> set[str] | None: ...


class CardIndex:
    """Every deck card in memory, keyed by folded name: lookups are dict hits.

    Printings (set + collector number, rarities) stay in the database `printings`, asked only
    for the rare line whose name does not resolve and for Pauper Commander's commander.
    """

    def __init__(self, cards: Iterable[tuple[Iterable[str], Card]] = (), printings=None):
        self._by_name: dict[str, list[Card]] = {}
        self._by_id: dict[str, Card] = {}
        for names, card in cards:
            self.add(card, names)
        self._names: list[str] | None = None
        self._printings = printings  # a CardDB, or None

    @classmethod
    def from_db(cls, db) -> "CardIndex":  # db: CardDB
        return cls(db.all_cards(), printings=db)

    def add(self, card: Card, names: Iterable[str] = ()) -> None:
        from .cardfacts import lookup_names

        self._by_id[card.oracle_id] = card
        for folded in set(names) | {f for f, _ in lookup_names(card)}:
            self._by_name.setdefault(folded, []).append(card)

    def lookup(self, names: Iterable[str]) -> dict[str, list[Card]]:
        out = {}
        for name in names:
            folded = fold_name(name)
            if folded in self._by_name:
                out[folded] = self._by_name[folded]
        return out

    def all_names(self) -> list[str]:
        if self._names is None:
            self._names = sorted({c.name for c in self._by_id.values()})
        return self._names

    def printing(self, set_code: str, collector_number: str) -> tuple[str, str] | None:
        return self._printings.printing(set_code, collector_number) if self._printings else None

    def rarities(self, oracle_id: str) -> set[str] | None:
        return self._printings.rarities(oracle_id) if self._printings else None

    def card_by_id(self, oracle_id: str) -> Card | None:
        return self._by_id.get(oracle_id)

    def __len__(self) -> int:
        return len(self._by_id)


def choose(folded: str, candidates: Sequence[Card]) -> list[Card]:
    """Narrow the cards a name matched: a card's own full name beats a face of another card
    ("Ancestral Recall" is the Vintage card, not the face of "Emeritus of Ideation // Ancestral
    Recall"), and the front face beats a back face."""
    if len(candidates) <= 1:
        return list(candidates)
    full = [c for c in candidates if fold_name(c.name) == folded]
    if full:
        return full
    front = [c for c in candidates if fold_name(c.front_name) == folded]
    return front or list(candidates)


_PROCESSED: dict[int, tuple[list[str], list[str]]] = {}


def suggestions(name: str, source: CardSource, limit: int = 3, *,
                short_names: bool = False) -> list[str]:
    """Names close to an unknown one, for "did you mean".

    Plain edit-distance ratio on whole names: a typo ("Lightnig Bolt") or a missing
    apostrophe ("Smugglers Copter") scores high, while names that merely share a word ("the")
    do not. With `short_names`, a name that is the start of card names, as players call a
    commander by its first name ("Tymna" for "Tymna the Weaver", "Kraum" for "Kraum, Ludevic's
    Opus"), suggests them too. The processed name list is built once per card source.
    """
    from rapidfuzz import fuzz, process, utils

    names = source.all_names()
    cached = _PROCESSED.get(id(names))
    if cached is None or cached[0] is not names:
        cached = _PROCESSED[id(names)] = (names, [utils.default_process(n) for n in names])
    query = utils.default_process(name)
    matches = process.extract(query, cached[1], scorer=fuzz.ratio,
                              processor=None, limit=limit, score_cutoff=80)
    found = [names[index] for _, _, index in matches]
    if short_names and len(found) < limit and query:
        start = query + " "
        found += [n for n, folded in zip(names, cached[1])
                  if folded.startswith(start) and n not in found][:limit - len(found)]
    return found


#: "Did you mean" is searched for this many unknown names per deck; a list of thousands of
#: unknown names (hostile, or not a decklist) gets plain "unknown card" problems past them.
MAX_SUGGESTED_NAMES = 20


def resolve(deck: Deck, source: CardSource, *, suggest: bool = True) -> ResolvedDeck:
    """Match every entry of `deck` to a card; unknown names and unreadable lines become
    problems, so every input line is accounted for."""
    resolved = ResolvedDeck(deck=deck)
    for issue in deck.issues:
        resolved.problems.append(Problem(
            code=issue.code, message=f"line {issue.line}: {issue.message}" if issue.line else issue.message,
            citation="deckcheck:input",
            severity=Severity.INFO if issue.code in NOTE_CODES else Severity.ERROR,
            lines=(issue.line,) if issue.line else ()))
    wanted = [e for e in deck.entries if e.section != Section.IGNORED]
    found = source.lookup(e.name for e in wanted if can_look_up(e.name))
    suggested = 0
    for entry in wanted:
        folded = fold_name(entry.name)
        cards = choose(folded, found.get(folded, []))
        if (not cards and entry.set_code and entry.collector_number
                and can_look_up(entry.set_code + entry.collector_number)):
            hit = source.printing(entry.set_code, entry.collector_number)
            if hit:
                card = source.card_by_id(hit[0])
                cards = [card] if card else []
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
        elif cards:
            resolved.unresolved.append(entry)
            names = sorted({c.name for c in cards})
            resolved.problems.append(Problem(
                code="ambiguous-card",
                message=f"{entry.name!r} could be any of: {'; '.join(names)}; write the full name",
                citation="deckcheck:input", cards=tuple(names), lines=_lines(entry)))
        else:
            resolved.unresolved.append(entry)
            hint = []
            if suggest and suggested < MAX_SUGGESTED_NAMES and can_look_up(entry.name):
                suggested += 1
                hint = suggestions(entry.name, source)
            where = f"line {entry.line}: " if entry.line else ""
            message = f"{where}unknown card {entry.name!r}"
            if hint:
                message += f"; did you mean {' or '.join(repr(h) for h in hint)}?"
            resolved.problems.append(Problem(
                code="unknown-card", message=message, citation="deckcheck:input",
                cards=(entry.name,), lines=_lines(entry)))
    return resolved


#: Parse issue codes that are notes about how the input was read, not errors in the deck
#: (a JSON field ignored, a Cockatrice tokens zone read but not counted).
NOTE_CODES = frozenset({"ignored-field", "skipped-cards"})


def meld_result_problem(card: Card, lines: tuple[int, ...] = (),
                        where: str = "") -> Problem:
    """CR 712.4b / 712.1: the back face of a meld pair is not a card; name the two cards that
    meld into it."""
    if card.meld_from:
        parts = " and ".join(card.meld_from)
        how = f"it exists only when {parts} meld; list those two cards instead"
    else:  # a database synced before meld parts were recorded
        how = "it exists only when its two meld cards meld; list those instead"
    return Problem("meld-result", f"{where}{card.name} is the back face of a meld pair, not a "
                   f"card: {how} (CR 712.4b)", "CR 712.4b",
                   cards=(card.name, *card.meld_from), lines=lines)


def can_look_up(text: str) -> bool:
    """No card name holds a NUL or a lone surrogate, and databases refuse them in a query
    (PostgreSQL raises on NUL, SQLite cannot encode a surrogate): such a name is unknown."""
    if "\x00" in text:
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _lines(entry) -> tuple[int, ...]:
    return (entry.line,) if entry.line else ()
