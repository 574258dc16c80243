"""Names that are no Oracle name: MTGO/Arena names, bilingual shop lines, printed names of
other languages (CR 201.2: a card's name is its English name whatever its printed language)."""

from __future__ import annotations

import json

import pytest
from support import FIXTURES

from validator.api import validate
from validator.cards.facts import card_from_scryfall
from validator.report import render_text
from validator.store.index import CardIndex


@pytest.fixture(scope="module")
def index() -> CardIndex:
    objs = json.loads((FIXTURES / "cards_localized.json").read_text(encoding="utf-8"))
    return CardIndex(((), card_from_scryfall(o)) for o in objs)


def test_mtgo_name_resolves_with_no_extra_data(index):
    report = validate("4 Leyline Weaver\n56 Mountain\n", "vintage", cards=index)
    assert report.legal, report.problems
    assert report.to_dict()["names_read"] == [
        {
            "line": 1,
            "name": "Leyline Weaver",
            "card": "Spider Manifestation",
            "read_by": "mtgo-arena-name",
            "language": "en",
        }
    ]
    text = render_text(report)
    assert "names read: 1 by MTGO/Arena name" in text
    assert "Leyline Weaver -> Spider Manifestation" not in text
    assert "line 1: Leyline Weaver -> Spider Manifestation" in render_text(report, verbose=True)


def test_english_report_has_no_names_read(index):
    report = validate("4 Lightning Bolt\n56 Mountain\n", "vintage", cards=index)
    assert "names_read" not in report.to_dict()
    assert "names read" not in render_text(report, verbose=True)


def test_mtgo_name_counts_with_its_oracle_name(index):
    # the two names are one card: five copies (CR 100.2a)
    report = validate(
        "4 Leyline Weaver\n1 Spider Manifestation\n55 Mountain\n", "vintage", cards=index
    )
    assert [p.code for p in report.errors] == ["too-many-copies"]


# ---------------------------------------------------------------- printed names (synced)


@pytest.fixture(scope="module", params=["sqlite", "sqlalchemy", "index", "partial index"])
def localized(request, localized_db):
    """The card sources over one database with printed names: each reads them."""
    from validator.store.database import CardDB
    from validator.store.index import PartialCardIndex
    from validator.store.sqlite import SqliteCards

    if request.param == "sqlite":
        source = SqliteCards(localized_db)
    elif request.param == "sqlalchemy":
        source = CardDB(localized_db)
    elif request.param == "index":
        source = CardIndex.from_db(SqliteCards(localized_db))
    else:
        source = PartialCardIndex(SqliteCards(localized_db))
    yield source
    close = getattr(source, "close", None) or getattr(source.database, "close", None)
    if close:
        close()


def _read(report) -> list[tuple[str, str, str]]:
    return [(r["name"], r["card"], r["language"]) for r in report.to_dict()["names_read"]]


def test_japanese_list_resolves_and_says_how(localized):
    report = validate("4 稲妻\n4 火/氷\n52 山\n", "vintage", cards=localized)
    assert report.legal, report.problems
    assert _read(report) == [
        ("稲妻", "Lightning Bolt", "ja"),
        ("火/氷", "Fire // Ice", "ja"),
        ("山", "Mountain", "ja"),
    ]
    assert "names read: 3 in Japanese" in render_text(report)


@pytest.mark.parametrize(
    "written, card",
    [
        ("厚かましい借り手", "Brazen Borrower // Petty Theft"),  # an adventure's card face
        ("Dreister Langfinger", "Brazen Borrower // Petty Theft"),  # its real Scryfall shape
        ("Geheimnisstöberer", "Delver of Secrets // Insectile Aberration"),  # a DFC front
        ("Scopritore di Segreti // Insetto Aberrante", "Delver of Secrets // Insectile Aberration"),
        ("幽（ゆう）霊（れい）暗殺者、ケイヤ", "Kaya, Ghost Assassin"),  # furigana kept
        ("危ない! 火事だ! 敵だ!", "Fear, Fire, Foes!"),  # half-width for full-width
        ("ＦＵＬＭＩＮＥ", "Lightning Bolt"),  # full-width Latin letters
    ],
)
def test_printed_name_forms(localized, written, card):
    report = validate(f"1 {written}\n59 Island\n", "vintage", cards=localized)
    assert _read(report) == [(written, card, _read(report)[0][2])]


def test_english_names_first(localized):
    report = validate("4 Lightning Bolt\n56 Mountain\n", "vintage", cards=localized)
    assert report.legal and "names_read" not in report.to_dict()


def test_name_of_two_cards_is_never_guessed(localized):
    report = validate("4 Zwang\n56 Gebirge\n", "vintage", cards=localized)
    problems = [p for p in report.problems if p.code == "ambiguous-printed-name"]
    assert len(problems) == 1 and not report.legal
    assert problems[0].cards == ("Coercion", "Duress")
    assert "German" in problems[0].message and "English name" in problems[0].message
    assert problems[0].citation == "CR 201.2"
    assert report.main_count == 60  # still counted as listed
    assert "unknown-card" not in {p.code for p in report.problems}


