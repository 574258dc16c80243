"""Decklists as Japanese players and shops save them: Shift_JIS bytes, section headers in
their language."""

from __future__ import annotations

import pytest

from validator.decklist import DecklistError, parse_decklist
from validator.decklist.base import decode_text
from validator.model import Section


def test_shift_jis_is_read():
    data = "4 《稲妻/Lightning Bolt》\n\nサイドボード\n2 強迫\n".encode("cp932")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert decode_text(data) == "4 《稲妻/Lightning Bolt》\n\nサイドボード\n2 強迫\n"


def test_windows_1252_stays_refused():
    # read as Shift_JIS it would be wrong card names ("Lim-Dûl" -> a kanji): no kana, refused
    with pytest.raises(DecklistError, match="not UTF-8 text"):
        decode_text("4 Lim-Dûl's Vault\n4 Æther Vial\n".encode("cp1252"))


@pytest.mark.parametrize("header", ["サイドボード", "Banquillo", "Réserve:", "Reserva (15)"])
def test_localized_sideboard_headers(header):
    deck = parse_decklist(f"4 稲妻\n{header}\n2 強迫\n")
    assert [(e.name, e.section) for e in deck.entries] == [
        ("稲妻", Section.MAIN),
        ("強迫", Section.SIDEBOARD),
    ]
    assert not deck.issues
