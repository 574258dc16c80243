"""The companion deck checks: which cards of a deck are companions, and the problems they
raise (CR 702.139a, 103.2b; in Commander 702.139b via `commander`), and house rules.

Cheap to import: the predicates and the grammar's reader are imported inside the functions
that use them, so a deck with no companion card (most decks, and the cold CLI) never loads
them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from validator.cards.names import fold_name
from validator.model import Card, Problem, ResolvedDeck, ResolvedEntry, Section, Severity

if TYPE_CHECKING:
    from validator.rules.companion.predicates import CardCounts, Findings, StartingDeck
    from validator.rules.formats import FormatRules

#: The rule the companion problems of constructed formats cite (702.139a: reveal only if the
#: starting deck fulfils the condition).
COMPANION_CITATION = "CR 702.139a"
HOUSE_RULE_CITATION = "house-rule"
#: Undeclared companion cards in a sideboard whose conditions get a note each: a real sideboard
#: holds one or two; a hostile list's hundreds are not each weighed against the deck.
MAX_SIDEBOARD_COMPANIONS = 2


# ---------------------------------------------------------------------------------------------
# Deck-level checks: which cards are companions, and the problems they raise.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompanionCards:
    """The companion cards of a deck, by where they sit.

    `declared`: the Arena `Companion` section, one entry per distinct name (Arena exports list
    the same card in the Sideboard too: that is the same card, not a second companion).
    `sideboard`: companion cards in the sideboard that are not declared (a player may reveal
    one of them, or just be sideboarding it). `main`: companion cards in the main deck, where
    the companion ability has no effect (ruling 2020-04-17).
    """

    declared: tuple[ResolvedEntry, ...]
    sideboard: tuple[ResolvedEntry, ...]
    main: tuple[ResolvedEntry, ...]


def _distinct(entries: Iterable[ResolvedEntry]) -> tuple[ResolvedEntry, ...]:
    seen: dict[str, ResolvedEntry] = {}
    for e in entries:
        seen.setdefault(e.card.name, e)
    return tuple(seen.values())


def companion_cards(deck: ResolvedDeck) -> CompanionCards:
    declared = _distinct(deck.cards_in(Section.COMPANION))
    names = {e.card.name for e in declared}
    sideboard = _distinct(
        e
        for e in deck.cards_in(Section.SIDEBOARD)
        if e.card.companion_condition is not None and e.card.name not in names
    )
    main = _distinct(
        e for e in deck.cards_in(Section.MAIN) if e.card.companion_condition is not None
    )
    return CompanionCards(declared, sideboard, main)


def starting_deck(deck: ResolvedDeck, fmt: FormatRules) -> list[tuple[Card, int]]:
    """CR 103.2a / 702.139b: the deck after setting the sideboard aside; in Commander formats
    the commander(s) are still in it."""
    return [(e.card, e.quantity) for e in deck.cards_in(*_starting_sections(fmt))]


def _starting_sections(fmt: FormatRules) -> tuple[Section, ...]:
    return (Section.MAIN, Section.COMMANDER) if fmt.is_commander else (Section.MAIN,)


def _lines_by_name(deck: ResolvedDeck, *sections: Section) -> dict[str, tuple[int, ...]]:
    """Input line numbers of each card name in `sections`, for Problem.lines."""
    lines: dict[str, list[int]] = {}
    for e in deck.cards_in(*sections):
        if e.entry.line is not None:
            lines.setdefault(e.card.name, []).append(e.entry.line)
    return {k: tuple(v) for k, v in lines.items()}


def _listing(found: Findings) -> str:
    """The first MAX_LISTED offenses, then how many more there are."""
    from validator.rules.companion.predicates import MAX_LISTED

    shown = "; ".join(o.render() for o in found.listed[:MAX_LISTED])
    more = found.total - MAX_LISTED
    return shown + (f"; and {more} more" if more > 0 else "")


def _involved(first: Sequence[str], found: Findings) -> tuple[str, ...]:
    """Every card a problem is about: the companion, then every offender (listed or not)."""
    return tuple(dict.fromkeys([*first, *found.cards]))


def _lines_of(names: Iterable[str], lines: Mapping[str, tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(sorted({n for name in names for n in lines.get(name, ())}))


#: Condition findings shared by the checks run inside `shared_findings` (None outside it):
#: (sentence, deck-size facts, the starting deck's cards and copies, in order) -> (findings,
#: the starting deck, kept so that the ids in the key stay its cards' own).
_SHARED_FINDINGS: ContextVar[dict[tuple, tuple[Any, CardCounts]] | None] = ContextVar(
    "deckcheck_companion_findings", default=None
)


@contextmanager
def shared_findings() -> Iterator[None]:
    """Within the block, each companion condition is evaluated once per starting deck and
    deck-size facts, and its findings reused. `check_formats` judges one deck against every
    format: most formats have the same starting deck (the main deck, 103.2a; with the
    commanders in Commander formats, 702.139b) and the same `StartingDeck` facts, and a
    condition's verdict depends on nothing else (the format's card pool and bans are other
    checks). Per thread (a context variable), dropped when the block ends."""
    token = _SHARED_FINDINGS.set({})
    try:
        yield
    finally:
        _SHARED_FINDINGS.reset(token)


def _condition_findings(
    predicate: Any, sentence: str, starting: CardCounts, ctx: StartingDeck
) -> Findings:
    """`predicate.findings` for the starting deck, shared within `shared_findings`."""
    from validator.rules.companion.predicates import MAX_LISTED

    cache = _SHARED_FINDINGS.get()
    if cache is None:
        return predicate.findings(starting, ctx, MAX_LISTED)
    # The cards by identity (a check_formats call resolves the deck once: each format's copy
    # holds the same Card objects) and in order (findings list offenders in deck order).
    cards, counts = zip(*starting) if starting else ((), ())
    key = (sentence, ctx, tuple(map(id, cards)), counts)
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = (predicate.findings(starting, ctx, MAX_LISTED), starting)
    return hit[0]


def companion_condition_problems(
    companion: Card,
    starting: CardCounts,
    ctx: StartingDeck,
    citation: str,
    *,
    declared: bool = True,
    lines: Mapping[str, tuple[int, ...]] | None = None,
) -> list[Problem]:
    """Whether `companion`'s condition holds for the starting deck (702.139a), as problems.

    Declared companions get an error when the condition fails or cannot be read (not in the
    grammar: the deck is then not judged legal, as an unknown legality is not "legal");
    undeclared ones (a companion card sitting in the sideboard) get INFO either way.
    `starting` must already include the commander(s) in Commander games (702.139b).
    """
    from validator.rules.companion.reader import ConditionError, parse_condition

    sentence = companion.companion_condition
    if sentence is None:
        return []
    name, lines = companion.name, lines or {}
    where = "" if declared else " (sideboard)"
    try:
        predicate = parse_condition(sentence)
    except ConditionError as exc:
        if declared:
            # 702.139a: the companion is revealed only if the condition holds; unread, nothing
            # says it does. Fails closed, like an unknown legality (checks.check_card_pool).
            message = (
                f'{name}: could not check its companion condition "{sentence}" (not in '
                f"the condition grammar: {exc.detail}), so the deck is not judged legal; "
                "check the condition by hand, or list the card in the sideboard without "
                "declaring it"
            )
            severity = Severity.ERROR
        else:
            message = (
                f'{name}{where}: cannot check its companion condition "{sentence}" (not '
                f"in the condition grammar: {exc.detail})"
            )
            severity = Severity.INFO
        return [
            Problem(
                "companion-condition-unsupported",
                message,
                citation,
                severity,
                (name,),
                _lines_of([name], lines),
            )
        ]
    offenses = _condition_findings(predicate, sentence, starting, ctx)
    if not offenses.total:
        return [
            Problem(
                "companion-condition-met",
                f'{name}{where}: companion condition met ("{sentence}")',
                citation,
                Severity.INFO,
                (name,),
                _lines_of([name], lines),
            )
        ]
    cards = _involved([name], offenses)
    if declared:
        return [
            Problem(
                "companion-condition-failed",
                f'{name} can\'t be your companion, its condition "{sentence}" is not met: '
                f"{_listing(offenses)}",
                citation,
                Severity.ERROR,
                cards,
                _lines_of(cards, lines),
            )
        ]
    return [
        Problem(
            "companion-condition-not-met",
            f'{name}{where}: companion condition "{sentence}" is not met, so it can only '
            f"be a sideboard card: {_listing(offenses)}",
            citation,
            Severity.INFO,
            cards,
            _lines_of(cards, lines),
        )
    ]


def _declaration_problems(
    declared: Sequence[ResolvedEntry], fmt: FormatRules, lines: Mapping[str, tuple[int, ...]]
) -> list[Problem]:
    """Problems with the declaration itself: companions in the format, how many, bans."""
    problems: list[Problem] = []
    names = [e.card.name for e in declared]
    if len(declared) > 1:
        problems.append(
            Problem(
                "too-many-companions",
                f"{len(declared)} companions declared ({', '.join(names)}); "
                "a player may reveal only one",
                "CR 103.2b",
                Severity.ERROR,
                tuple(names),
                _lines_of(names, lines),
            )
        )
    banned = {fold_name(n) for n in fmt.banned_as_companion}
    for e in declared:
        card = e.card
        if card.companion_condition is None:
            problems.append(
                Problem(
                    "not-a-companion",
                    f"{card.name} is declared as companion but has no companion ability",
                    COMPANION_CITATION,
                    Severity.ERROR,
                    (card.name,),
                    _lines_of([card.name], lines),
                )
            )
        elif fold_name(card.name) in banned:
            problems.append(
                Problem(
                    "banned-as-companion",
                    f"{card.name} is banned as a companion in {fmt.name}",
                    f"format:{fmt.key}",
                    Severity.ERROR,
                    (card.name,),
                    _lines_of([card.name], lines),
                )
            )
    return problems


def constructed_companion_problems(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """Companion problems of a constructed deck.

    The companion is a sideboard card, or declared in an Arena `Companion` section. Declared
    companions are checked (error when the condition fails); undeclared companion cards in the
    sideboard get an INFO note saying whether their condition holds.
    """
    if not deck.has(Section.COMPANION) and all(
        [e.card.companion_condition is None for e in deck.cards_in(Section.SIDEBOARD)]
    ):
        # No companion card declared or in the sideboard: nothing to check (most decks),
        # decided without `companion_cards`, which also reads every main-deck card.
        return []
    slots = companion_cards(deck)
    if not slots.declared and not slots.sideboard:
        return []
    # Imported here, not at the top: a deck with no companion card (the cold CLI) skips them.
    from validator.rules.companion.predicates import MAX_LISTED, StartingDeck

    lines = _lines_by_name(deck, Section.COMPANION, Section.SIDEBOARD)
    if not fmt.companions:
        return [
            Problem(
                "companions-not-allowed",
                f"{fmt.name} does not allow a companion ({e.card.name} is declared)",
                f"format:{fmt.key}",
                Severity.ERROR,
                (e.card.name,),
                _lines_of([e.card.name], lines),
            )
            for e in slots.declared
        ]
    problems = _declaration_problems(slots.declared, fmt, lines)
    starting = starting_deck(deck, fmt)
    ctx = StartingDeck.for_format(fmt)
    # One companion at most (103.2b): with more declared, that error says it at once, and a
    # hostile list's every companion is not weighed against the deck. Likewise the
    # sideboard's notes are for the few companion cards a real sideboard holds.
    checked = [(e, True) for e in slots.declared] if len(slots.declared) <= 1 else []
    if len(slots.declared) <= 1 and len(slots.sideboard) <= MAX_SIDEBOARD_COMPANIONS:
        checked += [(e, False) for e in slots.sideboard]
    elif slots.sideboard:
        names = tuple(e.card.name for e in slots.sideboard)
        problems.append(
            Problem(
                "companion-condition-unchecked",
                f"{len(names)} companion cards in the sideboard "
                f"({', '.join(names[:MAX_LISTED])}{' ...' if len(names) > MAX_LISTED else ''}); "
                "their conditions are checked only for a declared companion (a Companion section)",
                COMPANION_CITATION,
                Severity.INFO,
                names,
                _lines_of(names, lines),
            )
        )
    # The starting deck's lines only when a condition is checked (not with two declared).
    starting_lines = _lines_by_name(deck, *_starting_sections(fmt)) if checked else {}
    for e, declared in checked:
        # Offenders are pointed at in the starting deck, the companion where it is listed.
        own = {**starting_lines, e.card.name: lines.get(e.card.name, ())}
        problems += companion_condition_problems(
            e.card, starting, ctx, COMPANION_CITATION, declared=declared, lines=own
        )
    return problems


def house_rule_problems(deck: ResolvedDeck, fmt: FormatRules, sentence: str) -> list[Problem]:
    """Check a house rule written like a companion condition against the starting deck (main
    deck, plus the commanders in Commander formats). An unreadable sentence raises
    ConditionError (the CLI reports it as a usage error)."""
    from validator.rules.companion.predicates import StartingDeck
    from validator.rules.companion.reader import _clean, parse_condition

    predicate = parse_condition(sentence)
    offenses = predicate.findings(starting_deck(deck, fmt), StartingDeck.for_format(fmt))
    if not offenses.total:
        return []
    cards = _involved([], offenses)
    return [
        Problem(
            "house-rule-failed",
            f'house rule "{_clean(sentence)}" is not met: {_listing(offenses)}',
            HOUSE_RULE_CITATION,
            Severity.ERROR,
            cards,
            _lines_of(cards, _lines_by_name(deck, *_starting_sections(fmt))),
        )
    ]
