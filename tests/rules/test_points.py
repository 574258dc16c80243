"""Points formats: the dated list in force on the deck's date, the cap, companion points,
sideboard counting, and the load-time errors of a malformed list (validator/rules/points.py)."""

from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from support import load_cards, make_deck

from validator import api
from validator.model import Severity
from validator.rules.formats import FormatError, get_format, load_formats

CARDS = load_cards("cards_core.json")

POINTS = """
note = "test list"

[[version]]
date = "2020-01-01"
points = { "Black Lotus" = 5, "Sol Ring" = 3, "Ancestral Recall" = 2 }

[[version]]
date = "2022-06-01"
points = { "Black Lotus" = 7, "Sol Ring" = 4, "Lim-Dul's Vault" = 1, "Fire" = 1 }
companion = { "Lurrus of the Dream-Den" = 3 }
"""


def house(tmp_path: Path, extra: str = "", points: str = POINTS) -> Path:
    (tmp_path / "pts.toml").write_text(points, encoding="utf-8")
    path = tmp_path / "house.toml"
    path.write_text(
        f"""
[pointy]
name = "Pointy Highlander"
legality = "vintage"
min_deck = 20
copy_limit = 1
points = "pts.toml"
points_cap = 7
{extra}
""",
        encoding="utf-8",
    )
    return path


def fmt_of(tmp_path: Path, extra: str = "", points: str = POINTS):
    return get_format("pointy", load_formats(house(tmp_path, extra, points)))


def problems(deck, fmt, day=date(2023, 1, 1)):
    return [p for p in api.check_resolved(deck, fmt, as_of=day) if p.code.startswith("points")]


def deck_of(*names, sideboard=(), companion=None):
    return make_deck(
        CARDS,
        [(1, n) for n in names] + [(20, "Island")],
        sideboard=[(1, n) for n in sideboard],
        companion=companion,
    )


def test_over_the_cap_names_every_pointed_card_total_cap_and_version(tmp_path):
    fmt = fmt_of(tmp_path)
    (p,) = problems(deck_of("Black Lotus", "Sol Ring", "Lightning Bolt"), fmt)
    assert p.code == "points-over-cap" and p.severity is Severity.ERROR
    assert "11 points" in p.message and "cap of 7" in p.message
    assert "points list of 2022-06-01" in p.message and "test list" in p.message
    assert "Black Lotus 7" in p.message and "Sol Ring 4" in p.message
    assert p.cards == ("Black Lotus", "Sol Ring") and p.lines == (1, 2)
    assert p.citation == "format:pointy"


def test_at_the_cap_is_legal_with_a_note_of_the_total(tmp_path):
    fmt = fmt_of(tmp_path)
    (p,) = problems(deck_of("Black Lotus", "Lightning Bolt"), fmt)
    assert p.code == "points-total" and p.severity is Severity.INFO
    assert "spends 7 of Pointy Highlander's 7 points" in p.message


def test_under_the_cap_and_names_matched_however_spelled(tmp_path):
    # The list writes "Lim-Dul's Vault" (no accent) and "Fire" (one face of Fire // Ice).
    fmt = fmt_of(tmp_path)
    (p,) = problems(deck_of("Lim-Dûl's Vault", "Fire // Ice"), fmt)
    assert p.code == "points-total" and "spends 2 of" in p.message
    assert set(p.cards) == {"Lim-Dûl's Vault", "Fire // Ice"}


def test_the_version_in_force_on_the_date_decides(tmp_path):
    fmt = fmt_of(tmp_path)
    deck = deck_of("Black Lotus", "Sol Ring")
    (old,) = problems(deck, fmt, date(2021, 5, 1))  # 5 + 3 = 8 under the 2020 list
    (new,) = problems(deck, fmt, date(2022, 6, 1))  # 7 + 4 = 11 from the day it took effect
    (eve,) = problems(deck, fmt, date(2022, 5, 31))
    assert "8 points" in old.message and "2020-01-01" in old.message
    assert "11 points" in new.message and "2022-06-01" in new.message
    assert "8 points" in eve.message
    # Ancestral Recall costs 2 in the 2020 list and nothing in 2022's
    (p,) = problems(deck_of("Ancestral Recall"), fmt, date(2021, 1, 1))
    assert "spends 2 of" in p.message
    (p,) = problems(deck_of("Ancestral Recall"), fmt, date(2023, 1, 1))
    assert "spends 0 of" in p.message