def test_bilingual_lines(localized):
    report = validate(
        "4 《稲妻/Lightning Bolt》\n4 稲妻/Lightning Bolt\n52 《山/Mountain》\n",
        "vintage",
        cards=localized,
    )
    assert [p.code for p in report.errors] == ["too-many-copies"]  # 8 Lightning Bolt
    assert {r["read_by"] for r in report.to_dict()["names_read"]} == {"bilingual-name"}
    assert not report.warnings


def test_bilingual_names_that_differ_warn_naming_both(localized):
    report = validate("4 《強迫/Coercion》\n56 Island\n", "vintage", cards=localized)
    (warning,) = report.warnings
    assert warning.code == "bilingual-names-differ"
    assert warning.cards == ("Coercion", "Duress")
    assert report.legal  # read by its English name


def test_mixed_languages_read_line_by_line(localized):
    report = validate(
        "1 稲妻\n1 Fulmine\n1 Foudre\n1 Blitzschlag\n1 Relámpago\n55 Island\n",
        "vintage",
        cards=localized,
    )
    assert [lang for _, _, lang in _read(report)] == ["ja", "it", "fr", "de", "es"]
    assert [p.code for p in report.errors] == ["too-many-copies"]


def _unknown(decklist: str, cards) -> str:
    """The message of the one error of a Vintage list: an unknown card."""
    (problem,) = validate(decklist, "vintage", cards=cards).errors
    assert problem.code == "unknown-card"
    return problem.message


def test_suggestions_come_from_the_same_script(localized):
    assert "稲妻 (Lightning Bolt)" in _unknown("4 稲妻妻\n56 Island\n", localized)


def test_a_two_character_name_with_one_wrong_gets_a_suggestion(localized):
    message = _unknown("4 稲妾\n56 Island\n", localized)
    assert "did you mean '稲妻 (Lightning Bolt)'?" in message
    # both characters wrong: nothing alike to suggest
    assert "did you mean" not in _unknown("4 妾妾\n56 Island\n", localized)


def test_unknown_printed_name_is_unknown(localized):
    report = validate("4 稲\n56 Island\n", "vintage", cards=localized)
    assert [p.code for p in report.errors] == ["unknown-card"]


def test_warm_index_says_how_every_time(localized):
    # a name read in another language is never taken as an Oracle name the next time
    for _ in range(2):
        report = validate("4 稲妻\n4 Leyline Weaver\n52 Island\n", "vintage", cards=localized)
        assert [r[1] for r in _read(report)] == ["Lightning Bolt", "Spider Manifestation"]


def test_mtgo_name_known_from_printings_is_said_too(tmp_path):
    """With `sync --printings`, the printing's printed name already finds the card: the report
    still says the line was read by an MTGO/Arena name, every time."""
    from validator.store.sqlite import SqliteCards
    from validator.sync import import_file

    oracle = json.loads((FIXTURES / "cards_localized.json").read_text(encoding="utf-8"))
    spider = next(o for o in oracle if o["name"] == "Spider Manifestation")
    printing = {
        "object": "card",
        "oracle_id": spider["oracle_id"],
        "name": spider["name"],
        "lang": "en",
        "printed_name": "Leyline Weaver",
        "set": "om1",
        "collector_number": "1",
        "rarity": "rare",
    }
    (tmp_path / "default-cards.json").write_text(json.dumps([printing]), encoding="utf-8")
    db = str(tmp_path / "c.sqlite3")
    import_file(FIXTURES / "cards_localized.json", db)
    import_file(tmp_path / "default-cards.json", db, bulk_type="default_cards")
    index = CardIndex.from_db(SqliteCards(db))
    for _ in range(2):
        report = validate("4 Leyline Weaver\n56 Island\n", "vintage", cards=index)
        assert report.legal
        assert [r["read_by"] for r in report.to_dict()["names_read"]] == ["mtgo-arena-name"]


def test_latin_typo_in_a_localized_deck_gets_its_languages_names(localized):
    message = _unknown("4 Fulmne\n4 Costrizione\n52 Montagna\n", localized)
    assert "did you mean 'Fulmine (Lightning Bolt)'?" in message
    # the same typo in an English deck: no Italian suggestion
    assert "Fulmine" not in _unknown("4 Fulmne\n56 Mountain\n", localized)


def test_a_printed_name_that_is_the_english_one_is_suggested_once():
    """Italian prints Famine as "Famine": the suggestion is that name, not "Famine (Famine)";
    another name still shows its card's English name."""
    from validator.rules.other_names import script_suggestions

    class Printed:
        def all_printed_names(self) -> list[tuple[str, str, str]]:
            return [("Famine", "Famine", "it"), ("Fulmine", "Lightning Bolt", "it")]

    assert script_suggestions("Famne", Printed(), language="it")[0] == "Famine"
    assert script_suggestions("Fulmne", Printed(), language="it")[0] == "Fulmine (Lightning Bolt)"
