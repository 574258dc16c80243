"""Deck-site exports, detected by their shape (or forced with --input-format): Moxfield (both
shapes), Archidekt, MTGJSON, Scryfall's deck CSV and plain CSVs; deckcheck's own JSON keeps
unknown fields as notes; event files and unknown JSON shapes are refused with the shapes named.

Samples: tests/fixtures/decklists/exports/ (see its README: trimmed real exports).
"""

from __future__ import annotations

import json

import pytest
from support import FIXTURES, load_cards, shared_data

import validator
from validator.decklist import DecklistError, detect_format, is_event_file, parse_decklist
from validator.model import Section, Severity
from validator.store.index import CardIndex

EXPORTS = FIXTURES / "decklists" / "exports"
AMIGOS = ["Kraum, Ludevic's Opus", "Vial Smasher the Fierce"]
OBOSH = "Obosh, the Preypiercer"


def read(name: str, input_format: str | None = None):
    return parse_decklist((EXPORTS / name).read_bytes(), input_format, filename=name)


def names(deck, section: Section) -> list[str]:
    return [e.name for e in deck.section(section) for _ in range(e.quantity)]


@pytest.mark.parametrize("name", ["moxfield_v2.json", "moxfield_v3.json"])
def test_moxfield_both_shapes(name):
    deck = read(name)
    assert deck.input_format == "moxfield" and deck.name == "[mtg-parser] 3 Amigos"
    assert sorted(names(deck, Section.COMMANDER)) == AMIGOS
    assert deck.commander_source == "moxfield"
    assert names(deck, Section.COMPANION) == [OBOSH]
    # Obosh again in the sideboard (isCompanion) and in the maybeboard: not more cards.
    assert names(deck, Section.SIDEBOARD) == []
    assert len(names(deck, Section.MAIN)) == 6 and deck.issues == []
    assert {e.set_code for e in deck.section(Section.COMMANDER)} == {"c16"}


def test_moxfield_v2_maybeboard_is_ignored():
    data = json.loads((EXPORTS / "moxfield_v2.json").read_text("utf-8"))
    data["maybeboard"] = {"Sol Ring": {"quantity": 1, "card": {"name": "Sol Ring"}}}
    deck = parse_decklist(json.dumps(data))
    assert names(deck, Section.IGNORED)[-1] == "Sol Ring"
    assert "Sol Ring" not in names(deck, Section.MAIN)


def test_archidekt_categories_decide_the_section():
    deck = read("archidekt.json")
    assert deck.input_format == "archidekt" and deck.commander_source == "archidekt"
    assert sorted(names(deck, Section.COMMANDER)) == AMIGOS
    assert names(deck, Section.COMPANION) == [OBOSH]
    assert names(deck, Section.SIDEBOARD) == ["Duress"]
    # "Maybeboard" and the user's "Cuts" category (includedInDeck false) are not the deck.
    assert sorted(names(deck, Section.IGNORED)) == ["Mana Drain", "Pyroblast"]
    assert names(deck, Section.MAIN) == [
        "Underground Sea",
        "Badlands",
        "Red Elemental Blast",
        "Flusterstorm",
    ]
    first = deck.section(Section.MAIN)[0]
    assert (first.set_code, first.collector_number) == ("olgc", "2016EU")


def test_mtgjson_deck_file():
    deck = read("mtgjson.json")
    assert deck.input_format == "mtgjson" and deck.name == "Breed Lethality"
    assert names(deck, Section.COMMANDER) == ["Atraxa, Praetors' Voice"]
    assert len(names(deck, Section.MAIN)) == 5
    assert deck.section(Section.COMMANDER)[0].set_code == "CM2"


def test_mtgjson_single_commander_object():
    deck = parse_decklist(
        json.dumps(
            {
                "data": {
                    "name": "x",
                    "commander": {"count": 1, "name": "Sol Ring"},
                    "mainBoard": [{"count": 2, "name": "Island"}],
                    "sideBoard": [],
                }
            }
        )
    )
    assert names(deck, Section.COMMANDER) == ["Sol Ring"] and names(deck, Section.MAIN) == [
        "Island",
        "Island",
    ]


