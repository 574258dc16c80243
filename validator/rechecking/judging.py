"""One stored deck judged for STATE: its verdict, its problems, the cards it resolved to, and
what a later sync or day can change about it (`state.OPEN`, `state.DATED`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from validator.codes import UNKNOWN_NAMES
from validator.errors import DeckcheckError
from validator.rechecking.records import RowFailure
from validator.rechecking.rows import DeckRow
from validator.rechecking.state import DATED, OPEN, Judgement


def problem_records(report: Any) -> list[dict[str, Any]]:
    """The errors and warnings as STATE keeps them (notes are not part of a verdict)."""
    return [
        {"code": p.code, "severity": p.severity.value, "cards": list(p.cards), "message": p.message}
        for p in report.sorted_problems()
        if p.severity.value != "info"
    ]


#: Up to this many decks to judge with an index, the index holds only the cards they name
#: (`PartialCardIndex`: a few thousand cards read by name), past it every card
#: (`CardIndex.from_db`: one read of all 34,000). Measured on the bulk decks: the partial
#: index costs less up to 12,000 decks and the same at 20,000.
PARTIAL_INDEX_DECKS = 10_000


def reads_named_cards(database: Any, decks: int) -> bool:
    """Whether `decks` decks to judge with an index get the index of the cards they name
    (`named_cards`): few enough, and a database that reads cards by name in bulk."""
    return decks <= PARTIAL_INDEX_DECKS and hasattr(database, "deck_card_rows")


def named_cards(database: Any, decks: Iterable[Any]) -> Any:
    """The in-memory index of the cards these decks (parsed by `parse_row`: a `Deck`, or
    None or an error, skipped) name, read from `database` in one read; a name read another
    way while judging (another language's, a set and number) is read then."""
    from validator.cards.names import lookup_key
    from validator.rules.resolve import can_look_up
    from validator.store.index import PartialCardIndex

    names = {
        e.name
        for d in decks
        if d is not None and not isinstance(d, DeckcheckError)
        for e in d.entries
    }
    cards = PartialCardIndex(database)
    cards.load(lookup_key(n) for n in names if can_look_up(n))
    return cards


def parse_row(row: DeckRow) -> Any:
    """The row's decklist parsed (a `Deck`), or the DeckcheckError parsing it raised (its
    failure, said by `judge_row` after the format's)."""
    from validator.api import parse_decklist

    try:
        return parse_decklist(row.text)
    except DeckcheckError as exc:
        return exc


def judge_row(
    row: DeckRow,
    cards: Any,
    formats: Mapping[str, Any] | None,
    sync_id: int | None,
    today: dt.date,
    deck: Any = None,
) -> Judgement | RowFailure:
    """Judge one deck row; what stops judging it (no decklist, no format) is its failure.
    `deck`: its decklist as `parse_row` gave it, when already parsed."""
    from validator.api import validate
    from validator.rules.formats import get_format

    try:
        fmt = get_format(row.format, formats)
        if deck is None:
            deck = parse_row(row)
        if isinstance(deck, DeckcheckError):
            raise deck
        resolved: list[Any] = []
        report = validate(
            deck,
            fmt,
            cards=cards,
            source=row.id,
            as_of=row.as_of,
            resolved_into=resolved,
        )
    except DeckcheckError as exc:
        return RowFailure(row.id, row.where, str(exc))
    deck = resolved[0]
    ids = {e.card.oracle_id for e in deck.entries}
    if deck.sticker_sheets or deck.attractions:  # supplementary decks: rare
        ids.update(e.card.oracle_id for e in (*deck.sticker_sheets, *deck.attractions))
    flags = 0
    open_names = {e.name for e in deck.unresolved}
    # Names the card data does not know yet (codes.py `unknown_names`): the next sync may bring
    # the card, so the deck is judged again after every sync (`state.OPEN`).
    open_names.update(n for p in report.problems if p.code in UNKNOWN_NAMES for n in p.cards)
    if open_names:
        flags |= OPEN
    if (fmt.points is not None or fmt.lists is not None) and report.as_of is None:
        flags |= DATED  # judged by the list in force today (rules/points.py)
    return Judgement(
        format=fmt.key,
        legality=fmt.legality,
        digest=row.digest,
        verdict=report.verdict,
        problems=problem_records(report),
        cards=frozenset(ids),
        sync_id=sync_id,
        judged_on=today.isoformat(),
        flags=flags,
        open_names=tuple(sorted(open_names)),
    )
