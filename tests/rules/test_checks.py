"""The generic deck rules: size, sideboard, copies, card pool (CR 100.2a, 100.4a, 903.5)."""

from __future__ import annotations

import pytest
from support import load_cards, make_deck

from validator.cards.facts import card_from_scryfall
from validator.model import Section
from validator.rules.checks import (
    check_card_pool,
    check_copies,
    check_deck_size,
    check_sideboard,
    copy_limit,
)
from validator.rules.formats import load_formats

CARDS = load_cards("cards_core.json")
FORMATS = load_formats()
MODERN, VINTAGE, COMMANDER = FORMATS["modern"], FORMATS["vintage"], FORMATS["commander"]


def codes(problems):
    return [p.code for p in problems]


def test_sixty_card_main_deck_is_enough():
    deck = make_deck(CARDS, main=[(4, "Lightning Bolt"), (56, "Mountain")])
    assert check_deck_size(deck, MODERN) == []


def test_fifty_nine_cards_is_too_small_and_cites_100_2a():
    deck = make_deck(CARDS, main=[(4, "Lightning Bolt"), (55, "Mountain")])
    [problem] = check_deck_size(deck, MODERN)
    assert problem.code == "deck-too-small"
    assert problem.citation == "CR 100.2a"
    assert "59" in problem.message and "60" in problem.message


def test_unresolved_cards_still_count_toward_deck_size():
    deck = make_deck(CARDS, main=[(4, "Lightning Bolt"), (52, "Mountain")])
    from validator.model import DeckEntry

    deck.unresolved.append(DeckEntry(quantity=4, name="Lightnig Bolt", line=99))
    assert check_deck_size(deck, MODERN) == []


def test_sideboard_of_fifteen_ok_sixteen_too_many():
    ok = make_deck(CARDS, main=[(60, "Mountain")], sideboard=[(4, "Counterspell"), (11, "Island")])
    assert check_sideboard(ok, MODERN) == []
    big = make_deck(CARDS, main=[(60, "Mountain")], sideboard=[(4, "Counterspell"), (12, "Island")])
    [problem] = check_sideboard(big, MODERN)
    assert problem.code == "sideboard-too-large" and problem.citation == "CR 100.4a"


def test_declared_companion_also_in_sideboard_counts_once():
    deck = make_deck(
        CARDS,
        main=[(60, "Mountain")],
        sideboard=[(14, "Island"), (1, "Lurrus of the Dream-Den")],
        companion="Lurrus of the Dream-Den",
    )
    assert check_sideboard(deck, VINTAGE) == []
    assert check_copies(deck, VINTAGE) == []


def test_declared_companion_not_in_sideboard_is_a_sideboard_card():
    deck = make_deck(
        CARDS,
        main=[(60, "Mountain")],
        sideboard=[(15, "Island")],
        companion="Lurrus of the Dream-Den",
    )
    assert codes(check_sideboard(deck, VINTAGE)) == ["sideboard-too-large"]


def test_four_copies_over_main_and_sideboard_together():
    ok = make_deck(
        CARDS, main=[(3, "Lightning Bolt"), (57, "Mountain")], sideboard=[(1, "Lightning Bolt")]
    )
    assert check_copies(ok, MODERN) == []
    bad = make_deck(
        CARDS, main=[(4, "Lightning Bolt"), (56, "Mountain")], sideboard=[(1, "Lightning Bolt")]
    )
    [problem] = check_copies(bad, MODERN)
    assert problem.code == "too-many-copies" and problem.cards == ("Lightning Bolt",)
    assert problem.lines == (1, 3) and "5 copies" in problem.message


@pytest.mark.parametrize("name", ["Mountain", "Wastes", "Snow-Covered Island"])
def test_basic_lands_are_exempt_from_the_copy_limit(name):
    deck = make_deck(CARDS, main=[(60, name)])
    assert check_copies(deck, MODERN) == []
    assert copy_limit(CARDS[name], COMMANDER) is None


#: A real playtest card (Mystery Booster 2) with the Basic supertype that is no land.
OMNIPRESENT_IMPOSTOR = {
    "object": "card",
    "oracle_id": "7a7dd21c-ff67-561f-ae25-44078ed20166",
    "name": "Omnipresent Impostor",
    "layout": "normal",
    "mana_cost": "{2}",
    "cmc": 2.0,
    "type_line": "Basic Creature — Shapeshifter",
    "oracle_text": "Changeling\nOmnipresent Impostor has all card names.",
    "colors": [],
    "color_identity": [],
    "keywords": ["Changeling"],
    "legalities": {"legacy": "legal", "vintage": "legal", "commander": "legal"},
}


