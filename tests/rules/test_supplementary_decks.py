"""Attraction decks (CR 717.2, 717.2a) and sticker sheets (123.2, 123.2a): read from decklists,
kept out of the deck and its size, reported apart; short or duplicated is an error."""

from __future__ import annotations

import json

from support import load_cards

import validator
from validator.cards.facts import card_from_scryfall
from validator.decklist import parse_decklist
from validator.model import Section, Severity
from validator.rules.checks import check_attractions, check_sticker_sheets
from validator.rules.formats import get_format
from validator.store.index import CardIndex

#: Unfinity Attraction names (Scryfall types them "Artifact — Attraction").
ATTRACTIONS = (
    "Balloon Stand",
    "Bounce Chamber",
    "Bumper Cars",
    "Centrifuge",
    "Clown Extruder",
    "Concession Stand",
    "Costume Shop",
    "Dart Throw",
    "Drop Tower",
    "Ferris Wheel",
    "Foam Weapons Kiosk",
)
STICKERS = tuple(f"Sticker Sheet {i}" for i in range(11))
LEGAL = {"legacy": "legal", "vintage": "legal", "commander": "legal"}


def _card(name: str, type_line: str) -> object:
    return card_from_scryfall(
        {
            "object": "card",
            "oracle_id": "id-" + name,
            "name": name,
            "layout": "normal",
            "mana_cost": "",
            "cmc": 0,
            "type_line": type_line,
            "color_identity": [],
            "legalities": LEGAL,
        }
    )


CARDS = {**load_cards("cards_core.json")}
CARDS.update({n: _card(n, "Artifact — Attraction") for n in ATTRACTIONS})
CARDS.update({n: _card(n, "Stickers") for n in STICKERS})
INDEX = CardIndex(((), c) for c in CARDS.values())
LEGACY = get_format("legacy")


def arena(attractions=(), stickers=(), main="60 Island") -> str:
    lines = ["Deck", main]
    if attractions:
        lines += ["", "Attractions"] + [f"1 {n}" for n in attractions]
    if stickers:
        lines += ["", "Stickers"] + [f"1 {n}" for n in stickers]
    return "\n".join(lines) + "\n"


def codes(report):
    return {p.code: p for p in report.problems}


def test_arena_sections_are_read_apart_from_the_deck():
    deck = parse_decklist(arena(ATTRACTIONS[:10], STICKERS[:10]))
    assert deck.count(Section.ATTRACTION) == 10 and deck.count(Section.STICKER) == 10
    assert deck.count(Section.MAIN) == 60


def test_ten_different_attractions_and_stickers_are_legal_and_not_counted():
    report = validator.validate(arena(ATTRACTIONS[:10], STICKERS[:10]), "legacy", cards=INDEX)
    found = codes(report)
    assert report.legal, report.problems
    assert found["attraction-deck"].severity == Severity.INFO
    assert found["attraction-deck"].citation == "CR 717.2"
    assert found["sticker-sheets"].severity == Severity.INFO
    assert report.main_count == 60


def test_short_attraction_deck_is_an_error():
    report = validator.validate(arena(ATTRACTIONS[:9]), "legacy", cards=INDEX)
    problem = codes(report)["attraction-deck-invalid"]
    assert problem.severity == Severity.ERROR and problem.citation == "CR 717.2a"
    assert "at least 10" in problem.message and not report.legal
    # The problem names the Attraction deck's cards, not only their lines.
    assert problem.cards == tuple(sorted(ATTRACTIONS[:9]))
    assert codes(report)["attraction-deck"].cards == tuple(sorted(ATTRACTIONS[:9]))


def test_duplicated_attraction_is_an_error():
    names = ATTRACTIONS[:9] + (ATTRACTIONS[0],)
    report = validator.validate(arena(names), "legacy", cards=INDEX)
    problem = codes(report)["attraction-deck-invalid"]
    assert ATTRACTIONS[0] in problem.message and ATTRACTIONS[0] in problem.cards
    names = ATTRACTIONS[:10] + (ATTRACTIONS[0],)  # ten different, one twice: that one alone
    problem = codes(validator.validate(arena(names), "legacy", cards=INDEX))[
        "attraction-deck-invalid"
    ]
    assert problem.cards == (ATTRACTIONS[0],)


