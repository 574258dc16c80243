"""Legality as of a date where the shipped history's snapshots are coarse or its names differ:
meld-pair fronts the source spells only "A // meld result", a card whose release window (the
snapshot before its first sighting .. that sighting) holds the deck's date, Vintage's restricted
list before the source recorded it, and the `changes` footer.

Cards: tests/fixtures/cards_core.json, and tests/fixtures/cards_asof.json (Urza, Lord
Protector and Midnight Scavengers, meld fronts, and Heartfire Hero: objects of the derived
oracle-cards file of ../shared/data, trimmed to the fields deckcheck reads)."""

from __future__ import annotations

import json
from datetime import date

import pytest
from support import FIXTURES

from validator.api import validate
from validator.cli import main
from validator.history.asof import AsOfCards, as_of_problems
from validator.history.legality import Change, LegalityHistory, shipped_history
from validator.model import Severity
from validator.store.database import CardDB

URZA = "4 Urza, Lord Protector\n56 Island\n"
SCAVENGERS = "4 Midnight Scavengers\n56 Swamp\n"
HERO = "4 Heartfire Hero\n56 Mountain\n"
POWER = "4 Black Lotus\n4 Ancestral Recall\n52 Island\n"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    from validator.sync import import_file

    cards = []
    for name in ("cards_core.json", "cards_asof.json"):
        cards += json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    # Swamp for the Scavengers deck: a basic land, legal everywhere.
    island = next(c for c in cards if c["name"] == "Island")
    cards.append(
        {
            **island,
            "name": "Swamp",
            "oracle_id": "00000000-0000-4000-8000-5a1a0b1e0001",
            "type_line": "Basic Land — Swamp",
            "oracle_text": "({T}: Add {B}.)",
            "color_identity": ["B"],
        }
    )
    path = tmp_path_factory.mktemp("asof-db") / "cards.sqlite3"
    source = path.with_name("cards.json")
    source.write_text(json.dumps(cards), encoding="utf-8")
    import_file(source, str(path))
    with CardDB(str(path)) as database:
        yield database


def codes(report) -> list[str]:
    return sorted(p.code for p in report.problems)


# ------------------------------------------------------------------------ F1: meld-pair fronts


def test_meld_front_is_found_under_its_own_name():
    """The source lists "Urza, Lord Protector" only as "Urza, Lord Protector // Urza,
    Planeswalker"; the card database names the card "Urza, Lord Protector"."""
    h = shipped_history()
    assert h.first_seen["urza, lord protector"] == date(2023, 1, 21)
    assert h.first_seen.window("urza, lord protector") == (date(2022, 6, 9), date(2023, 1, 21))
    [rotation] = h.changes["urza, lord protector"]
    assert (rotation.format, rotation.on, rotation.kind) == (
        "standard",
        date(2025, 7, 30),
        "rotated-out",
    )
    # An alias is found, not iterated: `changes` lists each change once, under its own name.
    assert "urza, lord protector" in h.changes and "urza, lord protector" not in list(h.changes)
    # Midnight Scavengers: listed only from 2020, dated by its meld sibling Graf Rats.
    assert h.first_seen["midnight scavengers"] == h.first_seen["graf rats"] == date(2019, 1, 8)


def test_meld_front_as_of_a_date(db):
    # The Brothers' War was in Standard in 2023 (Urza rotated out on 2025-07-30).
    assert validate(URZA, "standard", cards=db, as_of="2023-06-01").legal
    assert "not-legal" in codes(validate(URZA, "standard", cards=db))
    # ... and did not exist in 2016.
    early = validate(URZA, "legacy", cards=db, as_of="2016-01-01")
    assert codes(early) == ["unreleased-card"] and "2023-01-21" in early.errors[0].message
    assert validate(SCAVENGERS, "legacy", cards=db, as_of="2019-06-01").legal
    assert codes(validate(SCAVENGERS, "legacy", cards=db, as_of="2016-01-01")) == [
        "unreleased-card"
    ]


# ----------------------------------------------------------------------- F2: release windows


def test_date_inside_a_release_window_is_judged_as_released_with_a_warning(db):
    """Heartfire Hero (Bloomburrow, out 2024-08-02) is first seen on 2024-09-23, the snapshot
    before being 2024-05-24: a deck of 2024-08-15 playing it is evidence it was out."""
    report = validate(HERO, "standard", cards=db, as_of="2024-08-15")
    assert report.legal, [p.message for p in report.errors]
    [warning] = report.problems
    assert (warning.code, warning.severity) == ("legality-date-uncertain", Severity.WARNING)
    assert "first seen between 2024-05-24 and 2024-09-23" in warning.message
    assert "2024-08-15 is inside that window: judged as released" in warning.message
    assert "check the set's release date" in warning.message and warning.lines == (1,)
    # The window's first day too; before the window it did not exist yet.
    assert validate(HERO, "standard", cards=db, as_of="2024-05-24").legal
    before = validate(HERO, "standard", cards=db, as_of="2024-05-23")
    assert codes(before) == ["unreleased-card"]
    assert "between 2024-05-24 and 2024-09-23" in before.errors[0].message
    # Once first seen: released, nothing to say.
    assert codes(validate(HERO, "standard", cards=db, as_of="2024-10-01")) == []


