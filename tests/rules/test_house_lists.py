"""A format's own banned / restricted / allowed card names, on top of the legality key it
builds on (a store's weekly ban, European Highlander's ban list, Old School's restricted
list): validator/rules/formats.py `FormatRules.status`, used by the card-pool check."""

from __future__ import annotations

import pytest
from support import load_cards, make_deck

from validator import api
from validator.rules.formats import FormatError, get_format, load_formats

CARDS = load_cards("cards_core.json")


def house(tmp_path, lists: str):
    path = tmp_path / "house.toml"
    path.write_text(f'[store-modern]\nname = "Store Modern"\nlegality = "modern"\n{lists}\n')
    return get_format("store-modern", load_formats(path))


def errors(deck, fmt):
    return [
        (p.code, p.cards, p.citation)
        for p in api.check_resolved(deck, fmt)
        if p.severity.value == "error"
    ]


def test_banned_names_ban_a_card_legal_in_the_base_format(tmp_path):
    fmt = house(tmp_path, 'banned = ["lightning bolt", "Fire"]')  # any case; a face's name
    deck = make_deck(CARDS, [(4, "Lightning Bolt"), (1, "Fire // Ice"), (55, "Mountain")])
    assert errors(deck, fmt) == [
        ("banned", ("Lightning Bolt",), "format:storemodern"),
        ("banned", ("Fire // Ice",), "format:storemodern"),
    ]
    plain = get_format("modern")
    assert errors(deck, plain) == []


def test_restricted_names_allow_one_copy(tmp_path):
    fmt = house(tmp_path, 'restricted = ["Counterspell"]')
    two = make_deck(CARDS, [(2, "Counterspell"), (58, "Island")])
    one = make_deck(CARDS, [(1, "Counterspell"), (59, "Island")])
    assert [e[0] for e in errors(two, fmt)] == ["restricted"]
    assert errors(one, fmt) == []


def test_allowed_names_admit_a_card_the_base_format_does_not(tmp_path):
    fmt = house(tmp_path, 'allowed = ["Brainstorm"]')
    deck = make_deck(CARDS, [(4, "Brainstorm"), (56, "Island")])
    assert errors(deck, fmt) == []
    assert [e[0] for e in errors(deck, get_format("modern"))] == ["not-legal"]


def test_a_name_in_two_lists_is_an_error_naming_both(tmp_path):
    with pytest.raises(
        FormatError, match=r"\[storemodern\].*'brainstorm' is in both banned and allowed"
    ):
        house(tmp_path, 'banned = ["Brainstorm"]\nallowed = ["brainstorm"]')


def test_a_list_of_other_than_names_is_an_error(tmp_path):
    with pytest.raises(FormatError, match=r"\[storemodern\]: banned must be a list of strings"):
        house(tmp_path, "banned = [1, 2]")


def test_the_cli_validates_with_a_house_ban(tmp_path, core_db, capsys):
    from validator.cli import main

    path = tmp_path / "house.toml"
    path.write_text('[weekly]\nname = "Weekly"\nlegality = "modern"\nbanned = ["Goblin Guide"]\n')
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Goblin Guide\n56 Mountain\n")
    code = main(
        ["validate", str(deck), "--format", "weekly", "--formats-file", str(path), "--db", core_db]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "Goblin Guide is banned in Weekly" in out
