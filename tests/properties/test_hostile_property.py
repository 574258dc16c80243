"""Property tests (issue 11): lists at the input limits, for every format kind, are judged with
bounded work and always give a report.

Hypothesis draws a format (constructed, Commander, Oathbreaker, Brawl), an input format (text
with Arena headers, MTGO blocks, JSON, .dek, .cod), how many lines each section gets (up to the
5,000-line limit in all), what fills each section (commander candidates, planeswalkers, spells,
partners, companions, thousands of distinct unknown names, names at the length limit) and the
quantities (up to the 10,000 limit). Each list is judged against a small card fixture; the work
that used to explode is counted (pairs weighed, orderings tried, companion conditions checked,
"did you mean" searches), never timed: `bench/bench_hostile.py` times the same shapes against
the full-size card data.
"""

from __future__ import annotations

import itertools
import json
import random
from contextlib import contextmanager

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from support import load_cards  # noqa: E402

import validator.rules.commander.designation as designation_module  # noqa: E402
import validator.rules.commander.leaders as leaders_module  # noqa: E402
import validator.rules.commander.rules as rules_module  # noqa: E402
import validator.rules.companion.checks as companion_module  # noqa: E402
import validator.rules.resolve as resolve_module  # noqa: E402
from validator.api import validate  # noqa: E402
from validator.decklist import (  # noqa: E402
    MAX_BYTES,
    MAX_LINES,
    MAX_QUANTITY,
    DecklistError,
    parse_decklist,  # noqa: E402
)
from validator.report import Report  # noqa: E402
from validator.store.index import CardIndex  # noqa: E402

CARDS = load_cards(
    "cards_commander.json", "cards_companion.json", "cards_hostile.json", "cards_core.json"
)
UNIQUE = list({c.oracle_id: c for c in CARDS.values()}.values())
INDEX = CardIndex(([], c) for c in UNIQUE)
POOLS = {
    "legends": [c.name for c in UNIQUE if c.commander_eligible],
    "walkers": [c.name for c in UNIQUE if "Planeswalker" in c.types],
    "spells": [c.name for c in UNIQUE if c.types & {"Instant", "Sorcery"}],
    "partners": [c.name for c in UNIQUE if c.partner or "Background" in c.subtypes],
    "companions": [c.name for c in UNIQUE if c.companion_condition],
    "any": [c.name for c in UNIQUE],
}
FILLS = [*POOLS, "unknown", "long"]
FORMATS = [
    "modern",
    "vintage",
    "legacy",
    "commander",
    "duel",
    "paupercommander",
    "predh",
    "oathbreaker",
    "brawl",
    "standardbrawl",
]
SECTIONS = ["Commander", "Companion", "Deck", "Sideboard", "Maybeboard"]
INPUTS = ["arena", "mtgo", "json", "dek", "cod"]
QUANTITIES = [1, 1, 1, 2, 4, 99, 9_999, MAX_QUANTITY]

#: Work bounds, whatever the list: six sideboard candidates give 15 pairs (+1 for the two
#: commanders kept), two oathbreakers two orderings, one declared companion and two noted.
MAX_PAIRS = 16
MAX_ORDERINGS = 2
MAX_CONDITIONS = 3


class _Count:
    def __init__(self, func, iterate: bool = False) -> None:
        self.func, self.iterate, self.count = func, iterate, 0

    def __call__(self, *args, **kwargs):
        if self.iterate:
            return self._items(self.func(*args, **kwargs))
        self.count += 1
        return self.func(*args, **kwargs)

    def _items(self, items):
        for item in items:
            self.count += 1
            yield item


@contextmanager
def counted():
    """Count the steps whose number used to grow with the input, patched where the code looks
    each name up (`test_the_counted_names_are_the_ones_the_code_calls`)."""
    pairs = _Count(leaders_module.pair_problem)
    patches = {
        # One count: designation weighs sideboard candidates, the rules judge the pair kept.
        (designation_module, "pair_problem"): pairs,
        (leaders_module, "pair_problem"): pairs,
        (rules_module, "permutations"): _Count(itertools.permutations, iterate=True),
        (companion_module, "companion_condition_problems"): _Count(
            companion_module.companion_condition_problems
        ),
        (resolve_module, "suggestions"): _Count(resolve_module.suggestions),
    }
    saved = {key: getattr(*key) for key in patches}
    for (module, name), counter in patches.items():
        setattr(module, name, counter)
    try:
        yield {name: counter for (_, name), counter in patches.items()}
    finally:
        for (module, name), original in saved.items():
            setattr(module, name, original)


def _names(fill: str, count: int, rng: random.Random, start: int) -> list[str]:
    """`count` names for a section: cycled from a pool (shuffled), or distinct made-up ones."""
    if fill == "unknown":
        return [f"Hostile Unknown Card {start + i}" for i in range(count)]
    if fill == "long":  # at the name-length limit (200), and one past it now and then
        return [f"{start + i:06d}" + "x" * rng.choice((120, 194, 195)) for i in range(count)]
    pool = list(POOLS[fill])
    rng.shuffle(pool)
    return [pool[i % len(pool)] for i in range(count)]


@st.composite
def hostile_lists(draw):
    fmt = draw(st.sampled_from(FORMATS))
    shape = draw(st.sampled_from(INPUTS))
    total = draw(st.one_of(st.just(MAX_LINES - 10), st.integers(1, MAX_LINES - 10)))
    weights = draw(st.lists(st.integers(0, 8), min_size=len(SECTIONS), max_size=len(SECTIONS)))
    fills = draw(st.lists(st.sampled_from(FILLS), min_size=len(SECTIONS), max_size=len(SECTIONS)))
    rng = draw(st.randoms(use_true_random=False))
    scale = total / (sum(weights) or 1)
    sections, start = {}, 0
    for name, weight, fill in zip(SECTIONS, weights, fills):
        count = int(weight * scale)
        names = _names(fill, count, rng, start)
        start += count
        sections[name] = [(rng.choice(QUANTITIES), n) for n in names]
    data = render(shape, sections)
    return fmt, shape, data[:MAX_BYTES]


