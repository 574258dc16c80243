"""Commander-family rules (CR 903, 702.124, 903.11a, 903.12, Oathbreaker) with real cards."""

from __future__ import annotations

import pytest
from support import load_cards, make_deck

from validator.model import Severity
from validator.rules.commander.leaders import pair_problem
from validator.rules.commander.rules import commander_problems
from validator.rules.formats import get_format

CARDS = load_cards("cards_commander.json")
COMMANDER = get_format("commander")


def codes(problems):
    return [p.code for p in problems if p.severity != Severity.INFO]


def check(commanders, main=(), fmt=COMMANDER, companion=None, rarities=None):
    deck = make_deck(CARDS, main=[(1, n) for n in main], commanders=commanders, companion=companion)
    return commander_problems(deck, fmt, rarities)


def only(problems, code):
    found = [p for p in problems if p.code == code]
    assert len(found) == 1, problems
    return found[0]


# --- eligibility (CR 903.3, 903.3a, 712.8a) -------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Krenko, Mob Boss",  # legendary creature
        "The Fantasticar",  # legendary Vehicle (903.3b)
        "Hearthhull, the Worldseed",  # legendary Spacecraft with a power/toughness box
        "Grist, the Hunger Tide",  # a creature card outside the battlefield
        "Lava, Axe",  # "Spell commander (This card can be your commander.)"
        "Valki, God of Lies // Tibalt, Cosmic Impostor",  # front face a legendary creature
        "Kozilek, Butcher of Truth",
        "Faceless One",  # a legendary enchantment creature (and a Background)
    ],
)
def test_eligible_commanders(name):
    assert codes(check([name])) == []


@pytest.mark.parametrize(
    "name, why",
    [
        ("The Eternity Elevator", "Spacecraft without a power/toughness box"),
        ("Smuggler's Copter", "not legendary"),
        ("Llanowar Elves", "not legendary"),
        ("Chandra, Torch of Defiance", "Planeswalker"),
        ("Lightning Bolt", "Instant"),
    ],
)
def test_not_eligible(name, why):
    problem = only(check([name]), "commander-not-eligible")
    assert why in problem.message
    assert "legendary creature card" in problem.message
    assert problem.citation == "CR 903.3"
    assert problem.cards == (name,)


# --- partners (CR 702.124) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "pair",
    [
        ("Tymna the Weaver", "Thrasios, Triton Hero"),  # Partner
        ("Tymna the Weaver", "Kraum, Ludevic's Opus"),
        (
            "Pir, Imaginative Rascal",
            "Toothy, Imaginary Friend",
        ),  # Partner with, each names the other
        ("Bjorna, Nightfall Alchemist", "Wernog, Rider's Chaplain"),  # Partner—Friends forever
        ("Ellie, Brick Master", "Ellie, Vengeful Hunter"),  # Partner—Survivors
        ("Atreus, Impulsive Son", "Kratos, Stoic Father"),  # Partner—Father & son
        ("Wilson, Refined Grizzly", "Flaming Fist"),  # Choose a Background
        ("Faceless One", "Wilson, Refined Grizzly"),  # a Background creature with CaB
        ("Rose Tyler", "The Tenth Doctor"),  # Doctor's companion
    ],
)
def test_valid_pairs(pair):
    assert codes(check(list(pair))) == []
    assert pair_problem(CARDS[pair[1]], CARDS[pair[0]]) is None


