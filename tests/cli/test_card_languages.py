"""`deckcheck card` by a printed name: the card, with its names by language."""

from __future__ import annotations


def test_card_command_finds_a_printed_name(localized_db, capsys):
    from validator.cli import main

    assert main(["card", "--db", localized_db, "稲妻"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("name: Lightning Bolt")
    assert "printed names:" in out and "稲妻" in out and "Fulmine" in out
    assert main(["card", "--db", localized_db, "Zwang"]) == 2
    assert "German name of several cards: Coercion; Duress" in capsys.readouterr().err
