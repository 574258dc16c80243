"""One function for a card's types off the battlefield: Grist (CR 113.6c) and changelings
(702.73a) the same for commander eligibility, partners and companion conditions."""

from __future__ import annotations

import pytest
from support import load_cards

from validator.cards.facts import card_from_scryfall
from validator.cards.types import deck_types
from validator.rules.commander.leaders import can_lead, is_time_lord_doctor, pair_problem
from validator.rules.companion.checks import companion_condition_problems
from validator.rules.companion.predicates import StartingDeck
from validator.rules.formats import get_format

COMPANIONS = load_cards("cards_companion.json")
COMMANDER_CARDS = load_cards("cards_commander.json")
GRIST = COMMANDER_CARDS["Grist, the Hunger Tide"]
CONSTRUCTED = StartingDeck(minimum_deck_size=60, exact_size=False)

#: Moritte of the Frost (KHM), Scryfall's text: a legendary changeling creature card.
MORITTE = card_from_scryfall(
    {
        "object": "card",
        "oracle_id": "moritte",
        "name": "Moritte of the Frost",
        "layout": "normal",
        "mana_cost": "{2}{G}{U}{U}",
        "cmc": 5,
        "type_line": "Legendary Snow Creature — Shapeshifter",
        "oracle_text": "Changeling (This card is every creature type.)\nYou may have Moritte of the "
        "Frost enter as a copy of a permanent you control, except it's legendary and "
        "snow in addition to its other types and, if it's a creature, it enters with "
        "two additional +1/+1 counters on it and has changeling.",
        "power": "0",
        "toughness": "0",
        "color_identity": ["G", "U"],
        "keywords": ["Changeling"],
        "legalities": {"commander": "legal"},
    }
)


def failed(companion: str, cards) -> list[str]:
    problems = companion_condition_problems(
        COMPANIONS[companion], [(c, 1) for c in cards], CONSTRUCTED, "CR 702.139a"
    )
    return [p.message for p in problems if p.severity.value == "error"]


def test_grist_is_an_insect_creature_card_off_the_battlefield():
    found = deck_types(GRIST)
    assert "Creature" in found.types and "Planeswalker" in found.types  # CR 113.6c
    assert found.has_subtype("Insect") and not found.has_subtype("Cat")
    assert "Creature" not in GRIST.types  # the stored deck characteristics are unchanged


def test_commander_eligibility_and_companions_ask_the_same_function():
    assert can_lead(GRIST, get_format("commander"))
    # Umori: every nonland card shares a card type. Grist shares "creature" with a creature.
    bears = COMPANIONS["Grizzly Bears"]
    assert failed("Umori, the Collector", [GRIST, bears]) == []
    # Without CR 113.6c Grist (a planeswalker only) would share nothing with a sorcery...
    sorcery = card_from_scryfall(
        {
            "object": "card",
            "oracle_id": "s",
            "name": "Some Sorcery",
            "layout": "normal",
            "type_line": "Sorcery",
            "cmc": 1,
            "color_identity": [],
        }
    )
    assert failed("Umori, the Collector", [GRIST, sorcery])
    # Kaheera: each creature card is a Cat, Elemental, Nightmare, Dinosaur or Beast. Grist is
    # an Insect creature card in the library, so it breaks the condition.
    messages = failed("Kaheera, the Orphanguard", [GRIST, bears])
    assert any("Grist, the Hunger Tide" in m for m in messages)


def test_changeling_has_every_creature_type_but_is_never_only_a_time_lord_doctor():
    found = deck_types(MORITTE)
    assert found.every_creature_type and found.has_subtype("Doctor")
    assert found.has_subtype("Time Lord") and not found.has_subtype("Equipment")
    assert not is_time_lord_doctor(MORITTE)  # CR 702.124m with 205.3m / 702.73a
    assert is_time_lord_doctor(COMMANDER_CARDS["The Tenth Doctor"])


def test_doctors_companion_with_a_changeling_says_it_has_other_creature_types():
    problem = pair_problem(COMMANDER_CARDS["Rose Tyler"], MORITTE)
    assert problem is not None and problem.citation == "CR 702.124m"
    assert "has other creature types" in problem.message
    assert "is not one" not in problem.message and "is not a Doctor" not in problem.message


@pytest.mark.parametrize(
    "text",
    ["Changeling (This card is every creature type.)", "Mistform Ultimus is every creature type."],
)
def test_changeling_text_without_the_keyword(text):
    card = card_from_scryfall(
        {
            "object": "card",
            "oracle_id": "x",
            "name": "X",
            "layout": "normal",
            "type_line": "Legendary Creature — Illusion",
            "cmc": 4,
            "oracle_text": text,
            "color_identity": [],
        }
    )
    assert deck_types(card).every_creature_type and not is_time_lord_doctor(card)