def test_month_meeting_a_release_window_reads_as_the_day_does(db):
    report = validate(HERO, "standard", cards=db, as_of="2024-08")
    assert report.legal
    [warning] = report.problems
    assert warning.severity is Severity.WARNING
    assert "first seen between 2024-05-24 and 2024-09-23" in warning.message
    assert "known only to the month (2024-08)" in warning.message
    assert "judged as released" in warning.message
    # The month whose last day is in the window, and the one before it.
    assert validate(HERO, "standard", cards=db, as_of="2024-05").legal
    assert codes(validate(HERO, "standard", cards=db, as_of="2024-04")) == ["unreleased-card"]
    # A month wholly after the first sighting: nothing to say.
    assert codes(validate(HERO, "standard", cards=db, as_of="2024-10")) == []


def test_release_change_at_the_first_sighting_is_not_undone_inside_the_window(db):
    """A release recorded as a change (not legal -> legal at the card's first sighting) is
    part of the release: inside the window it is not undone, and not noted twice."""
    history = LegalityHistory()
    card = db.lookup(["Heartfire Hero"])["heartfire hero"][0]
    release = Change(
        date(2024, 9, 23),
        date(2024, 5, 24),
        "standard",
        "Heartfire Hero",
        "not_legal",
        "legal",
        "became-legal",
        "shipped",
    )
    history._card_changes[card.oracle_id] = [release]
    assert (
        AsOfCards(db, history, date(2024, 8, 15)).legalities_as_of(card)["standard"]
        == card.legalities["standard"]
    )
    assert (
        AsOfCards(db, history, date(2024, 5, 1)).legalities_as_of(card)["standard"] == "not_legal"
    )
    from validator.api import parse_decklist
    from validator.rules.formats import get_format, load_formats
    from validator.rules.resolve import resolve

    overlay = AsOfCards(db, history, date(2024, 9, 22))
    deck = resolve(parse_decklist(HERO), overlay)
    problems = as_of_problems(
        deck, get_format("standard", load_formats(None)), history, date(2024, 9, 22), []
    )
    assert [p.code for p in problems] == ["legality-date-uncertain"]
    assert "first seen between" in problems[0].message


def test_change_notes_read_as_release_warnings_do(core_db):
    """A change's note says where the date is against its window and what it was judged as."""
    with CardDB(core_db) as database:
        report = validate(
            "4 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n",
            "modern",
            cards=database,
            as_of="2022-03-10",
        )
    [note] = [p for p in report.problems if p.code == "legality-date-uncertain"]
    assert (
        "changed between 2022-01-18 and 2022-06-09; the deck's date 2022-03-10 is inside "
        "that window: judged as legal" in note.message
    )


# ------------------------------------------------- F3: Vintage's restricted list before 2016


def test_vintage_before_the_source_recorded_restrictions(db):
    """The source records no restricted list before 2016-06-05: its 42 "legal -> restricted"
    changes of that day are not history, so Black Lotus stays restricted before it, with a
    warning that the list of that time is not known."""
    report = validate(POWER, "vintage", cards=db, as_of="2016-03-01")
    assert not report.legal
    assert sorted(p.cards[0] for p in report.errors) == ["Ancestral Recall", "Black Lotus"]
    assert {p.code for p in report.errors} == {"restricted"}
    [warning] = [p for p in report.problems if p.code == "legality-history-missing"]
    assert warning.severity is Severity.WARNING
    assert "restricted list before 2016-06-05" in warning.message
    assert "judged by the list of 2016-06-05" in warning.message
    later = validate(POWER, "vintage", cards=db, as_of="2016-06-05")
    assert "legality-history-missing" not in codes(later)
    # Legacy has no restricted list: no warning.
    assert "legality-history-missing" not in codes(
        validate("4 Lightning Bolt\n56 Mountain\n", "legacy", cards=db, as_of="2016-03-01")
    )


def test_changes_lists_no_restriction_artifact_and_says_where_history_begins(core_db, capsys):
    assert main(["changes", "--db", core_db, "--format", "vintage", "--since", "2015-01-01"]) == 0
    out = capsys.readouterr().out
    assert "Black Lotus" not in out and "between 2016-06-04 and 2016-06-05" not in out
    assert "Gush: legal -> restricted" in out  # a real restriction (2017) stays
    # F7: vintage is in the shipped history; 2015-02-24 is its start, not a sync's date.
    footer = out.strip().splitlines()[-1]
    assert footer == (
        "(deckcheck knows vintage's changes only from 2015-02-24, where the "
        "shipped legality history begins)"
    )


@pytest.mark.integration
def test_no_card_of_the_full_card_file_misses_the_history_for_its_spelling():
    """Every card of the full card file that the source spells only "A // B" is found by its
    own name or front name (7 meld fronts were not: Urza, Lord Protector, ...)."""
    import gzip
    from bisect import bisect_left

    from support import shared_data

    from validator.cards.names import fold_name

    path = shared_data("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
    h = shipped_history()
    keys = sorted(h.first_seen)

    def spelled_only_longer(name: str) -> bool:
        i = bisect_left(keys, name + " // ")
        return i < len(keys) and keys[i].startswith(name + " // ")

    missed = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            faces = obj.get("card_faces") or [obj]
            names = {fold_name(obj["name"]), fold_name(faces[0]["name"])}
            if not any(n in h.first_seen for n in names) and any(
                spelled_only_longer(n) for n in names
            ):
                missed.append(obj["name"])
    assert missed == []
