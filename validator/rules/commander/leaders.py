"""Who may lead a Commander deck, and how two leaders pair.

Card facts the Commander rules need: who can be a commander alone (CR 903.3, 903.3a,
903.12c), the Background (702.124k) and the Time Lord Doctor (702.124m), and whether two cards
may lead together (partner abilities, 702.124). Designation asks them to weigh sideboard
candidates; the rules checks ask them to judge the designated commanders.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from validator.cards.names import fold_name
from validator.cards.types import deck_types
from validator.model import Card, Problem
from validator.rules.commander.messages import _some_names
from validator.rules.formats import FormatRules

#: CR 903.4b: "If <this> is your commander, choose a color before the game begins" (Clara
#: Oswald, Faceless One): the chosen color is part of the commander's identity.
_CHOOSES_COLOR = re.compile(r"choose a colou?r before the game begins", re.IGNORECASE)


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
    return (
        card.is_legendary
        and "Creature" in found.types
        and found.creature_types_exactly(_TIME_LORD_DOCTOR)
    )


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
    return {
        "choose-a-background": "Choose a Background",
        "doctors-companion": "Doctor's companion",
    }.get(kind, "no partner ability")


def _invalid(message: str, rule: str, a: Card, b: Card) -> Problem:
    return Problem("invalid-partners", message, f"CR {rule}", cards=(a.name, b.name))


def _background_pair_problem(a: Card, b: Card) -> Problem | None:
    """702.124k: "Choose a Background" + a legendary Background enchantment card, nothing else."""
    for leader, other in ((a, b), (b, a)):
        if leader.partner == "choose-a-background" and is_background(other):
            return None
    for leader, other in ((a, b), (b, a)):
        if leader.partner == "choose-a-background":
            return _invalid(
                f"{leader.name} has 'Choose a Background': its partner must be a "
                f"legendary Background enchantment, and {other.name} is not one",
                "702.124k",
                a,
                b,
            )
    background, other = (a, b) if is_background(a) else (b, a)
    return _invalid(
        f"{background.name} is a Background: it can be a commander only beside a "
        f"commander with 'Choose a Background', which {other.name} does not have",
        "702.124k",
        a,
        b,
    )


def _doctor_pair_problem(a: Card, b: Card) -> Problem | None:
    """702.124m: "Doctor's companion" + a legendary Time Lord Doctor creature card with no
    other creature types."""
    companion, other = (a, b) if a.partner == "doctors-companion" else (b, a)
    if other.partner == "doctors-companion" or not is_time_lord_doctor(other):
        found = deck_types(other)
        extra = sorted(found.subtypes - _TIME_LORD_DOCTOR)
        if found.every_creature_type and other.partner != "doctors-companion":
            # 702.73a / 205.3m: a changeling is a Time Lord Doctor AND every other creature type.
            why = (
                "has other creature types: changeling makes it every creature type "
                "(CR 702.73a, 205.3m)"
            )
        elif _TIME_LORD_DOCTOR <= found.subtypes and extra:
            why = f"has other creature types: {', '.join(extra)}"
        else:
            why = "is not one"
        return _invalid(
            f"{companion.name} has 'Doctor's companion': its partner must be a "
            f"legendary Time Lord Doctor creature with no other creature types, and "
            f"{other.name} {why}",
            "702.124m",
            a,
            b,
        )
    if not ("Creature" in deck_types(companion).types and companion.is_legendary):
        return _invalid(
            f"{companion.name} must be a legendary creature card to use 'Doctor's companion'",
            "702.124m",
            a,
            b,
        )
    return None


def _named_partner(card: Card, other: Card) -> bool:
    wanted = fold_name(card.partner_with or "")
    return wanted in (fold_name(other.name), fold_name(other.front_name))


def _mixed_problem(a: Card, b: Card) -> Problem:
    """702.124f: different partner abilities do not combine; 702.124a: a card with none
    cannot be a second commander."""
    if a.partner and b.partner:
        message = (
            f"{a.name} has {partner_text(a)} but {b.name}'s partner is {partner_text(b)}: "
            "both commanders need the same partner ability"
        )
        return _invalid(message, "702.124f", a, b)
    # One has none: no ability of its own lets it be a second commander (702.124a), not two
    # abilities that do not combine (702.124f).
    having, lacking = (a, b) if a.partner else (b, a)
    message = (
        f"{having.name} has {partner_text(having)} but {lacking.name} has no partner "
        "ability: both commanders need the same partner ability"
    )
    return _invalid(message, "702.124a", a, b)


def pair_problem(a: Card, b: Card) -> Problem | None:
    """Why `a` and `b` cannot be your two commanders, or None when a partner ability lets them
    (702.124a, f, h-m). A card with more than one partner ability may use either, not both
    (702.124g: Amy Pond has "Partner with Rory Williams" and "Doctor's companion"): the pair
    is allowed when some choice allows it, else the first choice's problem is the one told."""
    first = None
    for x in _with_each_partner_ability(a):
        for y in _with_each_partner_ability(b):
            problem = _one_ability_pair_problem(x, y)
            if problem is None:
                return None
            first = first or problem
    return first


def _with_each_partner_ability(card: Card) -> list[Card]:
    """The card as it would be using each of its partner abilities (702.124g); most cards have
    at most one, and are themselves."""
    if card.partner is None:
        return [card]
    from validator.cards.facts import (
        partner_abilities,
    )  # the sync's text reading, for partner cards only

    abilities = partner_abilities(card.faces[0].oracle_text)
    if len(abilities) < 2:
        return [card]
    return [replace(card, partner=kind, partner_with=name) for kind, name in abilities]


def _one_ability_pair_problem(a: Card, b: Card) -> Problem | None:
    """`pair_problem` for two cards each using one partner ability (`Card.partner`)."""
    backgrounds = is_background(a) or is_background(b)
    if backgrounds or "choose-a-background" in (a.partner, b.partner):
        return _background_pair_problem(a, b)
    if "doctors-companion" in (a.partner, b.partner):
        return _doctor_pair_problem(a, b)
    if a.partner is None and b.partner is None:
        return _invalid(
            f"{a.name} and {b.name} have no partner ability: a deck has one "
            "commander unless both have the same partner ability",
            "702.124a",
            a,
            b,
        )
    if a.partner != b.partner:
        return _mixed_problem(a, b)
    if a.partner == "partner-with":
        for card, other in ((a, b), (b, a)):
            if not _named_partner(card, other):
                return _invalid(
                    f"{card.name} has 'Partner with {card.partner_with}': its "
                    f"partner must be {card.partner_with}, not {other.name}",
                    "702.124j",
                    a,
                    b,
                )
    return None  # same "partner" or same "partner—[text]" (702.124h, 702.124i)


def _partner_problems(cards: Sequence[Card], what: str = "commanders") -> list[Problem]:
    if len(cards) > 2:
        return [
            Problem(
                "invalid-partners",
                f"{len(cards):,} {what} ({_some_names(cards)}): no partner ability allows "
                "more than two",
                "CR 702.124g",
                cards=tuple(c.name for c in cards),
            )
        ]
    if len(cards) == 2:
        problem = pair_problem(*cards)
        return [problem] if problem else []
    return []