@pytest.mark.parametrize(
    "pair, rule, words",
    [
        (
            ("Tymna the Weaver", "Bjorna, Nightfall Alchemist"),
            "CR 702.124f",
            "Tymna the Weaver has Partner but Bjorna, Nightfall Alchemist's partner is "
            "Partner\u2014Friends forever: both commanders need the same partner ability",
        ),
        (
            ("Bjorna, Nightfall Alchemist", "Ellie, Brick Master"),
            "CR 702.124f",
            "Partner\u2014Survivors",
        ),
        (
            ("Tymna the Weaver", "Krenko, Mob Boss"),
            "CR 702.124a",
            "Krenko, Mob Boss has no partner ability",
        ),
        (("Krenko, Mob Boss", "Vilis, Broker of Blood"), "CR 702.124a", "no partner ability"),
        (
            ("Pir, Imaginative Rascal", "Shabraz, the Skyshark"),
            "CR 702.124j",
            "Pir, Imaginative Rascal has 'Partner with Toothy, Imaginary Friend': its partner must be "
            "Toothy, Imaginary Friend",
        ),
        (("Pir, Imaginative Rascal", "Tymna the Weaver"), "CR 702.124f", "Partner with Toothy"),
        (
            ("Wilson, Refined Grizzly", "Tymna the Weaver"),
            "CR 702.124k",
            "legendary Background enchantment",
        ),
        (("Tymna the Weaver", "Flaming Fist"), "CR 702.124k", "Flaming Fist is a Background"),
        (("Flaming Fist", "Far Traveler"), "CR 702.124k", "is a Background"),
        (("Rose Tyler", "River Song"), "CR 702.124m", "Time Lord Doctor"),
        (("Rose Tyler", "The Master, Formed Anew"), "CR 702.124m", "Time Lord Doctor"),
        (("Rose Tyler", "Clara Oswald"), "CR 702.124m", "Time Lord Doctor"),
        (("The Tenth Doctor", "The Fugitive Doctor"), "CR 702.124a", "no partner ability"),
    ],
)
def test_invalid_pairs(pair, rule, words):
    problem = only(check(list(pair)), "invalid-partners")
    assert problem.citation == rule
    assert words in problem.message
    assert set(problem.cards) == set(pair)


#: Real cards (2026-08-22 data): Amy Pond has two partner abilities (CR 702.124g).
TWO_ABILITIES = [
    {
        "object": "card",
        "name": "Amy Pond",
        "oracle_id": "0935fa17-820a-54ce-a497-921c65cb634f",
        "layout": "normal",
        "mana_cost": "{2}{R}",
        "cmc": 3.0,
        "type_line": "Legendary Creature \u2014 Human",
        "oracle_text": "Partner with Rory Williams (When this creature enters, target player may "
        "put Rory into their hand from their library, then shuffle.)\nWhenever Amy "
        "Pond deals combat damage to a player, choose a suspended card you own and "
        "remove that many time counters from it.\nDoctor's companion (You can have "
        "two commanders if the other is the Doctor.)",
        "power": "2",
        "toughness": "2",
        "color_identity": ["R"],
        "legalities": {"commander": "legal"},
    },
    {
        "object": "card",
        "name": "Rory Williams",
        "oracle_id": "355a9119-82b0-5642-b39c-7f3d98313cc7",
        "layout": "normal",
        "mana_cost": "{W}{U}",
        "cmc": 2.0,
        "type_line": "Legendary Creature \u2014 Human Soldier",
        "oracle_text": "Partner with Amy Pond\nFirst strike, lifelink",
        "power": "3",
        "toughness": "3",
        "color_identity": ["U", "W"],
        "legalities": {"commander": "legal"},
    },
]


def test_a_card_with_two_partner_abilities_may_use_either():
    """702.124g: Amy Pond pairs with Rory Williams (partner with) and with a Time Lord Doctor
    (Doctor's companion), but not with a Partner card: she can't use an ability she lacks."""
    from validator.cards.facts import card_from_scryfall

    amy, rory = (card_from_scryfall(o) for o in TWO_ABILITIES)
    assert amy.partner == "partner-with"  # the first ability, as stored
    assert pair_problem(amy, rory) is None and pair_problem(rory, amy) is None
    assert pair_problem(amy, CARDS["The Tenth Doctor"]) is None
    assert pair_problem(CARDS["The Tenth Doctor"], amy) is None
    problem = pair_problem(amy, CARDS["Tymna the Weaver"])
    assert problem is not None and problem.citation == "CR 702.124f"
    # River Song is no Time Lord Doctor, nor has she a partner ability: refused, the first of
    # Amy's abilities telling why
    problem = pair_problem(amy, CARDS["River Song"])
    assert problem is not None and problem.citation == "CR 702.124a"
    assert "River Song has no partner ability" in problem.message


