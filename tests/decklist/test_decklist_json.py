"""The JSON deck format for programs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from validator.decklist import MAX_QUANTITY, DecklistError, parse_decklist
from validator.decklist.jsondeck import load_json
from validator.model import Section

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "decklists"


def parse(obj) -> object:
    return parse_decklist(json.dumps(obj))


def test_json_fixture():
    deck = parse_decklist((FIXTURES / "commander.json").read_bytes())
    assert deck.input_format == "json"
    assert deck.name == "Atraxa Superfriends"
    assert deck.commander_source == "json"
    assert not deck.issues
    assert [
        (e.quantity, e.name, e.section, e.line, e.set_code, e.collector_number)
        for e in deck.entries
    ] == [
        (1, "Atraxa, Praetors' Voice", Section.COMMANDER, None, "2xm", "190"),
        (1, "Sol Ring", Section.MAIN, None, "cmm", "400"),
        (1, "Arcane Signet", Section.MAIN, None, None, None),
        (1, "Command Tower", Section.MAIN, None, None, None),
        (30, "Forest", Section.MAIN, None, None, None),
        (1, "Lurrus of the Dream-Den", Section.COMPANION, None, None, None),
    ]


def test_item_shapes_and_synonyms():
    deck = parse(
        {
            "main": [
                {"quantity": 4, "name": "Lightning Bolt", "set": "m11", "collector_number": "146"},
                {"count": 2, "name": "Opt"},
                [3, "Island"],
                "Fire // Ice",
                [1, "Sol Ring", "cmm", "400"],
            ],
            "sideboard": ["Duress"],
            "commander": "Kenrith, the Returned King",
            "companion": {"name": "Lurrus of the Dream-Den"},
        }
    )
    assert not deck.issues
    assert [
        (e.quantity, e.name, e.section, e.set_code, e.collector_number) for e in deck.entries
    ] == [
        (4, "Lightning Bolt", Section.MAIN, "m11", "146"),
        (2, "Opt", Section.MAIN, None, None),
        (3, "Island", Section.MAIN, None, None),
        (1, "Fire // Ice", Section.MAIN, None, None),
        (1, "Sol Ring", Section.MAIN, "cmm", "400"),
        (1, "Duress", Section.SIDEBOARD, None, None),
        (1, "Kenrith, the Returned King", Section.COMMANDER, None, None),
        (1, "Lurrus of the Dream-Den", Section.COMPANION, None, None),
    ]
    assert deck.commander_source == "json"
    assert all(e.line is None for e in deck.entries)
    assert deck.entries[2].text == '[3, "Island"]'


def test_companion_as_pair_and_commanders_list():
    deck = parse(
        {
            "commanders": ["Rograkh, Son of Rohgahh", "Silas Renn, Seeker Adept"],
            "companion": [1, "Jegantha, the Wellspring"],
        }
    )
    assert [(e.name, e.section) for e in deck.entries] == [
        ("Rograkh, Son of Rohgahh", Section.COMMANDER),
        ("Silas Renn, Seeker Adept", Section.COMMANDER),
        ("Jegantha, the Wellspring", Section.COMPANION),
    ]


def test_no_commanders_no_source():
    assert parse({"main": ["Island"]}).commander_source is None


POSITIVE = "main[1]: quantity must be a positive whole number"


@pytest.mark.parametrize(
    "item, code, message",
    [
        ({"quantity": 0, "name": "A"}, "bad-quantity", POSITIVE),
        ({"quantity": -3, "name": "A"}, "bad-quantity", POSITIVE),
        ({"quantity": 2.5, "name": "A"}, "bad-quantity", POSITIVE),
        ({"quantity": "4", "name": "A"}, "bad-quantity", POSITIVE),
        ({"quantity": True, "name": "A"}, "bad-quantity", POSITIVE),
        ({"quantity": MAX_QUANTITY + 1, "name": "A"}, "quantity-too-large", "main[1]: quantity"),
        ({"quantity": 4294967296, "name": "A"}, "quantity-too-large", "main[1]: quantity"),
        ({"quantity": 1}, "unreadable-line", "main[1]: card without"),
        ({"quantity": 1, "name": ""}, "unreadable-line", "main[1]: name must be"),
        ({"quantity": 1, "name": 7}, "unreadable-line", "main[1]: name must be"),
        ({"quantity": 1, "name": "A", "set": ["m11"]}, "unreadable-line", "main[1]: set must be"),
        ([4], "unreadable-line", "main[1]: a list item"),
        (["Island", 4], "bad-quantity", "main[1]: quantity"),
        (7, "unreadable-line", "main[1]: expected a card name"),
        (None, "unreadable-line", "main[1]: expected a card name"),
    ],
)
def test_bad_items_name_their_path(item, code, message):
    deck = parse({"main": ["Island", item, "Forest"]})
    assert [e.name for e in deck.entries] == ["Island", "Forest"]
    assert len(deck.issues) == 1
    issue = deck.issues[0]
    assert issue.code == code
    assert issue.message.startswith(message)
    assert issue.line is None
    assert issue.text == json.dumps(item, ensure_ascii=False)


def test_section_that_is_not_a_list():
    deck = parse({"main": "Island", "sideboard": {"a": 1}})
    assert [i.message for i in deck.issues] == [
        "main: expected a list of cards",
        "sideboard: expected a list of cards",
    ]


def test_unknown_fields_are_noted_and_unknown_card_lists_are_warned_and_kept():
    # A field is a note (code "ignored-field", info once resolved), never an error: sites add
    # fields such as createdAt. A list of cards under an unknown key (a misspelt section) is
    # a warning naming it, and its cards are kept as not counted: never silently dropped.
    deck = parse(
        {
            "name": "X",
            "format": "modern",
            "author": "me",
            "createdAt": "2024-01-01",
            "sidebaord": ["Duress"],
            "main": ["Island"],
        }
    )
    assert [(i.code, i.message) for i in deck.issues] == [
        ("ignored-field", "createdAt: not a field of deckcheck's JSON deck, ignored"),
        ("unknown-section", "sidebaord: not a section deckcheck knows; its cards are not counted"),
    ]
    assert [(e.name, e.section, e.board) for e in deck.entries] == [
        ("Duress", Section.IGNORED, "sidebaord"),
        ("Island", Section.MAIN, "main"),
    ]


@pytest.mark.parametrize(
    "key, section",
    [
        ("maybeboard", Section.IGNORED),
        ("tokens", Section.IGNORED),
        ("wishlist", Section.IGNORED),
        ("planes", Section.IGNORED),
        ("conspiracy", Section.SIDEBOARD),
        ("side", Section.SIDEBOARD),
    ],
)
def test_section_keys_are_the_shared_vocabulary(key, section):
    deck = parse({"main": ["Island"], key: ["Black Lotus"]})
    assert (deck.entries[-1].section, deck.entries[-1].board) == (section, key)
    assert not deck.issues


@pytest.mark.parametrize(
    "text, key, path",
    [
        ('{"main": ["Island"], "main": ["Black Lotus"]}', "main", "$"),
        (
            '{"boards": {"mainboard": {"cards": {"a": {}, "a": {}}}}}',
            "a",
            "$.boards.mainboard.cards",
        ),
        ('{"main": [{"name": "Island", "name": "Black Lotus"}]}', "name", "$.main[0]"),
    ],
)
def test_a_duplicated_key_is_an_error_naming_it_and_its_path(text, key, path):
    with pytest.raises(DecklistError, match=f"duplicated JSON key '{key}' in {re.escape(path)}:"):
        parse_decklist(text)


def test_a_key_twice_is_found_when_a_name_holds_a_colon():
    # More colons than keys: the one-object document is read the json module's way.
    text = '{"main": [[4, "Circle of Protection: Red"]], "main": [[1, "Island"]]}'
    with pytest.raises(DecklistError, match="duplicated JSON key 'main' in \\$:"):
        parse_decklist(text)


def _json_module_reads(text: str) -> str:
    try:
        return repr(json.loads(text))
    except ValueError as exc:
        return f"malformed JSON: {exc}"


def _deckcheck_reads(text: str) -> str:
    try:
        return repr(load_json(text))
    except DecklistError as exc:
        return str(exc)


@pytest.mark.parametrize(
    "text",
    [
        '{"main": [[4, "Lightning Bolt"]], "sideboard": [[2, "Duress"]], "name": "Burn"}',
        ' {"main": [[4, "Circle of Protection: Red"]]}',
        '{"main": [[NaN, "Island"]]}',
        '{"main": [[1e400, "Island"]]}',
        '{"main": [[' + "1" * 5000 + ', "Island"]]}',
        '{"main": [[4.0, "Island"]], "name": "A \\ud800"}',
        '{"main": [[4, "Tab\there"]]}',
        '{"main": [[4, "Island"]]} trailing',
        '{"main": [[-0, "\\u00c6ther Vial"]], "as_of": null}',
    ],
)
def test_a_one_object_deck_reads_as_the_json_module_reads_it(text):
    """A deck of one object is decoded by msgspec when it can: the same document, or the same
    error, as the json module's."""
    assert _deckcheck_reads(text) == _json_module_reads(text)