def test_scryfall_csv():
    deck = read("scryfall.csv")
    assert deck.input_format == "csv"
    assert sorted(names(deck, Section.COMMANDER)) == AMIGOS
    assert names(deck, Section.SIDEBOARD) == [OBOSH]  # "outside": Commander takes the companion
    assert len(names(deck, Section.MAIN)) == 6
    entry = deck.section(Section.MAIN)[0]
    assert (entry.line, entry.set_code, entry.collector_number) == (2, "c21", "165")


@pytest.mark.parametrize(
    "text",
    [
        "Quantity,Card Name,Board\n4,Lightning Bolt,main\n56,Mountain,\n2,Duress,sideboard\n",
        "qty;name;section\n4;Lightning Bolt;Main\n56;Mountain;main\n2;Duress;Sideboard\n",
        "Count\tCard\n4\tLightning Bolt\n56\tMountain\n",
        "Name,Count\nLightning Bolt,4\nMountain,56\n",
    ],
)
def test_plain_csv_headers_vary(text):
    deck = parse_decklist(text)
    assert deck.input_format == "csv" and deck.issues == []
    assert deck.count(Section.MAIN) == 60
    assert names(deck, Section.MAIN)[:4] == ["Lightning Bolt"] * 4


def test_csv_bad_rows_and_missing_columns():
    deck = parse_decklist(
        "count,name,section\nfour,Lightning Bolt,main\n1,,main\n1,Duress,wishes\n"
    )
    assert [(i.line, i.code) for i in deck.issues] == [
        (2, "bad-quantity"),
        (3, "unreadable-line"),
        (4, "unknown-section"),
    ]
    assert names(deck, Section.MAIN) == ["Duress"]  # counted: a note, never an unreadable line
    with pytest.raises(DecklistError, match="lacks a name column"):
        parse_decklist("count,price\n1,2\n", "csv")


#: MTGO's deck CSV export: each row's board in a Yes/No `Sideboarded` column.
MTGO_CSV = (
    "Card Name,Quantity,ID #,Rarity,Set,Collector #,Premium,Sideboarded,\n"
    '"Evolving Wilds",4,58527,Common,BFZ,236/274,No,No\n'
    '"Kalitas, Traitor of Ghet",1,59417,Mythic Rare,OGW,86/184,No,Yes\n'
    '"Lurrus of the Dream-Den",1,1,Rare,IKO,226,No,yes\n'
    '"Duress",2,1,Common,M19,94,No,maybe\n'
)


def test_mtgo_csv_sideboarded_column_chooses_the_sideboard():
    deck = parse_decklist(MTGO_CSV)
    assert deck.input_format == "csv"
    assert names(deck, Section.SIDEBOARD) == ["Kalitas, Traitor of Ghet", "Lurrus of the Dream-Den"]
    assert names(deck, Section.MAIN) == ["Evolving Wilds"] * 4 + ["Duress"] * 2
    # a value neither yes nor no: counted in the main deck, and said
    assert [(i.line, i.code) for i in deck.issues] == [(5, "unknown-section")]
    assert "'maybe'" in deck.issues[0].message


ARCHIDEKT_CSV = (
    "Quantity,Name,Finish,Set Code,Collector Number,Category\n"
    "1,Red Elemental Blast,Normal,a25,147,Instant\n"
    '1,"Kraum, Ludevic\'s Opus",Normal,cmr,523,Commander\n'
    "1,Obosh the Preypiercer,Normal,c20,91,Companion\n"
    "1,Sol Ring,Normal,cmm,400,Ramp\n"
    "1,Duress,Normal,m19,94,Sideboard\n"
    "1,Mana Drain,Normal,ima,65,Maybeboard\n"
    '1,Vial Smasher the Fierce,Normal,cmr,540,"Commander,Creature"\n'
)


