"""Points formats at the command line: `deckcheck formats` shows the cap and the list version
in force, `deckcheck card` a card's points in each points format, and `validate` exits by the
points verdict."""

from __future__ import annotations

import json

import pytest

from validator.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_formats_lists_cap_and_version(capsys):
    code, out, _ = run(capsys, "formats")
    assert code == 0
    (line,) = [x for x in out.splitlines() if x.startswith("canadianhighlander ")]
    assert "(10 points, list of 2025-07-19)" in line
    code, out, _ = run(capsys, "formats", "--json")
    info = json.loads(out)["australianhighlander"]["points"]
    assert info["cap"] == 7 and info["version"] == "2023-11-22" and info["versions"] == 27


def test_card_shows_points_per_points_format(capsys, core_db):
    code, out, _ = run(capsys, "card", "Lurrus of the Dream-Den", "--db", core_db)
    assert code == 0
    assert "australianhighlander 0, 3 as companion (cap 7, list of 2023-11-22)" in out
    code, out, _ = run(capsys, "card", "Sol Ring", "--db", core_db, "--json")
    points = json.loads(out)["points"]
    assert points["canadianhighlander"] == {"points": 3, "cap": 10, "version": "2025-07-19"}


@pytest.mark.parametrize(("as_of", "exit_code"), [(None, 1), ("2017-02-01", 1), ("2016-01-01", 0)])
def test_validate_exits_by_the_points_verdict(capsys, core_db, tmp_path, as_of, exit_code):
    deck = tmp_path / "deck.txt"
    deck.write_text("1 Black Lotus\n1 Ancestral Recall\n98 Island\n", encoding="utf-8")
    argv = ["validate", str(deck), "--format", "canadianhighlander", "--db", core_db]
    code, out, _ = run(capsys, *argv, *(["--as-of", as_of] if as_of else []))
    assert code == exit_code, out
    if as_of == "2016-01-01":  # before the first list: not checked, said, not illegal
        assert "points list is known from 2017-01-30 on" in out
    else:
        assert "over Canadian Highlander's cap of 10" in out


def test_formats_with_a_database_warns_of_list_names_no_card_has(capsys, core_db, tmp_path):
    # The names are checked as the formats are read, when card data is at hand: a misspelled
    # name ("Sensei's Diving Top") never applies, silently.
    (tmp_path / "pts.toml").write_text(
        '[[version]]\ndate = "2020-01-01"\n'
        'points = { "Sol Ring" = 3, "Sensei\'s Diving Top" = 1 }\n',
        encoding="utf-8",
    )
    (tmp_path / "house.toml").write_text(
        '[pointy]\nname = "Pointy"\nlegality = "vintage"\npoints = "pts.toml"\npoints_cap = 7\n',
        encoding="utf-8",
    )
    house = str(tmp_path / "house.toml")
    code, out, err = run(capsys, "formats", "--formats-file", house, "--db", core_db)
    assert code == 0 and "pointy" in out
    (warning,) = [line for line in err.splitlines() if "[pointy]" in line]
    assert "Sensei's Diving Top" in warning and "Sol Ring" not in warning
    code, out, err = run(capsys, "formats", "--formats-file", house)  # no card data: no check
    assert code == 0 and "[pointy]" not in err


def test_formats_shows_old_schools_legal_sets(capsys):
    code, out, _ = run(capsys, "formats")
    (line,) = [x for x in out.splitlines() if x.startswith("oldschool ")]
    assert "(ban list of 2023-10-26: legal sets 2ed, arn, atq, drk, lea, leb, leg)" in line
