"""Dated banned / restricted lists (`lists` in a format: Premodern's ban list by announcement,
European Highlander's by version): the version in force on the deck's date applies
(validator/rules/formats.py `FormatRules.on`)."""

from __future__ import annotations

import gzip
import json
from datetime import date

import pytest
from support import house_format, load_cards, make_deck, shared_data

from validator import api
from validator.cards.names import lookup_key
from validator.model import Severity
from validator.rules.formats import FormatError, get_format

CARDS = load_cards("cards_core.json")

LISTS = """
[[version]]
date = "2020-01-01"
banned = ["Brainstorm"]
restricted = ["Counterspell"]

[[version]]
date = "2022-01-01"
banned = []
"""


def dated(tmp_path, extra: str = "", lists: str = LISTS):
    table = f'name = "Dated Legacy"\nlegality = "legacy"\nlists = "lists.toml"\n{extra}'
    return house_format(tmp_path, "dated", table, **{"lists.toml": lists})


def verdict(deck, fmt, day):
    return [
        (p.code, p.cards)
        for p in api.check_resolved(deck, fmt, as_of=day)
        if p.severity is not Severity.INFO
    ]


def test_the_list_of_the_decks_date_decides(tmp_path):
    fmt = dated(tmp_path)
    deck = make_deck(CARDS, [(4, "Brainstorm"), (2, "Counterspell"), (54, "Island")])
    assert verdict(deck, fmt, date(2021, 6, 1)) == [
        ("banned", ("Brainstorm",)),
        ("restricted", ("Counterspell",)),
    ]
    assert verdict(deck, fmt, date(2022, 1, 1)) == []  # the day the new list took effect


def test_before_the_first_list_a_warning_and_the_card_data_judges(tmp_path):
    fmt = dated(tmp_path)
    deck = make_deck(CARDS, [(4, "Brainstorm"), (56, "Island")])
    assert verdict(deck, fmt, date(2019, 6, 1)) == [("format-list-missing", ())]


def test_a_complete_list_unbans_what_the_card_data_bans_today(tmp_path):
    # Black Lotus is banned in Legacy (the card data); a complete dated list that does not ban
    # it makes it legal on that date, a list on top of the card data does not.
    deck = make_deck(CARDS, [(1, "Black Lotus"), (59, "Island")])
    on_top = dated(tmp_path)
    assert verdict(deck, on_top, date(2023, 1, 1)) == [("banned", ("Black Lotus",))]
    complete = dated(tmp_path, "lists_complete = true")
    assert verdict(deck, complete, date(2023, 1, 1)) == []
    assert verdict(deck, complete, date(2019, 1, 1)) == [
        ("format-list-missing", ()),
        ("banned", ("Black Lotus",)),
    ]


def test_a_malformed_list_names_the_format_and_version(tmp_path):
    with pytest.raises(FormatError, match=r"\[dated\].*version 2020-01-01: banned must be a list"):
        dated(tmp_path, lists=LISTS.replace('banned = ["Brainstorm"]', 'banned = "Brainstorm"'))
    with pytest.raises(FormatError, match=r"\[dated\].*version 2022-01-01: unknown key points"):
        dated(tmp_path, lists=LISTS.replace("banned = []", 'points = { "Sol Ring" = 1 }'))


def test_the_shipped_lists_load():
    premodern, european = get_format("premodern"), get_format("europeanhighlander")
    assert [v.day.isoformat() for v in premodern.lists.versions] == [
        "2018-06-25",
        "2019-08-20",
        "2022-10-05",
        "2023-07-15",
    ]
    assert premodern.lists_complete
    # Land Tax: unbanned 2018-06-25, banned again 2023-07-15
    assert "Land Tax" not in premodern.lists.in_force(date(2020, 1, 1)).banned
    assert "Land Tax" in premodern.lists.in_force(date(2024, 1, 1)).banned
    assert len(european.lists.versions) == 3
    assert "Sol Ring" in european.lists.in_force(date(2024, 1, 1)).banned


@pytest.mark.integration
def test_premoderns_latest_list_is_the_card_datas_ban_list():
    path = shared_data("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
    banned, known, status = set(), set(), {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if line.startswith("{"):
                obj = json.loads(line)
                known.add(lookup_key(obj["name"]))
                status[obj["name"]] = obj["legalities"].get("premodern")
                if obj["legalities"].get("premodern") == "banned":
                    banned.add(obj["name"])
    latest = get_format("premodern").lists.versions[-1]
    # every card the card data bans is on the list; the list's others are ante cards, which
    # the card data calls not legal (CR 407: ante is not part of constructed play)
    assert banned <= set(latest.banned)
    assert {status[n] for n in set(latest.banned) - banned} == {"not_legal"}
    european = get_format("europeanhighlander").lists
    missing = {n for v in european.versions for n in v.banned if lookup_key(n) not in known}
    # The source bans the Walking Dead Secret Lair cards by their own names, which the card
    # data does not carry (it has none of them): they never match, as in the source.
    assert missing == {
        "Daryl, Hunter of Walkers",
        "Glenn, the Voice of Calm",
        "Lucille",
        "Michonne, Ruthless Survivor",
        "Negan, the Cold-Blooded",
        "Rick, Steadfast Leader",
    }


def test_a_listed_name_the_card_data_lacks_is_a_warning(tmp_path, core_db):
    lists = LISTS.replace('banned = ["Brainstorm"]', 'banned = ["Brainstorm", "Sharazad"]')
    formats = {"dated": dated(tmp_path, lists=lists)}
    report = api.validate("60 Island\n", "dated", db=core_db, formats=formats, as_of="2021-01-01")
    (warning,) = [p for p in report.problems if p.code == "list-unknown-card"]
    assert warning.cards == ("Sharazad",) and "list of 2020-01-01" in warning.message
    later = api.validate("60 Island\n", "dated", db=core_db, formats=formats, as_of="2023-01-01")
    assert not any(p.code == "list-unknown-card" for p in later.problems)


def test_two_versions_of_a_list_with_one_date_are_an_error_naming_both(tmp_path):
    with pytest.raises(FormatError) as err:
        dated(tmp_path, lists=LISTS.replace("2022-01-01", "2020-01-01"))
    message = str(err.value)
    assert "[dated]" in message and "lists.toml" in message
    assert "two versions (#1 and #2) have the date 2020-01-01" in message
