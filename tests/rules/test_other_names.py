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
