"""The library API: open the card database, parse a decklist, validate it against a format.

The CLI is a thin layer over these functions; a site integrating deckcheck calls them directly.
"""

from __future__ import annotations

import io
import os
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Mapping as _MappingABC
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import IO, Any, cast

from validator.cards.names import lookup_key
from validator.decklist import parse_decklist as _parse_decklist
from validator.decklist.sections import not_counted
from validator.errors import UsageError
from validator.model import Card, Deck, Problem, ResolvedDeck, Section, Severity
from validator.report import Report, summarize_deck
from validator.rules.checks import GENERIC_CHECKS

# Imported here, not in check_resolved: every constructed deck runs them, and an import
# statement in the function costs about a microsecond per deck. Both import only the model
# and the format rules (the companion predicates and reader stay lazy).
from validator.rules.commander.constructed import commander_section_as_deck
from validator.rules.companion import constructed_companion_problems
from validator.rules.formats import FormatError, FormatRules, get_format, load_formats
from validator.rules.resolve import can_look_up, meld_result_problem, resolve, suggestions
from validator.store.source import CardDatabase, CardSource, choose


def open_db(db: str | os.PathLike[str] | None = None) -> CardDatabase:
    """The synced card database: a path, a SQLAlchemy URL, `DECKCHECK_DB`, or the default.

    A SQLite file holding cards is read with the standard library (`store_sqlite.SqliteCards`:
    a cold validation does not import SQLAlchemy); anything else with `db.CardDB`. Both give
    the same cards and the same reports. Raises DatabaseError (with what to do next) when it
    does not exist, its driver is not installed, or it cannot be opened or is not a deckcheck
    card database."""
    from validator.store.sqlite import open_cards

    cards: CardDatabase = open_cards(db)
    try:
        cards.check()
    except BaseException:
        cards.close()
        raise
    return cards


def parse_decklist(
    data: str | bytes | IO[Any], input_format: str | None = None, filename: str | None = None
) -> Deck:
    """Read a decklist in any supported format (see README "Decklist formats"): text, bytes,
    or a file open for reading, binary or text (at most the size limit + 1 is read)."""
    return _parse_decklist(_decklist_data(data), input_format=input_format, filename=filename)


# ---------------------------------------------------------------------- argument checks
# The library's arguments are checked here, once per call and with a few isinstance checks
# (the warm path validates thousands of decks a second): a wrong type is a UsageError naming
# the argument and what to pass, never an AttributeError or TypeError from deep inside.


def _kind(value: Any) -> str:
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name} ({value!r:.60})"


def _decklist_data(data: Any) -> Any:
    """A decklist as `decklist.parse_decklist` takes it: a text stream is read here (at most
    the limit + 1 characters, which its size check refuses); anything else must be text,
    bytes or a binary stream."""
    if isinstance(data, (str, bytes, bytearray, memoryview)):
        return data
    if isinstance(data, io.TextIOBase):
        from validator.decklist import MAX_BYTES

        return data.read(MAX_BYTES + 1)
    if hasattr(data, "read"):
        return data  # a binary stream: read_limited reads at most the limit + 1 bytes
    hint = "; for a JSON deck pass its text (json.dumps)" if isinstance(data, (dict, list)) else ""
    raise UsageError(
        f"a decklist is text (str or bytes), a file open for reading or a Deck "
        f"from parse_decklist; got {_kind(data)}{hint}"
    )


def _strings(value: Any, what: str) -> Sequence[str]:
    """`commanders=` / `rules=`: a list of strings. One string is one name or sentence, not
    its characters."""
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, (list, tuple)):
        try:
            value = () if value is None else tuple(value)
        except TypeError:
            raise UsageError(f"{what}= takes a list of strings; got {_kind(value)}") from None
    for item in value:
        if not isinstance(item, str):
            raise UsageError(f"{what}= takes a list of strings; one item is {_kind(item)}")
    return cast(Sequence[str], value)


def commander_names(value: Any) -> Sequence[str]:
    """The `commanders=` (`--commander`) names, checked: a list of non-empty strings (one
    string is one name); UsageError otherwise."""
    names = _strings(value, "commanders")
    if any(not name.strip() for name in names):
        raise UsageError(
            "a commander's name is empty: give the commander's full card name "
            "(--commander NAME, commanders=[NAME]), or leave it out to use the "
            "deck's own commander"
        )
    return names


#: Types already seen to implement CardSource: a Protocol isinstance check reads every member,
#: a cost the per-deck path should not pay again for each deck.
_SOURCE_TYPES: set[type] = set()


