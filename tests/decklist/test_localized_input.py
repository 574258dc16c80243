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


#: A Japanese shop's (Hareruya's) deck export as its pages save it: Shift_JIS, no header row,
#: `info` rows, `kind,《日本語/English》,quantity,price,url,time`, a comma in a name written
#: PERIOD (decklist/shopexport.py).
SHOP_EXPORT = (
    "info,WBConkD09283S 122120\r\n"
    "land,《平地/Plains》,3,20,http://www.hareruyamtg.com/jp/g/gSOI000285JN/,2016-05-15T16:24:08+09:00,,\r\n"
    "info,50 Lands 16320\r\n"
    "creature,《ゼンディカーの同盟者、ギデオン/GideonPERIOD Ally of Zendikar》,4,3600,http://x/,t,,\r\n"
    "creature,Duress,1,50,http://x/,t,,\r\n"
    "sideboardCards,《強迫/Duress》,3,50,http://x/,t,,\r\n"
    "token,《兵士/Soldier》,2,0,http://x/,t,,\r\n"
    "creature,《稲妻/Lightning Bolt》,four,0,http://x/,t,,\r\n"
    "info,http://www.hareruyamtg.com/jp/k/kD09283S/\r\n"
)


@pytest.mark.parametrize("filename", ["deck.csv", None])
def test_a_shop_export_is_read_row_by_row(filename):
    deck = parse_decklist(SHOP_EXPORT.encode("cp932"), filename=filename)
    assert deck.input_format == "csv"
    assert [(e.line, e.quantity, e.name, e.section) for e in deck.entries] == [
        (2, 3, "《平地/Plains》", Section.MAIN),
        (4, 4, "《ゼンディカーの同盟者、ギデオン/Gideon, Ally of Zendikar》", Section.MAIN),
        (5, 1, "Duress", Section.MAIN),
        (6, 3, "《強迫/Duress》", Section.SIDEBOARD),
        (7, 2, "《兵士/Soldier》", Section.IGNORED),  # a token is no card (CR 111.1)
    ]
    # No row is dropped: the one whose quantity is no number is an issue on its line.
    assert [(i.line, i.code) for i in deck.issues] == [(8, "bad-quantity")]


def test_a_shop_export_group_deckcheck_does_not_know_is_counted_and_named():
    deck = parse_decklist(
        "info,deck\nplaneswalker,《灯の再覚醒、オブ・ニクシリス/Ob Nixilis Reignited》,3,1,u,t\n"
    )
    assert [(e.quantity, e.section) for e in deck.entries] == [(3, Section.MAIN)]
    [issue] = deck.issues
    assert issue.code == "unknown-section" and "'planeswalker'" in issue.message


def test_a_shop_export_in_shift_jis_without_kana_is_read():
    # Its only non-ASCII character is a mana cost's full-width X: no kana to tell Shift_JIS by,
    # but the shop writes its exports in Shift_JIS.
    data = "info,WB\nspell,Secure the Wastes,3,ＸW,nil,950,t,u,\n".encode("cp932")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    deck = parse_decklist(data)
    assert [(e.quantity, e.name, e.section) for e in deck.entries] == [
        (3, "Secure the Wastes", Section.MAIN)
    ]
    with pytest.raises(DecklistError, match="not UTF-8 text"):
        parse_decklist("4 Secure the Wastes ＸW\n".encode("cp932"))  # a text list is not one
