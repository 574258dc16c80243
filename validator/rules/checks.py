"""Deck rules every format shares: size, sideboard, copies, card pool.

Each check is a small pure function `(deck, fmt) -> list[Problem]`; the numbers come from the
format's entry in data/formats.toml. Commander-only rules live in `commander`, companion
conditions in `companion`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Container, Iterable

from validator.model import (
    COMMANDER,
    COMPANION,
    ERROR,
    INFO,
    MAIN,
    SIDEBOARD,
    Card,
    Problem,
    ResolvedDeck,
    ResolvedEntry,
    Section,
    distinct_cards,
    entry_lines,
)
from validator.rules.formats import FormatRules

Check = Callable[[ResolvedDeck, FormatRules], list[Problem]]


def deck_and_sideboard(deck: ResolvedDeck, fmt: FormatRules) -> list[ResolvedEntry]:
    """The cards the deck-construction limits count.

    Constructed: main deck and sideboard together (CR 100.4a); a companion declared in its own
    section is a sideboard card, and Arena exports list it in the Sideboard too: one card.
    Commander: the 100 including the commander(s) (903.5a); the companion is outside them.
    """
    if fmt.is_commander:
        return deck.cards_in(MAIN, COMMANDER)
    entries = deck.cards_in(MAIN, SIDEBOARD)
    if not deck.has(COMPANION):
        return entries
    in_sideboard = {e.card.oracle_id for e in deck.cards_in(SIDEBOARD)}
    entries += [e for e in deck.cards_in(COMPANION) if e.card.oracle_id not in in_sideboard]
    return entries


def sideboard_entries(deck: ResolvedDeck, fmt: FormatRules) -> list[ResolvedEntry]:
    """Sideboard cards, with a separately declared companion counted once (CR 100.4a)."""
    entries = deck.cards_in(SIDEBOARD)
    if not fmt.is_commander:
        in_sideboard = {e.card.oracle_id for e in entries}
        entries += [e for e in deck.cards_in(COMPANION) if e.card.oracle_id not in in_sideboard]
    return entries


def check_deck_size(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """CR 100.2a (constructed: at least 60), 903.5a / 903.12d (Commander: exactly 100 / 60
    including the commander)."""
    sections: tuple[Section, ...] = (MAIN, COMMANDER) if fmt.is_commander else (MAIN,)
    unresolved_sections = sections
    if fmt.is_commander and not deck.has(COMMANDER):
        # An unknown name in an MTGO-style sideboard is most likely the commander: it already
        # has its unknown-card problem, so it should not also make the deck "99 cards".
        unresolved_sections += (SIDEBOARD,)
    size = deck.count(*sections)
    if deck.unresolved:  # most decks: every name known, no generator to make
        size += sum(e.quantity for e in deck.unresolved if e.section in unresolved_sections)
    if fmt.min_deck <= size and (fmt.max_deck is None or size <= fmt.max_deck):
        return []  # within the bounds (most decks): no message or citation to make
    cite = fmt.cite("deck_size")
    what = "deck including the commander" if fmt.is_commander else "main deck"
    if fmt.max_deck is not None and fmt.max_deck == fmt.min_deck and size != fmt.min_deck:
        code = "deck-too-small" if size < fmt.min_deck else "deck-too-large"
        return [
            Problem(
                code,
                f"{fmt.name} decks have exactly {fmt.min_deck} cards; this {what} has {size}",
                cite,
            )
        ]
    if size < fmt.min_deck:
        return [
            Problem(
                "deck-too-small",
                f"the {what} has {size} cards; {fmt.name} needs at least {fmt.min_deck}",
                cite,
            )
        ]
    if fmt.max_deck is not None and size > fmt.max_deck:
        return [
            Problem(
                "deck-too-large",
                f"the {what} has {size} cards; {fmt.name} allows at most {fmt.max_deck}",
                cite,
            )
        ]
    return []


def check_sideboard(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """CR 100.4a: at most fifteen sideboard cards; 903.5e: Commander uses no sideboard."""
    if fmt.sideboard_max and not deck.has(COMPANION) and deck.count(SIDEBOARD) <= fmt.sideboard_max:
        return []  # most decks: the sideboard's count is kept by the deck, no entry is read
    entries = sideboard_entries(deck, fmt)
    size = sum(e.quantity for e in entries)
    cite = fmt.cite("sideboard")
    if fmt.sideboard_max == 0 and size:
        names = tuple(sorted({e.card.name for e in entries}))
        return [
            Problem(
                "sideboard-not-allowed",
                f"{fmt.name} decks have no sideboard, but {size} card(s) are listed there: "
                + ", ".join(names),
                cite,
                cards=names,
                lines=entry_lines(entries),
            )
        ]
    if size > fmt.sideboard_max:
        return [
            Problem(
                "sideboard-too-large",
                f"the sideboard has {size} cards; at most {fmt.sideboard_max} are allowed",
                cite,
                lines=entry_lines(entries),
            )
        ]
    return []


def copy_limit(card: Card, fmt: FormatRules) -> int | None:
    """How many copies of `card` the deck may hold; None for any number.

    Basic land cards are unlimited (100.2a, 903.5b; `Card.is_basic_land`); a card's own text
    may set another limit ("any number", "up to seven", "up to nine"; 113.6n lets it override
    the format's rule).
    """
    if card.is_basic_land or card.any_number:
        return None
    if card.copy_limit is not None:
        return card.copy_limit
    return fmt.copy_limit


def _by_card(entries: Iterable[ResolvedEntry]) -> dict[str, list[ResolvedEntry]]:
    """Entries grouped by oracle card: lines naming the same card are summed, however they
    spelled it (201.3b: interchangeable names are one name)."""
    grouped: dict[str, list[ResolvedEntry]] = defaultdict(list)
    for e in entries:
        grouped[e.card.oracle_id].append(e)
    return grouped


def _copy_groups(deck: ResolvedDeck, fmt: FormatRules) -> Iterable[list[ResolvedEntry]]:
    """The card groups that can break a copy limit, in listing order (201.3b: lines naming
    one card are summed, however they spelled it). Only a line of more copies than the limit
    (the card's own, or the format's) or a card on several lines can: most lists name each
    card once within its limit, and are decided without grouping them."""
    entries = deck_and_sideboard(deck, fmt)
    format_limit = fmt.copy_limit
    ids = [e.card.oracle_id for e in entries]
    repeated: Container[str] = ()
    unique = set(ids)
    if len(unique) != len(ids):
        # The cards on more than one line (most MTGO lists split a card between the deck and
        # the sideboard): one pass over a few dozen lines costs less than a Counter's set-up.
        repeated = set()
        for oid in ids:
            if oid in unique:
                unique.discard(oid)
            else:
                repeated.add(oid)
    return _by_card(
        [
            e
            for e, oid in zip(entries, ids)
            if oid in repeated
            or e.entry.quantity > (format_limit if e.card.copy_limit is None else e.card.copy_limit)
        ]
    ).values()


def check_copies(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """CR 100.2a / 100.4a: at most four of a card by English name over deck and sideboard;
    903.5b: Commander decks are singleton."""
    problems = []
    format_limit = fmt.copy_limit
    for entries in _copy_groups(deck, fmt):
        card = entries[0].card
        total = (
            entries[0].entry.quantity
            if len(entries) == 1
            else sum([e.entry.quantity for e in entries])
        )
        own = card.copy_limit
        if total <= (format_limit if own is None else own):
            # Within the card's own limit, or the format's when it sets none: `copy_limit`
            # can only lift that (a basic land, "any number"), so most groups of every deck
            # are decided here without it.
            continue
        limit = copy_limit(card, fmt)
        if limit is not None and total > limit:
            where = "in the deck" if fmt.is_commander else "in the main deck and sideboard together"
            message = f"{total} copies of {card.name}; at most {limit} allowed {where}"
            as_commander = sum(e.quantity for e in entries if e.section == COMMANDER)
            if as_commander > 1:
                # CR 903.5b: the Commander section lists the card twice: two copies of it in a
                # singleton deck, not one commander.
                message = (
                    f"{card.name} is listed {as_commander} times in the Commander "
                    f"section: {message} (a Commander deck is singleton, CR 903.5b)"
                )
            problems.append(
                Problem(
                    "too-many-copies",
                    message,
                    fmt.cite("copies"),
                    cards=(card.name,),
                    lines=entry_lines(entries),
                )
            )
    return problems


def _pool_groups(deck: ResolvedDeck, fmt: FormatRules) -> Iterable[list[ResolvedEntry]]:
    """The groups of the cards not legal in the format, in listing order: a card's status is
    the same on each of its lines, so each group is still the whole card (its copies summed
    for a restricted card), and the legal cards (most) are never grouped."""
    entries = deck_and_sideboard(deck, fmt)
    if fmt.is_commander and deck.count(COMPANION):
        # the companion is outside the 100 but must be legal too
        entries = entries + deck.cards_in(COMPANION)
    if fmt.name_status or fmt.lists_complete or fmt.sets:
        return _by_card([e for e in entries if fmt.status(e.card) != "legal"]).values()
    key = fmt.legality
    return _by_card(
        [e for e in entries if e.card.legalities.get(key, "not_legal") != "legal"]
    ).values()


def check_card_pool(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """Banned, restricted and not-legal cards, from the database's legalities for the format.

    The card itself decides, not a face name: "Emeritus of Ideation // Ancestral Recall" has
    its own legality, not Ancestral Recall's.
    """
    problems = []
    key = fmt.legality
    # the format's own banned / restricted / allowed names, a dated list that is the whole
    # ban list, or legal sets (then rules/sets.py judges the pool, not the legality key)
    own = bool(fmt.name_status) or fmt.lists_complete or bool(fmt.sets)
    for group in _pool_groups(deck, fmt):
        card = group[0].card
        # Card.legality, inlined: every card
        status = fmt.status(card) if own else card.legalities.get(key, "not_legal")
        if status == "legal":
            continue  # most cards: nothing more to compute
        cite = fmt.cite("card_pool")
        total = sum(e.quantity for e in group)
        lines = entry_lines(group)
        if status == "banned":
            problems.append(
                Problem(
                    "banned",
                    f"{card.name} is banned in {fmt.name}{fmt.as_of_list}",
                    cite,
                    cards=(card.name,),
                    lines=lines,
                )
            )
        elif status == "restricted":
            if fmt.restricted_means == "banned-as-commander":
                continue  # legal in the deck; `commander` checks it is not the commander
            if total > fmt.restricted_limit:
                problems.append(
                    Problem(
                        "restricted",
                        f"{card.name} is restricted in {fmt.name}{fmt.as_of_list}: at most "
                        f"{fmt.restricted_limit} copy over main deck and sideboard, "
                        f"this deck has {total}",
                        cite,
                        cards=(card.name,),
                        lines=lines,
                    )
                )
        elif status == "not_legal":
            if fmt.commander_rarity and all(e.section is COMMANDER for e in group):
                # Pauper Commander: the legality key speaks of the 99 (cards printed at
                # common), so it calls a commander printed only at uncommon "not legal"; the
                # commander's own rule is its printed rarity (format rules), which the
                # commander checks decide (`commander_rarity`). A ban still applies (above).
                continue
            problems.append(
                Problem(
                    "not-legal",
                    f"{card.name} is not legal in {fmt.name}",
                    cite,
                    cards=(card.name,),
                    lines=lines,
                )
            )
        else:
            # A status Scryfall added later ("suspended"...): unknown means "not known to be
            # allowed", so it fails closed, an error naming the status.
            problems.append(
                Problem(
                    "unknown-legality",
                    f"{card.name} has legality {status[:40]!r} in {fmt.name}, "
                    "which deckcheck does not know, so it is not known to be "
                    "allowed: the deck is not judged legal; check the card by "
                    "hand (or update deckcheck)",
                    cite,
                    ERROR,
                    cards=(card.name,),
                    lines=lines,
                )
            )
    return problems


def _misfiled(
    entries: list[ResolvedEntry], belongs: Callable[[Card], bool], code: str, what: str, rule: str
) -> tuple[list[ResolvedEntry], list[Problem]]:
    """Entries of a supplementary section whose card is not of its kind: each an error."""
    wrong = [e for e in entries if not belongs(e.card)]
    problems = [
        Problem(
            code,
            f"{e.card.name} is listed with the {what} but is not one; move it "
            "to the deck or sideboard",
            rule,
            cards=(e.card.name,),
            lines=entry_lines([e]),
        )
        for e in distinct_cards(wrong)
    ]
    return [e for e in entries if belongs(e.card)], problems


def _supplementary(
    entries: list[ResolvedEntry],
    *,
    listed: str,
    need: str,
    rule: str,
    size_code: str,
    invalid_code: str,
    minimum: int = 10,
) -> list[Problem]:
    """A separate supplementary deck (Attractions, sticker sheets): reported apart from the
    deck (`listed`), and an error (`need`) when it is short of `minimum` or holds the same one
    twice."""
    total = sum(e.quantity for e in entries)
    groups = _by_card(entries)
    # The problems name their cards (`cards`), not only their lines: the supplementary deck's
    # cards, or those listed twice when that alone is wrong.
    names = tuple(sorted(g[0].card.name for g in groups.values()))
    problems = [
        Problem(size_code, f"{total} {listed}", rule, INFO, cards=names, lines=entry_lines(entries))
    ]
    repeated = sorted(g[0].card.name for g in groups.values() if sum(e.quantity for e in g) > 1)
    if len(groups) < minimum or repeated:
        why = []
        if len(groups) < minimum:
            why.append(f"this list has {len(groups)} different")
        if repeated:
            why.append("listed more than once: " + ", ".join(repeated))
        problems.append(
            Problem(
                invalid_code,
                f"{need}; {'; '.join(why)}",
                rule + "a",
                cards=names if len(groups) < minimum else tuple(repeated),
                lines=entry_lines(entries),
            )
        )
    return problems


def check_sticker_sheets(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """Sticker sheets are not cards (CR 123.2): they never count toward the deck or sideboard.
    A player who plays with stickers brings at least ten unique sheets (123.2a): fewer, or the
    same sheet twice, is an error."""
    if not deck.sticker_sheets:
        return []
    sheets, problems = _misfiled(
        deck.sticker_sheets,
        lambda c: c.is_sticker_sheet,
        "not-a-sticker-sheet",
        "sticker sheets",
        "CR 123.2",
    )
    if sheets:
        problems = (
            _supplementary(
                sheets,
                listed="sticker sheet(s) listed; sticker sheets are not cards and are not "
                "counted in the deck or sideboard",
                need="playing with stickers needs at least 10 sticker sheets, each unique",
                rule="CR 123.2",
                size_code="sticker-sheets",
                invalid_code="sticker-sheets-invalid",
            )
            + problems
        )
    return problems


def check_attractions(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """CR 717.2: Attraction cards are not part of the deck and do not count toward its size;
    in constructed play they form a separate Attraction deck of at least ten cards with
    different English names (717.2a). Its cards must be legal in the format too."""
    if not deck.attractions:
        return []
    attractions, problems = _misfiled(
        deck.attractions,
        lambda c: c.is_attraction,
        "not-an-attraction",
        "Attraction deck",
        "CR 717.2",
    )
    if not attractions:
        return problems
    problems = (
        _supplementary(
            attractions,
            listed="Attraction card(s) listed as the Attraction deck; Attraction cards "
            "are not part of the deck and do not count toward its size",
            need="an Attraction deck needs at least 10 Attraction cards with different English "
            "names",
            rule="CR 717.2",
            size_code="attraction-deck",
            invalid_code="attraction-deck-invalid",
        )
        + problems
    )
    for group in _by_card(attractions).values():
        card = group[0].card
        status = fmt.status(card)
        if status in ("banned", "not_legal"):
            word = "banned" if status == "banned" else "not legal"
            problems.append(
                Problem(
                    "banned" if status == "banned" else "not-legal",
                    f"{card.name} (Attraction deck) is {word} in {fmt.name}",
                    fmt.cite("card_pool"),
                    cards=(card.name,),
                    lines=entry_lines(group),
                )
            )
    return problems


GENERIC_CHECKS: tuple[Check, ...] = (
    check_deck_size,
    check_sideboard,
    check_copies,
    check_card_pool,
    check_sticker_sheets,
    check_attractions,
)
