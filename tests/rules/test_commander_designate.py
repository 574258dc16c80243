"""Finding the commander: Commander section, --commander, or the sideboard (MTGO, tournaments)."""

from __future__ import annotations

from support import load_cards, make_deck

from validator.model import Section, Severity
from validator.rules.commander.designation import designate_commanders
from validator.rules.commander.rules import commander_problems
from validator.rules.formats import get_format

CARDS = load_cards("cards_commander.json")
COMMANDER = get_format("commander")
DUEL = get_format("duel")


def names_in(deck, section):
    return [e.card.name for e in deck.cards_in(section) for _ in range(e.quantity)]


def by_code(problems, code):
    return [p for p in problems if p.code == code]


def test_commander_section_is_kept_and_reported():
    deck = make_deck(CARDS, main=[(99, "Mountain")], commanders=["Krenko, Mob Boss"])
    deck.deck.commander_source = "arena-section"
    problems = designate_commanders(deck, COMMANDER)
    assert [p.code for p in problems] == ["commander-found"]
    assert problems[0].severity == Severity.INFO
    assert (
        problems[0].message
        == "Commander taken from the decklist's Commander section: Krenko, Mob Boss"
    )
    assert names_in(deck, Section.COMMANDER) == ["Krenko, Mob Boss"]


def test_mtgo_sideboard_partners():
    deck = make_deck(
        CARDS,
        main=[(98, "Island")],
        sideboard=[(1, "Tymna the Weaver"), (1, "Kraum, Ludevic's Opus")],
    )
    problems = designate_commanders(deck, DUEL)
    found = by_code(problems, "commander-found")[0]
    assert found.message == (
        "Commander taken from the sideboard, as MTGO exports list it: "
        "Tymna the Weaver, Kraum, Ludevic's Opus"
    )
    assert found.lines == (2, 3)
    assert names_in(deck, Section.COMMANDER) == ["Tymna the Weaver", "Kraum, Ludevic's Opus"]
    assert deck.cards_in(Section.SIDEBOARD) == []
    assert not [p for p in problems if p.severity != Severity.INFO]


def test_commander_listed_twice_in_the_sideboard():
    deck = make_deck(
        CARDS,
        main=[(99, "Plains")],
        sideboard=[(1, "Phelia, Exuberant Shepherd"), (1, "Phelia, Exuberant Shepherd")],
    )
    problems = designate_commanders(deck, DUEL)
    assert names_in(deck, Section.COMMANDER) == ["Phelia, Exuberant Shepherd"]
    assert names_in(deck, Section.IGNORED) == ["Phelia, Exuberant Shepherd"]
    assert deck.cards_in(Section.SIDEBOARD) == []
    assert by_code(problems, "duplicate-listing")[0].lines == (3,)


def test_commander_quantity_two_in_the_sideboard_is_split():
    deck = make_deck(CARDS, main=[(99, "Plains")], sideboard=[(2, "Phelia, Exuberant Shepherd")])
    designate_commanders(deck, DUEL)
    assert names_in(deck, Section.COMMANDER) == ["Phelia, Exuberant Shepherd"]
    assert names_in(deck, Section.IGNORED) == ["Phelia, Exuberant Shepherd"]
    assert deck.count(Section.MAIN, Section.COMMANDER) == 100


def test_companion_in_the_sideboard_is_the_companion():
    deck = make_deck(
        CARDS,
        main=[(99, "Plains")],
        sideboard=[(1, "Amalia Benavides Aguirre"), (1, "Lurrus of the Dream-Den")],
    )
    problems = designate_commanders(deck, DUEL)
    assert names_in(deck, Section.COMMANDER) == ["Amalia Benavides Aguirre"]
    assert names_in(deck, Section.COMPANION) == ["Lurrus of the Dream-Den"]
    assert by_code(problems, "companion-found")


def test_companion_card_alone_is_the_commander():
    """cEDH Gyruda: nothing else in the sideboard could be the commander."""
    deck = make_deck(CARDS, main=[(99, "Island")], sideboard=[(1, "Gyruda, Doom of Depths")])
    designate_commanders(deck, COMMANDER)
    assert names_in(deck, Section.COMMANDER) == ["Gyruda, Doom of Depths"]
    assert deck.cards_in(Section.COMPANION) == []