def test_csv_category_column_is_archidekts_categories():
    """Archidekt's CSV: its Category column holds the user's categories ("Instant", "Ramp"),
    main-deck cards without any issue, as its JSON reader reads them; the categories naming a
    section choose it."""
    deck = parse_decklist(ARCHIDEKT_CSV)
    assert deck.input_format == "csv" and deck.issues == []
    assert names(deck, Section.MAIN) == ["Red Elemental Blast", "Sol Ring"]
    assert names(deck, Section.COMMANDER) == ["Kraum, Ludevic's Opus", "Vial Smasher the Fierce"]
    assert names(deck, Section.COMPANION) == ["Obosh the Preypiercer"]
    assert names(deck, Section.SIDEBOARD) == ["Duress"]
    assert names(deck, Section.IGNORED) == ["Mana Drain"]


def test_csv_unknown_section_is_a_warning_and_the_card_counts():
    card_index = CardIndex(((), c) for c in load_cards("cards_core.json").values())
    report = validator.validate(
        "count,name,board\n4,Lightning Bolt,mainn\n56,Mountain,\n", "modern", cards=card_index
    )
    assert report.legal, report.problems
    (note,) = report.problems
    assert (note.code, note.severity, note.lines) == ("unknown-section", Severity.WARNING, (2,))
    assert "'mainn'" in note.message and "main deck" in note.message


def test_forcing_a_site_format():
    assert read("moxfield_v2.json", "moxfield").input_format == "moxfield"
    with pytest.raises(DecklistError, match="not an Archidekt deck"):
        read("moxfield_v2.json", "archidekt")
    assert read("scryfall.csv", "csv").input_format == "csv"
    assert detect_format((EXPORTS / "archidekt.json").read_bytes()) == "archidekt"


def test_deckcheck_json_unknown_fields_are_notes_not_errors():
    card_index = CardIndex(((), c) for c in load_cards("cards_core.json").values())
    text = json.dumps(
        {
            "name": "Burn",
            "createdAt": "2026-11-30T10:00:00Z",
            "likes": 3,
            "main": [[4, "Lightning Bolt"], [56, "Mountain"]],
        }
    )
    report = validator.validate(text, "modern", cards=card_index)
    assert report.legal
    notes = [p for p in report.problems if p.code == "ignored-field"]
    assert {p.severity for p in notes} == {Severity.INFO} and len(notes) == 2


@pytest.mark.parametrize(
    "document, words",
    [
        ({"deck": {"cards": []}}, "an object with keys deck"),
        ([1, 2], "a JSON list"),
        ({}, "an empty object"),
    ],
)
def test_json_of_no_known_shape_names_the_shapes_tried(document, words):
    with pytest.raises(DecklistError) as error:
        parse_decklist(json.dumps(document))
    message = str(error.value)
    assert words in message
    for shape in ("Moxfield", "Archidekt", "MTGJSON", "deckcheck JSON"):
        assert shape in message
    assert error.value.code == "bad-decklist"


def test_event_file_is_not_one_deck():
    event = {
        "Tournament": {"Name": "Modern Challenge"},
        "Decks": [
            {
                "Player": "a",
                "Mainboard": [{"Count": 4, "CardName": "Lightning Bolt"}],
                "Sideboard": [],
            }
        ],
        "Rounds": [],
        "Standings": [],
    }
    assert is_event_file(event) and not is_event_file({"main": []})
    with pytest.raises(DecklistError, match="tournament event file"):
        parse_decklist(json.dumps(event))
    with pytest.raises(DecklistError, match="tournament event file"):
        parse_decklist(json.dumps(event), "json")  # forcing the format does not make it a deck


def test_event_file_is_not_one_deck_but_the_cli_reads_each_players(core_db, tmp_path, capsys):
    from validator.api import parse_decklist
    from validator.cli import main

    event = json.dumps({"Decks": [{"Player": "amy", "Mainboard": []}]})
    with pytest.raises(DecklistError, match="event file .* one deck per player"):
        parse_decklist(event)
    path = tmp_path / "event.json"
    path.write_text(event, encoding="utf-8")
    code = main(["validate", str(path), "--format", "modern", "--db", core_db])
    out, err = capsys.readouterr()
    # The CLI reads event files (README "Events"): amy registered no card, so her deck is
    # empty and judged not legal (an empty decklist file, by contrast, is nothing to judge).
    assert code == 1 and "Traceback" not in out + err
    assert "event.json#amy: NOT LEGAL in Modern" in out and "main deck has 0 cards" in out


