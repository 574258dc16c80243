"""Reading abilities out of Oracle text: activated abilities (Zirda) and reminder text.

Scryfall's Oracle text omits the reminder text of many keywords, so a colon test alone misses
Equip, Cycling, Crew and the like; those keywords are activated abilities by their rules.
"""

from __future__ import annotations

import re

_REMINDER = re.compile(r"\([^()]*\)")
_QUOTED = re.compile(r"\u201c[^\u201d]*\u201d|\"[^\"]*\"")

#: Keyword abilities that are activated abilities by their own rules even when Oracle text
#: shows no colon: equip 702.6a, cycling and typecycling 702.29a/e, fortify 702.67a,
#: ninjutsu 702.49a, transmute 702.53a, forecast 702.57a, reinforce 702.77a, bloodrush
#: 702.105a? (activated, hand), scavenge 702.97a, unearth 702.84a, level up 702.87a,
#: outlast 702.107a, embalm 702.128a, eternalize 702.129a, crew 702.122a, reconfigure
#: 702.151a, encore 702.141a, saddle 702.171a, station 702.184a, craft 702.167a,
#: aura swap 702.65a, transfigure 702.71a, auto-level "Level N" lines of Classes (716.2a:
#: "[Cost]: Level N" is an activated ability).
_ACTIVATED_KEYWORDS = re.compile(
    r"^(?:equip|crew|\w*cycling|basic landcycling|fortify|ninjutsu|commander ninjutsu|"
    r"transmute|forecast|reinforce|bloodrush|scavenge|unearth|level up|outlast|embalm|"
    r"eternalize|reconfigure|encore|saddle|station|craft with|aura swap|transfigure|"
    r"channel|boast|exhaust)\b",
    re.IGNORECASE,
)

#: CR 305.6: a land with a basic land type has the intrinsic "{T}: Add [mana]" ability.
BASIC_LAND_TYPES = frozenset({"Plains", "Island", "Swamp", "Mountain", "Forest"})


def strip_reminder_text(text: str) -> str:
    """Drop parenthesized reminder text (CR 207.2: reminder text has no game function)."""
    previous = None
    while previous != text:  # nested parentheses, innermost first
        previous, text = text, _REMINDER.sub("", text)
    return text


def has_activated_ability(oracle_text: str, types: frozenset[str], subtypes: frozenset[str]) -> bool:
    """Whether a card (its deck characteristics) has an activated ability.

    Activated abilities are written "[Cost]: [Effect]" (CR 602.1), loyalty abilities too
    (606.1); quoted abilities granted to other objects are not the card's own.
    """
    if "Land" in types and subtypes & BASIC_LAND_TYPES:
        return True  # CR 305.6 intrinsic mana ability
    if "Land" in types and re.search(r"\(\{T\}: Add", oracle_text):
        # Basic lands without a land type (Wastes) print their mana ability in parentheses;
        # for lands with a basic land type it is the same intrinsic ability.
        return True
    text = _QUOTED.sub("", strip_reminder_text(oracle_text))
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        if ":" in line and not line.lower().startswith(("chapter", "companion")):
            head = line.split(":", 1)[0]
            # Ability words ("Threshold — ...") put a dash before the text; a cost never
            # contains a sentence like "As long as".
            if not re.search(r"\b(as long as|whenever|when|at the beginning|if)\b", head, re.I):
                return True
        if _ACTIVATED_KEYWORDS.match(line):
            return True
    return False
