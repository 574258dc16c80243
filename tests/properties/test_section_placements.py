"""No card vanishes: one illegal card (Black Lotus, banned in Modern) placed beside a legal
60-card Modern deck in every section name, header spelling, board and category each decklist
reader knows or could be sent (tests/support.py `placements`), and in random section names,
is counted, reported (the report names it, with the section it was read from) or refused:
never a LEGAL verdict that says nothing about it. `bench/bench_placements.py` prints the count
of each outcome."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import LEGAL_MODERN, PLACED, load_cards, placement_outcome, placements

import validator
from validator.report import render_text
from validator.store.index import CardIndex

PLACEMENTS = placements()


@pytest.fixture(scope="module")
def cards() -> CardIndex:
    return CardIndex(((), c) for c in load_cards("cards_core.json").values())


def test_the_deck_alone_is_legal(cards):
    deck = "".join(f"{q} {n}\n" for q, n in LEGAL_MODERN)
    assert validator.validate(deck, "modern", cards=cards).legal


@pytest.mark.parametrize("where, decklist", PLACEMENTS, ids=[w for w, _ in PLACEMENTS])
def test_a_placed_card_is_counted_or_reported_never_silent(cards, where, decklist):
    outcome = placement_outcome(validator.validate, decklist, cards)
    assert outcome != "silent", where
    if outcome == "reported":
        # Reported means named, with the section it was read from: not only a warning.
        report = validator.validate(decklist, "modern", cards=cards)
        (item,) = [i for i in report.not_counted if i["name"] == PLACED]
        assert item["section"] and item["kind"] in ("outside", "supplementary", "unknown"), item
        assert f"not counted: 1 {PLACED} ({item['section']}" in render_text(report)


#: Descriptive fields a JSON deck may carry ("author", "notes"), and any word at all.
FIELDS = ["name", "format", "author", "notes", "comments", "date", "id", "url", "player"]
WORDS = st.sampled_from(FIELDS) | st.text(
    alphabet=st.characters(whitelist_categories=("Lu", "Ll", "Nd"), max_codepoint=0x7F),
    min_size=1,
    max_size=14,
)


def _variants(word: str) -> list[str]:
    deck = "".join(f"{q} {n}\n" for q, n in LEGAL_MODERN)
    main = [[q, n] for q, n in LEGAL_MODERN]
    boards = {n: {"quantity": q, "card": {"name": n}} for q, n in LEGAL_MODERN}
    lotus = {"quantity": 1, "card": {"name": PLACED}}
    return [
        f"Deck\n{deck}\n[{word}]\n1 {PLACED}\n",
        f"{deck}// {word}\n1 {PLACED}\n",
        f"{deck}1 {PLACED} [{word}{{noDeck}}]\n",
        json.dumps({"main": main, word: [[1, PLACED]]}),
        json.dumps({"mainboard": boards, word: {PLACED: lotus}}),
        json.dumps({"boards": {"mainboard": {"cards": boards}, word: {"cards": {"x": lotus}}}}),
        "count,name,section\n"
        + "".join(f"{q},{n},\n" for q, n in LEGAL_MODERN)
        + f"1,{PLACED},{word}\n",
    ]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(word=WORDS)
def test_any_section_name_is_counted_or_reported(cards, word):
    for decklist in _variants(word):
        assert placement_outcome(validator.validate, decklist, cards) != "silent", (word, decklist)
