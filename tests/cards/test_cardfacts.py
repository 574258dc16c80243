"""card_from_scryfall: the deck characteristics of every layout, copy limits, commander facts."""

from __future__ import annotations

import json

import pytest
from support import FIXTURES, load_cards

from validator.cards.facts import CardDataError, card_from_scryfall, lookup_names, parse_type_line
from validator.cards.names import fold_name


@pytest.fixture(scope="module")
def cards():
    return load_cards("scryfall_cards.json")


def test_split_card_has_both_halves(cards):
    """CR 709.4: outside the stack a split card has both halves' characteristics."""
    fire_ice = cards["Fire // Ice"]
    assert fire_ice.types == {"Instant"}
    assert fire_ice.mana_value == 4.0
    assert fire_ice.mana_cost == "{1}{R}{1}{U}"
    assert [f.name for f in fire_ice.faces] == ["Fire", "Ice"]
    dusk_dawn = cards["Dusk // Dawn"]
    assert dusk_dawn.mana_value == 9.0 and dusk_dawn.types == {"Sorcery"}


def test_aftermath_layout_is_a_split_card(cards):
    """Scryfall's 2026 data says layout `aftermath` (CR 702.127a: aftermath cards are split
    cards), so Failure // Comply is an instant and a sorcery card."""
    card = cards["Failure // Comply"]
    assert card.layout == "aftermath"
    assert card.types == {"Instant", "Sorcery"}
    assert card.mana_value == 3.0
    assert "Aftermath" in card.oracle_text


def test_mdfc_front_face_only(cards):
    """CR 712.8a: a double-faced card outside the game has only its front face."""
    birgi = cards["Birgi, God of Storytelling // Harnfel, Horn of Bounty"]
    assert birgi.types == {"Creature"}  # not Artifact (the back face)
    assert birgi.subtypes == {"God"}
    assert birgi.mana_value == 3.0
    assert birgi.mana_cost == "{2}{R}"
    assert "Discard a card" not in birgi.oracle_text
    assert birgi.commander_eligible
    assert birgi.type_line == "Legendary Creature \u2014 God // Legendary Artifact"


def test_transform_front_face_only(cards):
    delver = cards["Delver of Secrets // Insectile Aberration"]
    assert delver.types == {"Creature"}
    assert delver.subtypes == {"Human", "Wizard"}  # Insect is the back face
    assert delver.mana_value == 1.0
    battle = cards["Invasion of Gobakhan // Lightshield Array"]
    assert battle.types == {"Battle"}  # the back face is an enchantment


def test_adventure_creature_only(cards):
    """CR 715.4: outside the stack an adventurer card has only its normal characteristics."""
    giant = cards["Bonecrusher Giant // Stomp"]
    assert giant.types == {"Creature"}
    assert "Adventure" not in giant.subtypes
    assert giant.mana_value == 3.0
    assert giant.mana_cost == "{2}{R}"


def test_flip_card_unflipped_characteristics(cards):
    """CR 710: a flip card outside the battlefield has its normal (unflipped) characteristics."""
    erayo = cards["Erayo, Soratami Ascendant // Erayo's Essence"]
    assert erayo.types == {"Creature"}
    assert erayo.supertypes == {"Legendary"}
    assert erayo.mana_value == 2.0
    nezumi = cards["Nezumi Graverobber // Nighteyes the Desecrator"]
    assert nezumi.supertypes == frozenset()  # the flipped side is legendary, the card is not
    assert not nezumi.commander_eligible


@pytest.mark.parametrize(
    "name, limit, any_number",
    [
        ("Relentless Rats", None, True),
        ("Shadowborn Apostle", None, True),
        ("Seven Dwarves", 7, False),
        ("Nazg\u00fbl", 9, False),
        ("Lightning Bolt", None, False),
    ],
)
def test_copy_limit(cards, name, limit, any_number):
    card = cards[name]
    assert (card.copy_limit, card.any_number) == (limit, any_number)


@pytest.mark.parametrize(
    "name, eligible",
    [
        ("Tymna the Weaver", True),
        ("Lord Windgrace", True),  # "can be your commander" (CR 903.3a)
        ("Tovolar, Dire Overlord // Tovolar, the Midnight Scourge", True),
        ("Lightning Bolt", False),
        ("Seven Dwarves", False),  # not legendary
        ("Case of the Stashed Skeleton", False),
        ("Okaun, Eye of Chaos", True),
    ],
)
def test_commander_eligibility(cards, name, eligible):
    assert cards[name].commander_eligible is eligible


