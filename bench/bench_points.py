"""Benchmark: the cost of a points check per deck. Validates the same Canadian Highlander decks
(100 real cards, a few of them pointed) with a warm card index, once with the format's points
list and once with the same format without it, interleaved in one run, and prints the ratio.

    python bench/bench_points.py [--decks 300] [--rounds 7] [--db cards.sqlite3]

Target (issue 25): a points check must not move the warm throughput measurably (ratio close
to 1.00). Figures are per-deck CPU time (`process_time`: other processes on a shared machine
do not count) of the fastest of the interleaved rounds.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import derived_db, in_turn  # noqa: E402

from validator import api  # noqa: E402
from validator.decklist import parse_decklist  # noqa: E402
from validator.rules.formats import get_format  # noqa: E402
from validator.store.index import CardIndex  # noqa: E402


def make_decks(index: CardIndex, fmt, count: int, seed: int = 25) -> list:
    """`count` decks: 3-6 pointed cards of the list in force, 60 unpointed Vintage-legal
    spells, Islands to 100."""
    rng = random.Random(seed)
    version = fmt.points.in_force(api.date.today())
    pointed = sorted(version.points)
    names = rng.sample(sorted(index.all_names()), 6000)
    pool = sorted(
        {
            card.name
            for found in index.lookup(names).values()
            for card in found[:1]
            if len(found) == 1
            and "Land" not in card.type_line
            and " // " not in card.name
            and card.legalities.get("vintage") == "legal"
            and not version.cost(card.name)
        }
    )
    decks = []
    for _ in range(count):
        chosen = rng.sample(pointed, rng.randint(3, 6)) + rng.sample(pool, 60)
        decks.append("\n".join(f"1 {n}" for n in chosen) + f"\n{100 - len(chosen)} Island\n")
    return decks


def per_deck(decks, fmt, index) -> float:
    started = time.process_time()
    for deck in decks:
        api.validate(deck, fmt, cards=index)
    return (time.process_time() - started) / len(decks)


def compare(decks, with_points, without, index, rounds: int) -> tuple[float, float]:
    """The least per-deck seconds over the rounds with and without points, interleaved
    (alternating which goes first, so that drift on a shared machine falls on both; the least
    is the run other processes disturbed least)."""
    a, b = [], []
    for i in range(rounds):
        for out, fmt in in_turn([(a, with_points), (b, without)], i):
            out.append(per_deck(decks, fmt, index))
    return min(a), min(b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decks", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args()
    db = args.db or derived_db()
    source = api.open_db(str(db))
    index = CardIndex.from_db(source)
    with_points = get_format("canadianhighlander")
    without = dataclasses.replace(with_points, points=None)
    texts = make_decks(index, with_points, args.decks)
    parsed = [parse_decklist(t) for t in texts]
    for decks in (texts, parsed):  # warm: every card built, every cost cached
        per_deck(decks, with_points, index)
        per_deck(decks, without, index)
    print(f"decks: {len(texts)} x {args.rounds} rounds (100 cards, 3-6 pointed), warm index")
    for label, decks in (("from text", texts), ("parsed Deck", parsed)):
        ma, mb = compare(decks, with_points, without, index, args.rounds)
        print(
            f"{label:<12} with points {ma * 1e3:.3f} ms/deck, without {mb * 1e3:.3f} ms/deck: "
            f"ratio {ma / mb:.3f} (points check {(ma - mb) * 1e6:+.1f} us/deck)"
        )
    from validator.rules.points import points_problems
    from validator.rules.resolve import resolve

    resolved = [resolve(parse_decklist(t), index) for t in texts]
    day = api.date.today()
    alone = float("inf")
    for _ in range(args.rounds):
        started = time.process_time()
        for r in resolved:
            points_problems(r, with_points, day)
        alone = min(alone, (time.process_time() - started) / len(resolved))
    print(f"the points check alone (resolved deck): {alone * 1e6:.1f} us/deck")

    # Old School 93/94: its dated lists and legal sets against the card data's `oldschool`
    # key alone. The derived card data has no printings, so this is the sets-unchecked path
    # (one printings look-up per deck, every card named in the problem).
    old_school = get_format("oldschool")
    key_only = dataclasses.replace(old_school, lists=None, banned=frozenset(), name_status={})
    ma, mb = compare(parsed, old_school, key_only, index, args.rounds)
    print(
        f"Old School   with lists and sets {ma * 1e3:.3f} ms/deck, key only {mb * 1e3:.3f} "
        f"ms/deck: ratio {ma / mb:.3f} ({(ma - mb) * 1e6:+.1f} us/deck)"
    )

    # check_formats judges a deck in every format: the formats this list data added (two
    # points formats, European Highlander's dated ban list, the Old School formats' dated lists
    # and legal sets) are extra work there; measured against the same formats without them
    # (Old School 93/94 as the card data's `oldschool` key alone, as it was before).
    from validator.rules.formats import load_formats

    every = load_formats()
    new = (
        "canadianhighlander",
        "australianhighlander",
        "europeanhighlander",
        "oldschoolcfb",
        "oldschoolec",
        "oldschooleg",
        "oldschoolitalian",
    )
    before = {k: f for k, f in every.items() if k not in new}
    before["oldschool"] = dataclasses.replace(
        every["oldschool"], lists=None, banned=frozenset(), name_status={}
    )
    sample = parsed[:50]
    timing = {"with": float("inf"), "without": float("inf")}
    for i in range(args.rounds):
        for label, formats in in_turn((("with", every), ("without", before)), i):
            started = time.process_time()
            for deck in sample:
                api.check_formats(deck, cards=index, formats=formats)
            timing[label] = min(timing[label], (time.process_time() - started) / len(sample))
    print(
        f"check_formats, {len(every)} formats: {timing['with'] * 1e3:.3f} ms/deck; "
        f"without the {len(new)} added (and Old School's lists): "
        f"{timing['without'] * 1e3:.3f} ms/deck "
        f"(ratio {timing['with'] / timing['without']:.3f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
