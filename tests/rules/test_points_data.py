"""The shipped points lists (data/points/*.toml) and dated ban lists (data/lists/*.toml): built
reproducibly from ../shared/data by
scripts/build_points.py, every name a real card, and real Canadian Highlander decks judged
at, under and over the cap."""

from __future__ import annotations

import gzip
import importlib.util
import json
from datetime import date
from pathlib import Path

import pytest
from support import shared_data

from validator import api
from validator.cards.names import lookup_key
from validator.rules.formats import get_format

ROOT = Path(__file__).resolve().parents[2]


def _build_script():
    spec = importlib.util.spec_from_file_location(
        "build_points", ROOT / "scripts" / "build_points.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_lists_are_the_build_scripts_output():
    source = shared_data("formats", "points")
    built = _build_script().build(source)
    shipped = [p.relative_to(ROOT / "data").as_posix() for p in (ROOT / "data").glob("*/*.toml")]
    assert sorted(built) == sorted(shipped)
    for name, text in built.items():
        assert (ROOT / "data" / name).read_text(encoding="utf-8") == text, (
            f"data/{name} is stale: run python scripts/build_points.py"
        )


def test_the_shipped_formats_carry_every_version_with_cap_and_companion_points():
    canadian, australian = get_format("canadianhighlander"), get_format("australianhighlander")
    assert canadian.points.cap == 10 and australian.points.cap == 7
    assert canadian.min_deck == 100 and canadian.copy_limit == 1
    # 34 and 29 source commits; commits of one day are one version (the day's last)
    assert len(canadian.points.versions) == 32 and len(australian.points.versions) == 27
    assert canadian.points.versions[0].day == date(2017, 1, 30)
    assert canadian.points.versions[-1].day == date(2025, 7, 19)
    assert australian.points.versions[0].day == date(2017, 1, 9)
    latest = australian.points.in_force(date(2026, 1, 1))
    assert latest.day == date(2023, 11, 22)
    assert latest.cost("Lurrus of the Dream-Den", as_companion=True) == 3
    assert latest.cost("Lutri, the Spellchaser", as_companion=True) == 2
    assert "commits" in canadian.points.note  # the report says what the dates are


def _real_cards() -> dict[str, dict]:
    path = shared_data("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
    cards = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if line.startswith("{"):
                obj = json.loads(line)
                cards[obj["name"]] = obj
    return cards


@pytest.fixture(scope="module")
def real_cards():
    return _real_cards()


@pytest.fixture(scope="module")
def known(real_cards) -> set[str]:
    """Every real card's name and face names, folded."""
    names = set()
    for name, obj in real_cards.items():
        names.add(lookup_key(name))
        names |= {lookup_key(face["name"]) for face in obj.get("card_faces") or ()}
    return names


@pytest.mark.integration
def test_every_name_of_every_shipped_version_is_a_real_card(known):
    for key in ("canadianhighlander", "australianhighlander"):
        missing = sorted(n for n in get_format(key).points.names() if lookup_key(n) not in known)
        assert missing == [], f"{key}: names no card has"


@pytest.mark.integration
@pytest.mark.parametrize(
    "key",
    ["oldschool", "oldschoolcfb", "oldschoolec", "oldschooleg", "oldschoolitalian", "premodern"],
)
def test_every_name_of_every_shipped_ban_list_is_a_real_card(known, key):
    fmt = get_format(key)
    names = {n for v in fmt.lists.versions for n in (*v.banned, *v.restricted, *v.allowed)}
    names |= set(fmt.banned)
    assert sorted(n for n in names if lookup_key(n) not in known) == [], f"{key}: no such card"


@pytest.fixture(scope="module")
def highlander_db(real_cards, tmp_path_factory):
    """A card database of the real cards the decks below use: every card any Canadian
    Highlander version points, the basic lands, and 120 unpointed Vintage-legal cards."""
    from validator.sync import import_file

    fmt = get_format("canadianhighlander")
    pointed = {lookup_key(n) for n in fmt.points.names()}
    chosen = [o for n, o in real_cards.items() if lookup_key(n) in pointed or n == "Island"]
    filler = [
        o
        for n, o in sorted(real_cards.items())
        if lookup_key(n) not in pointed
        and o.get("legalities", {}).get("vintage") == "legal"
        and "Land" not in o.get("type_line", "")
        and "Companion" not in (o.get("keywords") or [])
        and "//" not in n
    ][:120]
    folder = tmp_path_factory.mktemp("highlander-db")
    (folder / "cards.json").write_text(json.dumps(chosen + filler), encoding="utf-8")
    import_file(folder / "cards.json", str(folder / "cards.sqlite3"))
    return str(folder / "cards.sqlite3"), [o["name"] for o in filler]


#: (pointed cards, as-of date, expected total, legal): each deck is these, 60 unpointed real
#: cards and Islands to 100 cards. Points from the 2025-07-19 list unless dated otherwise.
DECKS = [
    ((), None, 0, True),
    (("Sol Ring",), None, 3, True),
    (("Black Lotus", "Sol Ring"), None, 10, True),  # at the cap
    (("Ancestral Recall", "Mana Vault", "Strip Mine"), None, 10, True),  # at the cap
    (("Ancestral Recall", "Mana Crypt"), None, 13, False),
    (("Black Lotus", "Time Walk"), None, 13, False),
    (("Mox Pearl", "Mox Jet", "Mox Ruby", "Strip Mine"), None, 10, True),
    (("Mox Pearl", "Mox Jet", "Mox Ruby", "Mox Emerald"), None, 12, False),
    # The first list (2017-01-30): Ancestral Recall 5, Black Lotus 7.
    (("Black Lotus", "Ancestral Recall"), "2017-02-01", 12, False),
    (("Sol Ring", "Thassa's Oracle"), None, 9, True),
]


@pytest.mark.integration
@pytest.mark.parametrize(("pointed", "as_of", "total", "legal"), DECKS)
def test_real_canadian_highlander_decks(highlander_db, pointed, as_of, total, legal):
    db, filler = highlander_db
    # a dated deck is its pointed cards and Islands: the filler may postdate the date
    filler = filler[:60] if as_of is None else []
    lines = [f"1 {n}" for n in pointed + tuple(filler)]
    lines.append(f"{100 - len(pointed) - len(filler)} Island")
    report = api.validate("\n".join(lines), "canadianhighlander", db=db, as_of=as_of)
    codes = [p.code for p in report.problems if p.severity.value == "error"]
    assert report.legal is legal, [p.message for p in report.problems]
    assert codes == ([] if legal else ["points-over-cap"])
    (points,) = [p for p in report.problems if p.code in ("points-total", "points-over-cap")]
    assert f"{total} " in points.message
    if pointed:
        assert set(points.cards) == set(pointed)
    assert not any(p.code == "points-unknown-card" for p in report.problems)