@pytest.mark.parametrize(
    "name, kind, partner_with",
    [
        ("Tymna the Weaver", "partner", None),
        ("Thrasios, Triton Hero", "partner", None),
        ("Atreus, Impulsive Son", "partner:Father & son", None),
        ("Sylvia Brightspear", "partner-with", "Khorvath Brightflame"),
        ("Imoen, Mystic Trickster", "choose-a-background", None),
        ("Donna Noble", "doctors-companion", None),
        ("Atraxa, Praetors' Voice", None, None),
    ],
)
def test_partner_kinds(cards, name, kind, partner_with):
    assert (cards[name].partner, cards[name].partner_with) == (kind, partner_with)


@pytest.mark.parametrize(
    "name, supertypes",
    [
        ("Wastes", {"Basic"}),
        ("Snow-Covered Island", {"Basic", "Snow"}),
        ("Mountain", {"Basic"}),
        ("Karn's Bastion", set()),
    ],
)
def test_basic_supertype(cards, name, supertypes):
    card = cards[name]
    assert card.supertypes == supertypes
    assert card.is_basic is ("Basic" in supertypes)
    assert card.is_land


def test_companion_condition(cards):
    assert cards["Lurrus of the Dream-Den"].companion_condition == (
        "Each permanent card in your starting deck has mana value 2 or less."
    )
    assert cards["Lightning Bolt"].companion_condition is None


def test_non_deck_layouts(cards):
    for name in (
        "Goblin",
        "Elspeth, Knight-Errant Emblem",
        "Lightning Bolt // Lightning Bolt",
        "Treasure // Clue",
        "Tazeem",
        "Plots That Span Centuries",
        "Ral's Vanguard",
    ):
        assert cards[name].is_deck_card is False, name
    assert cards["Lightning Bolt"].is_deck_card


def test_reversible_card_takes_the_face_oracle_id():
    obj = next(
        o
        for o in json.loads((FIXTURES / "scryfall_cards.json").read_text(encoding="utf-8"))
        if o["layout"] == "reversible_card"
    )
    assert "oracle_id" not in obj
    card = card_from_scryfall(obj)
    assert card.oracle_id == obj["card_faces"][0]["oracle_id"]
    assert card.name == "Okaun, Eye of Chaos"
    assert len(card.faces) == 1
    assert card.mana_value == 5.0


def test_unknown_layout_and_legalities_are_kept():
    card = card_from_scryfall(
        {
            "oracle_id": "00000000-0000-4000-8000-000000000099",
            "name": "Future Thing",
            "layout": "hologram_2030",
            "type_line": "Creature \u2014 Robot",
            "mana_cost": "{2}",
            "cmc": 2,
            "legalities": {"modern": "legal", "hyperformat": "semi_legal"},
        }
    )
    assert card.layout == "hologram_2030" and card.is_deck_card
    assert card.legalities == {"modern": "legal", "hyperformat": "semi_legal"}
    assert card.legality("standard") == "not_legal"


@pytest.mark.parametrize("status, shown", [(None, "null"), (7, "a number (7)"), ([], "a list")])
def test_a_legality_that_is_no_text_is_an_error_naming_the_card_and_the_format(status, shown):
    """Dropped, it read as not_legal: a verdict by a ban list the data never gave."""
    with pytest.raises(CardDataError) as err:
        card_from_scryfall(
            {
                "oracle_id": "00000000-0000-4000-8000-000000000098",
                "name": "Odd Thing",
                "layout": "normal",
                "type_line": "Artifact",
                "legalities": {"modern": "legal", "odd": status},
            }
        )
    assert f"card 'Odd Thing': the legality of 'odd' is {shown}" in str(err.value)


def test_missing_oracle_id_is_a_clear_error():
    with pytest.raises(CardDataError, match="Nameless.*oracle_id"):
        card_from_scryfall({"name": "Nameless", "layout": "normal"})


def test_parse_type_line():
    assert parse_type_line("Legendary Snow Creature \u2014 Time Lord Doctor") == (
        frozenset({"Creature"}),
        frozenset({"Time Lord", "Doctor"}),
        frozenset({"Legendary", "Snow"}),
    )
    assert parse_type_line("Tribal Instant \u2014 Goblin")[0] == {"Kindred", "Instant"}


