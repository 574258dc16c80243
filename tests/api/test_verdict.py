"""The verdict: "legal", "illegal", or "unconfirmed" when every error is one deckcheck cannot
decide (validator/codes.py `undecidable`), through the library, the report and scale rows."""

from __future__ import annotations

import pytest
from support import load_cards

import validator
from validator import scale
from validator.codes import CODES, UNDECIDABLE, is_undecidable
from validator.model import Problem, Severity
from validator.report import render_text, verdict_of
from validator.store.index import CardIndex

DECK = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n"
TYPO = DECK.replace("4 Goblin Guide", "4 Goblin Guid")


@pytest.fixture(scope="module")
def cards() -> CardIndex:
    return CardIndex(((), c) for c in load_cards("cards_core.json").values())


def test_the_undecidable_codes_say_what_settles_them():
    assert UNDECIDABLE >= {
        "unknown-card",
        "commander-rarity-unchecked",
        "companion-condition-unsupported",
        "unknown-legality",
    }
    assert not is_undecidable("banned") and not is_undecidable("no-such-code")
    for code in UNDECIDABLE:
        assert CODES[code].settled_by and CODES[code].severity == "error"
    assert "--printings" in CODES["commander-rarity-unchecked"].settled_by


def _problem(code: str, severity: Severity = Severity.ERROR) -> Problem:
    return Problem(code=code, message=code, citation="x", severity=severity)


@pytest.mark.parametrize(
    "codes, verdict",
    [
        ((), "legal"),
        (("unknown-card",), "unconfirmed"),
        (("commander-rarity-unchecked",), "unconfirmed"),
        (("companion-condition-unsupported", "unknown-legality"), "unconfirmed"),
        (("unknown-card", "banned"), "illegal"),
        (("deck-too-small",), "illegal"),
    ],
)
def test_verdict_of_errors(codes, verdict):
    assert (
        verdict_of([_problem(c) for c in codes] + [_problem("bracket", Severity.INFO)]) == verdict
    )


def test_an_unknown_name_alone_is_unconfirmed_not_illegal(cards):
    report = validator.validate(TYPO, "modern", cards=cards)
    data = report.to_dict()
    assert (report.legal, report.verdict) == (False, "unconfirmed")
    assert (data["legal"], data["verdict"]) == (False, "unconfirmed")
    text = render_text(report)
    assert text.splitlines()[0].startswith("UNCONFIRMED in Modern")
    assert "could not check (unknown-card): settled by a corrected card name" in text


def test_a_known_violation_beside_an_unknown_name_is_illegal(cards):
    report = validator.validate(TYPO + "1 Black Lotus\n", "modern", cards=cards)
    assert (report.legal, report.verdict) == (False, "illegal")
    assert render_text(report).startswith("NOT LEGAL in Modern")


def test_a_legal_deck_says_so(cards):
    report = validator.validate(DECK, "modern", cards=cards)
    assert (report.legal, report.verdict, report.to_dict()["verdict"]) == (True, "legal", "legal")


def test_scale_rows_carry_the_verdict(core_db):
    scale.forget_indexes()
    rows = [
        {"id": 1, "format": "modern", "decklist": DECK},
        {"id": 2, "format": "modern", "decklist": TYPO},
        {"id": 3, "format": "modern", "decklist": DECK + "1 Black Lotus\n"},
        {"id": 4, "format": "no-such-format", "decklist": DECK},
    ]
    out = [scale.validate_row(r, core_db) for r in rows]
    assert [r["verdict"] for r in out] == ["legal", "unconfirmed", "illegal", None]
    assert [r["legal"] for r in out] == [True, False, False, None]
    scale.forget_indexes()