def test_bad_name_field():
    deck = parse({"name": 7, "main": []})
    assert deck.name is None
    assert deck.issues[0].message.startswith("name:")


@pytest.mark.parametrize(
    "data",
    [
        '{"main": [',
        '{"main": ["Island",]}',
        '{"a": ' + "[" * 90_000 + "]" * 90_000 + "}",
        '{"main": [{"quantity": ' + "9" * 5000 + ', "name": "A"}]}',
    ],
)
def test_malformed_json(data):
    with pytest.raises(DecklistError, match="malformed JSON"):
        parse_decklist(data)


def test_json_must_be_an_object():
    with pytest.raises(DecklistError, match="object"):
        parse_decklist('["Island"]', input_format="json")


def test_too_many_items():
    with pytest.raises(DecklistError, match="limit"):
        parse({"main": ["Island"] * 5001})


def test_unknown_and_ambiguous_cards_name_their_json_path():
    """Entries of a JSON deck have no line: an unknown or ambiguous name is reported at its
    JSON path (the module's promise), the same name at two paths as two places."""
    from support import load_cards

    from validator.model import Severity
    from validator.rules.resolve import resolve
    from validator.store.index import CardIndex

    cards = load_cards("cards_core.json")
    index = CardIndex(
        [
            ((), cards["Island"]),
            (("twin",), cards["Lightning Bolt"]),
            (("twin",), cards["Counterspell"]),
        ]
    )
    deck = parse(
        {"main": [[56, "Island"], [4, "Notacard"], "Twin"], "sideboard": [[1, "Notacard"]]}
    )
    assert [e.where for e in deck.entries] == ["main[0]", "main[1]", "main[2]", "sideboard[0]"]
    problems = resolve(deck, index, suggest=False).problems
    assert [(p.code, p.message, p.lines, p.severity) for p in problems] == [
        ("unknown-card", "main[1]: unknown card 'Notacard'", (), Severity.ERROR),
        (
            "ambiguous-card",
            "main[2]: 'Twin' could be any of: Counterspell; Lightning Bolt; write the full name",
            (),
            Severity.ERROR,
        ),
        ("unknown-card", "sideboard[0]: unknown card 'Notacard'", (), Severity.ERROR),
    ]
    # A site's JSON names its own paths; a text deck's entries keep their line instead.
    moxfield = parse_decklist(json.dumps({"mainboard": {"Notacard": {"quantity": 1}}}))
    (problem,) = resolve(moxfield, index, suggest=False).problems
    assert problem.message == "mainboard['Notacard']: unknown card 'Notacard'"
    text = parse_decklist("56 Island\n2 Twin\n")
    assert [e.where for e in text.entries] == [None, None]
    (problem,) = resolve(text, index, suggest=False).problems
    assert problem.message.startswith("'Twin' could be any of") and problem.lines == (2,)


