"""Companion conditions: the grammar reads the sentences, the predicates check them (CR 702.139).

Cards are real Scryfall-shaped records (tests/fixtures/cards_companion.json); the conditions are
read from the companions' own Oracle text, never typed in by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support import FIXTURES, load_cards, make_deck

from validator.cards.facts import card_from_scryfall
from validator.model import Section, Severity
from validator.rules.companion.checks import (
    companion_cards,
    companion_condition_problems,
    constructed_companion_problems,
    house_rule_problems,
)
from validator.rules.companion.predicates import (
    ActivatedAbility,
    ContainsNo,
    ContainsOnly,
    DeckSize,
    DifferentNames,
    EachCard,
    KindOf,
    ManaValue,
    Offense,
    Parity,
    Predicate,
    RepeatedManaSymbol,
    SharesCardType,
    StartingDeck,
)
from validator.rules.companion.reader import ConditionError, explain, parse_condition
from validator.rules.formats import FormatRules, load_formats

CARDS = load_cards("cards_companion.json")

TOURNAMENT_COMPANIONS = (
    "Gyruda, Doom of Depths",
    "Jegantha, the Wellspring",
    "Kaheera, the Orphanguard",
    "Keruga, the Macrosage",
    "Lurrus of the Dream-Den",
    "Lutri, the Spellchaser",
    "Obosh, the Preypiercer",
    "Umori, the Collector",
    "Yorion, Sky Nomad",
    "Zirda, the Dawnwaker",
)
JOKE_COMPANIONS = ("Lutri, Pauper Otter", "Treizeci, Sun of Serra", "The Companion of the Wilds")
CONSTRUCTED = StartingDeck(minimum_deck_size=60, exact_size=False)
LEGACY = load_formats()["legacy"]


def condition(companion: str):
    return parse_condition(CARDS[companion].companion_condition)


def offenses(companion: str, *names: str | tuple[int, str], ctx: StartingDeck = CONSTRUCTED):
    """Evaluate a companion's condition on a starting deck of the named cards (1 copy each
    unless given as (quantity, name))."""
    deck = [(CARDS[n], 1) if isinstance(n, str) else (CARDS[n[1]], n[0]) for n in names]
    return condition(companion).evaluate(deck, ctx)


def offending(companion: str, *names: str | tuple[int, str]) -> set[str]:
    return {o.card for o in offenses(companion, *names)}


# --- the grammar -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", TOURNAMENT_COMPANIONS)
def test_every_tournament_companion_sentence_parses(name: str) -> None:
    sentence = CARDS[name].companion_condition
    assert sentence and "(" not in sentence  # the sentence only, no reminder text
    predicate = parse_condition(sentence)
    assert isinstance(predicate, Predicate) and predicate.describe()


def test_the_ten_sentences_read_as_the_right_shapes() -> None:
    assert condition("Lurrus of the Dream-Den") == EachCard(
        condition("Lurrus of the Dream-Den").selection, ManaValue("le", 2)
    )
    assert isinstance(condition("Obosh, the Preypiercer"), ContainsOnly)
    assert condition("Gyruda, Doom of Depths").allowed[0].feature == Parity(even=True)
    assert condition("Keruga, the Macrosage").allowed[0].feature == ManaValue("ge", 3)
    assert isinstance(condition("Kaheera, the Orphanguard").feature, KindOf)
    assert condition("Zirda, the Dawnwaker").feature == ActivatedAbility()
    assert isinstance(condition("Lutri, the Spellchaser"), DifferentNames)
    assert isinstance(condition("Umori, the Collector"), SharesCardType)
    jegantha = condition("Jegantha, the Wellspring")
    assert jegantha.negated and jegantha.feature == RepeatedManaSymbol(1)
    assert condition("Yorion, Sky Nomad") == DeckSize("at_least", 20, relative=True)


@pytest.mark.parametrize(
    "sentence, reading",
    [
        (
            "Each nonland card in your starting deck has mana value 3 or less.",
            "each nonland card must have mana value 3 or less",
        ),
        (
            "Each creature card in your starting deck has mana value 4 or greater.",
            "each creature card must have mana value 4 or greater",
        ),
        (
            "Each card in your starting deck has an even mana value",
            "each card must have an even mana value",
        ),
        (
            "Each artifact card in your starting deck has an activated ability.",
            "each artifact card must have an activated ability",
        ),
        (
            "Your starting deck contains only cards with mana value 1 or less and land cards.",
            "every card must be one of: cards with mana value 1 or less; land cards",
        ),
        (
            "Each nonpermanent card in your starting deck has mana value two or less.",
            "each nonpermanent card must have mana value 2 or less",
        ),
        (
            "Each instant card in your starting deck has a mana value of exactly 1.",
            "each instant card must have mana value 1",
        ),
        (
            "each LAND card in your starting deck is a Forest or Island card",
            "each land card must be a Forest or Island card",
        ),
        (
            "Each nonland card in your starting deck is an artifact card.",
            "each nonland card must be an artifact card",
        ),
        (
            "Each creature card in your starting deck is a Time Lord card.",
            "each creature card must be a Time Lord card",
        ),
        (
            "No creature card in your starting deck has mana value greater than 5.",
            "no creature card may have mana value greater than 5",
        ),
        (
            "Your starting deck contains no creature cards with mana value 5 or greater.",
            "the deck may contain no creature cards with mana value 5 or greater",
        ),
        (
            "Your starting deck contains at least 100 cards.",
            "the deck must have at least 100 cards",
        ),
        (
            "Each nonland non-creature card in your starting deck has an odd mana value.",
            "each nonland noncreature card must have an odd mana value",
        ),
    ],
)
def test_house_rule_variations_parse(sentence: str, reading: str) -> None:
    assert parse_condition(sentence).describe() == reading


def test_number_words_and_digits_read_the_same() -> None:
    words = parse_condition(
        "Each permanent card in your starting deck has mana value three or less."
    )
    digits = parse_condition("Each permanent card in your starting deck has mana value 3 or less.")
    assert words == digits
    assert parse_condition(
        "Your starting deck contains at least 20 cards more than the minimum deck size."
    ) == condition("Yorion, Sky Nomad")


def test_the_companion_keyword_and_reminder_text_are_not_part_of_the_sentence() -> None:
    full = (
        "Companion \u2014 Each permanent card in your starting deck has mana value 2 or less. "
        "(If this card is your chosen companion, you may put it into your hand from outside "
        "the game for {3} as a sorcery.)"
    )
    assert parse_condition(full) == condition("Lurrus of the Dream-Den")


@pytest.mark.parametrize(
    "name, stop",
    [
        ("Lutri, Pauper Otter", "silver"),
        ("Treizeci, Sun of Serra", "nostalgic"),
        ("The Companion of the Wilds", "from"),
    ],
)
def test_joke_companions_are_not_read_and_the_error_points_where_reading_stopped(
    name: str, stop: str
) -> None:
    sentence = CARDS[name].companion_condition
    with pytest.raises(ConditionError) as info:
        parse_condition(sentence)
    assert info.value.position == sentence.index(stop)
    assert f'column {sentence.index(stop) + 1}, at "{stop}"' in str(info.value)


def test_error_names_what_could_have_come_next() -> None:
    with pytest.raises(ConditionError) as info:
        parse_condition("Each card in your starting deck has mana value 3 orange.")
    assert 'at "orange"' in str(info.value)
    assert '"or"' in info.value.expected and '"."' in info.value.expected
    with pytest.raises(ConditionError, match="ends too early"):
        parse_condition("Each card in your starting deck has mana value")
    with pytest.raises(ConditionError, match="empty"):
        parse_condition("   ")


def test_deck_wide_tests_cannot_be_negated() -> None:
    with pytest.raises(ConditionError, match="not a condition"):
        parse_condition("No nonland card in your starting deck has a different name.")


def test_condition_error_is_a_value_error() -> None:
    assert issubclass(ConditionError, ValueError)


def test_explain_shows_the_sentence_and_its_reading() -> None:
    text = explain(CARDS["Lurrus of the Dream-Den"].companion_condition)
    assert "Each permanent card" in text
    assert "each permanent card must have mana value 2 or less" in text


def test_importing_the_module_does_not_import_lark() -> None:
    code = "import sys, validator.rules.companion; assert 'lark' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=FIXTURES.parent.parent)


def _companion_modules_after_validating(decklist: str) -> tuple[list[str], list[str]]:
    """Validate `decklist` (Modern) in a fresh process against the fixtures' cards: the
    problem codes, and which validator.rules.companion modules that process imported."""
    code = (
        "import json, sys\n"
        "from validator.api import validate\n"
        "from validator.cards.facts import card_from_scryfall\n"
        "from validator.store.index import CardIndex\n"
        "from pathlib import Path\n"
        f"objs = json.loads(Path({str(FIXTURES / 'cards_companion.json')!r}).read_bytes())\n"
        "index = CardIndex(((), card_from_scryfall(o)) for o in objs)\n"
        "report = validate(sys.argv[1], 'modern', cards=index)\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('validator.rules.companion'))\n"
        "print(json.dumps([[p.code for p in report.problems], loaded]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, decklist],
        capture_output=True,
        text=True,
        check=True,
        cwd=FIXTURES.parent.parent,
        timeout=120,
    )
    codes, modules = json.loads(out.stdout.splitlines()[-1])
    return codes, modules


def test_a_deck_with_no_companion_card_does_not_import_the_predicates_or_the_reader() -> None:
    """The cold CLI: most decks have no companion card, and the deck checks return before
    importing the predicates (19 dataclasses) and the grammar's reader. A deck with one does
    import them (so this test cannot pass vacuously)."""
    deck = "4 Lightning Bolt\n56 Mountain\n"
    codes, modules = _companion_modules_after_validating(deck)
    assert modules == ["validator.rules.companion", "validator.rules.companion.checks"], modules
    assert not any(c.startswith("companion") for c in codes), codes
    codes, modules = _companion_modules_after_validating(
        deck + "Sideboard\n1 Jegantha, the Wellspring\n"
    )
    assert {"validator.rules.companion.predicates", "validator.rules.companion.reader"} <= set(
        modules
    )
    assert "companion-condition-met" in codes, codes  # Jegantha: no repeated mana symbol


def test_a_new_companion_works_from_its_text_alone() -> None:
    """The database decides: no per-name dispatch, a readable sentence just works."""
    card = card_from_scryfall(
        {
            "name": "Hypothetical Companion",
            "oracle_id": "00000000-0000-0000-0000-000000000001",
            "layout": "normal",
            "mana_cost": "{3}",
            "cmc": 3,
            "type_line": "Legendary Creature — Ox",
            "oracle_text": "Companion \u2014 Each nonland card in your starting deck has mana value 3 "
            "or less. (If this card is your chosen companion, ...)",
        }
    )
    starting = [
        (CARDS["Lightning Bolt"], 4),
        (CARDS["Emeria's Call // Emeria, Shattered Skyclave"], 1),
    ]
    problems = companion_condition_problems(card, starting, CONSTRUCTED, "CR 702.139a")
    assert [p.code for p in problems] == ["companion-condition-failed"]
    assert (
        "Emeria's Call // Emeria, Shattered Skyclave: nonland card with mana value 7"
        in problems[0].message
    )


# --- mana value off the stack (CR 202.3, 709.4, 712.8a, 715.4) --------------------------------


@pytest.mark.parametrize(
    "name, value",
    [
        ("Fire // Ice", 4),  # split: both halves (709.4b)
        ("Bottomless Pool // Locker Room", 6),  # a Room is a split card
        ("Bonecrusher Giant // Stomp", 3),  # adventurer: normal characteristics (715.4)
        ("Kazandu Mammoth // Kazandu Valley", 3),  # MDFC: front face (712.8a)
        ("Valakut Awakening // Valakut Stoneforge", 3),
        ("Delver of Secrets // Insectile Aberration", 1),  # transform: front face
        ("Akki Lavarunner // Tok-Tok, Volcano Born", 4),  # flip: normal characteristics
        ("Phyrexian Fleshgorger", 7),  # prototype: the normal cost
        ("Chalice of the Void", 0),  # X is 0 (202.3e)
        ("Spectral Procession", 6),  # {2/W} counts 2 (202.3f)
        ("Dismember", 3),  # Phyrexian symbols count 1 (202.3g)
    ],
)
def test_mana_value_outside_the_stack(name: str, value: int) -> None:
    assert CARDS[name].mana_value == value


# --- Lurrus: permanent cards, mana value 2 or less ------------------------------------------


def test_lurrus_met_by_cheap_permanents_and_any_spells() -> None:
    assert (
        offenses(
            "Lurrus of the Dream-Den",
            "Savannah Lions",
            "Chalice of the Void",
            "Walking Ballista",
            "Lightning Bolt",
            "Island",
            "Emeria's Call // Emeria, Shattered Skyclave",  # sorcery front, land back
            "Valakut Awakening // Valakut Stoneforge",
        )
        == []
    )


def test_lurrus_fails_on_expensive_permanent_cards_of_every_layout() -> None:
    found = offenses(
        "Lurrus of the Dream-Den",
        "Bonecrusher Giant // Stomp",
        "Kazandu Mammoth // Kazandu Valley",
        "Bottomless Pool // Locker Room",
        "Akki Lavarunner // Tok-Tok, Volcano Born",
        "Phyrexian Fleshgorger",
        "Savannah Lions",
    )
    assert found[0] == Offense("Bonecrusher Giant // Stomp", "permanent card with mana value 3")
    assert {o.card for o in found} == {
        "Bonecrusher Giant // Stomp",
        "Kazandu Mammoth // Kazandu Valley",
        "Bottomless Pool // Locker Room",
        "Akki Lavarunner // Tok-Tok, Volcano Born",
        "Phyrexian Fleshgorger",
    }


# --- Jegantha: no repeated mana symbol in one card's cost -----------------------------------


def test_jegantha_fails_on_repeated_exact_symbols() -> None:
    found = offenses(
        "Jegantha, the Wellspring",
        "Fire // Ice",
        "Burning-Tree Emissary",
        "Spectral Procession",
        "Chalice of the Void",
        "Dismember",
        "Kitchen Finks",
        "Bottomless Pool // Locker Room",
    )
    reasons = {o.card: o.reason for o in found}
    assert (
        reasons["Fire // Ice"] == "card with {1} twice in its mana cost {1}{R} // {1}{U}"
    )  # 709.4b
    assert "{R/G} twice" in reasons["Burning-Tree Emissary"]
    assert "{2/W} three times" in reasons["Spectral Procession"]
    assert "{X} twice" in reasons["Chalice of the Void"]
    assert "{B/P} twice" in reasons["Dismember"]
    assert "{G/W} twice" in reasons["Kitchen Finks"]
    assert "{U} twice" in reasons["Bottomless Pool // Locker Room"]


def test_jegantha_met_when_symbols_differ() -> None:
    assert (
        offenses(
            "Jegantha, the Wellspring",
            "Abstract Paintmage",  # {U}{U/R}{R}
            "Collision // Colossus",  # {1}{R/G} // {R}{G}: {R/G} is not {R}
            "Mind Stone",  # {2} is one symbol
            (4, "Lightning Bolt"),
            (20, "Mountain"),
        )
        == []
    )


# --- Kaheera: creature cards of five creature types -----------------------------------------


def test_kaheera_met_by_the_types_changelings_and_noncreature_cards() -> None:
    assert (
        offenses(
            "Kaheera, the Orphanguard",
            "Savannah Lions",
            "Risen Reef",
            "Universal Automaton",  # changeling (702.73a)
            "Mistform Ultimus",  # "is every creature type"
            "Bitterblossom",  # kindred Faerie enchantment: not a creature card
            "Nameless Inversion",
            "Lightning Bolt",
            "Forest",
        )
        == []
    )


def test_kaheera_fails_on_other_creature_cards_dryad_arbor_included() -> None:
    found = offenses(
        "Kaheera, the Orphanguard",
        "Savannah Lions",
        "Llanowar Elves",
        "Dryad Arbor",
        "Grizzly Bears",
    )
    assert {o.card for o in found} == {"Llanowar Elves", "Dryad Arbor", "Grizzly Bears"}
    assert found[0].reason == (
        "creature card (Creature \u2014 Elf Druid), not a Cat, Elemental, "
        "Nightmare, Dinosaur, or Beast card"
    )


# --- Keruga, Obosh, Gyruda: mana values, with or without a land exemption --------------------


def test_keruga_exempts_land_cards_only() -> None:
    assert (
        offenses(
            "Keruga, the Macrosage",
            "Bonecrusher Giant // Stomp",
            "Island",
            "Urza's Saga",
            "Emeria's Call // Emeria, Shattered Skyclave",
            "Valakut Awakening // Valakut Stoneforge",
        )
        == []
    )
    found = offenses(
        "Keruga, the Macrosage",
        "Thoughtseize",
        "Chalice of the Void",
        "Delver of Secrets // Insectile Aberration",
        "Island",
    )
    assert found[0] == Offense("Thoughtseize", "card with mana value 1, not a land card")
    assert {o.card for o in found} == {
        "Thoughtseize",
        "Chalice of the Void",
        "Delver of Secrets // Insectile Aberration",
    }


def test_obosh_odd_mana_values_and_land_cards() -> None:
    assert (
        offenses(
            "Obosh, the Preypiercer",
            "Lightning Bolt",
            "Thoughtseize",
            "Bonecrusher Giant // Stomp",
            "Mountain",
        )
        == []
    )
    found = offenses(
        "Obosh, the Preypiercer",
        "Mind Stone",
        "Fire // Ice",
        "Chalice of the Void",
        "Lightning Bolt",
    )
    assert found[0] == Offense("Mind Stone", "card with even mana value 2, not a land card")
    assert {o.card for o in found} == {"Mind Stone", "Fire // Ice", "Chalice of the Void"}


def test_gyruda_has_no_land_exemption_but_lands_are_even() -> None:
    assert (
        offenses(
            "Gyruda, Doom of Depths",
            "Mind Stone",
            "Fire // Ice",
            "Island",
            "Chalice of the Void",
            "Spectral Procession",
        )
        == []
    )
    assert offenses("Gyruda, Doom of Depths", "Lightning Bolt", "Island") == [
        Offense("Lightning Bolt", "card with odd mana value 1")
    ]


# --- Lutri: different names ------------------------------------------------------------------


def test_lutri_singleton_nonland_cards_and_any_number_of_lands() -> None:
    assert offenses("Lutri, the Spellchaser", "Lightning Bolt", "Fire // Ice", (20, "Island")) == []


def test_lutri_counts_copies_even_across_lines() -> None:
    assert offenses("Lutri, the Spellchaser", (2, "Lightning Bolt"), "Fire // Ice") == [
        Offense("Lightning Bolt", "2 copies of a nonland card; each needs a different name")
    ]
    assert offending("Lutri, the Spellchaser", "Fire // Ice", "Fire // Ice") == {"Fire // Ice"}


# --- Umori: one card type shared by all nonland cards ---------------------------------------


def test_umori_creatures_and_artifact_creatures_share_creature() -> None:
    assert (
        offenses("Umori, the Collector", (4, "Grizzly Bears"), (4, "Ornithopter"), (20, "Forest"))
        == []
    )


def test_umori_kindred_is_a_card_type() -> None:
    assert offenses("Umori, the Collector", "Bitterblossom", "Nameless Inversion") == []


def test_umori_fails_when_no_single_type_is_common_and_says_which_types_were_found() -> None:
    found = offenses(
        "Umori, the Collector", (4, "Sol Ring"), (8, "Grizzly Bears"), (4, "Ornithopter"), "Island"
    )
    assert found[0].card == ""
    assert "found: Creature \u00d712, Artifact \u00d78" in found[0].reason
    assert found[1:] == [Offense("Sol Ring", "Artifact card, not a Creature card")]


def test_umori_types_found_as_often_are_listed_by_name_whatever_the_deck_order() -> None:
    # Most copies first, ties by name: the wording must not depend on the order of a set of
    # types (which changes between runs with string hashing) nor on the deck order.
    found = offenses("Umori, the Collector", (4, "Grizzly Bears"), (4, "Sol Ring"))
    assert "(found: Artifact \u00d74, Creature \u00d74)" in found[0].reason
    assert found[1:] == [Offense("Grizzly Bears", "Creature card, not an Artifact card")]
    again = offenses("Umori, the Collector", (4, "Sol Ring"), (4, "Grizzly Bears"))
    assert again[0] == found[0]


# --- Yorion: twenty more than the minimum deck size ------------------------------------------


def test_yorion_needs_minimum_plus_twenty() -> None:
    assert offenses("Yorion, Sky Nomad", (80, "Island")) == []
    assert offenses("Yorion, Sky Nomad", (75, "Island")) == [
        Offense("", "deck has 75 cards, needs at least 80 (minimum 60 + 20)")
    ]


def test_yorion_in_limited_needs_sixty() -> None:
    limited = StartingDeck(minimum_deck_size=40)
    assert condition("Yorion, Sky Nomad").evaluate([(CARDS["Island"], 60)], limited) == []
    assert condition("Yorion, Sky Nomad").evaluate([(CARDS["Island"], 59)], limited)


def test_yorion_is_impossible_with_an_exact_deck_size() -> None:
    commander = StartingDeck(minimum_deck_size=100, exact_size=True)
    found = condition("Yorion, Sky Nomad").evaluate([(CARDS["Island"], 100)], commander)
    assert found and "exactly 100" in found[0].reason


# --- Zirda: permanent cards with an activated ability ----------------------------------------


def test_zirda_met_by_mana_loyalty_and_keyword_activated_abilities() -> None:
    assert (
        offenses(
            "Zirda, the Dawnwaker",
            "Sol Ring",
            "Bonesplitter",
            "Smuggler's Copter",
            "Street Wraith",
            "Student of Warfare",
            "Wizard Class",
            "Lizard Blades",
            "Greater Tanuki",
            "Karn, Scion of Urza",
            "Case of the Stashed Skeleton",
            "Stoneforge Mystic",
            "Walking Ballista",
            "Mountain",
            "Wastes",
            "Dryad Arbor",
            "Lightning Bolt",
        )
        == []
    )


def test_zirda_fails_on_sagas_granted_abilities_and_vanilla_permanents() -> None:
    found = offenses(
        "Zirda, the Dawnwaker",
        "Urza's Saga",
        "The Eldest Reborn",
        "Cryptolith Rite",
        "Fluctuator",
        "Grizzly Bears",
        "Sol Ring",
    )
    assert {o.card for o in found} == {
        "Urza's Saga",
        "The Eldest Reborn",
        "Cryptolith Rite",
        "Fluctuator",
        "Grizzly Bears",
    }
    assert found[0].reason == "permanent card without an activated ability"


# --- deck-level problems (constructed) ------------------------------------------------------

LURRUS_MAIN = [
    (4, "Savannah Lions"),
    (4, "Lightning Bolt"),
    (4, "Chalice of the Void"),
    (48, "Plains"),
]


def codes(problems) -> list[str]:
    return [p.code for p in problems]


def test_declared_companion_whose_condition_fails_is_an_error_listing_each_offender() -> None:
    deck = make_deck(
        CARDS,
        main=LURRUS_MAIN + [(4, "Bonecrusher Giant // Stomp")],
        sideboard=[(1, "Lurrus of the Dream-Den")],
        companion="Lurrus of the Dream-Den",
    )
    problems = constructed_companion_problems(deck, LEGACY)
    assert codes(problems) == ["companion-condition-failed"]  # the Sideboard copy is the same card
    problem = problems[0]
    assert problem.severity is Severity.ERROR and problem.citation == "CR 702.139a"
    assert "Bonecrusher Giant // Stomp: permanent card with mana value 3" in problem.message
    assert problem.cards == ("Lurrus of the Dream-Den", "Bonecrusher Giant // Stomp")
    assert problem.lines == (5, 6, 7)  # the offender's line and the companion's two lines


def test_declared_companion_whose_condition_holds_is_info() -> None:
    deck = make_deck(
        CARDS,
        main=LURRUS_MAIN,
        sideboard=[(1, "Lurrus of the Dream-Den")],
        companion="Lurrus of the Dream-Den",
    )
    problems = constructed_companion_problems(deck, LEGACY)
    assert codes(problems) == ["companion-condition-met"]
    assert problems[0].severity is Severity.INFO and problems[0].citation


def test_sideboard_and_companion_are_not_part_of_the_starting_deck() -> None:
    deck = make_deck(
        CARDS,
        main=LURRUS_MAIN,
        sideboard=[(4, "Bonecrusher Giant // Stomp"), (1, "Lurrus of the Dream-Den")],
        companion="Lurrus of the Dream-Den",
    )
    assert codes(constructed_companion_problems(deck, LEGACY)) == ["companion-condition-met"]


def test_undeclared_companion_in_the_sideboard_is_only_info() -> None:
    met = make_deck(CARDS, main=LURRUS_MAIN, sideboard=[(1, "Lurrus of the Dream-Den")])
    not_met = make_deck(
        CARDS,
        main=LURRUS_MAIN + [(4, "Bonecrusher Giant // Stomp")],
        sideboard=[(1, "Lurrus of the Dream-Den")],
    )
    assert codes(constructed_companion_problems(met, LEGACY)) == ["companion-condition-met"]
    problems = constructed_companion_problems(not_met, LEGACY)
    assert codes(problems) == ["companion-condition-not-met"]
    assert problems[0].severity is Severity.INFO
    assert "Bonecrusher Giant // Stomp" in problems[0].message


def test_companion_card_in_the_main_deck_is_no_companion_problem() -> None:
    deck = make_deck(
        CARDS,
        main=LURRUS_MAIN + [(1, "Lurrus of the Dream-Den"), (4, "Bonecrusher Giant // Stomp")],
    )
    assert constructed_companion_problems(deck, LEGACY) == []
    assert [e.card.name for e in companion_cards(deck).main] == ["Lurrus of the Dream-Den"]


def test_two_declared_companions_are_too_many() -> None:
    deck = make_deck(
        CARDS,
        main=LURRUS_MAIN,
        sideboard=[(1, "Lurrus of the Dream-Den"), (1, "Yorion, Sky Nomad")],
    )
    for e in deck.entries[-2:]:  # both declared in the Arena Companion section
        e.entry.section = Section.COMPANION
    problems = constructed_companion_problems(deck, LEGACY)
    assert codes(problems)[0] == "too-many-companions"
    assert problems[0].citation == "CR 103.2b" and problems[0].severity is Severity.ERROR
    assert set(problems[0].cards) == {"Lurrus of the Dream-Den", "Yorion, Sky Nomad"}


def test_companion_banned_as_companion_in_the_format() -> None:
    house = FormatRules(
        key="house",
        name="House",
        legality="legacy",
        banned_as_companion=frozenset({"Lutri, the Spellchaser"}),
    )
    deck = make_deck(
        CARDS,
        main=[(60, "Island")],
        sideboard=[(1, "Lutri, the Spellchaser")],
        companion="Lutri, the Spellchaser",
    )
    problems = constructed_companion_problems(deck, house)
    assert codes(problems) == ["banned-as-companion", "companion-condition-met"]
    assert problems[0].severity is Severity.ERROR and problems[0].citation == "format:house"


@pytest.mark.parametrize("key", ["oathbreaker", "gladiator"])
def test_formats_without_companions(key: str) -> None:
    deck = make_deck(CARDS, main=[(60, "Island")], companion="Lutri, the Spellchaser")
    problems = constructed_companion_problems(deck, load_formats()[key])
    assert codes(problems) == ["companions-not-allowed"]
    assert problems[0].severity is Severity.ERROR


def test_declared_card_without_companion_ability() -> None:
    deck = make_deck(CARDS, main=[(60, "Island")], companion="Grizzly Bears")
    assert codes(constructed_companion_problems(deck, LEGACY)) == ["not-a-companion"]


@pytest.mark.parametrize("name", JOKE_COMPANIONS)
def test_unreadable_condition_is_reported_never_crashes(name: str) -> None:
    declared = make_deck(CARDS, main=[(60, "Island")], sideboard=[(1, name)], companion=name)
    problems = constructed_companion_problems(declared, LEGACY)
    assert codes(problems) == ["companion-condition-unsupported"]
    # Unread is not met: the deck is not judged legal (before: a WARNING, and legal).
    assert problems[0].severity is Severity.ERROR
    assert "could not check" in problems[0].message and "not judged legal" in problems[0].message
    assert CARDS[name].companion_condition in problems[0].message
    in_sideboard = make_deck(CARDS, main=[(60, "Island")], sideboard=[(1, name)])
    problems = constructed_companion_problems(in_sideboard, LEGACY)
    assert codes(problems) == ["companion-condition-unsupported"]
    assert problems[0].severity is Severity.INFO


def test_every_problem_has_a_one_line_message_and_a_citation() -> None:
    deck = make_deck(
        CARDS,
        main=LURRUS_MAIN + [(4, "Bonecrusher Giant // Stomp")],
        sideboard=[
            (1, "Lurrus of the Dream-Den"),
            (1, "Yorion, Sky Nomad"),
            (1, "Treizeci, Sun of Serra"),
        ],
        companion="Lurrus of the Dream-Den",
    )
    problems = constructed_companion_problems(deck, LEGACY)
    assert len(problems) == 3
    assert all(p.citation and "\n" not in p.message for p in problems)


# --- the reusable core (Commander's 101st card) ----------------------------------------------


def test_commander_is_part_of_the_starting_deck() -> None:
    """702.139b: in Commander the starting deck includes the commander."""
    commander_ctx = StartingDeck(minimum_deck_size=100, exact_size=True)
    lurrus = CARDS["Lurrus of the Dream-Den"]
    starting = [(CARDS["Island"], 99), (CARDS["Bonecrusher Giant // Stomp"], 1)]  # the commander
    problems = companion_condition_problems(lurrus, starting, commander_ctx, "CR 702.139b")
    assert codes(problems) == ["companion-condition-failed"]
    assert problems[0].citation == "CR 702.139b"
    yorion = companion_condition_problems(
        CARDS["Yorion, Sky Nomad"], [(CARDS["Island"], 100)], commander_ctx, "CR 702.139b"
    )
    assert codes(yorion) == ["companion-condition-failed"]


def test_a_card_without_companion_ability_gives_no_condition_problem() -> None:
    assert (
        companion_condition_problems(CARDS["Grizzly Bears"], [], CONSTRUCTED, "CR 702.139a") == []
    )


def test_many_offenders_are_summarised_on_one_line() -> None:
    many = [(CARDS[n], 1) for n in ("Sol Ring", "Bonesplitter", "Mind Stone", "Fluctuator")]
    gyruda = CARDS["Gyruda, Doom of Depths"]
    main = many + [
        (CARDS["Lightning Bolt"], 1),
        (CARDS["Thoughtseize"], 1),
        (CARDS["Savannah Lions"], 1),
        (CARDS["Llanowar Elves"], 1),
        (CARDS["Delver of Secrets // Insectile Aberration"], 1),
        (CARDS["Student of Warfare"], 1),
        (CARDS["Wizard Class"], 1),
    ]
    problem = companion_condition_problems(gyruda, main, CONSTRUCTED, "CR 702.139a")[0]
    assert "; and 1 more" in problem.message and len(problem.cards) == 10


# --- house rules -----------------------------------------------------------------------------

HOUSE_RULE = "Each nonland card in your starting deck has mana value 3 or less."


def test_house_rule_failed_lists_offending_cards() -> None:
    deck = make_deck(
        CARDS,
        main=[
            (4, "Lightning Bolt"),
            (2, "Emeria's Call // Emeria, Shattered Skyclave"),
            (54, "Plains"),
        ],
        sideboard=[(1, "Spectral Procession")],
    )
    problems = house_rule_problems(deck, LEGACY, HOUSE_RULE)
    assert codes(problems) == ["house-rule-failed"]
    problem = problems[0]
    assert problem.citation == "house-rule" and problem.severity is Severity.ERROR
    assert problem.cards == (
        "Emeria's Call // Emeria, Shattered Skyclave",
    )  # not the sideboard card
    assert "nonland card with mana value 7" in problem.message and problem.lines == (2,)


def test_house_rule_met_gives_no_problem() -> None:
    deck = make_deck(CARDS, main=[(4, "Lightning Bolt"), (56, "Plains")])
    assert house_rule_problems(deck, LEGACY, HOUSE_RULE) == []


def test_house_rule_includes_the_commander_in_commander_formats() -> None:
    deck = make_deck(CARDS, main=[(99, "Island")], commanders=["Yorion, Sky Nomad"])
    assert house_rule_problems(deck, LEGACY, HOUSE_RULE) == []  # constructed: main deck only
    problems = house_rule_problems(deck, load_formats()["commander"], HOUSE_RULE)
    assert problems[0].cards == ("Yorion, Sky Nomad",)


def test_unreadable_house_rule_raises() -> None:
    deck = make_deck(CARDS, main=[(60, "Island")])
    with pytest.raises(ConditionError):
        house_rule_problems(deck, LEGACY, "Your starting deck contains only nostalgic cards.")


def test_fixture_cards_are_real_scryfall_shaped_records() -> None:
    records = json.loads((FIXTURES / "cards_companion.json").read_text(encoding="utf-8"))
    assert all(
        {"name", "oracle_id", "layout", "type_line", "legalities"} <= set(r) for r in records
    )
    assert {n for n in TOURNAMENT_COMPANIONS} <= {r["name"] for r in records}


@pytest.mark.parametrize(
    "key, minimum, exact",
    [
        ("legacy", 60, False),
        ("commander", 100, True),
        ("brawl", 100, True),
        ("standardbrawl", 60, True),
    ],
)
def test_starting_deck_context_from_the_format(key: str, minimum: int, exact: bool) -> None:
    assert StartingDeck.for_format(load_formats()[key]) == StartingDeck(minimum, exact)


def test_contains_no_reports_the_forbidden_cards() -> None:
    rule = parse_condition(
        "Your starting deck contains no creature cards with mana value 5 or greater."
    )
    assert isinstance(rule, ContainsNo)
    deck = [
        (CARDS["Street Wraith"], 2),
        (CARDS["Emeria's Call // Emeria, Shattered Skyclave"], 1),
        (CARDS["Savannah Lions"], 4),
    ]
    assert rule.evaluate(deck, CONSTRUCTED) == [
        Offense("Street Wraith", "creature card with mana value 5")
    ]
