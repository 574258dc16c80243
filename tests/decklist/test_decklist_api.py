"""The decklist package's public API: detection, forced formats, limits, errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import validator.decklist as decklist
from validator.decklist import (
    INPUT_FORMATS,
    MAX_BYTES,
    MAX_LINES,
    MAX_QUANTITY,
    DecklistError,
    detect_format,
    parse_decklist,
)
from validator.model import Deck, Section

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "decklists"


def test_limits_are_the_documented_values():
    assert (MAX_BYTES, MAX_LINES, MAX_QUANTITY) == (4_000_000, 5_000, 10_000)
    assert decklist.MAX_TEXT_BYTES == 1_000_000  # text, CSV and XML; MAX_BYTES is JSON's
    assert set(decklist.__all__) >= {
        "parse_decklist",
        "detect_format",
        "DecklistError",
        "INPUT_FORMATS",
        "MAX_BYTES",
        "MAX_LINES",
        "MAX_QUANTITY",
        "MAX_TEXT_BYTES",
    }


def test_input_formats():
    assert INPUT_FORMATS == (
        "auto",
        "text",
        "arena",
        "forge",
        "mtgo-dek",
        "cockatrice",
        "json",
        "moxfield",
        "archidekt",
        "mtgjson",
        "csv",
    )
    assert issubclass(DecklistError, ValueError)


@pytest.mark.parametrize(
    "data, expected",
    [
        ("4 Lightning Bolt\n", "text"),
        ("4 Lightning Bolt (M11) 146\n", "arena"),
        ("Deck\n4 Lightning Bolt\n", "arena"),
        ("Sideboard\n4 Lightning Bolt\n", "text"),
        ("[metadata]\nName=x\n[Main]\n1 A\n", "forge"),
        ('  \n\ufeff{"main": []}', "json"),
        (b'\xef\xbb\xbf<?xml version="1.0"?>\n<Deck></Deck>', "mtgo-dek"),
        ('<!-- exported -->\n<cockatrice_deck version="1"></cockatrice_deck>', "cockatrice"),
        ("", "text"),
        (" " * 10_000 + '{"main": []}', "json"),
    ],
)
def test_detect_format(data, expected):
    assert detect_format(data) == expected
    try:
        assert parse_decklist(data).input_format == expected
    except DecklistError as exc:  # detected, but no card line: nothing to judge
        assert "no card lines found" in str(exc) and "Island" not in str(data)


@pytest.mark.parametrize(
    "header",
    [
        '"Number_of_Copies";"Card Title"',
        "QTY\tCARDNAME",
        "Amount,Card-Name,Set",
        "count,name",
        '"Quantity","Card"',
    ],
)
def test_csv_headers_are_told_apart_from_card_lines(header):
    """A first line is read as CSV only when it could name a quantity and a name column
    (`looks_like_csv`'s word check first, then the cells); a card line with a comma is text."""
    from validator.decklist.detect import looks_like_csv

    assert looks_like_csv(header)
    assert not looks_like_csv("4 Thalia, Guardian of Thraben")
    assert not looks_like_csv("1 Card, Name of a Count")  # the words, but not as headers
    assert detect_format("4 Thalia, Guardian of Thraben\n1 Forest\n") == "text"


@pytest.mark.parametrize("header", ['"Q"ty,"N"ame', '"co"unt,"card"'])
def test_a_csv_header_whose_quotes_split_its_words_is_still_csv(header):
    """The csv reader joins a quoted part with the text after it ('"Q"ty' is the cell Qty):
    the word pre-check must not read such a line as text."""
    deck = parse_decklist(f"{header}\n60,Island\n")
    assert deck.input_format == "csv"
    assert [(e.quantity, e.name) for e in deck.entries] == [(60, "Island")]


def test_detect_from_fixture_files():
    for name, expected in [
        ("burn.dek", "mtgo-dek"),
        ("burn.cod", "cockatrice"),
        ("commander.json", "json"),
        ("forge.dck", "forge"),
    ]:
        data = (FIXTURES / name).read_bytes()
        assert detect_format(data, filename=name) == expected
        assert parse_decklist(data, filename=name).input_format == expected


def test_filename_helps_with_an_unknown_xml_root():
    with pytest.raises(DecklistError, match="neither"):
        parse_decklist("<deck/>", filename="x.cod")


@pytest.mark.parametrize("forced", ["text", "arena", "forge"])
def test_forcing_a_line_format_sets_its_name(forced):
    deck = parse_decklist("4 Lightning Bolt\n", input_format=forced)
    assert deck.input_format == forced
    assert deck.entries[0].name == "Lightning Bolt"


def test_forcing_text_on_json_reads_lines():
    deck = parse_decklist('{"main": []}', input_format="text")
    assert deck.input_format == "text"
    assert len(deck.issues) + len(deck.entries) == 1


def test_auto_is_detection():
    assert parse_decklist("4 A", input_format="auto").input_format == "text"
    assert parse_decklist('{"main": ["A"]}', input_format=" JSON ").input_format == "json"


def test_unknown_input_format():
    with pytest.raises(DecklistError, match="unknown input format"):
        parse_decklist("4 A", input_format="yaml")


def test_wrong_data_type():
    with pytest.raises(TypeError):
        parse_decklist(None)  # type: ignore[arg-type]


def test_bytearray_is_accepted():
    assert parse_decklist(bytearray(b"4 A\n")).entries[0].quantity == 4


def test_size_limit_names_size_and_limit():
    data = b"1 Island\n" * (MAX_BYTES // 9 + 1)
    with pytest.raises(DecklistError) as info:
        parse_decklist(data)
    message = str(info.value)
    assert f"{len(data):,}" in message and f"{MAX_BYTES:,}" in message


def test_size_limit_counts_utf8_bytes_of_str():
    with pytest.raises(DecklistError, match="bytes"):
        parse_decklist("é" * (MAX_BYTES // 2 + 1))


def test_exactly_at_the_line_limit_is_fine():
    deck = parse_decklist("1 Island\n" * MAX_LINES)
    assert len(deck.entries) == MAX_LINES
    with pytest.raises(DecklistError, match="lines"):
        parse_decklist("1 Island\n" * (MAX_LINES + 1))


@pytest.mark.parametrize(
    "data, match",
    [
        (b"4 Lightning Bolt\n4 Lim-D\xfbl's Vault\n", "not UTF-8.*line 2"),
        (b"\xff\xfe4\x00\x00", "UTF-16"),
        (b"4\x00 \x00A\x00", "NUL"),
        ("4 Island \udcff", "Unicode"),
    ],
)
def test_undecodable_input(data, match):
    with pytest.raises(DecklistError, match=match):
        parse_decklist(data)


def test_returns_a_deck():
    deck = parse_decklist("Commander\n1 A\nDeck\n1 B\n")
    assert isinstance(deck, Deck)
    assert deck.count(Section.COMMANDER) == 1


def test_import_is_light():
    code = (
        "import sys, validator.decklist; "
        "heavy = {'json', 'xml.sax', 'defusedxml', 'sqlalchemy', 'lark'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "data, name",
    [
        (b"", "empty.txt"),
        (b"# only a comment\n\n// another\n", "comments.txt"),
        (b"Deck\nSideboard\n", "headers.txt"),
        (b"count,name\n", "header.csv"),
        (b"<Deck></Deck>", "empty.dek"),
        (b'{"main": [], "sideboard": []}', "empty.json"),
        (b'{"boards": {"mainboard": {"count": 0, "cards": {}}}}', "mox.json"),
    ],
)
def test_an_input_without_a_card_line_is_refused_like_an_empty_json(data, name):
    """Nothing to judge, whatever the reader: a DecklistError (exit 2), as `{}` is."""
    with pytest.raises(DecklistError, match=r"no card lines found \(.+ input\): nothing to judge"):
        parse_decklist(data, filename=name)
    assert detect_format(data, name)  # detection still names its format


def test_cli_and_event_runs_refuse_a_decklist_without_card_lines(core_db, tmp_path, capsys):
    """`validate empty.txt` exits 2 naming the file; in a run of many decks it is an input that
    stopped judging (exit 2) and the other decks are still judged."""
    from validator.cli import main

    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "comments.txt").write_text("# only a comment\n", encoding="utf-8")
    (tmp_path / "burn.txt").write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    for name in ("empty.txt", "comments.txt"):
        code = main(["validate", str(tmp_path / name), "--format", "modern", "--db", core_db])
        out, err = capsys.readouterr()
        assert code == 2 and f"{name}: no card lines found" in err and "0 cards" not in out
    code = main(["validate", str(tmp_path), "--format", "modern", "--db", core_db, "--json"])
    out, err = capsys.readouterr()
    assert code == 2
    import json

    data = json.loads(out)
    assert [r["id"] for r in data["reports"]] == ["burn.txt"] and data["reports"][0]["legal"]
    assert data["summary"]["unreadable"] == 2
    assert all("no card lines found" in json.dumps(u) for u in data["unreadable"])