def _check_cards(cards: Any) -> None:
    if cards is None or type(cards) in _SOURCE_TYPES:
        return
    if isinstance(cards, CardSource):
        _SOURCE_TYPES.add(type(cards))
    else:
        what = (
            "; for a database file or URL pass db= instead"
            if isinstance(cards, (str, bytes, os.PathLike))
            else ""
        )
        raise UsageError(
            f"cards= takes an open card source (validator.open_db(...) or a "
            f"CardIndex); got {_kind(cards)}{what}"
        )


def _check_formats_arg(formats: Any) -> None:
    if formats is not None and not isinstance(formats, _MappingABC):
        raise UsageError(
            f"formats= takes a mapping of format names to FormatRules "
            f"(validator.load_formats()); got {_kind(formats)}"
        )


def _format_rules(rules: Any, name: Any) -> FormatRules:
    if not isinstance(rules, FormatRules):
        raise UsageError(
            f"formats= maps format names to FormatRules (validator.load_formats("
            f"'house.toml') reads house formats from TOML); {name!r} is "
            f"{_kind(rules)}"
        )
    return rules


def _format(fmt: str | FormatRules, formats: Mapping[str, FormatRules] | None) -> FormatRules:
    if isinstance(fmt, FormatRules):
        return fmt
    if not isinstance(fmt, str):
        raise UsageError(
            f"format= takes a format name such as 'modern' (`deckcheck formats` "
            f"lists them) or a FormatRules; got {_kind(fmt)}"
        )
    _check_formats_arg(formats)
    return _format_rules(get_format(fmt, formats), fmt)


def _check_bracket_value(bracket: Any) -> None:
    if bracket is not None and (
        isinstance(bracket, bool) or not isinstance(bracket, int) or not 1 <= bracket <= 5
    ):
        raise UsageError(
            f"bracket= takes a Commander Bracket, a whole number 1 to 5, or None; "
            f"got {_kind(bracket)}"
        )


def _named_cards(names: Iterable[str], cards: CardSource) -> tuple[list[Card], list[Problem]]:
    """Cards named with --commander. A name that is no card (or several) stops the
    validation with a UsageError that suggests the names meant: the caller named the
    commander, so no verdict can be given without it. A meld result is a card name but not a
    card (CR 712.4b): a problem of the deck, returned beside the cards."""
    names = list(names)
    found = cards.lookup([n for n in names if can_look_up(n)])  # no NUL reaches PostgreSQL
    result: list[Card] = []
    problems: list[Problem] = []
    for name in names:
        folded = lookup_key(name)
        matches = choose(folded, found.get(folded, []))
        if len(matches) == 1 and matches[0].is_meld_result:
            # CR 712.4b: a meld result is not a card, so it cannot be a commander either.
            problems.append(meld_result_problem(matches[0], where="--commander: "))
            continue
        if len(matches) == 1:
            result.append(matches[0])
            continue
        if matches:
            options = sorted({c.name for c in matches})
            raise UsageError(
                f"commander {name!r} could be any of: {'; '.join(options)}; give the full name"
            )
        hint = suggestions(name, cards, short_names=True)
        raise UsageError(
            f"commander {name!r} is not a card name"
            + (
                f"; did you mean {' or '.join(repr(h) for h in hint)}?"
                if hint
                else "; give the card's full English name"
            )
        )
    return result, problems


def check_resolved(
    deck: ResolvedDeck,
    fmt: FormatRules,
    *,
    commanders: Sequence[Card] = (),
    rules: Sequence[str] = (),
    bracket: int | None = None,
    rarities: Callable[[Card], set[str] | None] | None = None,
    as_of: date | None = None,
    printed_sets: Callable[[Iterable[str]], dict[str, set[str]] | None] | None = None,
) -> list[Problem]:
    """Every problem of an already resolved deck in one format. Mutates `deck` (commander
    designation moves cards between sections): pass a clone to reuse it. `as_of` picks a
    points format's list version (today when None). `printed_sets(oracle ids)` gives the sets
    each card was printed in (None without printings), for a format with legal sets."""
    problems = list(deck.problems)
    if fmt.lists is not None:  # the format's dated ban list as of the deck's date
        from validator.rules.points import list_in_force

        fmt, missing = list_in_force(fmt, as_of or date.today())
        problems += missing
    if fmt.is_commander:
        from validator.rules.commander.designation import designate_commanders

        problems += designate_commanders(deck, fmt, commanders)
    else:  # cards marked as commander are deck cards where there is no commander
        problems += commander_section_as_deck(deck, fmt)
    for check in GENERIC_CHECKS:
        problems += check(deck, fmt)
    if fmt.sets:  # Old School: the card pool is the legal sets (needs printings)
        from validator.rules.sets import set_problems

        problems += set_problems(deck, fmt, printed_sets)
    if fmt.points is not None:
        from validator.rules.points import points_problems

        problems += points_problems(deck, fmt, as_of or date.today())
    if fmt.is_commander:
        from validator.rules.brackets import bracket_problems
        from validator.rules.commander.rules import commander_problems

        problems += commander_problems(deck, fmt, rarities)
        if fmt.brackets or bracket is not None:
            problems += bracket_problems(deck, bracket)
    else:
        problems += constructed_companion_problems(deck, fmt)
    if rules:
        from validator.rules.companion import house_rule_problems

        for sentence in rules:
            problems += house_rule_problems(deck, fmt, sentence)
    return problems


