"""CR 712.4b / 712.1: the back face of a meld pair is not a card. Brisela, Voice of Nightmares
in a decklist or named as commander is a problem naming Bruna and Gisela, never a card of the
deck. Cards: tests/fixtures/cards_meld.json (Scryfall objects from the derived oracle-cards file
of ../shared/data, trimmed to the fields deckcheck reads, `all_parts` included)."""

from __future__ import annotations

import pytest
from support import FIXTURES, load_cards

import validator
from validator.cards.facts import card_from_scryfall
from validator.store.database import CardDB
from validator.store.index import CardIndex

MELD = load_cards("cards_meld.json")
CORE = load_cards("cards_core.json")
BRISELA = "Brisela, Voice of Nightmares"
PARTS = ("Bruna, the Fading Light", "Gisela, the Broken Blade")


@pytest.fixture(scope="module")
def index() -> CardIndex:
    return CardIndex(((), c) for c in {**CORE, **MELD}.values())


def test_meld_parts_are_card_facts_from_all_parts():
    assert MELD[BRISELA].meld_from == PARTS and MELD[BRISELA].is_meld_result
    for part in PARTS:  # the front faces are cards
        assert MELD[part].meld_from == () and not MELD[part].is_meld_result


def test_meld_result_in_a_decklist_is_a_problem_not_a_card(index):
    text = "Deck\n1 " + BRISELA + "\n59 Island\n"
    report = validator.validate(text, "vintage", cards=index)
    meld = [p for p in report.problems if p.code == "meld-result"]
    assert len(meld) == 1 and meld[0].citation == "CR 712.4b"
    assert all(part in meld[0].message for part in PARTS)
    assert meld[0].cards == (BRISELA, *PARTS) and meld[0].lines == (2,)
    # Not a card of the deck, but a listed line: counted as the size check counts it, so the
    # summary (60) and the verdict agree, and there is one problem only, not also "too small".
    assert report.main_count == 60
    assert "deck-too-small" not in {p.code for p in report.problems}
    assert not report.legal


def test_meld_result_named_as_commander(index):
    report = validator.validate("99 Island\n", "commander", cards=index, commanders=[BRISELA])
    meld = [p for p in report.problems if p.code == "meld-result"]
    assert meld and "--commander" in meld[0].message and PARTS[1] in meld[0].message
    assert BRISELA not in report.commanders


def test_meld_result_in_the_commander_section(index):
    report = validator.validate(
        f"Commander\n1 {BRISELA}\nDeck\n99 Island\n", "commander", cards=index
    )
    found = {p.code for p in report.problems}
    assert "meld-result" in found and not report.legal and BRISELA not in report.commanders
    # The meld problem says what is wrong: not "unknown card", not "no commander found".
    assert not found & {"commander-unknown", "commander-missing", "unknown-card"}


def test_fresh_database_keeps_meld_parts(tmp_path):
    from validator.sync import import_file

    path = tmp_path / "new.sqlite3"
    import_file(FIXTURES / "cards_meld.json", str(path))
    with CardDB(str(path)) as db:
        assert db.card(BRISELA).meld_from == PARTS
        assert {c.name: c.meld_from for _, c in db.all_cards()}[BRISELA] == PARTS


def test_not_a_meld_result_without_the_layout():
    card = card_from_scryfall(
        {
            "object": "card",
            "oracle_id": "x",
            "name": "Ancestral Vision",
            "layout": "normal",
            "mana_cost": "",
            "cmc": 0,
            "type_line": "Sorcery",
            "color_identity": ["U"],
        }
    )
    assert not card.is_meld_result


def test_card_facts_of_a_meld_result_say_it_is_no_card():
    # `deckcheck card` and GET /v1/cards/{name}: validate calls it `meld-result` (CR 712.4b),
    # so the facts must not call it a deck card or an eligible commander.
    from validator.report import card_facts

    facts = card_facts(MELD[BRISELA], ["commander"])
    assert facts["deck_card"] is False and facts["commander_eligible"] is False
    assert facts["meld_from"] == list(PARTS)
    part = card_facts(MELD[PARTS[0]], ["commander"])
    assert part["deck_card"] is True and part["meld_from"] == []
