"""Legal sets (Old School 93/94 and its variants): a card is legal only when printed in one of
the sets of the list in force on the deck's date; without printings the deck is not judged
legal, and says why (validator/rules/sets.py, `sets` in data/formats.toml and data/lists)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from support import FIXTURES, house_format, load_cards, make_deck

import validator
from validator import api
from validator.model import Severity
from validator.rules.formats import FormatError, get_format

CARDS = load_cards("cards_core.json")

LISTS = """
note = "test list"

[[version]]
date = "2018-01-01"
sets = ["LEA", "arn"]
banned = ["Ancestral Recall"]
restricted = ["Sol Ring"]

[[version]]
date = "2022-01-01"
sets = ["lea", "ice"]
restricted = ["Sol Ring", "Lightning Bolt"]
"""

#: Oracle name -> the sets each was printed in (what `deckcheck sync --printings` keeps).
PRINTED = {
    "Black Lotus": {"lea", "leb"},
    "Sol Ring": {"lea", "c21"},
    "Island": {"lea", "m21"},
    "Lightning Bolt": {"lea", "m10"},
    "Brainstorm": {"ice", "mmq"},
    "Ancestral Recall": {"lea"},
    "Goblin Guide": {"zen"},
    "Tundra": {"lea"},
}


def old_school(tmp_path: Path, extra: str = "", lists: str = LISTS):
    table = (
        f'name = "Old House"\nlegality = "vintage"\nmin_deck = 40\nlists = "lists.toml"\n{extra}'
    )
    return house_format(tmp_path, "old", table, **{"lists.toml": lists})


def printed_sets(oracle_ids):
    by_id = {c.oracle_id: PRINTED.get(c.name, set()) for c in CARDS.values()}
    return {oid: by_id.get(oid, set()) for oid in oracle_ids}


def judged(deck, fmt, day=date(2023, 1, 1), printings=printed_sets):
    return [
        p
        for p in api.check_resolved(deck, fmt, as_of=day, printed_sets=printings)
        if p.severity is Severity.ERROR
    ]


def deck_of(*main, sideboard=()):
    return make_deck(CARDS, [*main, (40, "Island")], sideboard=sideboard)


def test_a_card_printed_in_a_legal_set_is_legal_whatever_the_legality_key_says(tmp_path):
    # Goblin Guide is vintage-legal and was never printed in the sets: not legal; Black Lotus
    # is restricted in Vintage, and Old House does not restrict it: legal.
    fmt = old_school(tmp_path)
    deck = deck_of((4, "Lightning Bolt"), (1, "Sol Ring"), (4, "Goblin Guide"), (4, "Black Lotus"))
    problems = judged(deck, fmt, date(2019, 1, 1))
    assert [(p.code, p.cards) for p in problems] == [("not-in-legal-sets", ("Goblin Guide",))]
    message = problems[0].message
    assert "Old House's legal sets (list of 2018-01-01; test list): arn, lea" in message
    assert "printed in: zen" in message
    assert problems[0].lines == (3,)


def test_the_version_in_force_decides_the_sets_and_the_restricted_list(tmp_path):
    fmt = old_school(tmp_path)
    deck = deck_of((4, "Lightning Bolt"), (4, "Brainstorm"))
    codes = lambda day: [(p.code, p.cards) for p in judged(deck, fmt, day)]  # noqa: E731
    assert codes(date(2019, 1, 1)) == [("not-in-legal-sets", ("Brainstorm",))]
    restricted = [("restricted", ("Lightning Bolt",))]
    assert codes(date(2022, 1, 1)) == restricted  # Ice Age is legal, Bolt restricted
    (problem,) = judged(deck, fmt, date(2022, 1, 1))
    assert (
        "restricted in Old House (list of 2022-01-01; test list): at most 1 copy" in problem.message
    )


def test_restricted_at_most_one_copy_over_deck_and_sideboard(tmp_path):
    fmt = old_school(tmp_path)
    one = deck_of((1, "Sol Ring"))
    assert judged(one, fmt) == []
    two = deck_of((1, "Sol Ring"), sideboard=[(1, "Sol Ring")])
    assert [p.code for p in judged(two, fmt)] == ["restricted"]


def test_the_sideboard_is_held_to_the_legal_sets(tmp_path):
    deck = deck_of((4, "Lightning Bolt"), sideboard=[(2, "Goblin Guide")])
    problems = judged(deck, old_school(tmp_path), date(2019, 1, 1))
    assert [(p.code, p.cards) for p in problems] == [("not-in-legal-sets", ("Goblin Guide",))]


def test_a_banned_card_is_one_error_and_an_allowed_one_needs_no_legal_set(tmp_path):
    fmt = old_school(tmp_path, extra='allowed = ["Goblin Guide"]')
    deck = deck_of((1, "Ancestral Recall"), (1, "Goblin Guide"))
    problems = judged(deck, fmt, date(2019, 1, 1))
    assert [(p.code, p.cards) for p in problems] == [("banned", ("Ancestral Recall",))]
    assert "banned in Old House (list of 2018-01-01; test list)" in problems[0].message


def test_without_printings_the_deck_is_not_judged_legal_and_says_what_to_run(tmp_path):
    fmt = old_school(tmp_path)
    deck = deck_of((1, "Lightning Bolt"), (1, "Sol Ring"))
    for printings in (None, lambda ids: None):
        (problem,) = judged(deck, fmt, printings=printings)
        assert problem.code == "sets-unchecked"
        assert "deckcheck sync --printings" in problem.message
        assert "not judged legal (nor known to be illegal)" in problem.message
        assert set(problem.cards) == {"Lightning Bolt", "Sol Ring", "Island"}


def test_before_the_first_version_the_legality_key_judges_with_a_warning(tmp_path):
    fmt = old_school(tmp_path)
    deck = deck_of((4, "Goblin Guide"))
    problems = api.check_resolved(deck, fmt, as_of=date(2017, 1, 1), printed_sets=None)
    assert [p.code for p in problems] == ["format-list-missing"]


@pytest.mark.parametrize(
    ("lists", "extra", "words"),
    [
        (LISTS.replace('sets = ["LEA", "arn"]', 'sets = "lea"'), "", ["2018-01-01", "sets"]),
        (LISTS.replace('sets = ["LEA", "arn"]', 'sets = ["lea", " "]'), "", ["sets"]),
        (LISTS, 'sets = ["lea", ""]', ["[old]", "empty set code"]),
        (LISTS, "sets = 3", ["[old]", "sets must be a list of strings"]),
    ],
)
def test_malformed_sets_are_errors_naming_format_version_and_key(tmp_path, lists, extra, words):
    with pytest.raises(FormatError) as err:
        old_school(tmp_path, extra, lists)
    for word in words:
        assert word in str(err.value)


def test_a_house_format_can_name_its_legal_sets_without_dates(tmp_path):
    table = 'name = "Alpha Only"\nlegality = "vintage"\nmin_deck = 40\nsets = ["LEA"]'
    fmt = house_format(tmp_path, "alpha", table)
    assert fmt.sets == frozenset({"lea"})
    deck = deck_of((4, "Lightning Bolt"), (4, "Brainstorm"))
    problems = judged(deck, fmt)
    assert [(p.code, p.cards) for p in problems] == [("not-in-legal-sets", ("Brainstorm",))]
    assert "Alpha Only's legal sets: lea" in problems[0].message


# --- the shipped Old School formats -----------------------------------------------------------

OLD_SCHOOL = {
    # format: (versions, first, sets of the latest version)
    "oldschool": (3, "2018-06-02", {"lea", "leb", "2ed", "arn", "atq", "leg", "drk"}),
    "oldschoolcfb": (6, "2018-06-02", {"lea", "leb", "2ed", "arn", "atq", "leg", "drk", "fem"}),
    "oldschoolec": (6, "2018-06-02", {"lea", "leb", "2ed", "arn", "atq", "leg", "drk", "fem"}),
    "oldschooleg": (
        5,
        "2018-06-02",
        {"lea", "leb", "2ed", "arn", "atq", "leg", "drk", "fem", "3ed", "chr"},
    ),
    "oldschoolitalian": (5, "2018-06-02", {"lea", "leb", "2ed", "arn", "atq", "leg", "drk", "3ed"}),
}


@pytest.mark.parametrize("key", sorted(OLD_SCHOOL))
def test_the_shipped_old_school_formats_carry_every_version(key):
    versions, first, latest_sets = OLD_SCHOOL[key]
    fmt = get_format(key)
    assert len(fmt.lists.versions) == versions
    assert fmt.lists.versions[0].day.isoformat() == first
    today = fmt.on(date(2026, 1, 1))
    assert today.sets == latest_sets and today.list_version == date(2023, 10, 26)
    assert today.status(CARDS["Black Lotus"]) == "restricted"
    assert "Contract from Below" in fmt.banned  # ante: banned by name (data/formats.toml)
    assert "commits" in fmt.lists.note  # a version's date is its source commit's
    # `deckcheck formats --json` and GET /v1/formats: the list in force and its sets
    summary = fmt.to_dict()["lists"]
    assert summary["version"] == "2023-10-26" and set(summary["sets"]) == latest_sets


def test_old_school_versions_follow_the_source():
    fmt = get_format("oldschool")
    # 2018: Shahrazad both banned and restricted in the source: banned (bans are checked first)
    card = replace(CARDS["Sol Ring"], name="Shahrazad")  # status reads the name only
    assert fmt.on(date(2019, 1, 1)).status(card) == "banned"
    assert fmt.on(date(2023, 1, 1)).status(card) == "restricted"
    # Channel Fireball's Media Inserts held the HarperPrism promos (Arena, Sewers of Estark)
    # until XMage moved them out on 2020-01-15; Media Inserts left its sets on 2020-08-08.
    cfb = get_format("oldschoolcfb")
    assert {"phpr", "pdrc", "pmei"} <= cfb.on(date(2019, 1, 1)).sets
    assert "phpr" not in cfb.on(date(2020, 1, 15)).sets
    assert "pmei" in cfb.on(date(2020, 1, 15)).sets
    assert "pmei" not in cfb.on(date(2020, 8, 8)).sets


@pytest.fixture
def printed_db(tmp_path) -> str:
    """The core test cards (with an `oldschool` key that says not_legal for every card, as
    the derived card data does) and their printings, synced the way `sync --printings` does."""
    from validator.sync import import_file
    from validator.sync.importer import DEFAULT

    cards = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    printings = []
    for card in cards:
        card["legalities"]["oldschool"] = "not_legal"
        for code in sorted(PRINTED.get(card["name"], ())):
            printings.append(
                {
                    "object": "card",
                    "oracle_id": card["oracle_id"],
                    "name": card["name"],
                    "set": code,
                    "collector_number": str(len(printings) + 1),
                    "rarity": "rare",
                    "lang": "en",
                }
            )
    (tmp_path / "oracle.json").write_text(json.dumps(cards), encoding="utf-8")
    (tmp_path / "default.json").write_text(json.dumps(printings), encoding="utf-8")
    db = str(tmp_path / "cards.sqlite3")
    import_file(tmp_path / "oracle.json", db)
    import_file(tmp_path / "default.json", db, bulk_type=DEFAULT)
    return db


DECK = "1 Black Lotus\n1 Sol Ring\n4 Lightning Bolt\n4 Tundra\n{extra}50 Island\n"


@pytest.mark.parametrize("source", ["sqlite", "database", "index"])
def test_old_school_judged_from_synced_printings(printed_db, source):
    cards = {
        "sqlite": lambda: validator.open_db(printed_db),
        "database": lambda: validator.open_db(f"sqlite:///{printed_db}"),
        "index": lambda: validator.CardIndex.from_db(validator.open_db(printed_db)),
    }[source]()
    legal = api.validate(DECK.format(extra=""), "oldschool", cards=cards, as_of="2024-05-01")
    assert legal.legal, [p.message for p in legal.problems]
    bad = api.validate(DECK.format(extra="4 Brainstorm\n1 Black Lotus\n"), "oldschool", cards=cards)
    errors = {p.code: p for p in bad.errors}
    assert set(errors) == {"not-in-legal-sets", "restricted"}
    assert "printed in: ice, mmq" in errors["not-in-legal-sets"].message
    # the list's version, and what its dates are (the source's commits)
    restricted = errors["restricted"].message
    assert "Old School 93/94 (list of 2023-10-26; version dates are those of the source's" in (
        restricted
    )


@pytest.mark.parametrize("url", [False, True])
def test_printed_sets_of_more_ids_than_one_query_binds(printed_db, url):
    cards = validator.open_db(f"sqlite:///{printed_db}" if url else printed_db)
    (lotus,) = next(iter(cards.lookup(["Black Lotus"]).values()))
    # more ids than one IN list takes (the store reads them in chunks): each id is answered
    wanted = [f"no-such-{i}" for i in range(1200)] + [lotus.oracle_id]
    found = cards.printed_sets(wanted)
    assert found is not None and set(found) == set(wanted)
    assert found[lotus.oracle_id] and not any(found[oid] for oid in wanted[:-1])


def test_old_school_without_printings_is_not_judged_legal(tmp_path, core_db):
    from validator.sync import import_file

    cards = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    for card in cards:
        card["legalities"]["oldschool"] = "not_legal"
    (tmp_path / "oracle.json").write_text(json.dumps(cards), encoding="utf-8")
    import_file(tmp_path / "oracle.json", str(tmp_path / "cards.sqlite3"))
    report = api.validate(DECK.format(extra=""), "oldschool", db=str(tmp_path / "cards.sqlite3"))
    assert [p.code for p in report.errors] == ["sets-unchecked"]
    assert not report.legal
    # Cannot tell is not illegal: the verdict waits on the printings.
    assert report.verdict == "unconfirmed"
    assert report.to_dict()["verdict"] == "unconfirmed"


def test_check_formats_asks_the_printings_once_per_deck(printed_db):
    asked = []

    class Counting(validator.CardIndex):
        def printed_sets(self, oracle_ids):
            ids = list(oracle_ids)
            asked.append(ids)
            return super().printed_sets(ids)

    cards = Counting.from_db(validator.open_db(printed_db))
    reports = {r.format: r for r in api.check_formats(DECK.format(extra=""), cards=cards)}
    assert len(asked) == 1  # five Old School formats, one look-up
    assert reports["oldschool"].legal and reports["oldschoolcfb"].legal