def test_more_than_two_commanders():
    problem = only(
        check(["Tymna the Weaver", "Thrasios, Triton Hero", "Kraum, Ludevic's Opus"]),
        "invalid-partners",
    )
    assert problem.citation == "CR 702.124g"
    assert "more than two" in problem.message


def test_lone_background_is_not_a_commander():
    problem = only(check(["Flaming Fist"]), "commander-not-eligible")
    assert problem.citation == "CR 702.124k"


# --- color identity (CR 903.4, 903.5c, 903.5d) ----------------------------------------------


def test_cards_within_identity_pass():
    main = ["Lightning Bolt", "Mountain", "Sol Ring", "Kraum, Ludevic's Opus"]
    assert codes(check(["Krenko, Mob Boss"], main=["Lightning Bolt", "Mountain", "Sol Ring"])) == []
    assert (
        codes(
            check(
                ["Tymna the Weaver", "Kraum, Ludevic's Opus"],
                main=main[:3] + ["Murder", "Wrath of God", "Counterspell", "Tundra"],
            )
        )
        == []
    )


def test_hybrid_card_needs_both_colors():
    """903.5c example (Wort): {R/G} has identity R and G, so a mono-red deck can't hold it."""
    problem = only(
        check(["Krenko, Mob Boss"], main=["Boggart Ram-Gang", "Lightning Bolt"]), "color-identity"
    )
    assert problem.cards == ("Boggart Ram-Gang",)
    assert "Boggart Ram-Gang (RG)" in problem.message
    assert problem.citation == "CR 903.5c"
    assert problem.lines == (1,)


def test_mdfc_back_face_color_counts():
    """903.4d: Valki's back face (Tibalt) is red, so it does not fit a mono-black deck."""
    problem = only(
        check(
            ["Vilis, Broker of Blood"],
            main=["Murder", "Valki, God of Lies // Tibalt, Cosmic Impostor"],
        ),
        "color-identity",
    )
    assert problem.cards == ("Valki, God of Lies // Tibalt, Cosmic Impostor",)


def test_basic_land_type_outside_identity():
    """903.5d: Tundra (Plains Island) in a mono-white deck."""
    problem = only(
        check(["Adeline, Resplendent Cathar"], main=["Tundra", "Plains"]), "color-identity"
    )
    assert problem.cards == ("Tundra",)


@pytest.mark.parametrize("commander", ["Kozilek, Butcher of Truth", "Karn, Silver Golem"])
def test_colorless_commander_allows_only_colorless_cards(commander):
    problems = check([commander], main=["Sol Ring", "Wastes", "Island", "Lightning Bolt"])
    problem = only(problems, "color-identity")
    assert set(problem.cards) == {"Island", "Lightning Bolt"}
    assert "(colorless)" in problem.message


def test_grouped_identity_problem_lists_every_card_with_lines():
    problem = only(
        check(["Krenko, Mob Boss"], main=["Murder", "Lightning Bolt", "Giant Growth"]),
        "color-identity",
    )
    assert problem.cards == ("Murder", "Giant Growth")
    assert problem.lines == (1, 3)


def test_partner_identity_is_combined():
    """702.124c: Tymna (WB) + Thrasios (UG) allow four colors, not red."""
    problem = only(
        check(
            ["Tymna the Weaver", "Thrasios, Triton Hero"],
            main=["Murder", "Giant Growth", "Counterspell", "Lightning Bolt"],
        ),
        "color-identity",
    )
    assert problem.cards == ("Lightning Bolt",)