def test_only_basic_land_cards_are_exempt_from_the_copy_limit():
    """CR 100.2a / 903.5b exempt basic *land* cards (205.4c): a Basic Creature is four copies
    (one in Commander) like any other card."""
    impostor = card_from_scryfall(OMNIPRESENT_IMPOSTOR)
    cards = {**CARDS, impostor.name: impostor}
    assert copy_limit(impostor, FORMATS["legacy"]) == 4 and copy_limit(impostor, COMMANDER) == 1
    deck = make_deck(cards, main=[(5, "Omnipresent Impostor"), (55, "Mountain")])
    [problem] = check_copies(deck, FORMATS["legacy"])
    assert problem.code == "too-many-copies" and problem.cards == ("Omnipresent Impostor",)
    assert (
        check_copies(
            make_deck(cards, main=[(4, "Omnipresent Impostor"), (56, "Mountain")]),
            FORMATS["legacy"],
        )
        == []
    )


def test_card_text_overrides_copy_limit():
    assert copy_limit(CARDS["Relentless Rats"], MODERN) is None
    assert copy_limit(CARDS["Seven Dwarves"], MODERN) == 7
    assert copy_limit(CARDS["Nazgûl"], COMMANDER) == 9
    deck = make_deck(CARDS, main=[(7, "Seven Dwarves"), (30, "Relentless Rats"), (23, "Mountain")])
    assert check_copies(deck, MODERN) == []
    deck = make_deck(CARDS, main=[(8, "Seven Dwarves"), (52, "Mountain")])
    [problem] = check_copies(deck, MODERN)
    assert "at most 7" in problem.message


def test_lines_naming_the_same_card_are_summed_by_card_not_spelling():
    deck = make_deck(CARDS, main=[(2, "Fire // Ice"), (3, "Fire"), (55, "Mountain")])
    [problem] = check_copies(deck, MODERN)
    assert problem.cards == ("Fire // Ice",) and "5 copies" in problem.message


def test_copy_and_pool_problems_are_in_the_order_of_each_cards_first_line():
    """Only the lines that can break a rule are grouped (a card on several lines, a line over
    its limit, a card not legal): the problems still come card by card in listing order, each
    naming every line of its card."""
    deck = make_deck(
        CARDS,
        main=[(2, "Fire // Ice"), (5, "Lightning Bolt"), (1, "Black Lotus"), (3, "Fire")],
        sideboard=[(1, "Lightning Bolt"), (2, "Black Lotus"), (20, "Mountain")],
    )
    copies = check_copies(deck, MODERN)
    assert [(p.cards, p.lines) for p in copies] == [
        (("Fire // Ice",), (1, 4)),
        (("Lightning Bolt",), (2, 5)),
    ]
    assert "5 copies of Fire // Ice" in copies[0].message
    assert "6 copies of Lightning Bolt" in copies[1].message
    [restricted] = check_card_pool(deck, VINTAGE)
    assert restricted.code == "restricted" and restricted.lines == (3, 6)
    assert "this deck has 3" in restricted.message


def test_banned_and_not_legal_cards():
    deck = make_deck(
        CARDS, main=[(1, "Lurrus of the Dream-Den"), (1, "Black Lotus"), (58, "Mountain")]
    )
    assert sorted(codes(check_card_pool(deck, MODERN))) == ["banned", "not-legal"]


def test_restricted_allows_one_copy_over_main_and_sideboard():
    one = make_deck(CARDS, main=[(1, "Black Lotus"), (59, "Mountain")])
    assert check_card_pool(one, VINTAGE) == []
    two = make_deck(
        CARDS, main=[(1, "Black Lotus"), (59, "Mountain")], sideboard=[(1, "Black Lotus")]
    )
    [problem] = check_card_pool(two, VINTAGE)
    assert problem.code == "restricted" and problem.lines == (1, 3)


def test_the_card_decides_not_a_face_name():
    # "Emeritus of Ideation // Ancestral Recall" is its own card, not the restricted one.
    deck = make_deck(CARDS, main=[(4, "Emeritus of Ideation // Ancestral Recall"), (56, "Island")])
    assert check_card_pool(deck, VINTAGE) == []
    assert check_copies(deck, VINTAGE) == []


def test_unknown_legality_status_fails_closed():
    """Issue 11: a status deckcheck does not know is "not known to be allowed": an error that
    names the status, so the deck is not legal."""
    from dataclasses import replace

    cards = dict(CARDS)
    cards["Lightning Bolt"] = replace(CARDS["Lightning Bolt"], legalities={"modern": "suspended"})
    deck = make_deck(cards, main=[(4, "Lightning Bolt"), (56, "Mountain")])
    [problem] = check_card_pool(deck, MODERN)
    assert problem.code == "unknown-legality" and problem.severity.value == "error"
    assert "'suspended'" in problem.message and problem.cards == ("Lightning Bolt",)


