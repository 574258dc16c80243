"""The library API: open the card database, parse a decklist, validate it against a format.

The CLI is a thin layer over these functions; a site integrating deckcheck calls them directly.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from .checks import GENERIC_CHECKS
from .db import CardDB
from .formats import FormatRules, get_format, load_formats
from .model import Card, Deck, Problem, ResolvedDeck, Section, Severity
from .report import Report, summarize_deck
from .resolve import CardSource, choose, resolve
from .names import fold_name


def open_db(db: str | os.PathLike[str] | None = None) -> CardDB:
    """The synced card database: a path, a SQLAlchemy URL, `DECKCHECK_DB`, or the default."""
    return CardDB(db)


def parse_decklist(data: str | bytes, input_format: str | None = None,
                   filename: str | None = None) -> Deck:
    """Read a decklist in any supported format (see README "Decklist formats")."""
    from .decklist import parse_decklist as _parse

    return _parse(data, input_format=input_format, filename=filename)


def _format(fmt: str | FormatRules, formats: Mapping[str, FormatRules] | None) -> FormatRules:
    return fmt if isinstance(fmt, FormatRules) else get_format(fmt, formats)


def _named_cards(names: Iterable[str], cards: CardSource) -> tuple[list[Card], list[Problem]]:
    """Cards named with --commander; a name that is no card is a usage problem."""
    names = list(names)
    found = cards.lookup(names)
    result, problems = [], []
    for name in names:
        folded = fold_name(name)
        matches = choose(folded, found.get(folded, []))
        if len(matches) == 1:
            result.append(matches[0])
        else:
            problems.append(Problem("unknown-card", f"--commander {name!r} is not a card name "
                                    "(or names more than one card)", "deckcheck:input",
                                    cards=(name,)))
    return result, problems


def check_resolved(deck: ResolvedDeck, fmt: FormatRules, *, commanders: Sequence[Card] = (),
                   rules: Sequence[str] = (), bracket: int | None = None,
                   rarities=None) -> list[Problem]:
    """Every problem of an already resolved deck in one format. Mutates `deck` (commander
    designation moves cards between sections): pass a clone to reuse it."""
    problems = list(deck.problems)
    if fmt.is_commander:
        from .commander import designate_commanders

        problems += designate_commanders(deck, fmt, commanders)
    for check in GENERIC_CHECKS:
        problems += check(deck, fmt)
    if fmt.is_commander:
        from .brackets import bracket_problems
        from .commander import commander_problems

        problems += commander_problems(deck, fmt, rarities)
        if fmt.brackets or bracket is not None:
            problems += bracket_problems(deck, bracket)
    else:
        from .companion import constructed_companion_problems

        problems += constructed_companion_problems(deck, fmt)
    if rules:
        from .companion import house_rule_problems

        for sentence in rules:
            problems += house_rule_problems(deck, fmt, sentence)
    return problems


def _rarities(cards: CardSource) -> Callable[[Card], set[str] | None]:
    """Rarity look-up for Pauper Commander's commander (None when printings were not synced)."""
    return lambda card: cards.rarities(card.oracle_id)


@contextmanager
def _card_source(cards: CardSource | None, db: str | os.PathLike[str] | None) -> Iterator[CardSource]:
    """The caller's card source, or the database at `db`, open for the whole validation."""
    if cards is not None:
        yield cards
        return
    own = open_db(db)
    try:
        yield own
    finally:
        own.close()


@dataclass
class _Prepared:
    """A deck read and resolved once, with its --commander cards, ready for any format."""

    resolved: ResolvedDeck
    commanders: list[Card]
    problems: list[Problem]  # --commander names that are no card
    rarities: Callable[[Card], set[str] | None] | None


def _prepare(deck: Deck | str | bytes, cards: CardSource, commanders: Sequence[str]) -> _Prepared:
    if not isinstance(deck, Deck):
        deck = parse_decklist(deck)
    named, problems = _named_cards(commanders, cards) if commanders else ([], [])
    return _Prepared(resolve(deck, cards), named, problems, _rarities(cards))


def _report(prepared: _Prepared, deck: ResolvedDeck, fmt: FormatRules, source: str | None,
            **options) -> Report:
    problems = prepared.problems + check_resolved(
        deck, fmt, commanders=prepared.commanders, rarities=prepared.rarities, **options)
    report = Report(format=fmt.key, format_name=fmt.name, problems=problems, source=source)
    summarize_deck(report, deck)
    return report


def validate(deck: Deck | str | bytes, format: str | FormatRules, *,
             db: str | os.PathLike[str] | None = None, cards: CardSource | None = None,
             commanders: Sequence[str] = (), rules: Sequence[str] = (),
             bracket: int | None = None, formats: Mapping[str, FormatRules] | None = None,
             source: str | None = None) -> Report:
    """Validate one deck against one format and return its `Report`.

    `deck` is a parsed `Deck` or decklist text. `cards` is a card source (`CardDB`, or a
    `CardIndex` for many decks); without it the database at `db` is opened.
    """
    fmt = _format(format, formats)
    with _card_source(cards, db) as card_source:
        prepared = _prepare(deck, card_source, commanders)
        return _report(prepared, prepared.resolved, fmt, source, rules=rules, bracket=bracket)


def check_formats(deck: Deck | str | bytes, *, db: str | os.PathLike[str] | None = None,
                  cards: CardSource | None = None,
                  formats: Mapping[str, FormatRules] | None = None,
                  commanders: Sequence[str] = (), source: str | None = None) -> list[Report]:
    """Validate one deck against every known format (the deck is read and resolved once)."""
    formats = formats if formats is not None else load_formats()
    with _card_source(cards, db) as card_source:
        prepared = _prepare(deck, card_source, commanders)
        # Commander designation moves cards between sections: each format gets its own copy.
        return [_report(prepared, prepared.resolved.clone(), fmt, source)
                for fmt in formats.values()]


__all__ = ["open_db", "parse_decklist", "validate", "check_formats", "check_resolved",
           "Report", "Problem", "Severity", "Section"]
