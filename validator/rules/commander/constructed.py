"""A Commander section in a format without commanders (CR 903 is the Commander variants' rule).

`api.check_resolved` runs this instead of designation for every constructed deck: it imports
nothing of the Commander rules (no card types, no abilities), only the model.
"""

from __future__ import annotations

import msgspec

from validator.model import COMMANDER, MAIN, WARNING, Problem, ResolvedDeck, entry_lines
from validator.rules.commander.messages import _LISTED
from validator.rules.formats import FormatRules


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
    deck.unresolved = [
        msgspec.structs.replace(e, section=MAIN) if e.section == COMMANDER else e
        for e in deck.unresolved
    ]
    names = list(dict.fromkeys([*(e.card.name for e in listed), *(e.name for e in unknown)]))
    count = sum(e.quantity for e in listed) + sum(e.quantity for e in unknown)
    shown = ", ".join(names[:_LISTED]) + (
        f" and {len(names) - _LISTED:,} more" if len(names) > _LISTED else ""
    )
    return [
        Problem(
            "commander-section-ignored",
            f"{fmt.name} has no commander (CR 903 applies to the "
            f"Commander variants only): the {count:,} card(s) listed as commander are counted as "
            f"main-deck cards: {shown}",
            f"format:{fmt.key}",
            WARNING,
            cards=tuple(names),
            lines=tuple(sorted({*entry_lines(listed), *(e.line for e in unknown if e.line)})),
        )
    ]
