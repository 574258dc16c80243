"""The JSON Schema of deckcheck.report/1 (validator/report.schema.json): real reports validate
against it, and docs/report.md publishes it as it is."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import validator
from validator.report import json_schema

jsonschema_rs = pytest.importorskip("jsonschema_rs", reason="the test extra: pip install '.[test]'")

DOCS = Path(__file__).resolve().parents[2] / "docs" / "report.md"
DECKS = {
    "legal modern": ("4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n\n2 Counterspell\n", "modern"),
    "illegal": (
        "4 Lightning Bolt\n1 Lurrus of the Dream-Den\n55 Mountain\n1 Lightnig Bolt\n",
        "modern",
    ),
    "commander": ("1 Minsc & Boo, Timeless Heroes\n99 Mountain\n", "commander"),
    "empty-ish": ("// nothing but a comment\n1 Not A Card At All\n", "standard"),
}


def validate_against_schema(report: dict) -> None:
    jsonschema_rs.validator_for(json_schema()).validate(report)


@pytest.mark.parametrize("name", sorted(DECKS))
def test_reports_validate_against_the_schema(core_db, name):
    text, fmt = DECKS[name]
    report = validator.validate(text, fmt, db=core_db)
    validate_against_schema(report.to_dict())


@pytest.mark.parametrize(
    "text",
    [
        "4 稲妻\n56 Mountain\n",  # a printed name
        "4 《稲妻/Lightning Bolt》\n56 Mountain\n",  # a bilingual shop line
        "4 Zwang\n56 Mountain\n",  # a printed name of two cards: unconfirmed
    ],
)
def test_reports_of_names_read_another_way_validate(localized_db, text):
    report = validator.validate(text, "vintage", db=localized_db).to_dict()
    assert report.get("names_read") or report["verdict"] == "unconfirmed"
    validate_against_schema(report)


def test_reports_of_every_format_and_as_of_a_month_validate(core_db):
    text = DECKS["illegal"][0]
    reports = validator.check_formats(text, db=core_db)
    assert len(reports) > 10
    for report in reports:
        validate_against_schema(report.to_dict())
    month = validator.validate(text + "\n", "modern", db=core_db, as_of="2026-05")
    assert month.to_dict().get("as_of_precision") == "month"
    validate_against_schema(month.to_dict())


def test_the_schema_refuses_what_is_no_report():
    schema = jsonschema_rs.validator_for(json_schema())
    assert not schema.is_valid({"schema": "deckcheck.report/1"})
    broken = {
        "schema": "deckcheck.report/1",
        "source": None,
        "format": "modern",
        "format_name": "Modern",
        "legal": "yes",  # not a boolean
        "deck": {},
        "counts": {},
        "problems": [],
        "as_of": None,
    }
    assert not schema.is_valid(broken)


def test_an_added_key_does_not_break_a_reader():
    """Keys are only ever added: one the schema does not list is allowed (`verdict` is
    listed, with its values)."""
    schema = jsonschema_rs.validator_for(json_schema())
    report = validator.Report(format="modern", format_name="Modern").to_dict()
    assert schema.is_valid({**report, "a_later_key": 1})
    assert schema.is_valid({**report, "verdict": "unconfirmed"})
    assert not schema.is_valid({**report, "verdict": "maybe"})


def test_the_docs_publish_the_schema_as_shipped():
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## JSON Schema") :]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block is not None
    assert json.loads(block.group(1)) == json_schema()