def render(shape: str, sections: dict[str, list[tuple[int, str]]]) -> bytes:
    if shape == "arena":
        out = []
        for header, rows in sections.items():
            out += [header, *(f"{q} {n}" for q, n in rows)]
        return ("\n".join(out) + "\n").encode()
    if shape == "mtgo":  # main deck, blank line, sideboard; commanders marked *CMDR*
        rows = [f"{q} {n} *CMDR*" for q, n in sections["Commander"]]
        rows += [f"{q} {n}" for q, n in sections["Deck"] + sections["Companion"]]
        rows += [""] + [f"{q} {n}" for q, n in sections["Sideboard"]]
        return ("\n".join(rows) + "\n").encode()
    if shape == "json":
        keys = {
            "Commander": "commanders",
            "Companion": "companion",
            "Deck": "main",
            "Sideboard": "sideboard",
            "Maybeboard": "maybeboard",
        }
        return json.dumps({keys[k]: [[q, n] for q, n in v] for k, v in sections.items()}).encode()
    esc = lambda n: n.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")  # noqa: E731
    if shape == "dek":
        rows = [
            f'<Cards Quantity="{q}" Sideboard="{str(k == "Sideboard").lower()}" Name="{esc(n)}"/>'
            for k, v in sections.items()
            for q, n in v
        ]
        return ("<Deck>\n" + "\n".join(rows) + "\n</Deck>\n").encode()
    zones = {
        "Deck": "main",
        "Sideboard": "side",
        "Maybeboard": "tokens",
        "Commander": "main",
        "Companion": "side",
    }
    body = "\n".join(
        f'<zone name="{zones[k]}">'
        + "".join(f'<card number="{q}" name="{esc(n)}"/>' for q, n in v)
        + "</zone>"
        for k, v in sections.items()
    )
    return f"<cockatrice_deck>\n{body}\n</cockatrice_deck>\n".encode()


def _maximal(fmt: str, shape: str, fills: dict[str, str]) -> tuple[str, str, bytes]:
    rng, per = random.Random(11), (MAX_LINES - 10) // len(SECTIONS)
    sections = {
        name: [(1, n) for n in _names(fills.get(name, "any"), per, rng, i * per)]
        for i, name in enumerate(SECTIONS)
    }
    return fmt, shape, render(shape, sections)[:MAX_BYTES]


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(hostile_lists())
@example(_maximal("oathbreaker", "arena", {"Commander": "walkers", "Sideboard": "spells"}))
@example(_maximal("commander", "mtgo", {"Sideboard": "legends", "Commander": "partners"}))
@example(_maximal("brawl", "dek", {"Sideboard": "walkers", "Deck": "legends"}))
@example(
    _maximal(
        "modern",
        "json",
        {
            "Companion": "companions",
            "Deck": "unknown",
            "Sideboard": "companions",
            "Commander": "legends",
        },
    )
)
@example(_maximal("duel", "cod", {"Deck": "long", "Sideboard": "partners"}))
def test_lists_at_the_limits_are_judged_with_bounded_work(case):
    fmt, shape, data = case
    with counted() as work:
        try:
            report = validate(data, fmt, cards=INDEX)
        except DecklistError:
            return  # refused as a whole (e.g. a name so long the JSON has no card): a clean error
    assert isinstance(report, Report)
    json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")
    assert work["pair_problem"].count <= MAX_PAIRS, work["pair_problem"].count
    assert work["permutations"].count <= MAX_ORDERINGS
    assert work["companion_condition_problems"].count <= MAX_CONDITIONS
    assert work["suggestions"].count <= resolve_module.MAX_SUGGESTED_NAMES
    # Every problem is one line, and there are not more problems than input lines.
    assert len(report.problems) <= MAX_LINES + 50
    assert all("\n" not in p.message for p in report.problems)


@pytest.mark.parametrize(
    "fmt, text, counted_name, count",
    [
        # A pair in the Commander section: only the rules judge it (702.124).
        (
            "commander",
            "Commander\n1 Tymna the Weaver\n1 Kraum, Ludevic's Opus\nDeck\n98 Wastes\n",
            "pair_problem",
            1,
        ),
        # Three sideboard partners: designation weighs 3 pairs, then the rules judge the pair kept.
        (
            "commander",
            "98 Wastes\n\n1 Tymna the Weaver\n1 Kraum, Ludevic's Opus\n1 Thrasios, Triton Hero\n",
            "pair_problem",
            4,
        ),
        # Two oathbreakers, two signature spells: both orderings tried.
        (
            "oathbreaker",
            "Commander\n1 Jace, the Mind Sculptor\n1 Liliana, the Last Hope\n"
            "1 Counterspell\n1 Lightning Bolt\nDeck\n56 Island\n",
            "permutations",
            2,
        ),
    ],
)
def test_the_counted_names_are_the_ones_the_code_calls(fmt, text, counted_name, count):
    """`counted` patches each name where the code looks it up: a patch of a name the code no
    longer reads would count nothing, and the bounds above would hold without testing."""
    with counted() as work:
        validate(text, fmt, cards=INDEX)
    assert work[counted_name].count == count


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.binary(max_size=4096) | st.text(max_size=2048).map(str.encode))
def test_any_bytes_give_a_deck_or_a_decklist_error(data):
    try:
        deck = parse_decklist(data)
    except DecklistError:
        return
    validate(deck, "modern", cards=INDEX)