def test_commander_deck_counts_the_commander_and_is_singleton():
    deck = make_deck(
        CARDS, main=[(98, "Mountain"), (1, "Lightning Bolt")], commanders=["Goblin Guide"]
    )
    assert check_deck_size(deck, COMMANDER) == []
    deck = make_deck(
        CARDS, main=[(97, "Mountain"), (2, "Lightning Bolt")], commanders=["Goblin Guide"]
    )
    assert codes(check_copies(deck, COMMANDER)) == ["too-many-copies"]
    deck = make_deck(
        CARDS, main=[(98, "Mountain"), (2, "Lightning Bolt")], commanders=["Goblin Guide"]
    )
    [problem] = check_deck_size(deck, COMMANDER)
    assert problem.code == "deck-too-large" and problem.citation == "CR 903.5a"


def test_commander_has_no_sideboard():
    deck = make_deck(
        CARDS, main=[(99, "Mountain")], sideboard=[(1, "Counterspell")], commanders=["Goblin Guide"]
    )
    [problem] = check_sideboard(deck, COMMANDER)
    assert problem.code == "sideboard-not-allowed" and problem.citation == "CR 903.5e"
    assert deck.count(Section.SIDEBOARD) == 1


def _sticker_sheet(name: str):
    from validator.cards.facts import card_from_scryfall

    return card_from_scryfall(
        {
            "object": "card",
            "oracle_id": f"sticker-{name}",
            "name": name,
            "layout": "normal",
            "type_line": "Stickers",
            "cmc": 0,
            "color_identity": [],
            "legalities": {"modern": "not_legal"},
        }
    )


def test_sticker_sheets_are_not_cards_and_do_not_count():
    from validator.model import DeckEntry, ResolvedEntry
    from validator.rules.checks import check_sticker_sheets

    deck = make_deck(CARDS, main=[(4, "Lightning Bolt"), (56, "Mountain")])
    for i in range(10):
        sheet = _sticker_sheet(f"Sheet {i}")
        deck.sticker_sheets.append(
            ResolvedEntry(entry=DeckEntry(1, sheet.name, Section.SIDEBOARD, 70 + i), card=sheet)
        )
    assert check_sideboard(deck, MODERN) == [] and check_card_pool(deck, MODERN) == []
    assert [(p.code, p.severity.value) for p in check_sticker_sheets(deck, MODERN)] == [
        ("sticker-sheets", "info")
    ]
    del deck.sticker_sheets[5:]
    assert "sticker-sheets-invalid" in codes(check_sticker_sheets(deck, MODERN))


def test_unknown_card_in_commander_sideboard_counts_toward_the_100():
    from validator.model import DeckEntry

    deck = make_deck(CARDS, main=[(98, "Mountain"), (1, "Lightning Bolt")])
    deck.unresolved.append(
        DeckEntry(quantity=1, name="Uharis, the Stormspinner", section=Section.SIDEBOARD, line=101)
    )
    assert check_deck_size(deck, FORMATS["duel"]) == []


def test_card_pool_problems_cite_the_format():
    deck = make_deck(CARDS, main=[(1, "Lurrus of the Dream-Den"), (59, "Mountain")])
    [problem] = check_card_pool(deck, MODERN)
    assert problem.citation == "format:modern"


@pytest.mark.parametrize(
    "main, copies, pool",
    [
        # Each card on one line (the usual Commander list): found without grouping the deck.
        (
            [(96, "Mountain"), (2, "Lightning Bolt"), (1, "Black Lotus"), (1, "Nazgûl")],
            [("Lightning Bolt", (2,))],
            [("Black Lotus", (3,))],
        ),
        # A card on two lines: the lines are summed by card (201.3b), both named.
        (
            [
                (1, "Lightning Bolt"),
                (95, "Mountain"),
                (1, "Black Lotus"),
                (1, "Lightning Bolt"),
                (1, "Black Lotus"),
                (1, "Nazgûl"),
            ],
            [("Lightning Bolt", (1, 4)), ("Black Lotus", (3, 5))],
            [("Black Lotus", (3, 5))],
        ),
    ],
)
def test_singleton_copies_and_card_pool_by_card(main, copies, pool):
    """Commander (903.5b): copies and banned cards per card, with every line naming it, whether
    each card has one line (the checks then need not group the deck) or several."""
    deck = make_deck(CARDS, main=main, commanders=["Goblin Guide"])
    assert [(p.cards[0], p.lines) for p in check_copies(deck, COMMANDER)] == copies
    assert [(p.code, p.cards[0], p.lines) for p in check_card_pool(deck, COMMANDER)] == [
        ("banned", name, lines) for name, lines in pool
    ]