def test_leftover_sideboard_cards_stay():
    deck = make_deck(
        CARDS, main=[(99, "Mountain")], sideboard=[(1, "Krenko, Mob Boss"), (1, "Lightning Bolt")]
    )
    designate_commanders(deck, COMMANDER)
    assert names_in(deck, Section.COMMANDER) == ["Krenko, Mob Boss"]
    assert names_in(deck, Section.SIDEBOARD) == ["Lightning Bolt"]


def test_several_legends_the_one_whose_identity_covers_the_deck():
    """A Melee cEDH sideboard listing Flubs with Ragavan and Fblthp among extra cards."""
    deck = make_deck(
        CARDS,
        main=[(1, "Counterspell"), (1, "Lightning Bolt"), (97, "Forest")],
        sideboard=[
            (1, "Ragavan, Nimble Pilferer"),
            (1, "Fblthp, the Lost"),
            (1, "Flubs, the Fool"),
            (1, "Cyclonic Rift"),
        ],
    )
    problems = designate_commanders(deck, COMMANDER)
    assert names_in(deck, Section.COMMANDER) == ["Flubs, the Fool"]
    assert not by_code(problems, "commander-guessed")


def test_partner_pair_among_other_legends():
    deck = make_deck(
        CARDS,
        main=[(1, "Murder"), (1, "Lightning Bolt"), (96, "Plains")],
        sideboard=[
            (1, "Tymna the Weaver"),
            (1, "Dargo, the Shipwrecker"),
            (1, "Phelia, Exuberant Shepherd"),
            (1, "Emerald Charm"),
        ],
    )
    designate_commanders(deck, COMMANDER)
    assert names_in(deck, Section.COMMANDER) == ["Tymna the Weaver", "Dargo, the Shipwrecker"]
    assert names_in(deck, Section.SIDEBOARD) == ["Phelia, Exuberant Shepherd", "Emerald Charm"]


def test_ambiguous_choice_is_a_warning_not_silent():
    deck = make_deck(
        CARDS,
        main=[(1, "Lightning Bolt"), (98, "Mountain")],
        sideboard=[(1, "Krenko, Mob Boss"), (1, "Ragavan, Nimble Pilferer")],
    )
    problems = designate_commanders(deck, COMMANDER)
    assert names_in(deck, Section.COMMANDER) == ["Krenko, Mob Boss"]
    guessed = by_code(problems, "commander-guessed")[0]
    assert guessed.severity == Severity.WARNING
    assert "--commander" in guessed.message


def test_no_commander_anywhere():
    deck = make_deck(CARDS, main=[(100, "Mountain")])
    problems = designate_commanders(deck, COMMANDER)
    missing = by_code(problems, "commander-missing")[0]
    assert missing.severity == Severity.ERROR
    assert missing.citation == "CR 903.3"
    for hint in ("Commander section", "*CMDR*", "--commander"):
        assert hint in missing.message


def test_single_ineligible_sideboard_card_is_designated_and_explained():
    deck = make_deck(CARDS, main=[(99, "Forest")], sideboard=[(1, "Llanowar Elves")])
    designate_commanders(deck, COMMANDER)
    assert names_in(deck, Section.COMMANDER) == ["Llanowar Elves"]
    assert [p.code for p in commander_problems(deck, COMMANDER)] == ["commander-not-eligible"]


def test_many_copies_of_a_card_that_cannot_lead_are_not_a_commander():
    """ "49 Swamp" alone in the sideboard is no commander pasted alone: before, one Swamp was
    designated and the other 48 set aside as its repeated listing ("counted once"), so the
    deck counted 52 cards and blamed the Swamp for not being legendary."""
    deck = make_deck(CARDS, main=[(50, "Plains")], sideboard=[(49, "Swamp")])
    problems = designate_commanders(deck, COMMANDER)
    assert [p.code for p in problems] == ["commander-missing"]
    assert names_in(deck, Section.COMMANDER) == [] and names_in(deck, Section.IGNORED) == []
    assert deck.count(Section.SIDEBOARD) == 49


