"""Reading abilities out of Oracle text: activated abilities (Zirda) and reminder text.

Scryfall's Oracle text omits the reminder text of many keywords, so a colon test alone misses
Equip, Cycling, Crew and the like; those keywords are activated abilities by their rules.
"""

from __future__ import annotations

import re

_REMINDER = re.compile(r"\([^()]*\)")
#: Quoted abilities are granted to other objects (or to this one later), not the card's own.
_QUOTED = re.compile(r"\u201c[^\u201d]*\u201d|\"[^\"]*\"")

#: Keyword abilities that are activated abilities by their own rules even when Oracle text
#: shows no colon: equip 702.6a, cycling and typecycling 702.29a/e, ninjutsu 702.49a,
#: transmute 702.53a, forecast 702.57a, aura swap 702.65a, fortify 702.67a, transfigure
#: 702.71a, reinforce 702.77a, unearth 702.84a, level up 702.87a, scavenge 702.97a, outlast
#: 702.107a, crew 702.122a, embalm 702.128a, eternalize 702.129a, encore 702.141a, boast
#: 702.142a, reconfigure 702.151a, craft 702.167a, saddle 702.171a, exhaust 702.177a, station
#: 702.184a; channel and bloodrush are ability words whose text is "[Cost]: [Effect]".
_ACTIVATED_KEYWORD_NAMES = (
    r"equip|crew|basic landcycling|\w*cycling|fortify|commander ninjutsu|ninjutsu|transmute|"
    r"forecast|reinforce|bloodrush|scavenge|unearth|level up|outlast|embalm|eternalize|"
    r"reconfigure|encore|saddle|station|craft with|aura swap|transfigure|channel|boast|exhaust"
)
#: The keyword must stand as a keyword: followed (after at most a few qualifier words such as
#: "Equip legendary creature") by its cost, a number ("Crew 3"), a dash ("Equip—Pay 3 life")
#: or nothing ("Station"). "Cycling abilities you activate cost {1} less" is not cycling.
_ACTIVATED_KEYWORD = re.compile(
    rf"^(?:{_ACTIVATED_KEYWORD_NAMES})(?!\s+abilit)(?:\s+[\w'\u2019-]+){{0,5}}?\s*"
    r"(?:\{|\d|[\u2014\u2013-]|X\b|$)",
    re.IGNORECASE,
)

#: Some line starts with one of those keywords (a cheap test first: without it, and without a
#: colon, no line of a text is an activated ability; a sync reads 35,000 texts).
_KEYWORD_AT_A_LINE_START = re.compile(
    rf"^\s*(?:{_ACTIVATED_KEYWORD_NAMES})", re.IGNORECASE | re.MULTILINE
)

#: Lines with a colon that are not an ability of the card itself: Saga chapters are triggered
#: abilities (714.2), "Max speed —" and "∞ —" are static abilities granting an ability under
#: a condition (702.178a, 702.186a), "Companion —" is a deck-building condition (702.139a).
_NOT_OWN_ACTIVATED = re.compile(
    r"^(?:chapter\b|[IVX]+(?:\s*,\s*[IVX]+)*\s*[\u2014\u2013-]|companion\b|old companion\b|"
    r"max speed\b|\u221e)",
    re.IGNORECASE,
)
#: A "[Cost]:" head never reads like a trigger condition or a static ability's condition.
_NOT_A_COST = re.compile(r"\b(as long as|whenever|when|at the beginning|if)\b", re.IGNORECASE)

#: CR 305.6: a land with a basic land type has the intrinsic "{T}: Add [mana]" ability.
BASIC_LAND_TYPES = frozenset({"Plains", "Island", "Swamp", "Mountain", "Forest"})


def strip_reminder_text(text: str) -> str:
    """Drop parenthesized reminder text (CR 207.2: reminder text has no game function)."""
    while "(" in text:  # nested parentheses, innermost first
        stripped = _REMINDER.sub("", text)
        if stripped == text:  # a "(" with no ")" after it
            return text
        text = stripped
    return text


def _has_intrinsic_mana_ability(
    oracle_text: str, types: frozenset[str], subtypes: frozenset[str]
) -> bool:
    """CR 305.6: lands with a basic land type have "{T}: Add [mana]" even with no text box.

    Basic lands without a land type (Wastes) print their mana ability in parentheses; that
    parenthesized text is the ability itself, not reminder text of another ability.
    """
    if "Land" not in types:
        return False
    return bool(subtypes & BASIC_LAND_TYPES) or bool(re.search(r"\(\{T\}: Add", oracle_text))


def _is_activated_line(line: str) -> bool:
    """Whether one line of Oracle text (reminder and quoted text removed) is an activated
    ability: "[Cost]: [Effect]" (CR 602.1, 113.3b), loyalty abilities (606.1) and Class level
    bars (716.2a) included, or a keyword that is an activated ability by its rule."""
    if _NOT_OWN_ACTIVATED.match(line):
        return False
    if ":" in line and not _NOT_A_COST.search(line.split(":", 1)[0]):
        return True
    return bool(_ACTIVATED_KEYWORD.match(line))


def has_activated_ability(
    oracle_text: str, types: frozenset[str], subtypes: frozenset[str]
) -> bool:
    """Whether a card (its deck characteristics) has an activated ability.

    Activated abilities are written "[Cost]: [Effect]" (CR 602.1), loyalty abilities too
    (606.1); mana abilities are activated abilities (605.1a); quoted abilities granted to other
    objects are not the card's own.
    """
    if "Land" in types and _has_intrinsic_mana_ability(oracle_text, types, subtypes):
        return True
    text = strip_reminder_text(oracle_text)
    if "\u201c" in text or '"' in text:
        text = _QUOTED.sub("", text)
    if ":" not in text and not _KEYWORD_AT_A_LINE_START.search(text):
        return False  # no line has a cost or starts with one of the keywords
    return any(_is_activated_line(line.strip()) for line in text.split("\n") if line.strip())
