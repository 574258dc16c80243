"""Where one illegal card can hide: Black Lotus placed in every section name, header spelling,
board and category each decklist reader knows or could be sent, beside a legal 60-card Modern
deck of the test cards (tests/support.py `placements`). Prints how many placements were
counted, reported, refused and silent (legal with nothing said), and the silent ones.

    python bench/bench_placements.py [--code DIR] [--show silent|reported|...]

`--code DIR` measures other code (a checkout of another commit: `git worktree add DIR REV`)
with this tree's placements. No shared data needed: the fixture cards are enough.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", help="a checkout whose validator/ to measure")
    parser.add_argument("--show", default="silent", help="list the placements of this outcome")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(Path(args.code).resolve() if args.code else ROOT))
    from support import load_cards, placement_outcome, placements

    import validator
    from validator.store.index import CardIndex

    cards = CardIndex(((), c) for c in load_cards("cards_core.json").values())
    outcomes = Counter()
    shown = []
    for where, decklist in placements():
        outcome = placement_outcome(validator.validate, decklist, cards)
        outcomes[outcome] += 1
        if outcome == args.show:
            shown.append(where)
    total = sum(outcomes.values())
    print(f"code: {Path(validator.__file__).parent}")
    print(
        f"{total} placements: "
        + ", ".join(f"{outcomes[k]} {k}" for k in ("counted", "reported", "refused", "silent"))
    )
    for where in shown:
        print(f"  {args.show}: {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