def test_named_commander_from_the_sideboard_main_or_nowhere():
    krenko = CARDS["Krenko, Mob Boss"]
    deck = make_deck(CARDS, main=[(99, "Mountain")], sideboard=[(1, "Krenko, Mob Boss")])
    problems = designate_commanders(deck, COMMANDER, [krenko])
    assert names_in(deck, Section.COMMANDER) == ["Krenko, Mob Boss"]
    assert "--commander" in problems[0].message

    deck = make_deck(CARDS, main=[(98, "Mountain"), (2, "Krenko, Mob Boss")])
    designate_commanders(deck, COMMANDER, [krenko])
    assert names_in(deck, Section.COMMANDER) == ["Krenko, Mob Boss"]
    assert names_in(deck, Section.MAIN).count("Krenko, Mob Boss") == 1  # singleton check's job

    deck = make_deck(CARDS, main=[(99, "Mountain")])
    problems = designate_commanders(deck, COMMANDER, [krenko])
    assert names_in(deck, Section.COMMANDER) == ["Krenko, Mob Boss"]
    assert "not in the decklist" in problems[0].message
    assert deck.count(Section.MAIN, Section.COMMANDER) == 100


def test_named_commander_does_not_touch_the_parsed_deck():
    """`clone()` shares the parsed Deck: splitting must only change the resolved entries."""
    deck = make_deck(CARDS, main=[(98, "Mountain"), (2, "Krenko, Mob Boss")])
    before = [(e.quantity, e.section) for e in deck.deck.entries]
    clone = deck.clone()
    designate_commanders(clone, COMMANDER, [CARDS["Krenko, Mob Boss"]])
    assert [(e.quantity, e.section) for e in deck.deck.entries] == before


def test_commander_listed_in_both_the_commander_section_and_the_deck():
    deck = make_deck(
        CARDS, main=[(99, "Mountain"), (1, "Krenko, Mob Boss")], commanders=["Krenko, Mob Boss"]
    )
    designate_commanders(deck, COMMANDER)
    assert names_in(deck, Section.IGNORED) == ["Krenko, Mob Boss"]
    assert deck.count(Section.MAIN, Section.COMMANDER) == 100
    # a deck that would then be short keeps the copy for the singleton check to report
    deck = make_deck(
        CARDS, main=[(97, "Mountain"), (1, "Krenko, Mob Boss")], commanders=["Krenko, Mob Boss"]
    )
    designate_commanders(deck, COMMANDER)
    assert deck.cards_in(Section.IGNORED) == []


def test_arena_companion_listed_in_companion_and_sideboard():
    deck = make_deck(
        CARDS,
        main=[(99, "Plains")],
        sideboard=[(1, "Lurrus of the Dream-Den")],
        commanders=["Amalia Benavides Aguirre"],
        companion="Lurrus of the Dream-Den",
    )
    designate_commanders(deck, COMMANDER)
    assert names_in(deck, Section.COMPANION) == ["Lurrus of the Dream-Den"]
    assert names_in(deck, Section.IGNORED) == ["Lurrus of the Dream-Den"]
    assert deck.cards_in(Section.SIDEBOARD) == []


def test_oathbreaker_from_the_sideboard():
    fmt = get_format("oathbreaker")
    deck = make_deck(
        CARDS, main=[(58, "Forest")], sideboard=[(1, "Garruk, Primal Hunter"), (1, "Giant Growth")]
    )
    problems = designate_commanders(deck, fmt)
    assert names_in(deck, Section.COMMANDER) == ["Garruk, Primal Hunter", "Giant Growth"]
    assert not [p for p in problems if p.severity != Severity.INFO]
    assert commander_problems(deck, fmt) == []


def test_oathbreaker_missing_parts():
    fmt = get_format("oathbreaker")
    deck = make_deck(CARDS, main=[(60, "Forest")])
    assert [p.code for p in designate_commanders(deck, fmt)] == ["oathbreaker-missing"]
    deck = make_deck(CARDS, main=[(59, "Forest")], commanders=["Garruk, Primal Hunter"])
    assert "signature-spell-missing" in [p.code for p in designate_commanders(deck, fmt)]


