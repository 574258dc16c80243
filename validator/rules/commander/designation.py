"""Designation: the commander(s) into Section.COMMANDER, the companion into Section.COMPANION.

From a Commander section, `--commander`, or the sideboard, where MTGO and tournament exports
list them, so that the generic checks count the 100 (CR 903.5a) and see no sideboard (903.5e).
Says how the commander was found, or that none was. Bounded on hostile lists: past
`MAX_SIDEBOARD_CANDIDATES` the deck is reported at once (903.3, 702.124).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from validator.model import (
    COMMANDER,
    COMPANION,
    IGNORED,
    INFO,
    MAIN,
    SIDEBOARD,
    WARNING,
    Card,
    DeckEntry,
    Problem,
    ResolvedDeck,
    ResolvedEntry,
    Section,
    distinct_cards,
    entry_lines,
)
from validator.rules.commander.leaders import (
    _CHOOSES_COLOR,
    _is_planeswalker,
    _is_signature_spell,
    _may_lead,
    can_lead,
    pair_problem,
)
from validator.rules.commander.messages import _OATHBREAKER, _names, _some_names
from validator.rules.formats import FormatRules

_SOURCE_WORDS = {
    "arena-section": "the decklist's Commander section",
    "cmdr-marker": "the *CMDR* marker",
    "category": "the [Commander] category",
    "json": "the JSON `commanders` list",
    "moxfield": "the Moxfield deck's commanders board",
    "archidekt": "the Archidekt deck's Commander category",
    "mtgjson": "the MTGJSON deck's `commander` list",
    "csv": "the CSV's commander section",
}
_HOW_TO_MARK = (
    "mark it with a Commander section (Arena), *CMDR* after its name (Moxfield), "
    "[Commander] (Archidekt), or --commander NAME"
)
#: A legal deck has at most two commanders (CR 903.3, 702.124), two oathbreakers and two
#: signature spells, one companion (702.139a). The sideboard guess weighs every single and pair
#: among its candidates; past this many (real exports list a few extra legends, never more)
#: the deck is reported at once instead, so that a hostile list costs linear time.
MAX_SIDEBOARD_CANDIDATES = 6


# --------------------------------------------------------------------------------------------
# Moving entries between sections


def _info(
    code: str,
    message: str,
    fmt: FormatRules,
    cards: Iterable[Card] = (),
    entries: Iterable[ResolvedEntry] = (),
) -> Problem:
    return Problem(
        code,
        message,
        fmt.cite("commander"),
        INFO,
        cards=tuple([c.name for c in cards]),
        lines=entry_lines(entries),
    )


def _ignore_duplicates(
    deck: ResolvedDeck, fmt: FormatRules, section: Section, what: str
) -> list[Problem]:
    """A commander or companion listed again elsewhere is one card: exports repeat it (MTGO and
    Melee sideboards, Arena's Companion + Sideboard). Extra listings go to IGNORED.

    A commander listed twice in the Commander section itself is not an export's repetition but
    two copies of a card in a singleton deck (CR 903.5b): those stay, for the singleton check.
    """
    problems: list[Problem] = []
    twice_allowed = section == COMMANDER
    if twice_allowed and not deck.has(SIDEBOARD):
        return problems  # nothing can repeat the commander (most decks, once designated)
    for e in deck.cards_in(section):
        if e.quantity > 1 and not twice_allowed:
            listed = e.quantity
            deck.move(e, IGNORED, listed - 1)
            problems.append(
                _info(
                    "duplicate-listing",
                    f"{e.card.name} is listed {listed} times as the {what}; counted once",
                    fmt,
                    [e.card],
                    [e],
                )
            )
    keep = {e.card.oracle_id for e in deck.cards_in(section)}
    seen: set[str] = set()
    for e in list(deck.cards_in(section, SIDEBOARD)):
        oid = e.card.oracle_id
        if oid not in keep:
            continue
        if e.section == section and (oid not in seen or twice_allowed):
            seen.add(oid)  # the first listing in the section is the card itself
            continue
        where = " in the sideboard" if e.section == SIDEBOARD else ""
        moved = deck.move(e, IGNORED, e.quantity)
        problems.append(
            _info(
                "duplicate-listing",
                f"{e.card.name} is listed again{where} besides being the {what}; counted once",
                fmt,
                [e.card],
                [moved],
            )
        )
    return problems


def _unknown_count(deck: ResolvedDeck, *sections: Section) -> int:
    if not deck.unresolved:
        return 0
    return sum(e.quantity for e in deck.unresolved if e.section in sections)


def _commander_also_in_main(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """Some exports list the commander both as commander and in the deck. Only when the deck is
    then over its exact size by just those copies is the deck's copy a repeated listing;
    otherwise the generic singleton check reports it (903.5b)."""
    if fmt.max_deck is None:
        return []
    size = deck.count(MAIN, COMMANDER) + _unknown_count(deck, MAIN, COMMANDER)
    if size <= fmt.max_deck:
        return []  # not over its size (every listing holds a copy): most decks stop here
    commander_ids = {e.card.oracle_id for e in deck.cards_in(COMMANDER)}
    repeats = [e for e in deck.cards_in(MAIN) if e.card.oracle_id in commander_ids]
    if not repeats or size - sum(e.quantity for e in repeats) != fmt.max_deck:
        return []
    problems = []
    for e in repeats:
        moved = deck.move(e, IGNORED, e.quantity)
        problems.append(
            _info(
                "duplicate-listing",
                f"{e.card.name} is listed both as commander "
                "and in the deck; counted once, as the commander",
                fmt,
                [e.card],
                [moved],
            )
        )
    return problems


# --------------------------------------------------------------------------------------------
# Designation


def _designate_named(deck: ResolvedDeck, fmt: FormatRules, named: Sequence[Card]) -> list[Problem]:
    """`--commander NAME`: one copy moves from the sideboard (MTGO) or the deck into COMMANDER;
    a card the list does not hold is added, and the report says so."""
    problems = []
    for card in named:
        if any(e.card.oracle_id == card.oracle_id for e in deck.cards_in(COMMANDER)):
            continue
        source = next(
            (
                e
                for section in (SIDEBOARD, MAIN, COMPANION)
                for e in deck.cards_in(section)
                if e.card.oracle_id == card.oracle_id
            ),
            None,
        )
        if source is None:
            entry = DeckEntry(quantity=1, name=card.name, section=COMMANDER)
            deck.entries.append(ResolvedEntry(entry=entry, card=card))
            problems.append(
                _info(
                    "commander-found",
                    f"{card.name} is not in the decklist: added as the commander (--commander)",
                    fmt,
                    [card],
                )
            )
            continue
        where = source.section.value
        moved = deck.move(source, COMMANDER)
        problems.append(
            _info(
                "commander-found",
                f"Commander set by --commander: {card.name} (moved from the {where})",
                fmt,
                [card],
                [moved],
            )
        )
    return problems


def _section_found(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    entries = deck.cards_in(COMMANDER)
    source = deck.deck.commander_source
    where = _SOURCE_WORDS.get(
        source or "", f"the decklist ({source})" if source else "the decklist's commander section"
    )
    cards = [e.card for e in distinct_cards(entries)]
    what = "Oathbreaker and signature spell" if fmt.kind == "oathbreaker" else "Commander"
    return [
        _info("commander-found", f"{what} taken from {where}: {_names(cards)}", fmt, cards, entries)
    ]


def _covers(option: Sequence[ResolvedEntry], colors: set[str]) -> bool:
    identity = set("".join(e.card.color_identity for e in option))
    if any(_CHOOSES_COLOR.search(e.card.oracle_text) for e in option):
        return len(colors - identity) <= 1  # 903.4b: one chosen color
    return colors <= identity


def _leader_options(
    candidates: list[ResolvedEntry], fmt: FormatRules
) -> list[tuple[ResolvedEntry, ...]]:
    """Every single commander and every valid partner pair among `candidates`."""
    options: list[tuple[ResolvedEntry, ...]] = [(e,) for e in candidates if can_lead(e.card, fmt)]
    options += [
        (a, b) for a, b in combinations(candidates, 2) if pair_problem(a.card, b.card) is None
    ]
    return options


def _choose_leaders(
    deck: ResolvedDeck, fmt: FormatRules, candidates: list[ResolvedEntry], fill: bool
) -> tuple[tuple[ResolvedEntry, ...], bool]:
    """The most likely commander(s) among sideboard candidates, and whether that was a choice.

    Narrowed in order: options whose color identity covers the main deck (903.5c), options that
    fill the deck to its exact size (when `fill`), then the one listed first (exports list
    commanders first).
    """
    options = _leader_options(candidates, fmt)
    if not options:
        return (), False
    if len(options) == 1:  # nothing to narrow (the usual MTGO list: the commander alone)
        return options[0], False
    colors = set("".join(e.card.color_identity for e in deck.cards_in(MAIN)))
    options = [o for o in options if _covers(o, colors)] or options
    slots = None
    if fill and fmt.max_deck is not None:  # the commander slots the main deck leaves
        slots = fmt.max_deck - deck.count(MAIN) - _unknown_count(deck, MAIN)
    if slots in (1, 2):
        options = [o for o in options if len(o) == slots] or options
    order = {id(e): i for i, e in enumerate(candidates)}
    options.sort(key=lambda o: (min(order[id(e)] for e in o), -len(o)))
    return options[0], len(options) > 1


def _guessed(
    fmt: FormatRules, what: str, candidates: Iterable[Card], chosen: Sequence[Card]
) -> Problem:
    return Problem(
        "commander-guessed",
        f"The sideboard holds several cards that could be the {what} ({_names(candidates)}); "
        f"took {_names(chosen)}, the first listed that fits the deck's colors and size. To be "
        f"sure, {_HOW_TO_MARK}",
        fmt.cite("commander"),
        WARNING,
        cards=tuple(c.name for c in chosen),
    )


def _sideboard_leaders(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """MTGO and tournament exports of Commander lists put the commander(s) in the sideboard."""
    sideboard = deck.cards_in(SIDEBOARD)
    if len(sideboard) == 1:
        # The usual MTGO list: the commander alone. What the general case below decides for
        # one card: a non-companion is designated, leader or not (then the report says why
        # not, 903.3); a companion card only if it can lead. A card that cannot lead stays too
        # when listed in several copies: "49 Swamp" is no commander pasted alone (a commander
        # is one card, CR 903.3); designating one copy would leave the other 48 as its
        # repeated listing.
        only = sideboard[0]
        if not can_lead(only.card, fmt) and (
            only.card.companion_condition is not None or only.entry.quantity > 1
        ):
            return []
        chosen: tuple[ResolvedEntry, ...] = (only,)
        guessed, candidates = False, sideboard
    else:
        sideboard = distinct_cards(sideboard)
        leaders = [e for e in sideboard if _may_lead(e.card, fmt)]
        # A companion card is the companion unless nothing else could be the commander.
        candidates = [e for e in leaders if e.card.companion_condition is None] or leaders
        if len(candidates) > MAX_SIDEBOARD_CANDIDATES:
            return [_too_many_candidates(fmt, "commander", candidates)]
        chosen, guessed = _choose_leaders(deck, fmt, candidates, fill=True)
        non_companions = [e for e in sideboard if e.card.companion_condition is None]
        if not chosen and len(non_companions) == 1:
            # One card that cannot lead: designate it, so that the report says why not (903.3).
            chosen = (non_companions[0],)
        if not chosen:
            return []
    moved = [deck.move(e, COMMANDER) for e in chosen]
    problems = [_found_in_sideboard(fmt, moved)]
    if guessed:
        problems.append(
            _guessed(fmt, "commander", (e.card for e in candidates), [e.card for e in moved])
        )
    return problems


def _found_in_sideboard(fmt: FormatRules, moved: Sequence[ResolvedEntry]) -> Problem:
    cards = [e.card for e in moved]
    return _info(
        "commander-found",
        f"Commander taken from the sideboard, as MTGO exports list it: {_names(cards)}",
        fmt,
        cards,
        moved,
    )


def _too_many_candidates(
    fmt: FormatRules, what: str, candidates: Sequence[ResolvedEntry]
) -> Problem:
    """A sideboard offering more candidates than any legal deck holds: said at once, naming
    them, rather than weighing every pair (a legal deck has at most two commanders, CR 903.3
    and 702.124; and no sideboard, 903.5e)."""
    cards = [e.card for e in candidates]
    code, rule = (
        ("oathbreaker-missing", _OATHBREAKER)
        if what == "oathbreaker"
        else ("commander-missing", fmt.cite("commander", "CR 903.3"))
    )
    return Problem(
        code,
        f"No {what} found: the sideboard holds {len(cards):,} cards that could be the "
        f"{what} ({_some_names(cards)}), and a deck has one, or two whose partner abilities "
        f"allow it (CR 702.124); deckcheck does not guess among more than "
        f"{MAX_SIDEBOARD_CANDIDATES}. {_HOW_TO_MARK[0].upper()}{_HOW_TO_MARK[1:]}",
        rule,
        cards=tuple(c.name for c in cards),
        lines=entry_lines(candidates),
    )


def _missing(deck: ResolvedDeck, fmt: FormatRules) -> Problem:
    unknown = [e.name for e in deck.unresolved if e.section == SIDEBOARD]
    sideboard = distinct_cards(deck.cards_in(SIDEBOARD))
    detail = ""
    if unknown:
        detail = f" The sideboard names unknown card(s): {', '.join(unknown)}."
    elif sideboard:
        detail = f" No sideboard card can be the commander ({_names(e.card for e in sideboard)})."
    return Problem(
        "commander-missing",
        f"No commander found: {_HOW_TO_MARK}.{detail}",
        fmt.cite("commander", "CR 903.3"),
    )


def _unknown_leaders(unknown: Sequence[DeckEntry], fmt: FormatRules) -> Problem:
    """The Commander section names cards that do not exist (a typo, a card newer than the
    database): the commander rules (903.3) cannot be checked until the name is fixed."""
    names = ", ".join(repr(e.name) for e in unknown)
    what = "oathbreaker and signature spell" if fmt.kind == "oathbreaker" else "commander"
    known = "is not a known card" if len(unknown) == 1 else "are not known cards"
    return Problem(
        "commander-unknown",
        f"The Commander section names {names}, which {known}, "
        f"so the {what} rules could not be checked; fix the name",
        fmt.cite("commander", "CR 903.3"),
        cards=tuple(e.name for e in unknown),
        lines=tuple(e.line for e in unknown if e.line),
    )


def _designate_companion(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """The one companion card left in the sideboard is the companion: the 101st card
    (702.139a, 903.11), not a sideboard card (903.5e)."""
    if deck.has(COMPANION) or not deck.has(SIDEBOARD):
        return []
    companions = distinct_cards(
        e for e in deck.cards_in(SIDEBOARD) if e.card.companion_condition is not None
    )
    if len(companions) != 1:
        return []
    moved = deck.move(companions[0], COMPANION)
    return [
        Problem(
            "companion-found",
            f"Companion taken from the sideboard: {moved.card.name}",
            fmt.cite("companion", "CR 903.11a"),
            INFO,
            cards=(moved.card.name,),
            lines=entry_lines([moved]),
        )
    ]


def _designate_oathbreakers(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    walkers = [e for e in deck.cards_in(COMMANDER) if _is_planeswalker(e.card)]
    if walkers:
        return []
    candidates = distinct_cards(e for e in deck.cards_in(SIDEBOARD) if _is_planeswalker(e.card))
    if len(candidates) > MAX_SIDEBOARD_CANDIDATES:
        return [_too_many_candidates(fmt, "oathbreaker", candidates)]
    chosen, guessed = _choose_leaders(deck, fmt, candidates, fill=False)
    if not chosen:
        return [
            Problem(
                "oathbreaker-missing",
                "No oathbreaker found: an Oathbreaker deck is led "
                f"by a planeswalker; {_HOW_TO_MARK}",
                _OATHBREAKER,
            )
        ]
    moved = [deck.move(e, COMMANDER) for e in chosen]
    cards = [e.card for e in moved]
    problems = [
        _info(
            "commander-found",
            f"Oathbreaker taken from the sideboard: {_names(cards)}",
            fmt,
            cards,
            moved,
        )
    ]
    if guessed:
        problems.append(_guessed(fmt, "oathbreaker", (e.card for e in candidates), cards))
    return problems


def _designate_signature_spells(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    commanders = deck.cards_in(COMMANDER)
    walkers = [e.card for e in commanders if _is_planeswalker(e.card)]
    # One signature spell per oathbreaker (two with partners, 702.124): the sideboard gives
    # those the list did not name with its oathbreakers.
    wanted = len(walkers) - sum(
        1 for e in commanders if _is_signature_spell(e.card) and not _is_planeswalker(e.card)
    )
    if not walkers or wanted <= 0:
        return []
    identity = set("".join(c.color_identity for c in walkers))
    spells = distinct_cards(e for e in deck.cards_in(SIDEBOARD) if _is_signature_spell(e.card))
    fitting = [e for e in spells if set(e.card.color_identity) <= identity] or spells
    if not fitting:
        if wanted < len(walkers):
            return []  # one spell listed for two oathbreakers: the rules check says so
        return [
            Problem(
                "signature-spell-missing",
                "No signature spell found: each oathbreaker "
                "needs an instant or sorcery signature spell; list it with the "
                "oathbreaker (Commander section or --commander NAME)",
                _OATHBREAKER,
            )
        ]
    moved = [deck.move(e, COMMANDER) for e in fitting[:wanted]]
    cards = [e.card for e in moved]
    problems = [
        _info(
            "commander-found",
            f"Signature spell taken from the sideboard: {_names(cards)}",
            fmt,
            cards,
            moved,
        )
    ]
    if len(fitting) > wanted:
        problems.append(_guessed(fmt, "signature spell", (e.card for e in fitting), cards))
    return problems


def designate_commanders(
    deck: ResolvedDeck, fmt: FormatRules, named: Sequence[Card] = ()
) -> list[Problem]:
    """Put the commander(s) in Section.COMMANDER and the companion in Section.COMPANION.

    Commanders come from a parsed Commander section, from `named` (--commander), or else from
    the sideboard (MTGO/tournament exports); Oathbreaker's planeswalker and signature spell both
    go to COMMANDER. Mutates `deck.entries` (moving, splitting quantities) and returns INFO
    `commander-found` saying how, WARNING `commander-guessed` when the sideboard left a choice,
    or ERROR `commander-missing` / `oathbreaker-missing` / `signature-spell-missing` (or
    `commander-unknown` when the Commander section names no known card). Leftover
    sideboard cards stay in SIDEBOARD for the generic check (903.5e).
    """
    if not fmt.is_commander:
        return []
    if not named and not deck.unresolved and fmt.kind != "oathbreaker":
        sideboard = deck.cards_in(SIDEBOARD)
        if (
            len(sideboard) == 1
            and sideboard[0].entry.quantity == 1
            and sideboard[0].card.companion_condition is None
            and not deck.has(COMMANDER)
            and not deck.has(COMPANION)
        ):
            # The usual MTGO list: the deck, then the commander alone in the sideboard. What
            # the steps below do for it, without the steps that cannot apply: nothing is
            # left in the sideboard to repeat the commander or be the companion.
            problems: list[Problem] = [
                _found_in_sideboard(fmt, [deck.move(sideboard[0], COMMANDER)])
            ]
            problems += _commander_also_in_main(deck, fmt)
            return problems
    problems = []
    if named:
        problems += _designate_named(deck, fmt, named)
    elif deck.has(COMMANDER):
        problems += _section_found(deck, fmt)
    listed = [e for e in deck.unresolved if e.section == COMMANDER] if deck.unresolved else ()
    # A meld result (CR 712.4b) names a card face, not a card: it has its own problem.
    unknown = [e for e in listed if (e.name, e.line) not in deck.not_cards]
    if listed:
        # The list names its commander, but no card by that name exists: say so, rather than
        # "no commander found", and do not guess another one from the sideboard.
        if unknown:
            problems.append(_unknown_leaders(unknown, fmt))
    elif fmt.kind == "oathbreaker":
        problems += _designate_oathbreakers(deck, fmt)
        problems += _designate_signature_spells(deck, fmt)
    elif not deck.has(COMMANDER):
        problems += _sideboard_leaders(deck, fmt)
        if not deck.has(COMMANDER):
            problems.append(_missing(deck, fmt))
    if deck.has(COMMANDER):
        problems += _ignore_duplicates(deck, fmt, COMMANDER, "commander")
        problems += _commander_also_in_main(deck, fmt)
    problems += _designate_companion(deck, fmt)
    if deck.has(COMPANION):  # else nothing can repeat it
        problems += _ignore_duplicates(deck, fmt, COMPANION, "companion")
    return problems
