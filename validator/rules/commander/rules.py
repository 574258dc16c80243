"""The Commander rules checked after designation (CR 903 and its variants).

Eligibility (903.3, 903.3a, 903.12c), partners (702.124), banned as commander, Pauper
Commander's uncommon commander, color identity (903.4, 903.5c/d, 903.12e: colorless basics),
the companion as 101st card (702.139b, 903.11a) and Oathbreaker's signature spell. It does not
repeat what designation reported missing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import permutations

from validator.cards.abilities import BASIC_LAND_TYPES
from validator.cards.names import fold_name
from validator.cards.types import deck_types
from validator.model import (
    COMMANDER,
    COMPANION,
    INFO,
    MAIN,
    WARNING,
    Card,
    Problem,
    ResolvedDeck,
    ResolvedEntry,
    distinct_cards,
    entry_lines,
)
from validator.rules.commander.leaders import (
    _CHOOSES_COLOR,
    _is_planeswalker,
    _is_signature_spell,
    _partner_problems,
    can_lead,
    is_background,
)
from validator.rules.commander.messages import _OATHBREAKER, _names, _some_names, identity_text
from validator.rules.formats import FormatRules

#: `rarities(card)`: the rarities a card was printed at, None when printings were not synced.
Rarities = Callable[[Card], "set[str] | None"]


# --------------------------------------------------------------------------------------------
# Checks: the commander itself


def _needed_text(fmt: FormatRules) -> str:
    if not fmt.legendary_commander:
        return "a creature card"
    kinds = [
        "a legendary creature card",
        "a legendary Vehicle card",
        "a legendary Spacecraft card with a power/toughness box",
        "a card that says it can be your commander",
    ]
    if "Planeswalker" in fmt.commander_types:
        kinds.insert(1, "a legendary planeswalker card")
    return ", ".join(kinds[:-1]) + ", or " + kinds[-1]


def _why_not(card: Card) -> str:
    found = deck_types(card)
    if "Spacecraft" in found.subtypes and card.is_legendary:
        return f"{card.name} is a Spacecraft without a power/toughness box"
    back_creature = any("Creature" in f.type_line for f in card.faces[1:])
    if back_creature and "Creature" not in found.types:
        return (
            f"{card.name} is a creature only on its back face, and only the front face "
            "counts (CR 712.8a)"
        )
    if not card.is_legendary and ("Creature" in found.types or "Vehicle" in found.subtypes):
        return f"{card.name} is not legendary"
    return f"{card.name} is a {card.type_line.split(' // ')[0]}"


def _eligibility_problems(cards: Sequence[Card], fmt: FormatRules) -> list[Problem]:
    """903.3 / 903.3a / 903.12c; a Background only beside "Choose a Background" (702.124k)."""
    problems = []
    for card in cards:
        if can_lead(card, fmt):
            continue
        if is_background(card):
            if len(cards) == 1:
                problems.append(
                    Problem(
                        "commander-not-eligible",
                        f"{card.name} is a Background: it can be a "
                        "commander only beside a commander with 'Choose a Background'",
                        "CR 702.124k",
                        cards=(card.name,),
                    )
                )
            continue  # beside another commander, the pair check says whether it may (702.124k)
        problems.append(
            Problem(
                "commander-not-eligible",
                f"{_why_not(card)}; a commander must be {_needed_text(fmt)}",
                fmt.cite("commander", "CR 903.3"),
                cards=(card.name,),
            )
        )
    return problems


def _banned_as_commander(cards: Sequence[Card], fmt: FormatRules) -> list[Problem]:
    """The format's own list (Duel Commander), and Scryfall's "restricted" where it means
    "legal in the deck, not as the commander" (fmt.restricted_means)."""
    banned = {fold_name(n) for n in fmt.banned_as_commander}
    problems = []
    for card in cards:
        listed = fold_name(card.name) in banned or fold_name(card.front_name) in banned
        restricted = (
            fmt.restricted_means == "banned-as-commander"
            and card.legality(fmt.legality) == "restricted"
        )
        if listed or restricted:
            problems.append(
                Problem(
                    "banned-as-commander",
                    f"{card.name} is banned as a commander in {fmt.name} "
                    "(it may be one of the other cards of the deck)",
                    fmt.cite("banned_as_commander", f"format:{fmt.key}"),
                    cards=(card.name,),
                )
            )
    return problems


def _rarity_problems(
    cards: Sequence[Card], fmt: FormatRules, rarities: Rarities | None
) -> list[Problem]:
    """Pauper Commander: the commander was printed at uncommon, which only printings tell;
    without them, say so rather than guess."""
    if not fmt.commander_rarity or not cards:
        return []
    printed = {c.oracle_id: (rarities(c) if rarities else None) for c in cards}
    if any(r is None for r in printed.values()):
        # Unknown is not "allowed": the card data's legality key does not speak of the
        # commander (check_card_pool), so without printings nothing says it may lead. Fails
        # closed, like an unknown legality (checks.check_card_pool).
        return [
            Problem(
                "commander-rarity-unchecked",
                f"could not check the commander's rarity ({fmt.name} "
                f"needs a commander printed at {fmt.commander_rarity}), so the deck is not judged "
                "legal: run `deckcheck sync --printings`",
                fmt.cite("commander"),
                cards=tuple(c.name for c in cards),
            )
        ]
    problems = []
    for card in cards:
        seen = printed[card.oracle_id] or set()
        if fmt.commander_rarity not in seen:
            problems.append(
                Problem(
                    "commander-not-eligible",
                    f"{card.name} was never printed at "
                    f"{fmt.commander_rarity} (printed at: {', '.join(sorted(seen)) or 'none known'});"
                    f" {fmt.name} needs a commander printed at {fmt.commander_rarity}",
                    fmt.cite("commander"),
                    cards=(card.name,),
                )
            )
    return problems


# --------------------------------------------------------------------------------------------
# Checks: color identity (903.4, 903.5c, 903.5d, 903.12e)


def _identity(
    leaders: Sequence[Card], entries: Sequence[ResolvedEntry]
) -> tuple[set[str], str | None]:
    """The commanders' combined identity (702.124c) and, when one of them has its owner choose
    a color before the game (903.4b), the color the deck shows was chosen (the extra color
    most of its cards use)."""
    colors = set("".join(c.color_identity for c in leaders))
    if not any(_CHOOSES_COLOR.search(c.oracle_text) for c in leaders):
        return colors, None
    # Counted in listing order, each card's colors in WUBRG order (its identity string): a tie
    # goes to the color counted first, so the same deck always gets the same report (a set's
    # order, used before, changes with the interpreter's hash seed).
    extra = Counter(c for e in entries for c in e.card.color_identity if c not in colors)
    chosen = extra.most_common(1)[0][0] if extra else None
    return colors | ({chosen} if chosen else set()), chosen


def _basic_type(e: ResolvedEntry) -> str | None:
    """The basic land type of a colored basic land card (Wastes has none)."""
    if not (e.card.is_basic_land and e.card.color_identity):
        return None
    types = sorted(e.card.subtypes & BASIC_LAND_TYPES)
    return types[0] if len(types) == 1 else None


def _colorless_basics(
    entries: Sequence[ResolvedEntry], fmt: FormatRules
) -> tuple[list[ResolvedEntry], list[Problem]]:
    """903.12e (Brawl): with a colorless commander, basic lands of one chosen basic land type.
    The type most copies have is taken as chosen. Returns the entries the exception does not
    cover, and a problem for basics of other types."""
    counts: Counter[str] = Counter()
    for e in entries:
        kind = _basic_type(e)
        if kind:
            counts[kind] += e.quantity
    if not counts:
        return list(entries), []
    chosen = counts.most_common(1)[0][0]
    wrong = [e for e in entries if _basic_type(e) not in (None, chosen)]
    problems = []
    if wrong:
        cards = tuple(e.card.name for e in distinct_cards(wrong))
        problems.append(
            Problem(
                "color-identity",
                f"With a colorless commander, a {fmt.name} deck may hold basic lands "
                f"of one basic land type only; {chosen} is taken as the chosen type, so these are not "
                f"allowed: {', '.join(cards)}",
                fmt.cite("colorless_basics", "CR 903.12e"),
                cards=cards,
                lines=entry_lines(wrong),
            )
        )
    return [e for e in entries if _basic_type(e) is None], problems


def _identity_problems(
    fmt: FormatRules, leaders: Sequence[Card], entries: Sequence[ResolvedEntry]
) -> list[Problem]:
    """903.5c/d: each card's color identity within the commanders' combined identity; one
    grouped problem listing every offending card with its identity."""
    colors, chosen = _identity(leaders, entries)
    problems: list[Problem] = []
    if chosen:
        problems.append(
            Problem(
                "chosen-color",
                f"The deck's cards use {identity_text(chosen)}: taken as the color "
                f"chosen for {_names(leaders)} before the game",
                "CR 903.4b",
                INFO,
            )
        )
    if fmt.colorless_basics and not colors:
        entries, basics = _colorless_basics(entries, fmt)
        problems += basics
    # Filtered first: the test is the card's, so this is the first entry of each card outside.
    # Most decks have none: one test of every identity at once says so.
    off = (
        []
        if colors.issuperset("".join([e.card.color_identity for e in entries]))
        else distinct_cards([e for e in entries if not colors.issuperset(e.card.color_identity)])
    )
    if off:
        off_ids = {e.card.oracle_id for e in off}
        listed = ", ".join(f"{e.card.name} ({identity_text(e.card.color_identity)})" for e in off)
        problems.append(
            Problem(
                "color-identity",
                f"{len(off)} card(s) outside the color identity of "
                f"{_names(leaders)} ({identity_text(colors)}): {listed}",
                fmt.cite("color_identity", "CR 903.5c"),
                cards=tuple(e.card.name for e in off),
                lines=entry_lines(e for e in entries if e.card.oracle_id in off_ids),
            )
        )
    return problems


# --------------------------------------------------------------------------------------------
# Checks: the companion, the 101st card (702.139, 903.11a)


def _companion_condition(
    companion: ResolvedEntry, deck: ResolvedDeck, fmt: FormatRules
) -> list[Problem]:
    """The whole starting deck, commander included (702.139b), meets the condition."""
    try:
        from validator.rules.companion.checks import companion_condition_problems
        from validator.rules.companion.predicates import StartingDeck
    except ImportError:  # the condition grammar is optional for the Commander rules
        return [
            Problem(
                "companion-unchecked",
                f"could not check {companion.card.name}'s "
                "companion condition (validator.rules.companion is not available)",
                "CR 702.139b",
                WARNING,
                cards=(companion.card.name,),
            )
        ]
    entries = deck.cards_in(MAIN, COMMANDER)
    lines: dict[str, list[int]] = {}
    for e in [*entries, companion]:
        if e.entry.line:
            lines.setdefault(e.card.name, []).append(e.entry.line)
    ctx = StartingDeck(minimum_deck_size=fmt.min_deck, exact_size=fmt.max_deck == fmt.min_deck)
    return list(
        companion_condition_problems(
            companion.card,
            [(e.card, e.quantity) for e in entries],
            ctx,
            "CR 702.139b",
            lines={name: tuple(sorted(found)) for name, found in lines.items()},
        )
    )


def _companion_problems(
    deck: ResolvedDeck, fmt: FormatRules, leaders: Sequence[Card]
) -> list[Problem]:
    entries = deck.cards_in(COMPANION)
    if not entries:
        return []
    cite = fmt.cite("companion", "CR 903.11a")
    names = tuple(e.card.name for e in distinct_cards(entries))
    if not fmt.companions:
        return [
            Problem(
                "companions-not-allowed",
                f"{fmt.name} does not allow a companion: " + ", ".join(names),
                cite,
                cards=names,
                lines=entry_lines(entries),
            )
        ]
    if sum(e.quantity for e in entries) > 1:
        return [
            Problem(
                "too-many-companions",
                "Only one companion can be revealed: " + ", ".join(names),
                "CR 702.139a",
                cards=names,
                lines=entry_lines(entries),
            )
        ]
    companion = entries[0]
    card, lines = companion.card, entry_lines([companion])
    if card.companion_condition is None:
        return [
            Problem(
                "not-a-companion",
                f"{card.name} has no companion ability",
                "CR 702.139a",
                cards=(card.name,),
                lines=lines,
            )
        ]
    problems = []
    if fold_name(card.name) in {fold_name(n) for n in fmt.banned_as_companion}:
        problems.append(
            Problem(
                "banned-as-companion",
                f"{card.name} is banned as a companion in {fmt.name} (it may "
                "be in the deck or be the commander)",
                fmt.cite("card_pool", f"format:{fmt.key}"),
                cards=(card.name,),
                lines=lines,
            )
        )
    colors, _ = _identity(leaders, deck.cards_in(MAIN))
    if leaders and not set(card.color_identity) <= colors:
        problems.append(
            Problem(
                "companion-color-identity",
                f"{card.name} ({identity_text(card.color_identity)}) is "
                f"outside the color identity of {_names(leaders)} ({identity_text(colors)})",
                cite,
                cards=(card.name,),
                lines=lines,
            )
        )
    in_deck = [
        e for e in deck.cards_in(MAIN, COMMANDER) if fold_name(e.card.name) == fold_name(card.name)
    ]
    if in_deck:
        problems.append(
            Problem(
                "companion-in-deck",
                f"{card.name} is the companion and also in the deck: a companion "
                "cannot share a name with a card of the starting deck",
                cite,
                cards=(card.name,),
                lines=entry_lines([companion, *in_deck]),
            )
        )
    return problems + _companion_condition(companion, deck, fmt)


# --------------------------------------------------------------------------------------------
# Checks: Oathbreaker


def _spells_fit(spells: Sequence[Card], walkers: Sequence[Card]) -> bool:
    """Each signature spell within the color identity of its own oathbreaker. Called with at
    most two of each (a legal deck's most), so the orderings tried are at most two."""
    return any(
        all(set(s.color_identity) <= set(w.color_identity) for s, w in zip(spells, order))
        for order in permutations(walkers, len(spells))
    )


def _with_identity(cards: Iterable[Card]) -> str:
    return ", ".join(f"{c.name} ({identity_text(c.color_identity)})" for c in cards)


def _oathbreaker_problems(
    deck: ResolvedDeck, fmt: FormatRules, cards: Sequence[Card]
) -> list[Problem]:
    """Planeswalker oathbreaker(s) (two only with partners), one instant or sorcery signature
    spell each within its oathbreaker's color identity, the deck within the oathbreakers'
    identity. A missing oathbreaker or spell is reported by `designate_commanders`."""
    cite = fmt.cite("commander", _OATHBREAKER)
    walkers = [c for c in cards if _is_planeswalker(c)]
    spells = [c for c in cards if _is_signature_spell(c) and not _is_planeswalker(c)]
    problems = [
        Problem(
            "commander-not-eligible",
            f"{c.name} is neither a planeswalker (an "
            "oathbreaker) nor an instant or sorcery (a signature spell)",
            cite,
            cards=(c.name,),
        )
        for c in cards
        if c not in walkers and c not in spells
    ]
    problems += _partner_problems(walkers, "oathbreakers")
    if walkers and (len(spells) > len(walkers) or len(spells) > 2):
        # One each (format:oathbreaker), and two oathbreakers at most (702.124): more spells
        # than that is said at once, without weighing who would pair with whom.
        problems.append(
            Problem(
                "signature-spell-invalid",
                f"{len(spells):,} signature spells ({_some_names(spells)})"
                f" for {len(walkers):,} oathbreaker(s): one each, and at most two oathbreakers "
                "(CR 702.124)",
                cite,
                cards=tuple(c.name for c in spells),
            )
        )
    elif walkers and spells and len(spells) < len(walkers) <= 2:
        # Partner oathbreakers (702.124) each bring their own signature spell: one spell for
        # two is a deck short of its second (format:oathbreaker). No spell at all is said by
        # `designate_commanders` (signature-spell-missing).
        problems.append(
            Problem(
                "signature-spell-missing",
                f"{len(walkers)} oathbreakers ({_names(walkers)}) but "
                f"one signature spell ({_names(spells)}): each oathbreaker needs its own instant or "
                "sorcery signature spell; list the second with the oathbreakers",
                cite,
                cards=tuple(c.name for c in walkers + spells),
            )
        )
    elif walkers and spells and len(walkers) <= 2 and not _spells_fit(spells, walkers):
        problems.append(
            Problem(
                "signature-spell-invalid",
                "A signature spell must be within its oathbreaker's color "
                f"identity: {_with_identity(spells)} for {_with_identity(walkers)}",
                cite,
                cards=tuple(c.name for c in spells),
            )
        )
    if walkers:
        problems += _identity_problems(fmt, walkers, deck.cards_in(MAIN))
    return problems


# --------------------------------------------------------------------------------------------


def commander_problems(
    deck: ResolvedDeck, fmt: FormatRules, rarities: Rarities | None = None
) -> list[Problem]:
    """Every Commander-family rule of `deck` except the generic ones (size, singleton, card
    pool, sideboard) and what `designate_commanders` (run first) reported missing.

    `rarities(card)` gives the rarities a card was printed at, or None without printings.
    """
    if not fmt.is_commander:
        return []
    leaders = [e.card for e in distinct_cards(deck.cards_in(COMMANDER))]
    if fmt.kind == "oathbreaker":
        return _oathbreaker_problems(deck, fmt, leaders) + _companion_problems(deck, fmt, leaders)
    if len(leaders) > 2:
        # 702.124g: never more than two commanders. Said at once, naming them; checking each
        # one's eligibility, rarity and identity would judge a deck that cannot exist.
        return _partner_problems(leaders) + _companion_problems(deck, fmt, leaders)
    problems = _eligibility_problems(leaders, fmt)
    problems += _partner_problems(leaders)
    problems += _banned_as_commander(leaders, fmt)
    problems += _rarity_problems(leaders, fmt, rarities)
    if leaders:
        problems += _identity_problems(fmt, leaders, deck.cards_in(MAIN))
    problems += _companion_problems(deck, fmt, leaders)
    return problems