def test_commander_that_chooses_a_color():
    """903.4b: Clara Oswald's chosen color joins the identity; a second extra color does not."""
    clara = ["Clara Oswald", "The Tenth Doctor"]  # Doctor's companion + UR Doctor
    assert codes(check(clara, main=["Giant Growth", "Counterspell", "Lightning Bolt"])) == []
    problem = only(
        check(clara, main=["Giant Growth", "Llanowar Elves", "Murder"]), "color-identity"
    )
    assert problem.cards == ("Murder",)


def test_a_tie_for_the_chosen_color_is_settled_the_same_way_every_run():
    """903.4b: beside Faceless One, Tundra (W and U) alone shows two colors equally. The tie
    goes to the color counted first (cards in listing order, each card's colors in WUBRG
    order), so the same deck always gets the same report; a set's order once decided it,
    which changed with the interpreter's hash seed (this test runs under several)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "from test_commander import check, only; "
        "print(only(check(['Faceless One'], main=['Tundra', 'Giant Growth']), "
        "'chosen-color').message)"
    )
    tests = str(Path(__file__).parent)
    answers = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=tests,
            env={
                **os.environ,
                "PYTHONHASHSEED": str(seed),
                "PYTHONPATH": os.pathsep.join([tests, *sys.path]),
            },
        ).stdout
        for seed in range(6)
    }
    assert answers == {
        "The deck's cards use W: taken as the color chosen for Faceless One before the game\n"
    }
    # One green and one red card: the first listed; two greens beat one red.
    problems = check(["Faceless One"], main=["Giant Growth", "Lightning Bolt"])
    assert only(problems, "color-identity").cards == ("Lightning Bolt",)
    problems = check(["Faceless One"], main=["Lightning Bolt", "Giant Growth", "Llanowar Elves"])
    assert only(problems, "color-identity").cards == ("Lightning Bolt",)


# --- banned as commander (Duel Commander), Commander's banned-as-companion -------------------


def test_duel_restricted_means_banned_as_commander():
    duel = get_format("duel")
    problem = only(check(["Edric, Spymaster of Trest"], fmt=duel), "banned-as-commander")
    assert "Edric" in problem.message
    # in the 99 it is fine: nothing here says otherwise
    assert (
        codes(check(["Thrasios, Triton Hero"], main=["Edric, Spymaster of Trest"], fmt=duel)) == []
    )


def test_duel_banned_as_commander_list_by_name():
    duel = get_format("duel")
    problems = check(["Vial Smasher the Fierce", "Tymna the Weaver"], fmt=duel)
    assert codes(problems) == ["banned-as-commander"]


def test_commander_format_has_no_banned_as_commander():
    assert codes(check(["Edric, Spymaster of Trest"])) == []


# --- the companion: the 101st card (702.139b, 903.11a) --------------------------------------


def test_lutri_banned_as_companion_in_commander_but_fine_in_the_99():
    problems = check(
        ["Kraum, Ludevic's Opus"], main=["Lightning Bolt"], companion="Lutri, the Spellchaser"
    )
    assert only(problems, "banned-as-companion").cards == ("Lutri, the Spellchaser",)
    assert codes(check(["Kraum, Ludevic's Opus"], main=["Lutri, the Spellchaser"])) == []
    assert codes(check(["Lutri, the Spellchaser"], main=["Lightning Bolt"])) == []


def test_companion_identity_outside_commander():
    problem = only(
        check(
            ["Adeline, Resplendent Cathar"], main=["Plains"], companion="Lurrus of the Dream-Den"
        ),
        "companion-color-identity",
    )
    assert problem.citation == "CR 903.11a"
    assert "(WB)" in problem.message and "(W)" in problem.message


def test_companion_sharing_a_name_with_a_deck_card():
    problem = only(
        check(
            ["Amalia Benavides Aguirre"],
            main=["Lurrus of the Dream-Den"],
            companion="Lurrus of the Dream-Den",
        ),
        "companion-in-deck",
    )
    assert problem.citation == "CR 903.11a"


def test_companion_is_commander_too():
    problems = check(["Lurrus of the Dream-Den"], companion="Lurrus of the Dream-Den")
    assert "companion-in-deck" in codes(problems)


def test_card_without_companion_ability_as_companion():
    assert "not-a-companion" in codes(check(["Krenko, Mob Boss"], companion="Lightning Bolt"))


def test_no_companions_in_oathbreaker():
    problems = check(
        ["Garruk, Primal Hunter", "Giant Growth"],
        fmt=get_format("oathbreaker"),
        companion="Lurrus of the Dream-Den",
    )
    assert only(problems, "companions-not-allowed").cards == ("Lurrus of the Dream-Den",)


def test_companion_condition_passes_and_fails():
    pytest.importorskip("validator.rules.companion")
    # Lurrus: each permanent card in the starting deck has mana value 2 or less
    good = check(
        ["Amalia Benavides Aguirre"],
        main=["Plains", "Swamp", "Murder", "Wrath of God"],
        companion="Lurrus of the Dream-Den",
    )
    assert codes(good) == []
    assert "companion-condition-met" in [p.code for p in good]
    bad = check(
        ["Amalia Benavides Aguirre"],
        main=["Plains", "Vilis, Broker of Blood"],
        companion="Lurrus of the Dream-Den",
    )
    problem = only(bad, "companion-condition-failed")
    assert "Vilis, Broker of Blood" in problem.cards
    assert problem.citation == "CR 702.139b"


def test_companion_condition_counts_the_commander():
    """702.139b: the starting deck includes the commander; Tymna (MV 3) breaks Lurrus."""
    pytest.importorskip("validator.rules.companion")
    problem = only(
        check(["Tymna the Weaver"], main=["Swamp"], companion="Lurrus of the Dream-Den"),
        "companion-condition-failed",
    )
    assert "Tymna the Weaver" in problem.cards


def test_yorion_can_never_be_a_commander_companion():
    """Yorion ruling: a Commander deck has exactly 100 cards, never twenty more."""
    pytest.importorskip("validator.rules.companion")
    problems = check(
        ["Shabraz, the Skyshark", "Brallin, Skyshark Rider"],
        main=["Island"],
        companion="Yorion, Sky Nomad",
    )
    assert "exactly 100" in only(problems, "companion-condition-failed").message


# --- Brawl (903.12) --------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["brawl", "standardbrawl"])
def test_brawl_planeswalker_commander(key):
    fmt = get_format(key)
    assert codes(check(["Chandra, Torch of Defiance"], main=["Lightning Bolt"], fmt=fmt)) == []
    assert codes(check(["Chandra, Torch of Defiance"], main=["Lightning Bolt"])) == [
        "commander-not-eligible"
    ]


def test_brawl_colorless_commander_basics_of_one_type():
    fmt = get_format("standardbrawl")
    deck = ["Sol Ring", "Wastes", "Island", "Snow-Covered Island"]
    assert codes(check(["Karn, Scion of Urza"], main=deck, fmt=fmt)) == []
    problems = check(["Karn, Scion of Urza"], main=deck + ["Mountain"], fmt=fmt)
    problem = only(problems, "color-identity")
    assert problem.citation == "CR 903.12e"
    assert problem.cards == ("Mountain",)
    # colored nonbasic cards are still outside the identity
    problems = check(["Karn, Scion of Urza"], main=deck + ["Tundra", "Counterspell"], fmt=fmt)
    assert set(only(problems, "color-identity").cards) == {"Tundra", "Counterspell"}


def test_colorless_basics_exception_is_brawl_only():
    problem = only(check(["Kozilek, Butcher of Truth"], main=["Island"]), "color-identity")
    assert problem.cards == ("Island",)


# --- Oathbreaker -----------------------------------------------------------------------------

OATH = get_format("oathbreaker")


def test_oathbreaker_with_signature_spell():
    assert (
        codes(
            check(
                ["Garruk, Primal Hunter", "Giant Growth"],
                main=["Forest", "Llanowar Elves"],
                fmt=OATH,
            )
        )
        == []
    )


def test_signature_spell_outside_identity():
    problem = only(
        check(["Garruk, Primal Hunter", "Lightning Bolt"], fmt=OATH), "signature-spell-invalid"
    )
    assert problem.citation == "format:oathbreaker"
    assert "Lightning Bolt (R)" in problem.message


def test_oathbreaker_deck_identity():
    problem = only(
        check(["Garruk, Primal Hunter", "Giant Growth"], main=["Counterspell"], fmt=OATH),
        "color-identity",
    )
    assert problem.citation == "format:oathbreaker"


def test_oathbreaker_needs_a_planeswalker_and_an_instant_or_sorcery():
    problems = check(["Krenko, Mob Boss", "Lightning Bolt"], fmt=OATH)
    assert "commander-not-eligible" in codes(problems)
    assert codes(check(["Garruk, Primal Hunter"], fmt=OATH)) == []  # designation reports it


def test_partner_oathbreakers_each_with_a_spell():
    pair = ["Rowan Kenrith", "Will Kenrith"]
    assert codes(check(pair + ["Lightning Bolt", "Counterspell"], fmt=OATH)) == []
    assert codes(check(pair + ["Lightning Bolt", "Counterspell", "Giant Growth"], fmt=OATH)) == [
        "signature-spell-invalid"
    ]
    assert "invalid-partners" in codes(
        check(
            [
                "Garruk, Primal Hunter",
                "Chandra, Torch of Defiance",
                "Giant Growth",
                "Lightning Bolt",
            ],
            fmt=OATH,
        )
    )


def test_partner_oathbreakers_with_one_spell_between_them_are_short_of_one():
    """Each oathbreaker brings its own signature spell (format:oathbreaker, partners 702.124):
    two oathbreakers and one spell is a deck missing the second, not a legal one."""
    problem = only(
        check(["Rowan Kenrith", "Will Kenrith", "Lightning Bolt"], fmt=OATH),
        "signature-spell-missing",
    )
    assert problem.severity == Severity.ERROR
    assert set(problem.cards) == {"Rowan Kenrith", "Will Kenrith", "Lightning Bolt"}


# --- Pauper Commander (uncommon creature commander) and PreDH ---------------------------------

PDH = get_format("paupercommander")


def test_pauper_commander_without_printings_is_not_judged_legal():
    """Unknown is not allowed: the legality key does not speak of the commander, and nothing
    else says it was printed at uncommon (fails closed, like an unknown legality)."""
    problems = check(["Kitchen Finks"], main=["Plains"], fmt=PDH)
    problem = only(problems, "commander-rarity-unchecked")
    assert problem.severity == Severity.ERROR
    assert "deckcheck sync --printings" in problem.message and "not judged legal" in problem.message
    problems = check(["Kitchen Finks"], fmt=PDH, rarities=lambda card: None)
    assert codes(problems) == ["commander-rarity-unchecked"]
    # Nothing else wrong: the verdict is "cannot tell", not "illegal" (report.py verdict).
    from validator.report import verdict_of

    assert verdict_of(problems) == "unconfirmed"


def test_pauper_commander_with_printings():
    printed = {"Kitchen Finks": {"uncommon", "rare"}, "Llanowar Elves": {"common", "rare"}}
    rarities = lambda card: printed.get(card.name, set())  # noqa: E731
    assert codes(check(["Kitchen Finks"], main=["Plains"], fmt=PDH, rarities=rarities)) == []
    problem = only(check(["Llanowar Elves"], fmt=PDH, rarities=rarities), "commander-not-eligible")
    assert "never printed at uncommon" in problem.message
    # not a creature at all
    assert "commander-not-eligible" in codes(check(["Lightning Bolt"], fmt=PDH, rarities=rarities))


def test_predh_uses_commander_rules():
    assert codes(check(["Krenko, Mob Boss"], main=["Giant Growth"], fmt=get_format("predh"))) == [
        "color-identity"
    ]


def test_constructed_formats_are_untouched():
    assert check(["Lightning Bolt"], fmt=get_format("modern")) == []