def _rarities(cards: CardSource) -> Callable[[Card], set[str] | None]:
    """Rarity look-up for Pauper Commander's commander (None when printings were not synced)."""
    return lambda card: cards.rarities(card.oracle_id)


@contextmanager
def _card_source(
    cards: CardSource | None, db: str | os.PathLike[str] | None
) -> Iterator[CardSource]:
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
    rarities: Callable[[Card], set[str] | None] | None
    cards: CardSource | None = None
    #: The sets each card was printed in, asked once per deck (check_formats judges it in
    #: every Old School format); None inside: printings are not known.
    _sets: dict[str, set[str]] | None = field(default_factory=dict, repr=False)

    def printed_sets(self, oracle_ids: Iterable[str]) -> dict[str, set[str]] | None:
        """The sets each card was printed in, from the card source's printings."""
        wanted = list(oracle_ids)
        if self._sets is not None and self.cards is not None:
            missing = [oid for oid in wanted if oid not in self._sets]
            if missing:
                found = self.cards.printed_sets(missing)
                if found is None:
                    self._sets = None
                else:
                    self._sets.update(found)
        if self._sets is None or self.cards is None:
            return None
        return {oid: self._sets.get(oid, set()) for oid in wanted}


def _prepare(deck: Deck, cards: CardSource, commanders: Sequence[str]) -> _Prepared:
    named, problems = _named_cards(commanders, cards) if commanders else ([], [])
    resolved = resolve(deck, cards)
    resolved.problems += problems  # a meld result named as commander (CR 712.4b)
    return _Prepared(resolved, named, _rarities(cards), cards)


def _report(
    prepared: _Prepared,
    deck: ResolvedDeck,
    fmt: FormatRules,
    source: str | None,
    as_of: _AsOf | None = None,
    **options: Any,
) -> Report:
    problems = check_resolved(
        deck,
        fmt,
        commanders=prepared.commanders,
        rarities=prepared.rarities,
        as_of=as_of.date if as_of is not None else None,
        printed_sets=prepared.printed_sets,
        **options,
    )
    if fmt.points is not None or fmt.lists is not None:
        day = as_of.date if as_of is not None else date.today()
        from validator.rules.points import point_name_problems, points_month_problems

        problems += point_name_problems(fmt, day, prepared.cards)
        if as_of is not None and as_of.month_only and fmt.points is not None:
            problems += points_month_problems(deck, fmt, day)
    if as_of is not None:
        from validator.history.asof import as_of_problems

        problems = as_of_problems(
            deck, fmt, as_of.history, as_of.date, problems, month_only=as_of.month_only
        )
    report = Report(
        format=fmt.key,
        format_name=fmt.name,
        problems=problems,
        source=source,
        as_of=as_of.date.isoformat() if as_of is not None else None,
        as_of_precision="month" if as_of is not None and as_of.month_only else None,
    )
    summarize_deck(report, deck)
    report.not_counted = not_counted(deck.deck)
    return report


def check_bracket(
    fmt: FormatRules,
    bracket: int | None,
    commanders: Sequence[str] = (),
    *,
    spelled: tuple[str, str] = ("--bracket", "--commander"),
    instead: str = "validate with --format commander",
) -> None:
    """Raise UsageError when a Commander bracket or a commander is asked of a format outside
    the Commander family: brackets and commanders belong to Commander decks only (CR 903.3),
    so the request is a mistake, not something to ignore quietly. `spelled` and `instead`
    word it for the caller (the CLI's flags; the service's request fields)."""
    _check_bracket_value(bracket)
    if fmt.is_commander:
        return
    for given, option, what in (
        (bracket is not None, spelled[0], "brackets"),
        (bool(commanders), spelled[1], "commander"),
    ):
        if given:
            raise UsageError(
                f"{option} applies only to the Commander family; {fmt.name} has "
                f"no {what} (drop {option}, or {instead})"
            )