def test_attractions_do_not_fill_the_deck():
    report = validator.validate(arena(ATTRACTIONS[:10], main="50 Island"), "legacy", cards=INDEX)
    assert "deck-too-small" in codes(report)  # CR 717.2: not part of the deck


def test_attraction_listed_in_the_main_deck_goes_to_the_attraction_deck():
    text = "60 Island\n" + "".join(f"1 {n}\n" for n in ATTRACTIONS[:10])
    report = validator.validate(text, "legacy", cards=INDEX)
    assert report.main_count == 60 and report.legal


def test_non_attraction_in_the_attractions_section():
    report = validator.validate(
        arena(ATTRACTIONS[:10] + ("Lightning Bolt",)), "legacy", cards=INDEX
    )
    assert codes(report)["not-an-attraction"].cards == ("Lightning Bolt",)


def test_short_or_duplicated_sticker_sheets_are_an_error():
    report = validator.validate(arena(stickers=STICKERS[:5]), "legacy", cards=INDEX)
    problem = codes(report)["sticker-sheets-invalid"]
    assert problem.severity == Severity.ERROR and problem.citation == "CR 123.2a"
    assert problem.cards == tuple(sorted(STICKERS[:5]))
    report = validator.validate(
        arena(stickers=STICKERS[:10] + (STICKERS[0],)), "legacy", cards=INDEX
    )
    assert STICKERS[0] in codes(report)["sticker-sheets-invalid"].message


def test_checks_read_the_resolved_lists():
    from validator.rules.resolve import resolve

    deck = resolve(parse_decklist(arena(ATTRACTIONS[:3], STICKERS[:3])), INDEX)
    assert [e.card.name for e in deck.attractions] == list(ATTRACTIONS[:3])
    assert "attraction-deck-invalid" in {p.code for p in check_attractions(deck, LEGACY)}
    assert "sticker-sheets-invalid" in {p.code for p in check_sticker_sheets(deck, LEGACY)}


def test_moxfield_boards_and_forge_section():
    board = {n: {"quantity": 1, "card": {"name": n}} for n in ATTRACTIONS[:2]}
    deck = parse_decklist(
        json.dumps(
            {
                "mainboard": {"Island": {"quantity": 60, "card": {"name": "Island"}}},
                "attractions": board,
                "stickers": {"s": {"quantity": 1, "card": {"name": STICKERS[0]}}},
            }
        )
    )
    assert deck.count(Section.ATTRACTION) == 2 and deck.count(Section.STICKER) == 1
    forge = parse_decklist("[metadata]\nName=x\n[Main]\n60 Island\n[Attractions]\n1 Bumper Cars\n")
    assert deck.input_format == "moxfield"
    assert [e.name for e in forge.section(Section.ATTRACTION)] == ["Bumper Cars"]


def test_report_counts_the_supplementary_decks_apart():
    report = validator.validate(arena(ATTRACTIONS[:10], STICKERS[:10]), "legacy", cards=INDEX)
    deck = report.to_dict()["deck"]
    assert (deck["main"], deck["attractions"], deck["sticker_sheets"]) == (60, 10, 10)


def test_text_report_shows_the_supplementary_decks():
    from validator.report import render_text

    report = validator.validate(arena(ATTRACTIONS[:10], STICKERS[:10]), "legacy", cards=INDEX)
    text = render_text(report)
    assert "attraction deck: 10 card(s), not in the deck" in text
    assert "sticker sheets: 10, not in the deck" in text


def test_other_inputs_name_the_supplementary_decks():
    archidekt_text = parse_decklist(
        "1x Bumper Cars (unf) 1 [Attractions]\n"
        "1x Sticker Sheet 1 (unf) 2 [Stickers]\n60x Island (unf) 3\n"
    )
    assert archidekt_text.count(Section.ATTRACTION) == 1
    assert archidekt_text.count(Section.STICKER) == 1
    csv_deck = parse_decklist(
        "count,name,section\n60,Island,main\n1,Bumper Cars,attractions\n"
        "1,Sticker Sheet 1,stickers\n"
    )
    assert csv_deck.count(Section.ATTRACTION) == 1 and csv_deck.count(Section.STICKER) == 1
    json_deck = parse_decklist(
        json.dumps(
            {
                "main": [[60, "Island"]],
                "attractions": ["Bumper Cars"],
                "stickers": ["Sticker Sheet 1"],
            }
        )
    )
    assert json_deck.count(Section.ATTRACTION) == 1 and json_deck.issues == []
