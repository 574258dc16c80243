"""check-formats' text names each legal format that carries a warning, with the warning."""

from __future__ import annotations

import json
import shutil

from support import FIXTURES

from validator.cli import main


def _text_lines(capsys, *args: str) -> list[str]:
    main(["check-formats", *args])
    return capsys.readouterr().out.splitlines()


def test_check_formats_text_names_a_legal_format_judged_by_the_more_permissive_status(
    core_db, tmp_path, capsys
):
    """Lurrus was banned in Modern between 2022-01-18 and 2022-06-09 (shipped history): on a
    date inside that window the deck is judged legal by the more permissive status, a
    warning --json carried and the text hid behind a plain "legal in Modern"."""
    deck = tmp_path / "lurrus.txt"
    deck.write_text("4 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n", encoding="utf-8")
    lines = _text_lines(capsys, str(deck), "--db", core_db, "--as-of", "2022-03-10")
    assert "Modern" in lines[0]
    [line] = [x for x in lines if x.startswith("  legal in Modern, but see the warning: ")]
    assert "Lurrus of the Dream-Den" in line and "judged as legal" in line
    assert "more permissive" in line and "(line 3)" in line
    assert not any("Vintage" in x for x in lines[1:] if x.startswith("  legal"))  # no warning
    # The JSON is as it was: the warning on the format it concerns.
    main(["check-formats", str(deck), "--db", core_db, "--as-of", "2022-03-10", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert [w["code"] for w in data["formats"]["modern"]["warnings"]] == ["legality-date-uncertain"]
    # Outside any window: no such line.
    lines = _text_lines(capsys, str(deck), "--db", core_db, "--as-of", "2021-06-01")
    assert not any("see the warning" in x or "as far as known" in x for x in lines)


def test_check_formats_text_after_the_card_data_date_says_so_not_that_history_ends(
    tmp_path, capsys
):
    """As of a date after the card data's, each legal format is legal as far as known: the
    text says it with the warning's own words, not "the legality history does not reach"."""
    from validator.sync import import_file

    cards = tmp_path / "cards-20220801.json"  # its card data's date: in the file's name
    shutil.copy(FIXTURES / "cards_core.json", cards)
    db = str(tmp_path / "cards.sqlite3")
    import_file(cards, db)
    deck = tmp_path / "bolt.txt"
    deck.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    lines = _text_lines(capsys, str(deck), "--db", db, "--as-of", "2022-09-01")
    legal = lines[0].split(": legal in ")[1].split(", ")
    assert "Modern" in legal
    unsure = [x for x in lines if x.startswith("  legal as far as known in ")]
    assert [x.split(" in ", 1)[1].split(":")[0] for x in unsure] == legal
    for line in unsure:
        assert "is after the card data's date (2022-08-01)" in line, line
        assert "does not reach" not in line and "validate with --format" not in line