def test_before_the_first_version_points_are_not_checked_a_warning(tmp_path):
    fmt = fmt_of(tmp_path)
    (p,) = problems(deck_of("Black Lotus", "Sol Ring", "Ancestral Recall"), fmt, date(2019, 1, 1))
    assert p.code == "points-list-missing" and p.severity is Severity.WARNING
    assert "2020-01-01" in p.message


def test_sideboard_counts_unless_the_format_says_otherwise(tmp_path):
    deck = deck_of("Black Lotus", sideboard=["Sol Ring"])
    (p,) = problems(deck, fmt_of(tmp_path))
    assert p.code == "points-over-cap" and "11 points" in p.message
    (q,) = problems(
        deck_of("Black Lotus", sideboard=["Sol Ring"]), fmt_of(tmp_path, "points_sideboard = false")
    )
    assert q.code == "points-total" and "spends 7 of" in q.message


def test_a_declared_companion_costs_its_companion_points(tmp_path):
    fmt = fmt_of(tmp_path)
    (p,) = problems(deck_of("Sol Ring", companion="Lurrus of the Dream-Den"), fmt)
    assert p.code == "points-total" and "spends 7 of" in p.message
    assert "Lurrus of the Dream-Den 3" in p.message
    # In the main deck Lurrus is not a companion: the list gives it no deck points.
    (q,) = problems(deck_of("Sol Ring", "Lurrus of the Dream-Den"), fmt)
    assert "spends 4 of" in q.message
    # Listed in the sideboard as well as declared (Arena exports do): one card, counted once.
    deck = deck_of(
        "Black Lotus", sideboard=["Lurrus of the Dream-Den"], companion="Lurrus of the Dream-Den"
    )
    (r,) = problems(deck, fmt)
    assert r.code == "points-over-cap" and "10 points" in r.message
    # Without sideboard counting, the companion's own points still count.
    (s,) = problems(
        deck_of("Sol Ring", companion="Lurrus of the Dream-Den"),
        fmt_of(tmp_path, "points_sideboard = false"),
    )
    assert "spends 7 of" in s.message


def test_two_copies_cost_twice(tmp_path):
    deck = make_deck(CARDS, [(2, "Sol Ring"), (20, "Island")])
    (p,) = problems(deck, fmt_of(tmp_path))
    assert p.code == "points-over-cap" and "Sol Ring 8 (2 copies x 4)" in p.message


@pytest.mark.parametrize(
    ("extra", "points", "words"),
    [
        (
            "",
            POINTS.replace('"Sol Ring" = 4', '"Sol Ring" = -1'),
            ["version 2022-06-01", "Sol Ring", "-1"],
        ),
        (
            "",
            POINTS.replace('"Sol Ring" = 4', '"Sol Ring" = 1.5'),
            ["version 2022-06-01", "Sol Ring", "1.5"],
        ),
        ("", POINTS.replace("2020-01-01", "2022-06-01"), ["2022-06-01", "two versions"]),
        (
            "",
            POINTS.replace('date = "2020-01-01"', 'date = "June 2020"'),
            ["June 2020", "ISO date"],
        ),
        ("", POINTS.replace("companion =", "companions ="), ["companions", "version 2022-06-01"]),
        ("", "", ["[[version]]"]),
    ],
)
def test_a_malformed_list_is_a_format_error_naming_format_version_and_key(
    tmp_path, extra, points, words
):
    with pytest.raises(FormatError) as err:
        fmt_of(tmp_path, extra, points)
    message = str(err.value)
    assert "format [pointy]" in message and "pts.toml" in message
    for word in words:
        assert word in message


def test_cap_missing_and_file_missing_are_errors(tmp_path):
    path = house(tmp_path)
    path.write_text(path.read_text().replace("points_cap = 7", ""), encoding="utf-8")
    with pytest.raises(FormatError, match=r"\[pointy\].*points_cap"):
        load_formats(path)
    path.write_text(path.read_text().replace("pts.toml", "nope.toml"), encoding="utf-8")
    with pytest.raises(FormatError, match="cannot read its points file .*nope.toml"):
        load_formats(path)


