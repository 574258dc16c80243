"""MTGO .dek and Cockatrice .cod decks, read safely (defusedxml)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from validator.decklist import MAX_QUANTITY, DecklistError, parse_decklist
from validator.model import Section

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "decklists"


def rows(deck):
    return [(e.quantity, e.name, e.section, e.line) for e in deck.entries]


def dek(*cards: str) -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<Deck>\n'
        + "".join(f"  {card}\n" for card in cards)
        + "</Deck>\n"
    )


def test_dek_fixture():
    deck = parse_decklist((FIXTURES / "burn.dek").read_bytes())
    assert deck.input_format == "mtgo-dek"
    assert not deck.issues
    assert rows(deck) == [
        (4, "Lightning Bolt", Section.MAIN, 5),
        (4, "Lim-Dûl's Vault", Section.MAIN, 6),
        (52, "Mountain", Section.MAIN, 7),
        (2, "Smash to Smithereens", Section.SIDEBOARD, 8),
        (1, "Fire // Ice", Section.SIDEBOARD, 9),
        (12, "Event Ticket", Section.MAIN, 10),  # kept: the resolver reports it
    ]
    assert deck.entries[0].text == (
        '<Cards CatID="1" Quantity="4" Sideboard="false" Name="Lightning Bolt" Annotation="0" />'
    )


def test_dek_from_str_and_bytes_agree():
    data = (FIXTURES / "burn.dek").read_bytes()
    assert rows(parse_decklist(data.decode("utf-8"))) == rows(parse_decklist(data))


def test_dek_in_utf16_and_latin1():
    text = dek('<Cards Quantity="4" Sideboard="false" Name="Lim-Dûl\'s Vault"/>')
    utf16 = text.replace('encoding="utf-8"', 'encoding="utf-16"').encode("utf-16")
    assert rows(parse_decklist(utf16))[0][:2] == (4, "Lim-Dûl's Vault")
    latin = text.replace('encoding="utf-8"', 'encoding="iso-8859-1"').encode("latin-1")
    deck = parse_decklist(latin)
    assert rows(deck)[0][:2] == (4, "Lim-Dûl's Vault")
    assert deck.entries[0].text  # reconstructed when the source is not UTF-8


def test_dek_one_line_file_has_reconstructed_texts():
    deck = parse_decklist(
        '<Deck><Cards Quantity="4" Sideboard="false" Name="A"/>'
        '<Cards Quantity="2" Sideboard="true" Name="B"/></Deck>'
    )
    assert rows(deck) == [(4, "A", Section.MAIN, 1), (2, "B", Section.SIDEBOARD, 1)]
    assert deck.entries[1].text == '<Cards Quantity="2" Sideboard="true" Name="B"/>'


@pytest.mark.parametrize(
    "card, code",
    [
        ('<Cards Quantity="0" Sideboard="false" Name="A"/>', "bad-quantity"),
        ('<Cards Quantity="-2" Sideboard="false" Name="A"/>', "bad-quantity"),
        (
            f'<Cards Quantity="{MAX_QUANTITY + 1}" Sideboard="false" Name="A"/>',
            "quantity-too-large",
        ),
        ('<Cards Quantity="4294967296" Sideboard="false" Name="A"/>', "quantity-too-large"),
        ('<Cards Quantity="four" Sideboard="false" Name="A"/>', "unreadable-line"),
        ('<Cards Sideboard="false" Name="A"/>', "unreadable-line"),
        ('<Cards Quantity="1" Sideboard="false" Name=" "/>', "unreadable-line"),
        ('<Cards Quantity="1" Sideboard="maybe" Name="A"/>', "unreadable-line"),
    ],
)
def test_dek_bad_cards(card, code):
    deck = parse_decklist(dek('<Cards Quantity="1" Sideboard="false" Name="Ok"/>', card))
    assert [e.name for e in deck.entries] == ["Ok"]
    assert [(i.line, i.code) for i in deck.issues] == [(4, code)]


def test_billion_laughs_is_refused_quickly():
    start = time.perf_counter()
    with pytest.raises(DecklistError, match="entities"):
        parse_decklist((FIXTURES / "billion_laughs.dek").read_bytes())
    assert time.perf_counter() - start < 1.0


def test_external_entity_is_refused():
    data = (
        '<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        '<Deck><Cards Quantity="1" Sideboard="false" Name="&x;"/></Deck>'
    )
    with pytest.raises(DecklistError):
        parse_decklist(data)
    with pytest.raises(DecklistError):
        parse_decklist('<!DOCTYPE Deck SYSTEM "http://example.com/x.dtd"><Deck/>')


@pytest.mark.parametrize(
    "data",
    [
        "<Deck><Cards></Deck>",
        "<Deck>",
        '<Deck><Cards Quantity="1" Name="A"/></Deck><Deck/>',
    ],
)
def test_malformed_xml(data):
    with pytest.raises(DecklistError, match="malformed XML") as info:
        parse_decklist(data)
    # Where, by line and column; not expat's "<unknown>" (a file name it never had).
    assert "<unknown>" not in str(info.value) and " line " in str(info.value)


def test_unknown_xml_root():
    with pytest.raises(DecklistError, match="<html>"):
        parse_decklist("<html><body>4 Lightning Bolt</body></html>")


def test_forced_format_must_match_the_root():
    """A .dek forced as Cockatrice (and the reverse) is told which format it is, never that
    its root is neither."""
    with pytest.raises(DecklistError) as dek:
        parse_decklist((FIXTURES / "burn.dek").read_bytes(), input_format="cockatrice")
    assert str(dek.value) == (
        "this is an MTGO .dek deck (XML root element <Deck>), not a "
        "Cockatrice deck: use --input-format mtgo-dek (or auto)"
    )
    with pytest.raises(DecklistError) as cod:
        parse_decklist(
            '<cockatrice_deck version="1"><zone name="main"/></cockatrice_deck>',
            input_format="mtgo-dek",
        )
    assert str(cod.value) == (
        "this is a Cockatrice deck (XML root element <cockatrice_deck>), "
        "not an MTGO .dek deck: use --input-format cockatrice (or auto)"
    )
    assert "neither" not in str(dek.value) + str(cod.value)


def test_cockatrice_fixture():
    deck = parse_decklist((FIXTURES / "burn.cod").read_bytes())
    assert deck.input_format == "cockatrice"
    assert deck.name == "Mono Red Burn"
    # The tokens zone is read but not counted, and a note says so.
    assert [(i.code, i.line) for i in deck.issues] == [("skipped-cards", 12)]
    assert [
        (e.quantity, e.name, e.section, e.line, e.set_code, e.collector_number)
        for e in deck.entries
    ] == [
        (4, "Lightning Bolt", Section.MAIN, 6, "M11", "149"),
        (56, "Mountain", Section.MAIN, 7, None, None),
        (3, "Smash to Smithereens", Section.SIDEBOARD, 10, None, None),
        (1, "Goblin", Section.IGNORED, 13, None, None),
    ]


def test_cockatrice_unknown_zone_and_bad_number():
    deck = parse_decklist(
        '<cockatrice_deck version="1"><zone name="main">'
        '<card number="x" name="A"/><card number="2" name="B"/></zone>'
        '<zone name="binder"><card number="1" name="C"/></zone>'
        "</cockatrice_deck>"
    )
    assert [(e.name, e.section, e.board) for e in deck.entries] == [
        ("B", Section.MAIN, "main"),
        ("C", Section.IGNORED, "binder"),
    ]
    assert sorted(i.code for i in deck.issues) == ["unknown-section", "unreadable-line"]


def test_too_many_xml_entries():
    cards = "".join('<Cards Quantity="1" Sideboard="false" Name="A"/>' for _ in range(5001))
    with pytest.raises(DecklistError, match="limit"):
        parse_decklist(f"<Deck>{cards}</Deck>")


def test_too_many_xml_elements():
    with pytest.raises(DecklistError, match="elements"):
        parse_decklist("<Deck>" + "<x/>" * 20_001 + "</Deck>")


def test_huge_text_content_stays_fast():
    start = time.perf_counter()
    deck = parse_decklist(
        "<cockatrice_deck><deckname>"
        + "ab\n" * 300_000
        + '</deckname><zone name="main"><card number="1" name="A"/></zone>'
        "</cockatrice_deck>"
    )
    assert time.perf_counter() - start < 2.0
    assert deck.name is not None and len(deck.name) <= 200
