"""The library API as the README documents it: open_db, parse_decklist, validate, CardIndex,
check_formats, house rules and house formats."""

from __future__ import annotations

import pytest
from support import load_cards

import validator

DECK = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n\nSideboard\n3 Counterspell\n"


@pytest.fixture
def db_path(core_db) -> str:
    return core_db


def test_readme_flow(db_path):
    db = validator.open_db(db_path)
    deck = validator.parse_decklist(DECK)
    report = validator.validate(deck, "modern", cards=db)
    assert report.legal and report.problems == []
    data = report.to_dict()
    assert data["legal"] is True and data["deck"]["main"] == 60 and data["deck"]["sideboard"] == 3


def test_validate_text_with_a_warm_index_gives_the_same_verdicts(db_path):
    db = validator.open_db(db_path)
    index = validator.CardIndex.from_db(db)
    bad = DECK.replace("4 Lightning Bolt", "5 Lightning Bolt")
    for text in (DECK, bad):
        cold = validator.validate(text, "modern", cards=db)
        warm = validator.validate(text, "modern", cards=index)
        assert cold.to_dict() == warm.to_dict()
    assert not validator.validate(bad, "modern", cards=index).legal


def test_problem_objects_carry_code_citation_cards_and_lines(db_path):
    report = validator.validate("5 Lightning Bolt\n55 Mountain\n", "modern", db=db_path)
    [problem] = report.errors
    assert (problem.code, problem.citation, problem.cards, problem.lines) == (
        "too-many-copies",
        "CR 100.2a",
        ("Lightning Bolt",),
        (1,),
    )


def test_summary_counts_cards_listed_under_unknown_names_as_the_size_check_does(db_path):
    """A 60-card list with 4 typos is judged 60 cards (no deck-too-small, CR 100.2a): its
    summary says 60 and 3, not 56 and 0, so an organizer does not read "59" beside a deck
    judged as 60."""
    text = "4 Lightning Bolt\n4 Notacard\n52 Mountain\n\n3 Alsonotacard\n"
    report = validator.validate(text, "modern", db=db_path)
    assert [p.code for p in report.problems if p.severity == validator.Severity.ERROR] == [
        "unknown-card",
        "unknown-card",
    ]
    assert (report.main_count, report.sideboard_count) == (60, 3)
    assert report.to_dict()["deck"]["main"] == 60


def test_check_formats(db_path):
    reports = {r.format: r for r in validator.check_formats(DECK, db=db_path)}
    assert reports["modern"].legal and reports["legacy"].legal
    assert not reports["commander"].legal
    assert set(reports) == set(validator.load_formats())


def test_house_rule(db_path):
    rule = "Each nonland card in your starting deck has mana value 1 or less."
    assert validator.validate(DECK, "modern", db=db_path, rules=[rule]).legal
    strict = "Each nonland card in your starting deck has mana value 0."
    report = validator.validate(DECK, "modern", db=db_path, rules=[strict])
    assert [p.code for p in report.errors] == ["house-rule-failed"]
    assert {"Lightning Bolt", "Goblin Guide"} <= set(report.errors[0].cards)


def test_house_format(db_path, tmp_path):
    house = tmp_path / "house.toml"
    house.write_text(
        '[burn40]\nname = "Burn 40"\nlegality = "modern"\nmin_deck = 40\n', encoding="utf-8"
    )
    formats = validator.load_formats(house)
    report = validator.validate(
        "4 Lightning Bolt\n36 Mountain\n", "burn40", db=db_path, formats=formats
    )
    assert report.legal and report.format_name == "Burn 40"


def test_house_format_with_a_legality_key_the_card_data_lacks_is_refused(db_path, tmp_path):
    """A typo in a house format's `legality` would make every card "not legal": refused with
    FormatError (exit 2 on the CLI), through the database and an index alike."""
    house = tmp_path / "house.toml"
    house.write_text('[house]\nname = "House"\nlegality = "modren"\n', encoding="utf-8")
    formats = validator.load_formats(house)
    for cards in (
        validator.open_db(db_path),
        validator.CardIndex.from_db(validator.open_db(db_path)),
    ):
        with pytest.raises(validator.FormatError, match="'modren'.*does not have.*modern"):
            validator.validate(
                "4 Lightning Bolt\n56 Mountain\n", "house", cards=cards, formats=formats
            )
    from validator.cli import main

    deck = tmp_path / "d.txt"
    deck.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    assert (
        main(
            [
                "validate",
                str(deck),
                "--format",
                "house",
                "--formats-file",
                str(house),
                "--db",
                str(db_path),
            ]
        )
        == 2
    )


class _Printed(validator.CardIndex):
    """An index of the test cards whose printings say which rarities each was printed at."""

    def __init__(self, cards, printed: dict[str, set[str]]) -> None:
        super().__init__(((), c) for c in cards)
        self.printed = {c.oracle_id: printed.get(c.name, {"common"}) for c in cards}

    def rarities(self, oracle_id):
        return self.printed.get(oracle_id)


def test_pauper_commander_uncommon_commander_is_legal_though_the_key_says_not_legal():
    """Scryfall's `paupercommander` key covers the 99 (printed at common): Kitchen Finks, a
    creature printed only at uncommon, is `not_legal` there (real 2026-07-10 data) yet is a
    Pauper Commander commander; its printed rarity decides. The same card in the 99 is not
    legal."""
    cards = list({c.oracle_id: c for c in load_cards("cards_commander.json").values()}.values())
    source = _Printed(
        cards, {"Kitchen Finks": {"uncommon"}, "Adeline, Resplendent Cathar": {"rare"}}
    )
    assert (
        next(c for c in cards if c.name == "Kitchen Finks").legalities["paupercommander"]
        == "not_legal"
    )
    report = validator.validate(
        "Commander\n1 Kitchen Finks\n\nDeck\n99 Plains\n", "paupercommander", cards=source
    )
    assert report.legal, [p.code for p in report.errors]
    report = validator.validate(
        "Commander\n1 Kitchen Finks\n\nDeck\n1 Adeline, Resplendent Cathar\n98 Plains\n",
        "paupercommander",
        cards=source,
    )
    assert [(p.code, p.cards) for p in report.errors] == [
        ("not-legal", ("Adeline, Resplendent Cathar",))
    ]
    report = validator.validate(
        "Commander\n1 Adeline, Resplendent Cathar\n\nDeck\n99 Plains\n",
        "paupercommander",
        cards=source,
    )
    assert [p.code for p in report.errors] == ["commander-not-eligible"]  # printed at rare only


def test_pauper_commander_rarity_unchecked_without_printings(commander_db):
    # Without `sync --printings` the commander's rarity is unknown: say so, don't guess.
    deck = "Commander\n1 Kitchen Finks\n\nDeck\n99 Plains\n"
    db = validator.open_db(commander_db)
    for cards in (db, validator.CardIndex.from_db(db)):
        report = validator.validate(deck, "paupercommander", cards=cards)
        assert [p.code for p in report.errors] == ["commander-rarity-unchecked"]