def test_a_pair_read_before_is_read_again_only_with_the_same_types():
    # Pairs read once are kept for the next decks: True equals 1 and 4.0 equals 4, but True
    # is no quantity and 4.0 is written "[4.0, ...]": neither may take the kept reading.
    first = parse({"main": [[1, "Island"], [4, "Forest"]]})
    assert not first.issues
    again = parse({"main": [[True, "Island"], [4.0, "Forest"], [4, "Forest"], [1, "Island"]]})
    assert [(i.code, i.message, i.text) for i in again.issues] == [
        ("bad-quantity", POSITIVE.replace("[1]", "[0]"), '[true, "Island"]')
    ]
    assert [(e.quantity, e.name, e.text, e.where, e.board) for e in again.entries] == [
        (4, "Forest", '[4.0, "Forest"]', "main[1]", "main"),
        (4, "Forest", '[4, "Forest"]', "main[2]", "main"),
        (1, "Island", '[1, "Island"]', "main[3]", "main"),
    ]
    assert all(type(e.quantity) is int for e in again.entries)


def test_pairs_read_before_keep_their_place_among_new_items():
    parse({"main": [[2, "Plains"]], "sideboard": [[3, "Duress"]]})
    deck = parse(
        {
            "main": [[2, "Plains"], "Swamp", [1, "Unknown Card"], {"name": "X", "count": 2}],
            "sideboard": [[3, "Duress"], [0, "Duress"]],
        }
    )
    assert [(e.name, e.section, e.where) for e in deck.entries] == [
        ("Plains", Section.MAIN, "main[0]"),
        ("Swamp", Section.MAIN, "main[1]"),
        ("Unknown Card", Section.MAIN, "main[2]"),
        ("X", Section.MAIN, "main[3]"),
        ("Duress", Section.SIDEBOARD, "sideboard[0]"),
    ]
    assert [i.message for i in deck.issues] == [
        "sideboard[1]: quantity must be a positive whole number"
    ]


@pytest.mark.parametrize(
    "name",
    ['Say "Hi"', "Back\\slash", "Tab\there", "Æther Vial", "Lim-Dûl's Vault", "日本語", "x\x7f"],
)
def test_an_items_text_is_its_json(name):
    # Twice: the first read, and the kept reading of the same pair.
    for _ in range(2):
        deck = parse({"main": [[4, name]]})
        assert deck.entries[0].text == json.dumps([4, name], ensure_ascii=False)


def test_a_lone_surrogate_in_a_name_is_refused_and_quoted_printably():
    deck = parse_decklist('{"main": [[1, "Bad \\ud800"], [1, "Island"]]}')
    assert [e.name for e in deck.entries] == ["Island"]
    assert deck.issues[0].text == '[1, "Bad \\ud800"]'


def test_duplicated_keys_are_found_per_document_and_per_thread():
    from concurrent.futures import ThreadPoolExecutor

    good, bad = '{"main": ["Island"]}', '{"main": ["Island"], "main": ["Forest"]}'

    def read(text: str) -> str:
        try:
            return parse_decklist(text).entries[0].name
        except DecklistError as exc:
            return str(exc)[:26]

    texts = [good, bad] * 50
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(read, texts))
    assert answers == ["Island", "duplicated JSON key 'main'"] * 50
    assert read(good) == "Island"  # nothing left over from the refused document