def test_lookup_names_full_and_faces(cards):
    names = dict(lookup_names(cards["Fire // Ice"]))
    assert names == {"fire // ice": "name", "fire": "face", "ice": "face"}
    assert fold_name("Lim-D\u00fbl's Vault") == fold_name("Lim-Dul's Vault")
    assert fold_name("\u00c6ther Vial") == fold_name("Aether Vial")


def test_invisible_format_characters_are_not_part_of_a_name():
    """A pasted name can carry a left-to-right or right-to-left mark, a zero-width joiner or a
    BOM: the name is the same (before, an unknown card, so a legal deck was illegal)."""
    for text in (
        "Lightning\u200d Bolt",
        "\u200eLightning Bolt\u200f",
        "Lightning Bolt\ufeff",
        "\u202eLightning Bolt",
        "Lightning\u200c Bolt",
        "Lightning Bolt\u2060",
    ):
        assert fold_name(text) == "lightning bolt", repr(text)
    assert fold_name("Lim-D\u00fbl's Vault") == "lim-dul's vault"  # letters stay


def test_a_reversible_cards_doubled_name_is_looked_up_as_the_card():
    """Scryfall names a reversible card "X // X" (an omen's "A // B // A // B"): one card.
    Only look-ups collapse it; stored names and the history's keys keep `fold_name`."""
    from validator.cards.names import lookup_key

    assert lookup_key("Steam Vents // Steam Vents") == "steam vents"
    assert lookup_key("Steam Vents/Steam Vents") == "steam vents"
    assert (
        lookup_key("Marang River Regent // Coil and Catch // Marang River Regent // Coil and Catch")
        == "marang river regent // coil and catch"
    )
    assert fold_name("Steam Vents // Steam Vents") == "steam vents // steam vents"
    # Different halves stay a split name.
    assert lookup_key("Fire // Ice") == "fire // ice"
    assert lookup_key("Fire // Fire // Ice") == "fire // fire // ice"


def test_grist_is_a_creature_card_outside_the_battlefield_so_it_can_be_a_commander():
    from validator.cards.facts import card_from_scryfall

    grist = card_from_scryfall(
        {
            "object": "card",
            "oracle_id": "grist",
            "name": "Grist, the Hunger Tide",
            "layout": "normal",
            "mana_cost": "{1}{B}{G}",
            "cmc": 3,
            "type_line": "Legendary Planeswalker — Grist",
            "oracle_text": "As long as Grist isn't on the battlefield, it's a 1/1 Insect creature in "
            "addition to its other types.\n+1: Create a 1/1 black and green Insect creature token.",
            "color_identity": ["B", "G"],
            "loyalty": "3",
        }
    )
    assert grist.commander_eligible  # CR 903.3a reading of a creature card off the battlefield


def test_a_card_needs_only_the_keys_a_sync_reads() -> None:
    """A sync decodes only SCRYFALL_KEYS of each object: every fixture card built from those
    keys alone is the card built from the whole object."""
    import json

    from validator.cards.facts import SCRYFALL_KEYS

    names = (
        "cards_core.json",
        "cards_commander.json",
        "cards_companion.json",
        "cards_meld.json",
        "cards_hostile.json",
        "scryfall_cards.json",
    )
    objs = [o for n in names for o in json.loads((FIXTURES / n).read_text(encoding="utf-8"))]
    assert len(objs) > 100
    for obj in objs:
        only = {k: v for k, v in obj.items() if k in SCRYFALL_KEYS}
        assert card_from_scryfall(only) == card_from_scryfall(obj), obj.get("name")


def test_cards_are_built_with_the_models_fields_in_order() -> None:
    """card_from_scryfall passes Card's fields by position: the model's order must be the one
    it was written for (a field added at the end, with a default, is fine)."""
    import dataclasses

    from validator.cards.facts import CARD_FIELDS
    from validator.model import Card

    names = tuple(f.name for f in dataclasses.fields(Card))
    assert names[: len(CARD_FIELDS)] == CARD_FIELDS
    assert all(
        f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        for f in dataclasses.fields(Card)[len(CARD_FIELDS) :]
    )
