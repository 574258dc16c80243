"""abilities.has_activated_ability, checked directly on Oracle texts (Zirda's condition).

Scryfall's Oracle text omits many keywords' reminder text, so a colon test alone is not enough;
and some colons are not the card's own activated ability (quotes, Saga chapters).
"""

from __future__ import annotations

import pytest

from validator.cards.abilities import has_activated_ability, strip_reminder_text

ARTIFACT = frozenset({"Artifact"})
CREATURE = frozenset({"Creature"})
ENCHANTMENT = frozenset({"Enchantment"})
LAND = frozenset({"Land"})
NONE: frozenset[str] = frozenset()


@pytest.mark.parametrize(
    "text",
    [
        "{T}: Add {C}{C}.",  # mana ability (605.1a)
        "{1}, {T}, Sacrifice this artifact: Draw a card.",
        "+1: Draw a card.\n\u22122: Target creature gets -2/-2 until end of turn.",  # loyalty (606.1)
        "[+1]: Reveal the top two cards of your library.",  # MTGJSON's loyalty notation
        "0: Untap target permanent.",
        "Equipped creature gets +2/+0.\nEquip {1}",  # 702.6a, no reminder text in Oracle
        "Equip legendary creature {1}\nEquip {3}",
        "Equip\u2014Pay 3 life.",
        "Flying\nCrew 1",  # 702.122a
        "Cycling {2}",  # 702.29a
        "Swampwalk\nCycling\u2014Pay 2 life. (Pay 2 life, Discard this card: Draw a card.)",
        "Plainscycling {2}",
        "Basic landcycling {1}{G}",
        "Level up {W} ({W}: Put a level counter on this. Level up only as a sorcery.)\nLEVEL 2-6\n3/3",
        "You have no maximum hand size.\n{2}{U}: Level 2\nWhen this Class becomes level 2, draw two cards.",
        "Double strike\nReconfigure {2} ({2}: Attach to target creature you control.)",  # 702.151a
        "Trample\nChannel \u2014 {2}{G}, Discard this card: Search your library for a basic land card.",
        "Boast \u2014 {1}{R}: This creature deals 1 damage to any target.",
        "Exhaust \u2014 {2}{G}: Put two +1/+1 counters on this creature.",
        "Ninjutsu {1}{U}",
        "Commander ninjutsu {2}{U}{B}",
        "Unearth {B}",
        "Transmute {1}{B}{B}",
        "Scavenge {4}{G}{G}",
        "Embalm {W}",
        "Eternalize {4}{B}{B}",
        "Encore {5}{R}",
        "Outlast {1}{W}",
        "Fortify {1}",
        "Reinforce 1\u2014{1}{W}",
        "Aura swap {2}{U}",
        "Transfigure {1}{B}{B}",
        "Saddle 2",
        "Station (Tap another creature you control: Put charge counters equal to its power on this "
        "Spacecraft. Station only as a sorcery.)\nSTATION 8+\nFlying",
        "Craft with artifact {3}{W}",
        "Bloodrush \u2014 {R}, Discard this card: Target attacking creature gets +2/+2.",
        # Case: "Solved — [activated ability]" is an activated ability (702.169d).
        "To solve \u2014 You control no suspected Skeletons.\nSolved \u2014 {1}{B}, Sacrifice this Case: "
        "Draw a card.",
    ],
)
def test_activated_abilities(text: str) -> None:
    assert has_activated_ability(text, ARTIFACT | CREATURE, NONE)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Flying",
        "Equipped creature gets +2/+0.",  # "Equipped" is not "Equip"
        "Cycling abilities you activate cost {2} less to activate.",  # Fluctuator
        'Creatures you control have "{T}: Add one mana of any color."',  # granted, quoted
        "Enchanted creature has \u201c{T}: This creature deals 1 damage to any target.\u201d",
        # Saga chapters are triggered abilities (714.2), even when they grant a colon ability.
        "(As this Saga enters and after your draw step, add a lore counter.)\n"
        'I \u2014 This Saga gains "{T}: Add {C}."\nII, III \u2014 Each opponent discards a card.',
        "Companion \u2014 Each permanent card in your starting deck has an activated ability.",
        "Landfall \u2014 Whenever a land you control enters, you gain 1 life.",
        "Kicker {2}{R}\nWhen this creature enters, if it was kicked, draw a card.",  # static
        "Flashback {2}{R}",  # 702.34a: a static ability
        "Morph {3}{U}",  # turning face up is a special action
        "Dash {1}{R}",
        "Plot {2}{R}",
        "Suspend 4\u2014{R}",
        "Persist (When this creature dies, if it had no -1/-1 counters on it, return it.)",
        # Max speed grants its ability only while your speed is 4 (702.178a): a static ability.
        "Start your engines!\nMax speed \u2014 {T}: Add {R}.",
        "At the beginning of your upkeep, you lose 1 life and create a 1/1 black Faerie Rogue.",
    ],
)
def test_not_activated_abilities(text: str) -> None:
    assert not has_activated_ability(text, ARTIFACT | CREATURE, NONE)


@pytest.mark.parametrize("subtype", ["Plains", "Island", "Swamp", "Mountain", "Forest"])
def test_basic_land_types_grant_the_intrinsic_mana_ability(subtype: str) -> None:
    """CR 305.6, even with no text box (Scryfall prints it as reminder text, or nothing)."""
    assert has_activated_ability("", LAND, frozenset({subtype}))
    assert has_activated_ability("", LAND | CREATURE, frozenset({subtype, "Dryad"}))  # Dryad Arbor


def test_wastes_prints_its_mana_ability_in_parentheses() -> None:
    assert has_activated_ability("({T}: Add {C}.)", LAND, NONE)


def test_a_land_type_alone_is_not_enough_without_the_land_card_type() -> None:
    assert not has_activated_ability("", ENCHANTMENT, frozenset({"Forest"}))


def test_nonbasic_land_types_grant_nothing() -> None:
    assert not has_activated_ability("", LAND | ENCHANTMENT, frozenset({"Urza's", "Saga"}))
    assert not has_activated_ability("", LAND, frozenset({"Gate"}))


def test_strip_reminder_text_handles_nested_parentheses() -> None:
    assert strip_reminder_text("Crew 1 (Tap (any) creatures: ...)") == "Crew 1 "