def test_the_cli_refuses_a_bad_list_with_exit_2(tmp_path):
    path = house(tmp_path, points=POINTS.replace('"Sol Ring" = 4', '"Sol Ring" = -1'))
    run = subprocess.run(
        [sys.executable, "-m", "validator", "formats", "--formats-file", str(path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert "[pointy]" in run.stderr and "Sol Ring" in run.stderr


def test_validate_judges_by_as_of_and_warns_of_names_the_card_data_lacks(tmp_path, core_db):
    points = POINTS.replace('"Fire" = 1', '"Fire" = 1, "Sensei\'s Diving Top" = 1')
    formats = load_formats(house(tmp_path, points=points))
    text = "1 Black Lotus\n1 Lim-Dûl's Vault\n20 Island\n"
    now = api.validate(text, "pointy", db=core_db, formats=formats)
    assert not now.legal
    assert [p.code for p in now.problems if p.code.startswith("points")] == [
        "points-over-cap",
        "points-unknown-card",
    ]
    unknown = next(p for p in now.problems if p.code == "points-unknown-card")
    assert unknown.cards == ("Sensei's Diving Top",)
    then = api.validate(text, "pointy", db=core_db, formats=formats, as_of="2021-01-01")
    assert then.legal
    assert any(p.code == "points-total" and "5 of" in p.message for p in then.problems)


def test_formats_listing_shows_cap_and_version(tmp_path):
    info = fmt_of(tmp_path).to_dict()["points"]
    assert info["cap"] == 7 and info["versions"] == 2
    assert info["version"] == "2022-06-01" and info["first_version"] == "2020-01-01"
    assert info["sideboard_counts"] is True


def test_a_month_only_date_with_a_list_change_inside_it_is_said(tmp_path, core_db):
    # A list that took effect on 2022-06-15: judged by it (the month's last day), and the
    # 2020 list's verdict is said, a warning because the two verdicts differ.
    formats = load_formats(house(tmp_path, points=POINTS.replace("2022-06-01", "2022-06-15")))
    text = "1 Black Lotus\n1 Lim-Dûl's Vault\n20 Island\n"  # 2020: 5 points; 2022: 8
    report = api.validate(text, "pointy", db=core_db, formats=formats, as_of="2022-06")
    (note,) = [p for p in report.problems if p.code == "points-date-uncertain"]
    assert note.severity is Severity.WARNING
    assert "changed on 2022-06-15" in note.message and "spends 5 of" in note.message
    assert not report.legal  # judged by the later list, which it is over
    # A month without a change inside it has no such note.
    quiet = api.validate(text, "pointy", db=core_db, formats=formats, as_of="2022-07")
    assert not any(p.code == "points-date-uncertain" for p in quiet.problems)


@pytest.mark.parametrize(
    ("points", "words"),
    [
        (POINTS.replace('"Sol Ring" = 4', '"Sol Ring" = true'), ["Sol Ring", "True"]),
        (POINTS.replace('"Sol Ring" = 4', '"Sol Ring" = "4"'), ["Sol Ring", "'4'"]),
        (POINTS.replace('"Lurrus of the Dream-Den" = 3', '"Lurrus of the Dream-Den" = -3'), []),
    ],
)
def test_a_point_value_that_is_not_a_whole_number_names_format_version_and_card(
    tmp_path, points, words
):
    with pytest.raises(FormatError) as err:
        fmt_of(tmp_path, points=points)
    message = str(err.value)
    assert "format [pointy]" in message and "version 2022-06-01" in message
    assert "whole numbers, 0 or more" in message
    for word in words:
        assert word in message


@pytest.mark.parametrize("cap", ["-1", "1.5", '"7"', "true"])
def test_a_cap_that_is_not_a_whole_number_names_format_and_key(tmp_path, cap):
    path = house(tmp_path)
    path.write_text(path.read_text().replace("points_cap = 7", f"points_cap = {cap}"))
    with pytest.raises(FormatError) as err:
        load_formats(path)
    assert "format [pointy]" in str(err.value) and "points_cap" in str(err.value)