@dataclass
class _AsOf:
    """A validation as of a past date: the date, the history, the overlaid card source."""

    date: date
    history: Any  # validator.history.legality.LegalityHistory (a higher layer's type)
    cards: CardSource
    month_only: bool = False  # only the month is known: `date` is its last day


#: Per card source (weakly held: a service that swaps in new card data drops the old index and
#: its overlays with it): its legality history, and (history id, date) -> AsOfCards, so that many
#: decks of one event and date share one overlay (each card's past legality computed once).
#: A cached overlay reaches its source through a weak proxy: a strong reference from a value
#: to its key would keep the key alive for ever (it leaked every index a long-lived process
#: validated as of a date); no cycle either, so a source is freed by reference counting, even
#: one the service froze out of the collector's reach (validator/service/cards.py).
_HISTORY_CACHE: weakref.WeakKeyDictionary[Any, object] = weakref.WeakKeyDictionary()
_AS_OF_CACHE: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Any]] = (
    weakref.WeakKeyDictionary()
)


def _cached(cache: weakref.WeakKeyDictionary[Any, Any], cards: Any, make: Callable[[], Any]) -> Any:
    """cache[cards], made once; a card source that cannot be weakly referenced is not cached."""
    try:
        hit = cache.get(cards)
    except TypeError:
        return make()
    if hit is None:
        hit = cache[cards] = make()
    return hit


def legality_history(cards: CardSource | None = None) -> Any:
    """The legality history for a card source: the shipped history plus, when the source is a
    card database (or an index built from one), the database's change log."""
    from validator.history.legality import history_for

    if cards is None:
        return history_for(None)
    return _cached(_HISTORY_CACHE, cards, lambda: history_for(cards.database))


def _as_of(value: Any, cards: CardSource, history: Any = None) -> _AsOf | None:
    """Resolve `as_of=` (a date or ISO string) into the overlay for `cards`, or None."""
    if value is None:  # today's legality: the history module is not even imported
        return None
    from validator.dates import parse_as_of

    when = parse_as_of(value)
    if when is None:  # "": not a date, and not silently today either
        from validator.dates import AS_OF_FORMS, AsOfError

        raise AsOfError(
            f"as_of '' is not a date; write it as {AS_OF_FORMS}, or pass None to "
            "judge by current legality"
        )
    day = when.day
    from validator.history.asof import AsOfCards

    history = history if history is not None else legality_history(cards)
    try:
        overlays = _cached(_AS_OF_CACHE, cards, dict)
        inner = weakref.proxy(cards)  # lives no longer than its cache entry
    except TypeError:  # not weakly referable: not cached
        overlays, inner = {}, cards
    # One overlay per day, whether the day was given or is a month's last ("2022-03" and
    # "2022-03-31" judge by the same legalities). It holds its history: no id reuse.
    key = (id(history), day)
    overlay = overlays.get(key)
    if overlay is None:
        if len(overlays) > 256:
            overlays.clear()
        overlay = overlays[key] = AsOfCards(inner, history, day)
    return _AsOf(day, history, overlay, when.month_only)