def test_partner_oathbreakers_take_the_second_spell_from_the_sideboard():
    """Two oathbreakers listed with one signature spell: the other spell is the sideboard's
    (one per oathbreaker), as a single oathbreaker's spell is."""
    fmt = get_format("oathbreaker")
    deck = make_deck(
        CARDS,
        main=[(56, "Island")],
        sideboard=[(1, "Counterspell")],
        commanders=["Rowan Kenrith", "Will Kenrith", "Lightning Bolt"],
    )
    problems = designate_commanders(deck, fmt)
    assert sorted(names_in(deck, Section.COMMANDER)) == [
        "Counterspell",
        "Lightning Bolt",
        "Rowan Kenrith",
        "Will Kenrith",
    ]
    assert not [p for p in problems if p.severity != Severity.INFO]
    assert commander_problems(deck, fmt) == []


def test_constructed_format_is_left_alone():
    deck = make_deck(CARDS, main=[(60, "Mountain")], sideboard=[(1, "Krenko, Mob Boss")])
    assert designate_commanders(deck, get_format("modern")) == []
    assert names_in(deck, Section.SIDEBOARD) == ["Krenko, Mob Boss"]


def test_pipeline_with_generic_checks():
    """designate -> generic checks -> commander checks (api.check_resolved): an MTGO Duel
    Commander list with its commander and companion in the sideboard is legal."""
    from validator.api import check_resolved

    main = [(49, "Plains"), (48, "Swamp"), (1, "Murder"), (1, "Wrath of God")]
    deck = make_deck(
        CARDS,
        main=main,
        sideboard=[(1, "Amalia Benavides Aguirre"), (1, "Lurrus of the Dream-Den")],
    )
    problems = check_resolved(deck, DUEL)
    assert [p.code for p in problems if p.severity == Severity.ERROR] == []
    assert names_in(deck, Section.COMPANION) == ["Lurrus of the Dream-Den"]
    # partners from the sideboard: 98 + 2
    main = [(48, "Plains"), (48, "Swamp"), (1, "Murder"), (1, "Wrath of God")]
    deck = make_deck(
        CARDS, main=main, sideboard=[(1, "Tymna the Weaver"), (1, "Yoshimaru, Ever Faithful")]
    )
    assert [p.code for p in check_resolved(deck, DUEL) if p.severity == Severity.ERROR] == []


def test_commander_listed_twice_in_the_commander_section_is_a_singleton_problem():
    """CR 903.5b: two copies of the commander in the Commander section are two copies of a
    card in a singleton deck, not an export's repeated listing."""
    from validator.rules.checks import check_copies

    deck = make_deck(CARDS, main=[(98, "Mountain")], commanders=["Krenko, Mob Boss"])
    deck.cards_in(Section.COMMANDER)[0].entry.quantity = 2
    deck.deck.commander_source = "arena-section"
    problems = designate_commanders(deck, COMMANDER)
    assert not by_code(problems, "duplicate-listing")
    singleton = by_code(check_copies(deck, COMMANDER), "too-many-copies")
    assert len(singleton) == 1 and singleton[0].severity == Severity.ERROR
    assert "listed 2 times in the Commander section" in singleton[0].message
    assert "CR 903.5b" in singleton[0].message
    assert not by_code(commander_problems(deck, COMMANDER), "invalid-partners")


def test_commander_on_two_lines_of_the_commander_section():
    from validator.rules.checks import check_copies

    deck = make_deck(
        CARDS, main=[(98, "Mountain")], commanders=["Krenko, Mob Boss", "Krenko, Mob Boss"]
    )
    problems = designate_commanders(deck, COMMANDER)
    assert not by_code(problems, "duplicate-listing")
    assert by_code(check_copies(deck, COMMANDER), "too-many-copies")


def test_commander_repeated_in_the_sideboard_is_still_one_card():
    deck = make_deck(
        CARDS,
        main=[(99, "Mountain")],
        sideboard=[(1, "Krenko, Mob Boss")],
        commanders=["Krenko, Mob Boss"],
    )
    problems = designate_commanders(deck, COMMANDER)
    assert by_code(problems, "duplicate-listing")  # exports repeat it there (MTGO, Melee)
