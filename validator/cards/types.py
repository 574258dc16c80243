"""A card's types where deck construction looks at it: off the battlefield.

Every rule that asks "is this a creature card?", "is it a Cat?", "which card types does it
have?" about a card in a decklist (commander eligibility, partner checks, companion
conditions) asks `deck_types` and nothing else, so that the rules below apply everywhere:

* CR 113.6c: an ability that says which zones it does not work in works in every other zone,
  before the game too. Grist, the Hunger Tide ("As long as Grist isn't on the battlefield,
  it's a 1/1 Insect creature in addition to its other types") is a creature card, an Insect,
  in the library, the command zone and outside the game.
* CR 702.73a / 205.3m: changeling (and "is every creature type" text, Mistform Ultimus) is a
  characteristic-defining ability that works everywhere: the card has every creature type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from validator.cards.abilities import strip_reminder_text
from validator.model import Card

#: CR 113.6c: "As long as ~ isn't on the battlefield, it's a 1/1 Insect creature in addition
#: to its other types" (Grist). Captures the words between the article and "creature".
_OFF_BATTLEFIELD_CREATURE = re.compile(
    r"isn['\u2019]t on the battlefield, it['\u2019]s an? ([^.\n]*?)\bcreature\b", re.IGNORECASE
)
_CHANGELING_TEXT = re.compile(r"^Changeling\b|\bis every creature type\b", re.MULTILINE)
_POWER_TOUGHNESS = re.compile(r"^[0-9*+-]+/[0-9*+-]+$")

#: Subtypes that are not creature types (205.3g-k, battle types 205.3q), so changeling
#: (702.73a: every creature type) does not give them. Planeswalker types are left out: no
#: changeling card is a planeswalker.
NON_CREATURE_SUBTYPES = frozenset(
    s.lower()
    for s in (
        # artifact types
        "Attraction Blood Bobblehead Book Clue Contraption Equipment Food Fortification Gold "
        "Incubator Infinity Junk Lander Map Mutagen Powerstone Spacecraft Stone Treasure Vehicle "
        # enchantment types
        "Aura Background Cartouche Case Class Curse Role Room Rune Saga Shard Shrine "
        # land types
        "Cave Desert Forest Gate Island Lair Locus Mine Mountain Plains Planet Power-Plant Sphere "
        "Swamp Tower Town Urza's "
        # spell types, battle types
        "Adventure Arcane Lesson Omen Trap Siege"
    ).split()
)


@dataclass(frozen=True, slots=True)
class DeckTypes:
    """Card types and subtypes of a card off the battlefield (CR 113.6c, 702.73a)."""

    types: frozenset[str]
    subtypes: frozenset[str]
    #: Changeling / "is every creature type": every creature type (205.3m), not listed.
    every_creature_type: bool = False
    #: `subtypes` in lower case, made on the first `has_subtype` (a condition naming five
    #: creature types asks five times about the same card).
    _folded: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    def has_subtype(self, name: str) -> bool:
        """Whether the card has this subtype; a changeling has every creature type."""
        folded = self._folded
        if folded is None:
            folded = frozenset(s.lower() for s in self.subtypes)
            object.__setattr__(self, "_folded", folded)  # a cache, not a change of value
        wanted = name.lower()
        if wanted in folded:
            return True
        return self.every_creature_type and wanted not in NON_CREATURE_SUBTYPES

    def creature_types_exactly(self, wanted: frozenset[str]) -> bool:
        """The card's creature types are exactly `wanted` (CR 702.124m "no other creature
        types"): a changeling has every creature type, so never."""
        if self.every_creature_type:
            return False
        return (
            frozenset(s for s in self.subtypes if s.lower() not in NON_CREATURE_SUBTYPES) == wanted
        )


def is_changeling(card: Card) -> bool:
    """CR 702.73a: changeling works everywhere, even outside the game; "is every creature
    type" text (Mistform Ultimus) is the same characteristic-defining ability (205.3m)."""
    return "Changeling" in card.keywords or (
        ("hangeling" in card.oracle_text or "every creature type" in card.oracle_text)
        and bool(_CHANGELING_TEXT.search(strip_reminder_text(card.oracle_text)))
    )


def creature_off_battlefield(oracle_text: str) -> frozenset[str] | None:
    """The creature subtypes text like Grist's gives the card outside the battlefield (CR
    113.6c), or None when it has no such text. `oracle_text` is the front face's text."""
    # Cheap test first: most cards never get here. Every text the pattern reads has this
    # piece ("isn't" / "isn’t" both end in "t"); many more say "the battlefield".
    if "t on the battlefield, it" not in oracle_text:
        return None
    match = _OFF_BATTLEFIELD_CREATURE.search(strip_reminder_text(oracle_text))
    if match is None:
        return None
    words = [w for w in match.group(1).split() if not _POWER_TOUGHNESS.match(w)]
    return frozenset(w for w in words if w[:1].isupper())


def deck_types(card: Card) -> DeckTypes:
    """The one answer to "what types does this card have in a decklist?" (113.6c, 702.73a).

    Starts from the deck characteristics computed at sync (front face, split halves
    combined; 712.8a, 709.4) and adds what the card's own text says it is off the battlefield.
    """
    types, subtypes = card.types, card.subtypes
    extra = creature_off_battlefield(card.faces[0].oracle_text if card.faces else card.oracle_text)
    if extra is not None:
        types = types | {"Creature"}
        subtypes = subtypes | extra
    return DeckTypes(types, subtypes, is_changeling(card))