def validate(
    deck: Deck | str | bytes,
    format: str | FormatRules,
    *,
    db: str | os.PathLike[str] | None = None,
    cards: CardSource | None = None,
    commanders: Sequence[str] = (),
    rules: Sequence[str] = (),
    bracket: int | None = None,
    formats: Mapping[str, FormatRules] | None = None,
    source: str | None = None,
    as_of: date | str | None = None,
    history: Any = None,
    resolved_into: list[ResolvedDeck] | None = None,
) -> Report:
    """Validate one deck against one format and return its `Report`.

    `deck` is a parsed `Deck` or decklist text. `cards` is a card source (`CardDB`, or a
    `CardIndex` for many decks); without it the database at `db` is opened. `as_of` (a `date`
    or an ISO string) judges the deck by the legalities of that date (README "Legality as of a
    date"); `history` is the `LegalityHistory` to use (default: the shipped one plus the card
    database's change log). `resolved_into`, a list, receives the deck as resolved (the cards
    its names found: `validator.rechecking` keeps their ids to know which decks a change touches).

    Raises the DeckcheckError family when no verdict can be given: FormatError (unknown
    format), DatabaseError (no usable card database), DecklistError (text that is no
    decklist), UsageError (a `commanders` name that is no card, `bracket` or `commanders`
    outside the Commander family, an argument of the wrong type), AsOfError (an `as_of`
    that is no date, "" included, or is before the history).
    An illegal deck is a Report with `legal` False, never an exception.
    """
    fmt = _format(format, formats)
    # The defaults (empty tuples: most calls) need no checking; anything else is checked.
    if type(commanders) is not tuple or commanders:
        commanders = commander_names(commanders)
    if type(rules) is not tuple or rules:
        rules = _strings(rules, "rules")
    check_bracket(
        fmt,
        bracket,
        commanders,
        spelled=("bracket=", "commanders="),
        instead="validate with a Commander-family format",
    )
    _check_cards(cards)
    if not isinstance(deck, Deck):
        deck = parse_decklist(deck)
    args = (commanders, rules, bracket, source, as_of, history, resolved_into)
    if cards is not None:  # the caller's source (a warm index): nothing to open or close
        return _validate(deck, fmt, cards, *args)
    with _card_source(cards, db) as card_source:
        return _validate(deck, fmt, card_source, *args)


def _validate(
    deck: Deck,
    fmt: FormatRules,
    card_source: CardSource,
    commanders: Sequence[str],
    rules: Sequence[str],
    bracket: int | None,
    source: str | None,
    as_of: date | str | None,
    history: Any,
    resolved_into: list[ResolvedDeck] | None,
) -> Report:
    """`validate` with its arguments checked and its card source open."""
    _check_legality_key(fmt, card_source)
    when = _as_of(as_of if as_of is not None else deck.as_of, card_source, history)
    prepared = _prepare(deck, when.cards if when else card_source, commanders)
    report = _report(prepared, prepared.resolved, fmt, source, when, rules=rules, bracket=bracket)
    if resolved_into is not None:
        resolved_into.append(prepared.resolved)
    return report


#: Per card source: the legality keys its card data has (weakly held, like the caches above).
_KEYS_CACHE: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()


def _check_legality_key(fmt: FormatRules, cards: CardSource) -> None:
    """Raise FormatError when the card data has no legalities for the format's key (a typo in
    a house format's `legality`, or a format newer than the sync): every card would otherwise
    read "not legal", a verdict the data never gave. A source that cannot say which keys it
    has (or knows none: a database older than that record) is not refused."""
    known = _cached(_KEYS_CACHE, cards, lambda: frozenset(cards.formats()))
    if known and fmt.legality not in known:
        raise FormatError(
            f"format {fmt.key!r} ({fmt.name}) judges by the legality key {fmt.legality!r}, "
            f"which the card data does not have (it has {', '.join(sorted(known))}): fix "
            "`legality` in the formats file, or run `deckcheck sync` if Scryfall added the "
            "format since"
        )


def check_formats(
    deck: Deck | str | bytes,
    *,
    db: str | os.PathLike[str] | None = None,
    cards: CardSource | None = None,
    formats: Mapping[str, FormatRules] | None = None,
    commanders: Sequence[str] = (),
    source: str | None = None,
    as_of: date | str | None = None,
    history: Any = None,
) -> list[Report]:
    """Validate one deck against every known format (the deck is read and resolved once);
    `as_of` as in `validate`."""
    _check_formats_arg(formats)
    formats = formats if formats is not None else load_formats()
    for name, fmt in formats.items():
        _format_rules(fmt, name)
    commanders = commander_names(commanders)
    _check_cards(cards)
    if not isinstance(deck, Deck):
        deck = parse_decklist(deck)
    from validator.rules.companion.checks import shared_findings

    with _card_source(cards, db) as card_source:
        when = _as_of(as_of if as_of is not None else deck.as_of, card_source, history)
        prepared = _prepare(deck, when.cards if when else card_source, commanders)
        # Commander designation moves cards between sections: each format gets its own copy.
        # A companion's condition is weighed once per starting deck, not once per format.
        with shared_findings():
            return [
                _report(prepared, prepared.resolved.clone(), fmt, source, when)
                for fmt in formats.values()
            ]


__all__ = [
    "open_db",
    "parse_decklist",
    "validate",
    "check_formats",
    "check_resolved",
    "check_bracket",
    "commander_names",
    "Report",
    "Problem",
    "Severity",
    "Section",
]
