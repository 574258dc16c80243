"""The Commander family: designating commanders, partners, color identity, the companion.

Two entry points, run in this order by `api.check_resolved`:

* `designate_commanders` puts the commander(s) in Section.COMMANDER and the companion in
  Section.COMPANION (from a Commander section, `--commander`, or the sideboard, where MTGO and
  tournament exports list them), so that the generic checks count the 100 (CR 903.5a) and see
  no sideboard (903.5e). It says how the commander was found, or that none was.
* `commander_problems` checks the rest of CR 903 and its variants: eligibility (903.3,
  903.12c), partners (702.124), color identity (903.4, 903.5c/d, 903.12e), banned-as-commander,
  the companion as 101st card (702.139b, 903.11a), Oathbreaker's signature spell and Pauper
  Commander's uncommon commander. It does not repeat what designation reported missing.

In a format without commanders, `commander_section_as_deck` (run instead of designation)
counts cards marked as commander as main-deck cards and says so.

Designation is bounded on hostile lists: a legal deck has at most two commanders (903.3,
702.124), so more is one problem naming them, never a search over every pair or ordering.

Generic rules (deck size, singleton, card pool, sideboard) live in `checks`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from itertools import combinations, permutations
from typing import Callable, Iterable, Sequence

from .abilities import BASIC_LAND_TYPES
from .cardtypes import deck_types
from .formats import FormatRules
from .model import (COLOR_ORDER, COMMANDER, COMPANION, IGNORED, INFO, MAIN, SIDEBOARD, WARNING,
                    Card, DeckEntry, Problem, ResolvedDeck, ResolvedEntry, Section,
                    distinct_cards, entry_lines)
from .names import fold_name

#: `rarities(card)`: the rarities a card was printed at, None when printings were not synced.
Rarities = Callable[[Card], "set[str] | None"]

#: CR 903.4b: "If <this> is your commander, choose a color before the game begins" (Clara
#: Oswald, Faceless One): the chosen color is part of the commander's identity.
_CHOOSES_COLOR = re.compile(r"choose a colou?r before the game begins", re.IGNORECASE)

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
_HOW_TO_MARK = ("mark it with a Commander section (Arena), *CMDR* after its name (Moxfield), "
                "[Commander] (Archidekt), or --commander NAME")
_OATHBREAKER = "format:oathbreaker"
#: A legal deck has at most two commanders (CR 903.3, 702.124), two oathbreakers and two
#: signature spells, one companion (702.139a). The sideboard guess weighs every single and pair
#: among its candidates; past this many (real exports list a few extra legends, never more)
#: the deck is reported at once instead, so that a hostile list costs linear time.
MAX_SIDEBOARD_CANDIDATES = 6
#: How many names a message lists before "and N more".
_LISTED = 10


# --------------------------------------------------------------------------------------------
# Card facts the Commander rules need

def is_background(card: Card) -> bool:
    """A legendary Background enchantment card (CR 702.124k)."""
    found = deck_types(card)
    return card.is_legendary and "Enchantment" in found.types and "Background" in found.subtypes


_TIME_LORD_DOCTOR = frozenset({"Time Lord", "Doctor"})


def is_time_lord_doctor(card: Card) -> bool:
    """CR 702.124m: a legendary Time Lord Doctor creature card with no other creature types.

    A changeling (702.73a, 205.3m: every creature type) has Time Lord and Doctor but also every
    other creature type, so it never is one. Types off the battlefield (113.6c).
    """
    found = deck_types(card)
    return (card.is_legendary and "Creature" in found.types
            and found.creature_types_exactly(_TIME_LORD_DOCTOR))


def can_lead(card: Card, fmt: FormatRules) -> bool:
    """Whether `card` can be a commander on its own in `fmt` (CR 903.3, 903.3a, 903.12c).

    Only the front face counts outside the battlefield (712.8a); `Card.commander_eligible`
    (computed at sync) already says so, Grist's creature-off-the-battlefield text included.
    Oathbreaker takes a planeswalker; Pauper Commander any creature (rarity checked apart).
    """
    if fmt.kind == "oathbreaker":
        return "Planeswalker" in deck_types(card).types  # off the battlefield (CR 113.6c)
    if card.commander_eligible:
        return True
    types = deck_types(card).types
    if not fmt.legendary_commander:
        return "Creature" in types
    return card.is_legendary and any(t in types for t in fmt.commander_types)


def _may_lead(card: Card, fmt: FormatRules) -> bool:
    """A commander alone, or one half of a pair (a Background needs its partner, 702.124k)."""
    return can_lead(card, fmt) or (fmt.kind != "oathbreaker" and is_background(card))


def _is_signature_spell(card: Card) -> bool:
    return bool(deck_types(card).types & {"Instant", "Sorcery"})


def _is_planeswalker(card: Card) -> bool:
    return "Planeswalker" in deck_types(card).types


def identity_text(colors: Iterable[str]) -> str:
    """"WUB" in WUBRG order, or "colorless"."""
    wanted = set(colors)
    return "".join(c for c in COLOR_ORDER if c in wanted) or "colorless"


def _names(cards: Iterable[Card]) -> str:
    return ", ".join(c.name for c in cards)


def _some_names(cards: Sequence[Card]) -> str:
    """The first names of a long list, for messages that stay short on hostile input."""
    shown = _names(cards[:_LISTED])
    return shown + (f" and {len(cards) - _LISTED:,} more" if len(cards) > _LISTED else "")


# --------------------------------------------------------------------------------------------
# Partners (CR 702.124)

def partner_text(card: Card) -> str:
    """The partner ability as printed, for messages."""
    kind = card.partner or ""
    if kind == "partner":
        return "Partner"
    if kind == "partner-with":
        return f"Partner with {card.partner_with}"
    if kind.startswith("partner:"):
        return "Partner\u2014" + kind.split(":", 1)[1]
    return {"choose-a-background": "Choose a Background",
            "doctors-companion": "Doctor's companion"}.get(kind, "no partner ability")


def _invalid(message: str, rule: str, a: Card, b: Card) -> Problem:
    return Problem("invalid-partners", message, f"CR {rule}", cards=(a.name, b.name))


def _background_pair_problem(a: Card, b: Card) -> Problem | None:
    """702.124k: "Choose a Background" + a legendary Background enchantment card, nothing else."""
    for leader, other in ((a, b), (b, a)):
        if leader.partner == "choose-a-background" and is_background(other):
            return None
    for leader, other in ((a, b), (b, a)):
        if leader.partner == "choose-a-background":
            return _invalid(f"{leader.name} has 'Choose a Background': its partner must be a "
                            f"legendary Background enchantment, and {other.name} is not one",
                            "702.124k", a, b)
    background, other = (a, b) if is_background(a) else (b, a)
    return _invalid(f"{background.name} is a Background: it can be a commander only beside a "
                    f"commander with 'Choose a Background', which {other.name} does not have",
                    "702.124k", a, b)


def _doctor_pair_problem(a: Card, b: Card) -> Problem | None:
    """702.124m: "Doctor's companion" + a legendary Time Lord Doctor creature card with no
    other creature types."""
    companion, other = (a, b) if a.partner == "doctors-companion" else (b, a)
    if other.partner == "doctors-companion" or not is_time_lord_doctor(other):
        found = deck_types(other)
        extra = sorted(found.subtypes - _TIME_LORD_DOCTOR)
        if found.every_creature_type and other.partner != "doctors-companion":
            # 702.73a / 205.3m: a changeling is a Time Lord Doctor AND every other creature type.
            why = ("has other creature types: changeling makes it every creature type "
                   "(CR 702.73a, 205.3m)")
        elif _TIME_LORD_DOCTOR <= found.subtypes and extra:
            why = f"has other creature types: {', '.join(extra)}"
        else:
            why = "is not one"
        return _invalid(f"{companion.name} has 'Doctor's companion': its partner must be a "
                        f"legendary Time Lord Doctor creature with no other creature types, and "
                        f"{other.name} {why}", "702.124m", a, b)
    if not ("Creature" in deck_types(companion).types and companion.is_legendary):
        return _invalid(f"{companion.name} must be a legendary creature card to use "
                        "'Doctor's companion'", "702.124m", a, b)
    return None


def _named_partner(card: Card, other: Card) -> bool:
    wanted = fold_name(card.partner_with or "")
    return wanted in (fold_name(other.name), fold_name(other.front_name))


def _mixed_problem(a: Card, b: Card) -> Problem:
    """702.124f: different partner abilities do not combine (no ability at all neither)."""
    if a.partner and b.partner:
        message = (f"{a.name} has {partner_text(a)} but {b.name}'s partner is {partner_text(b)}: "
                   "both commanders need the same partner ability")
    else:
        having, lacking = (a, b) if a.partner else (b, a)
        message = (f"{having.name} has {partner_text(having)} but {lacking.name} has no partner "
                   "ability: both commanders need the same partner ability")
    return _invalid(message, "702.124f", a, b)


def pair_problem(a: Card, b: Card) -> Problem | None:
    """Why `a` and `b` cannot be your two commanders, or None when a partner ability lets them
    (702.124a, f, h-m)."""
    backgrounds = is_background(a) or is_background(b)
    if backgrounds or "choose-a-background" in (a.partner, b.partner):
        return _background_pair_problem(a, b)
    if "doctors-companion" in (a.partner, b.partner):
        return _doctor_pair_problem(a, b)
    if a.partner is None and b.partner is None:
        return _invalid(f"{a.name} and {b.name} have no partner ability: a deck has one "
                        "commander unless both have the same partner ability", "702.124a", a, b)
    if a.partner != b.partner:
        return _mixed_problem(a, b)
    if a.partner == "partner-with":
        for card, other in ((a, b), (b, a)):
            if not _named_partner(card, other):
                return _invalid(f"{card.name} has 'Partner with {card.partner_with}': its "
                                f"partner must be {card.partner_with}, not {other.name}",
                                "702.124j", a, b)
    return None  # same "partner" or same "partner—[text]" (702.124h, 702.124i)


def _partner_problems(cards: Sequence[Card], what: str = "commanders") -> list[Problem]:
    if len(cards) > 2:
        return [Problem("invalid-partners",
                        f"{len(cards):,} {what} ({_some_names(cards)}): no partner ability allows "
                        "more than two", "CR 702.124g", cards=tuple(c.name for c in cards))]
    if len(cards) == 2:
        problem = pair_problem(*cards)
        return [problem] if problem else []
    return []


# --------------------------------------------------------------------------------------------
# Moving entries between sections


def _move(deck: ResolvedDeck, item: ResolvedEntry, section: Section,
          quantity: int = 1) -> ResolvedEntry:
    """Move `quantity` copies of `item` to `section` (`ResolvedDeck.move`: splits the entry
    when it has more, and keeps the deck's section lists right, mostly without a rebuild)."""
    return deck.move(item, section, quantity)


def _info(code: str, message: str, fmt: FormatRules, cards: Iterable[Card] = (),
          entries: Iterable[ResolvedEntry] = ()) -> Problem:
    return Problem(code, message, fmt.cite("commander"), INFO,
                   cards=tuple([c.name for c in cards]), lines=entry_lines(entries))


def _ignore_duplicates(deck: ResolvedDeck, fmt: FormatRules, section: Section,
                       what: str) -> list[Problem]:
    """A commander or companion listed again elsewhere is one card: exports repeat it (MTGO and
    Melee sideboards, Arena's Companion + Sideboard). Extra listings go to IGNORED.

    A commander listed twice in the Commander section itself is not an export's repetition but
    two copies of a card in a singleton deck (CR 903.5b): those stay, for the singleton check.
    """
    problems = []
    twice_allowed = section == COMMANDER
    if twice_allowed and not deck.has(SIDEBOARD):
        return problems  # nothing can repeat the commander (most decks, once designated)
    for e in deck.cards_in(section):
        if e.quantity > 1 and not twice_allowed:
            listed = e.quantity
            _move(deck, e, IGNORED, listed - 1)
            problems.append(_info("duplicate-listing", f"{e.card.name} is listed {listed} times "
                                  f"as the {what}; counted once", fmt, [e.card], [e]))
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
        moved = _move(deck, e, IGNORED, e.quantity)
        problems.append(_info("duplicate-listing", f"{e.card.name} is listed again{where} "
                              f"besides being the {what}; counted once", fmt, [e.card], [moved]))
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
    size = (deck.count(MAIN, COMMANDER)
            + _unknown_count(deck, MAIN, COMMANDER))
    if size <= fmt.max_deck:
        return []  # not over its size (every listing holds a copy): most decks stop here
    commander_ids = {e.card.oracle_id for e in deck.cards_in(COMMANDER)}
    repeats = [e for e in deck.cards_in(MAIN) if e.card.oracle_id in commander_ids]
    if not repeats or size - sum(e.quantity for e in repeats) != fmt.max_deck:
        return []
    problems = []
    for e in repeats:
        moved = _move(deck, e, IGNORED, e.quantity)
        problems.append(_info("duplicate-listing", f"{e.card.name} is listed both as commander "
                              "and in the deck; counted once, as the commander",
                              fmt, [e.card], [moved]))
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
        source = next((e for section in (SIDEBOARD, MAIN, COMPANION)
                       for e in deck.cards_in(section) if e.card.oracle_id == card.oracle_id),
                      None)
        if source is None:
            entry = DeckEntry(quantity=1, name=card.name, section=COMMANDER)
            deck.entries.append(ResolvedEntry(entry=entry, card=card))
            problems.append(_info("commander-found", f"{card.name} is not in the decklist: added "
                                  "as the commander (--commander)", fmt, [card]))
            continue
        where = source.section.value
        moved = _move(deck, source, COMMANDER)
        problems.append(_info("commander-found", f"Commander set by --commander: {card.name} "
                              f"(moved from the {where})", fmt, [card], [moved]))
    return problems


def _section_found(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    entries = deck.cards_in(COMMANDER)
    source = deck.deck.commander_source
    where = _SOURCE_WORDS.get(source or "", f"the decklist ({source})" if source
                              else "the decklist's commander section")
    cards = [e.card for e in distinct_cards(entries)]
    what = "Oathbreaker and signature spell" if fmt.kind == "oathbreaker" else "Commander"
    return [_info("commander-found", f"{what} taken from {where}: {_names(cards)}",
                  fmt, cards, entries)]


def _covers(option: Sequence[ResolvedEntry], colors: set[str]) -> bool:
    identity = set("".join(e.card.color_identity for e in option))
    if any(_CHOOSES_COLOR.search(e.card.oracle_text) for e in option):
        return len(colors - identity) <= 1  # 903.4b: one chosen color
    return colors <= identity


def _leader_options(candidates: list[ResolvedEntry],
                    fmt: FormatRules) -> list[tuple[ResolvedEntry, ...]]:
    """Every single commander and every valid partner pair among `candidates`."""
    options: list[tuple[ResolvedEntry, ...]] = [(e,) for e in candidates if can_lead(e.card, fmt)]
    options += [(a, b) for a, b in combinations(candidates, 2)
                if pair_problem(a.card, b.card) is None]
    return options


def _choose_leaders(deck: ResolvedDeck, fmt: FormatRules, candidates: list[ResolvedEntry],
                    fill: bool) -> tuple[tuple[ResolvedEntry, ...], bool]:
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


def _guessed(fmt: FormatRules, what: str, candidates: Iterable[Card],
             chosen: Sequence[Card]) -> Problem:
    return Problem(
        "commander-guessed",
        f"The sideboard holds several cards that could be the {what} ({_names(candidates)}); "
        f"took {_names(chosen)}, the first listed that fits the deck's colors and size. To be "
        f"sure, {_HOW_TO_MARK}", fmt.cite("commander"), WARNING,
        cards=tuple(c.name for c in chosen))


def _sideboard_leaders(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """MTGO and tournament exports of Commander lists put the commander(s) in the sideboard."""
    sideboard = deck.cards_in(SIDEBOARD)
    if len(sideboard) == 1:
        # The usual MTGO list: the commander alone. What the general case below decides for
        # one card: a non-companion is designated, leader or not (then the report says why
        # not, 903.3); a companion card only if it can lead.
        only = sideboard[0]
        if only.card.companion_condition is not None and not can_lead(only.card, fmt):
            return []
        chosen, guessed, candidates = (only,), False, sideboard
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
    moved = [_move(deck, e, COMMANDER) for e in chosen]
    problems = [_found_in_sideboard(fmt, moved)]
    if guessed:
        problems.append(_guessed(fmt, "commander", (e.card for e in candidates),
                                 [e.card for e in moved]))
    return problems


def _found_in_sideboard(fmt: FormatRules, moved: Sequence[ResolvedEntry]) -> Problem:
    cards = [e.card for e in moved]
    return _info("commander-found", "Commander taken from the sideboard, as MTGO exports "
                 f"list it: {_names(cards)}", fmt, cards, moved)


def _too_many_candidates(fmt: FormatRules, what: str,
                         candidates: Sequence[ResolvedEntry]) -> Problem:
    """A sideboard offering more candidates than any legal deck holds: said at once, naming
    them, rather than weighing every pair (a legal deck has at most two commanders, CR 903.3
    and 702.124; and no sideboard, 903.5e)."""
    cards = [e.card for e in candidates]
    code, rule = (("oathbreaker-missing", _OATHBREAKER) if what == "oathbreaker"
                  else ("commander-missing", fmt.cite("commander", "CR 903.3")))
    return Problem(
        code, f"No {what} found: the sideboard holds {len(cards):,} cards that could be the "
        f"{what} ({_some_names(cards)}), and a deck has one, or two whose partner abilities "
        f"allow it (CR 702.124); deckcheck does not guess among more than "
        f"{MAX_SIDEBOARD_CANDIDATES}. {_HOW_TO_MARK[0].upper()}{_HOW_TO_MARK[1:]}", rule,
        cards=tuple(c.name for c in cards), lines=entry_lines(candidates))


def _missing(deck: ResolvedDeck, fmt: FormatRules) -> Problem:
    unknown = [e.name for e in deck.unresolved if e.section == SIDEBOARD]
    sideboard = distinct_cards(deck.cards_in(SIDEBOARD))
    detail = ""
    if unknown:
        detail = f" The sideboard names unknown card(s): {', '.join(unknown)}."
    elif sideboard:
        detail = f" No sideboard card can be the commander ({_names(e.card for e in sideboard)})."
    return Problem("commander-missing", f"No commander found: {_HOW_TO_MARK}.{detail}",
                   fmt.cite("commander", "CR 903.3"))


def _unknown_leaders(unknown: Sequence[DeckEntry], fmt: FormatRules) -> Problem:
    """The Commander section names cards that do not exist (a typo, a card newer than the
    database): the commander rules (903.3) cannot be checked until the name is fixed."""
    names = ", ".join(repr(e.name) for e in unknown)
    what = "oathbreaker and signature spell" if fmt.kind == "oathbreaker" else "commander"
    known = "is not a known card" if len(unknown) == 1 else "are not known cards"
    return Problem("commander-unknown", f"The Commander section names {names}, which {known}, "
                   f"so the {what} rules could not be checked; fix the name",
                   fmt.cite("commander", "CR 903.3"),
                   cards=tuple(e.name for e in unknown),
                   lines=tuple(e.line for e in unknown if e.line))


def _designate_companion(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """The one companion card left in the sideboard is the companion: the 101st card
    (702.139a, 903.11), not a sideboard card (903.5e)."""
    if deck.has(COMPANION) or not deck.has(SIDEBOARD):
        return []
    companions = distinct_cards(e for e in deck.cards_in(SIDEBOARD)
                           if e.card.companion_condition is not None)
    if len(companions) != 1:
        return []
    moved = _move(deck, companions[0], COMPANION)
    return [Problem("companion-found", f"Companion taken from the sideboard: {moved.card.name}",
                    fmt.cite("companion", "CR 903.11a"), INFO, cards=(moved.card.name,),
                    lines=entry_lines([moved]))]


def _designate_oathbreakers(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    walkers = [e for e in deck.cards_in(COMMANDER) if _is_planeswalker(e.card)]
    if walkers:
        return []
    candidates = distinct_cards(e for e in deck.cards_in(SIDEBOARD)
                           if _is_planeswalker(e.card))
    if len(candidates) > MAX_SIDEBOARD_CANDIDATES:
        return [_too_many_candidates(fmt, "oathbreaker", candidates)]
    chosen, guessed = _choose_leaders(deck, fmt, candidates, fill=False)
    if not chosen:
        return [Problem("oathbreaker-missing", "No oathbreaker found: an Oathbreaker deck is led "
                        f"by a planeswalker; {_HOW_TO_MARK}", _OATHBREAKER)]
    moved = [_move(deck, e, COMMANDER) for e in chosen]
    cards = [e.card for e in moved]
    problems = [_info("commander-found", f"Oathbreaker taken from the sideboard: {_names(cards)}",
                      fmt, cards, moved)]
    if guessed:
        problems.append(_guessed(fmt, "oathbreaker", (e.card for e in candidates), cards))
    return problems


def _designate_signature_spells(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    commanders = deck.cards_in(COMMANDER)
    walkers = [e.card for e in commanders if _is_planeswalker(e.card)]
    if not walkers or any(_is_signature_spell(e.card) for e in commanders):
        return []
    identity = set("".join(c.color_identity for c in walkers))
    spells = distinct_cards(e for e in deck.cards_in(SIDEBOARD) if _is_signature_spell(e.card))
    fitting = [e for e in spells if set(e.card.color_identity) <= identity] or spells
    if not fitting:
        return [Problem("signature-spell-missing", "No signature spell found: each oathbreaker "
                        "needs an instant or sorcery signature spell; list it with the "
                        "oathbreaker (Commander section or --commander NAME)", _OATHBREAKER)]
    moved = [_move(deck, e, COMMANDER) for e in fitting[:len(walkers)]]
    cards = [e.card for e in moved]
    problems = [_info("commander-found", "Signature spell taken from the sideboard: "
                      f"{_names(cards)}", fmt, cards, moved)]
    if len(fitting) > len(walkers):
        problems.append(_guessed(fmt, "signature spell", (e.card for e in fitting), cards))
    return problems


def designate_commanders(deck: ResolvedDeck, fmt: FormatRules,
                         named: Sequence[Card] = ()) -> list[Problem]:
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
        if (len(sideboard) == 1 and sideboard[0].entry.quantity == 1
                and sideboard[0].card.companion_condition is None
                and not deck.has(COMMANDER) and not deck.has(COMPANION)):
            # The usual MTGO list: the deck, then the commander alone in the sideboard. What
            # the steps below do for it, without the steps that cannot apply: nothing is
            # left in the sideboard to repeat the commander or be the companion.
            problems = [_found_in_sideboard(fmt, [deck.move(sideboard[0], COMMANDER)])]
            problems += _commander_also_in_main(deck, fmt)
            return problems
    problems: list[Problem] = []
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


def commander_section_as_deck(deck: ResolvedDeck, fmt: FormatRules) -> list[Problem]:
    """A format without commanders (CR 903 is the Commander variants' rule): cards listed as
    commander (a Commander section, *CMDR*, [Commander], JSON `commanders`) are main-deck cards
    there, never dropped: "Commander: 1 Black Lotus / Deck: 60 Island" is a 61-card Modern deck
    with Black Lotus in it. Moves them to MAIN and says so."""
    if fmt.is_commander:
        return []
    listed = deck.cards_in(COMMANDER)
    unknown = [e for e in deck.unresolved if e.section == COMMANDER]
    if not listed and not unknown:
        return []
    for e in listed:
        deck.move(e, MAIN, e.quantity)
    deck.unresolved = [replace(e, section=MAIN) if e.section == COMMANDER else e
                       for e in deck.unresolved]
    names = list(dict.fromkeys([*(e.card.name for e in listed), *(e.name for e in unknown)]))
    count = sum(e.quantity for e in listed) + sum(e.quantity for e in unknown)
    shown = ", ".join(names[:_LISTED]) + (f" and {len(names) - _LISTED:,} more"
                                          if len(names) > _LISTED else "")
    return [Problem(
        "commander-section-ignored", f"{fmt.name} has no commander (CR 903 applies to the "
        f"Commander variants only): the {count:,} card(s) listed as commander are counted as "
        f"main-deck cards: {shown}", f"format:{fmt.key}", WARNING, cards=tuple(names),
        lines=tuple(sorted({*entry_lines(listed), *(e.line for e in unknown if e.line)})))]


# --------------------------------------------------------------------------------------------
# Checks: the commander itself

def _needed_text(fmt: FormatRules) -> str:
    if not fmt.legendary_commander:
        return "a creature card"
    kinds = ["a legendary creature card", "a legendary Vehicle card",
             "a legendary Spacecraft card with a power/toughness box",
             "a card that says it can be your commander"]
    if "Planeswalker" in fmt.commander_types:
        kinds.insert(1, "a legendary planeswalker card")
    return ", ".join(kinds[:-1]) + ", or " + kinds[-1]


def _why_not(card: Card) -> str:
    found = deck_types(card)
    if "Spacecraft" in found.subtypes and card.is_legendary:
        return f"{card.name} is a Spacecraft without a power/toughness box"
    back_creature = any("Creature" in f.type_line for f in card.faces[1:])
    if back_creature and "Creature" not in found.types:
        return (f"{card.name} is a creature only on its back face, and only the front face "
                "counts (CR 712.8a)")
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
                problems.append(Problem(
                    "commander-not-eligible", f"{card.name} is a Background: it can be a "
                    "commander only beside a commander with 'Choose a Background'",
                    "CR 702.124k", cards=(card.name,)))
            continue  # beside another commander, the pair check says whether it may (702.124k)
        problems.append(Problem(
            "commander-not-eligible", f"{_why_not(card)}; a commander must be {_needed_text(fmt)}",
            fmt.cite("commander", "CR 903.3"), cards=(card.name,)))
    return problems


def _banned_as_commander(cards: Sequence[Card], fmt: FormatRules) -> list[Problem]:
    """The format's own list (Duel Commander), and Scryfall's "restricted" where it means
    "legal in the deck, not as the commander" (fmt.restricted_means)."""
    banned = {fold_name(n) for n in fmt.banned_as_commander}
    problems = []
    for card in cards:
        listed = fold_name(card.name) in banned or fold_name(card.front_name) in banned
        restricted = (fmt.restricted_means == "banned-as-commander"
                      and card.legality(fmt.legality) == "restricted")
        if listed or restricted:
            problems.append(Problem(
                "banned-as-commander", f"{card.name} is banned as a commander in {fmt.name} "
                "(it may be one of the other cards of the deck)",
                fmt.cite("banned_as_commander", f"format:{fmt.key}"), cards=(card.name,)))
    return problems


def _rarity_problems(cards: Sequence[Card], fmt: FormatRules,
                     rarities: Rarities | None) -> list[Problem]:
    """Pauper Commander: the commander was printed at uncommon, which only printings tell;
    without them, say so rather than guess."""
    if not fmt.commander_rarity or not cards:
        return []
    printed = {c.oracle_id: (rarities(c) if rarities else None) for c in cards}
    if any(r is None for r in printed.values()):
        return [Problem(
            "commander-rarity-unchecked", f"could not check the commander's rarity ({fmt.name} "
            f"needs a commander printed at {fmt.commander_rarity}): run "
            "`deckcheck sync --printings`", fmt.cite("commander"), WARNING,
            cards=tuple(c.name for c in cards))]
    problems = []
    for card in cards:
        seen = printed[card.oracle_id] or set()
        if fmt.commander_rarity not in seen:
            problems.append(Problem(
                "commander-not-eligible", f"{card.name} was never printed at "
                f"{fmt.commander_rarity} (printed at: {', '.join(sorted(seen)) or 'none known'});"
                f" {fmt.name} needs a commander printed at {fmt.commander_rarity}",
                fmt.cite("commander"), cards=(card.name,)))
    return problems


# --------------------------------------------------------------------------------------------
# Checks: color identity (903.4, 903.5c, 903.5d, 903.12e)

def _identity(leaders: Sequence[Card],
              entries: Sequence[ResolvedEntry]) -> tuple[set[str], str | None]:
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
    if not (e.card.is_basic and e.card.is_land and e.card.color_identity):
        return None
    types = sorted(e.card.subtypes & BASIC_LAND_TYPES)
    return types[0] if len(types) == 1 else None


def _colorless_basics(entries: Sequence[ResolvedEntry],
                      fmt: FormatRules) -> tuple[list[ResolvedEntry], list[Problem]]:
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
        problems.append(Problem(
            "color-identity", f"With a colorless commander, a {fmt.name} deck may hold basic lands "
            f"of one basic land type only; {chosen} is taken as the chosen type, so these are not "
            f"allowed: {', '.join(cards)}", fmt.cite("colorless_basics", "CR 903.12e"),
            cards=cards, lines=entry_lines(wrong)))
    return [e for e in entries if _basic_type(e) is None], problems


def _identity_problems(fmt: FormatRules, leaders: Sequence[Card],
                       entries: Sequence[ResolvedEntry]) -> list[Problem]:
    """903.5c/d: each card's color identity within the commanders' combined identity; one
    grouped problem listing every offending card with its identity."""
    colors, chosen = _identity(leaders, entries)
    problems: list[Problem] = []
    if chosen:
        problems.append(Problem(
            "chosen-color", f"The deck's cards use {identity_text(chosen)}: taken as the color "
            f"chosen for {_names(leaders)} before the game", "CR 903.4b", INFO))
    if fmt.colorless_basics and not colors:
        entries, basics = _colorless_basics(entries, fmt)
        problems += basics
    # Filtered first: the test is the card's, so this is the first entry of each card outside.
    # Most decks have none: one test of every identity at once says so.
    off = [] if colors.issuperset("".join([e.card.color_identity for e in entries])) else \
        distinct_cards([e for e in entries if not colors.issuperset(e.card.color_identity)])
    if off:
        off_ids = {e.card.oracle_id for e in off}
        listed = ", ".join(f"{e.card.name} ({identity_text(e.card.color_identity)})" for e in off)
        problems.append(Problem(
            "color-identity", f"{len(off)} card(s) outside the color identity of "
            f"{_names(leaders)} ({identity_text(colors)}): {listed}",
            fmt.cite("color_identity", "CR 903.5c"), cards=tuple(e.card.name for e in off),
            lines=entry_lines(e for e in entries if e.card.oracle_id in off_ids)))
    return problems


# --------------------------------------------------------------------------------------------
# Checks: the companion, the 101st card (702.139, 903.11a)

def _companion_condition(companion: ResolvedEntry, deck: ResolvedDeck,
                         fmt: FormatRules) -> list[Problem]:
    """The whole starting deck, commander included (702.139b), meets the condition."""
    try:
        from .companion.checks import companion_condition_problems
        from .companion.predicates import StartingDeck
    except ImportError:  # the condition grammar is optional for the Commander rules
        return [Problem("companion-unchecked", f"could not check {companion.card.name}'s "
                        "companion condition (validator.companion is not available)",
                        "CR 702.139b", WARNING, cards=(companion.card.name,))]
    entries = deck.cards_in(MAIN, COMMANDER)
    lines: dict[str, list[int]] = {}
    for e in [*entries, companion]:
        if e.entry.line:
            lines.setdefault(e.card.name, []).append(e.entry.line)
    ctx = StartingDeck(minimum_deck_size=fmt.min_deck, exact_size=fmt.max_deck == fmt.min_deck)
    return list(companion_condition_problems(
        companion.card, [(e.card, e.quantity) for e in entries], ctx, "CR 702.139b",
        lines={name: tuple(sorted(found)) for name, found in lines.items()}))


def _companion_problems(deck: ResolvedDeck, fmt: FormatRules,
                        leaders: Sequence[Card]) -> list[Problem]:
    entries = deck.cards_in(COMPANION)
    if not entries:
        return []
    cite = fmt.cite("companion", "CR 903.11a")
    names = tuple(e.card.name for e in distinct_cards(entries))
    if not fmt.companions:
        return [Problem("companions-not-allowed", f"{fmt.name} does not allow a companion: "
                        + ", ".join(names), cite, cards=names, lines=entry_lines(entries))]
    if sum(e.quantity for e in entries) > 1:
        return [Problem("too-many-companions", "Only one companion can be revealed: "
                        + ", ".join(names), "CR 702.139a", cards=names, lines=entry_lines(entries))]
    companion = entries[0]
    card, lines = companion.card, entry_lines([companion])
    if card.companion_condition is None:
        return [Problem("not-a-companion", f"{card.name} has no companion ability",
                        "CR 702.139a", cards=(card.name,), lines=lines)]
    problems = []
    if fold_name(card.name) in {fold_name(n) for n in fmt.banned_as_companion}:
        problems.append(Problem(
            "banned-as-companion", f"{card.name} is banned as a companion in {fmt.name} (it may "
            "be in the deck or be the commander)", fmt.cite("card_pool", f"format:{fmt.key}"),
            cards=(card.name,), lines=lines))
    colors, _ = _identity(leaders, deck.cards_in(MAIN))
    if leaders and not set(card.color_identity) <= colors:
        problems.append(Problem(
            "companion-color-identity", f"{card.name} ({identity_text(card.color_identity)}) is "
            f"outside the color identity of {_names(leaders)} ({identity_text(colors)})",
            cite, cards=(card.name,), lines=lines))
    in_deck = [e for e in deck.cards_in(MAIN, COMMANDER)
               if fold_name(e.card.name) == fold_name(card.name)]
    if in_deck:
        problems.append(Problem(
            "companion-in-deck", f"{card.name} is the companion and also in the deck: a companion "
            "cannot share a name with a card of the starting deck", cite, cards=(card.name,),
            lines=entry_lines([companion, *in_deck])))
    return problems + _companion_condition(companion, deck, fmt)


# --------------------------------------------------------------------------------------------
# Checks: Oathbreaker

def _spells_fit(spells: Sequence[Card], walkers: Sequence[Card]) -> bool:
    """Each signature spell within the color identity of its own oathbreaker. Called with at
    most two of each (a legal deck's most), so the orderings tried are at most two."""
    return any(all(set(s.color_identity) <= set(w.color_identity) for s, w in zip(spells, order))
               for order in permutations(walkers, len(spells)))


def _with_identity(cards: Iterable[Card]) -> str:
    return ", ".join(f"{c.name} ({identity_text(c.color_identity)})" for c in cards)


def _oathbreaker_problems(deck: ResolvedDeck, fmt: FormatRules,
                          cards: Sequence[Card]) -> list[Problem]:
    """Planeswalker oathbreaker(s) (two only with partners), one instant or sorcery signature
    spell each within its oathbreaker's color identity, the deck within the oathbreakers'
    identity. A missing oathbreaker or spell is reported by `designate_commanders`."""
    cite = fmt.cite("commander", _OATHBREAKER)
    walkers = [c for c in cards if _is_planeswalker(c)]
    spells = [c for c in cards if _is_signature_spell(c) and not _is_planeswalker(c)]
    problems = [Problem("commander-not-eligible", f"{c.name} is neither a planeswalker (an "
                        "oathbreaker) nor an instant or sorcery (a signature spell)", cite,
                        cards=(c.name,))
                for c in cards if c not in walkers and c not in spells]
    problems += _partner_problems(walkers, "oathbreakers")
    if walkers and (len(spells) > len(walkers) or len(spells) > 2):
        # One each (format:oathbreaker), and two oathbreakers at most (702.124): more spells
        # than that is said at once, without weighing who would pair with whom.
        problems.append(Problem(
            "signature-spell-invalid", f"{len(spells):,} signature spells ({_some_names(spells)})"
            f" for {len(walkers):,} oathbreaker(s): one each, and at most two oathbreakers "
            "(CR 702.124)", cite, cards=tuple(c.name for c in spells)))
    elif walkers and spells and len(walkers) <= 2 and not _spells_fit(spells, walkers):
        problems.append(Problem(
            "signature-spell-invalid", "A signature spell must be within its oathbreaker's color "
            f"identity: {_with_identity(spells)} for {_with_identity(walkers)}", cite,
            cards=tuple(c.name for c in spells)))
    if walkers:
        problems += _identity_problems(fmt, walkers, deck.cards_in(MAIN))
    return problems


# --------------------------------------------------------------------------------------------

def commander_problems(deck: ResolvedDeck, fmt: FormatRules,
                       rarities: Rarities | None = None) -> list[Problem]:
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