def test_cli_unknown_json_shape_exits_two(core_db, tmp_path, capsys):
    from validator.cli import main

    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"deck": []}), encoding="utf-8")
    code = main(["validate", str(path), "--format", "modern", "--db", core_db])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err and "tried:" in out + err


@pytest.mark.integration
@pytest.mark.parametrize(
    "name, fmt",
    [
        ("moxfield_deck_3_Amigos.json", "moxfield"),
        ("archidekt_deck_3_Amigos.json", "archidekt"),
        ("mtgjson_deck_BreedLethality_CM2.json", "mtgjson"),
        ("scryfall_deck_export.csv", "csv"),
    ],
)
def test_real_exports_read_whole(name, fmt):
    path = shared_data("decklists", "commander", "mtg-parser-mocks", name)
    deck = parse_decklist(path.read_bytes(), filename=name)
    assert deck.input_format == fmt and deck.issues == []
    size = deck.count(Section.MAIN) + deck.count(Section.COMMANDER)
    assert size == 100 and deck.count(Section.COMMANDER) in (1, 2)


def test_input_format_json_detects_the_site_shape():
    assert read("archidekt.json", "json").input_format == "archidekt"


@pytest.fixture(scope="module")
def export_db(tmp_path_factory):
    """A card database of the real derived card data, cut to the cards of the four real
    exports (importing all 35,000 cards would take far longer for the same verdicts)."""
    import gzip

    from validator.cards.names import fold_name
    from validator.sync import import_file

    mocks = shared_data("decklists", "commander", "mtg-parser-mocks")
    derived = shared_data("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
    wanted = set()
    for path in mocks.iterdir():
        wanted |= {
            fold_name(e.name) for e in parse_decklist(path.read_bytes(), filename=path.name).entries
        }
    objs = []
    with gzip.open(derived, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if not line.startswith("{"):
                continue
            obj = json.loads(line)
            names = {obj.get("name", "")} | {
                face.get("name", "") for face in obj.get("card_faces") or ()
            }
            if {fold_name(n) for n in names} & wanted:
                objs.append(obj)
    folder = tmp_path_factory.mktemp("exports-db")
    (folder / "cards.json").write_text(json.dumps(objs), encoding="utf-8")
    import_file(folder / "cards.json", str(folder / "cards.sqlite3"))
    return str(folder / "cards.sqlite3")


@pytest.mark.integration
def test_archidekt_csv_gives_the_verdict_of_its_json(export_db, tmp_path, capsys):
    """The 3 Amigos deck of Archidekt's JSON written as Archidekt's CSV (Quantity, Name, Set
    Code, Collector Number, Category): legal in Commander, as the JSON is."""
    import csv

    from validator.cli import main

    path = shared_data("decklists", "commander", "mtg-parser-mocks", "archidekt_deck_3_Amigos.json")
    rows = [["Quantity", "Name", "Finish", "Set Code", "Collector Number", "Category"]]
    for item in json.loads(path.read_text("utf-8"))["cards"]:
        card = item["card"]
        rows.append(
            [
                item["quantity"],
                card["oracleCard"]["name"],
                "Normal",
                card["edition"]["editioncode"],
                card["collectorNumber"],
                ",".join(item["categories"]),
            ]
        )
    with open(tmp_path / "amigos.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    code = main(
        [
            "validate",
            str(tmp_path / "amigos.csv"),
            "--format",
            "commander",
            "--db",
            export_db,
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["legal"], report["problems"]
    assert sorted(report["deck"]["commanders"]) == sorted(AMIGOS)
    assert report["deck"]["companion"] == OBOSH
    assert not [p for p in report["problems"] if p["citation"] == "deckcheck:input"]


@pytest.mark.integration
@pytest.mark.parametrize(
    "name",
    [
        "moxfield_deck_3_Amigos.json",
        "archidekt_deck_3_Amigos.json",
        "mtgjson_deck_BreedLethality_CM2.json",
        "scryfall_deck_export.csv",
    ],
)
def test_real_exports_are_legal_commander_decks(export_db, name, capsys):
    """The same 100-card decks as exported by each site: legal, commanders found (partners
    Kraum + Vial Smasher, companion Obosh; MTGJSON's precon led by Atraxa)."""
    from validator.cli import main

    path = shared_data("decklists", "commander", "mtg-parser-mocks", name)
    code = main(["validate", str(path), "--format", "commander", "--db", export_db, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["legal"], report["problems"]
    assert report["deck"]["commanders"] in (
        ["Atraxa, Praetors' Voice"],
        sorted(AMIGOS),
        list(reversed(sorted(AMIGOS))),
    )
    if "Breed" not in name:
        assert report["deck"]["companion"] == OBOSH


def test_moxfield_v2_entry_without_card_name_uses_its_key():
    deck = parse_decklist(json.dumps({"mainboard": {"Island": {"quantity": 60}}}))
    assert deck.input_format == "moxfield" and names(deck, Section.MAIN) == ["Island"] * 60


def _moxfield_with_maybeboard(cards: int = 120) -> str:
    """The Moxfield fixture with a maybeboard of `cards` entries whose card objects are as large
    as real ones (about 4.6 KB pretty-printed: prices, legalities, images... for each card)."""
    data = json.loads((EXPORTS / "moxfield_v2.json").read_text("utf-8"))
    data["maybeboard"] = {
        f"Card {i}": {
            "quantity": 1,
            "boardType": "maybeboard",
            "card": {
                "name": f"Card {i}",
                "id": f"{i:08d}",
                "set": "cmm",
                "legalities": {f"format{j}": "legal" for j in range(30)},
                "prices": {f"price{j}": j / 7 for j in range(20)},
                "oracle_text": "Flying. " * 500,
            },
        }
        for i in range(cards)
    }
    return json.dumps(data, indent=2)


def test_a_moxfield_export_with_a_big_maybeboard_is_read():
    """A real Moxfield export (100-card deck, 120-card maybeboard: 1.1 MB) is over 1 MB: JSON decks
    may have 4 MB, and the maybeboard is never judged."""
    from validator.decklist import MAX_BYTES, MAX_TEXT_BYTES

    text = _moxfield_with_maybeboard(200)
    assert MAX_TEXT_BYTES < len(text.encode()) < MAX_BYTES
    deck = parse_decklist(text.encode(), filename="deck.json")
    assert deck.input_format == "moxfield" and deck.issues == []
    assert sum(n.startswith("Card ") for n in names(deck, Section.IGNORED)) == 200
    assert sorted(names(deck, Section.COMMANDER)) == AMIGOS
    # Text, CSV and XML decklists keep the 1 MB limit: no real one comes near it.
    with pytest.raises(
        DecklistError,
        match=r"the limit for a text, CSV or XML decklist .* is "
        r"1,000,000 bytes",
    ):
        parse_decklist(b"1 Island\n" * 4000 + b"#" * MAX_TEXT_BYTES)
    # A JSON deck's objects and lists are bounded, whatever its size in bytes.
    with pytest.raises(
        DecklistError, match="opens 100,003 objects and lists; the limit is 100,000"
    ):
        parse_decklist('{"main": [' + ",".join(["{}"] * 100_001) + "]}")
    with pytest.raises(DecklistError, match="holds 200,001 values .*; the limit is 200,000"):
        parse_decklist('{"main": [' + ",".join(["1"] * 200_002) + "]}")
    within = '{"main": [[1, "Island"]], "description": [' + ",".join(["1"] * 199_000) + "]}"
    assert parse_decklist(within).entries[0].name == "Island"


def test_mtgo_csv_sideboard_is_judged_as_the_sideboard():
    # Read as main-deck cards, a 16-card sideboard would make a legal 76-card deck.
    card_index = CardIndex(((), c) for c in load_cards("cards_core.json").values())
    text = (
        "Card Name,Quantity,ID #,Rarity,Set,Collector #,Premium,Sideboarded,\n"
        "Lightning Bolt,4,1,Common,M10,146,No,No\n"
        "Mountain,56,2,Common,M10,242,No,No\n"
        "Mountain,16,2,Common,M10,242,No,Yes\n"
    )
    report = validator.validate(text, "modern", cards=card_index)
    assert not report.legal
    assert [p.code for p in report.problems] == ["sideboard-too-large"]
