"""Benchmark: the CPU of `check_formats` (one deck against all 22 formats) for hostile lists.

    python bench/bench_check_formats.py                       # the companion cases below
    python bench/bench_check_formats.py --case legacy-companion-umori --repeat 5
    python bench/bench_check_formats.py --file list.txt       # a decklist file as well

`check-formats` (CLI, and the service's POST /v1/check-formats) judges one deck against every
format. A hostile 98 KB list (bench_hostile's `legacy-companion-umori`: 4,900 cards, Umori
declared, two companion cards in the sideboard) cost 4.5-5.7 s of CPU: each format weighed the
same companion conditions against the same starting deck again (48 evaluations for 5 distinct
ones). Both ways are run here, alternating, in the same run (the machine is noisy):

* baseline: every format evaluates the conditions itself (`shared_findings` switched off);
* now: `check_formats` as it is (conditions evaluated once per starting deck and deck facts).

Each is timed with `time.process_time` (the least of --repeat runs, each after a full garbage
collection; the card index is frozen out of the collector's reach first, as the service does), and the two answers are compared (every report as JSON): they must be the same.
Prints CPU per case and the ratio now / baseline. Without ../shared/data (and no --db) it says
so and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hostile import CARD_FILE, Pool, cases  # noqa: E402
from common import derived_db  # noqa: E402

DEFAULT_CASES = (
    "legacy-companion-umori",
    "legacy-companion-kaheera",
    "commander-companion-zirda",
    "duel-companions",
    "constructed-max-lines",
)


def _answer(reports) -> str:
    return json.dumps([r.to_dict() for r in reports], ensure_ascii=False, sort_keys=True)


def _run(data: bytes, index, shared: bool) -> tuple[float, str]:
    import validator.rules.companion.checks as checks
    from validator.api import check_formats

    real = checks.shared_findings
    if not shared:
        checks.shared_findings = contextlib.nullcontext  # the baseline: nothing shared
    try:
        gc.collect()
        start = time.process_time()
        reports = check_formats(data, cards=index)
        return time.process_time() - start, _answer(reports)
    finally:
        checks.shared_findings = real


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="a synced card database (default: derived file)")
    parser.add_argument("--case", action="append", help="bench_hostile cases (repeatable)")
    parser.add_argument("--file", type=Path, action="append", help="decklist files (repeatable)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each way; the least counts")
    args = parser.parse_args(argv)

    if args.db is None and not CARD_FILE.is_file():
        print(f"SKIP: the full-size card file is absent ({CARD_FILE})")
        return 0
    from validator.api import check_formats
    from validator.store.database import CardDB
    from validator.store.index import CardIndex

    db = CardDB(args.db or derived_db(CARD_FILE))
    index = CardIndex.from_db(db)
    pool = Pool(card for _, card in db.all_cards())
    builders = cases(pool, None)
    inputs: dict[str, bytes] = {}
    for name in args.case or ([] if args.file else list(DEFAULT_CASES)):
        inputs[name] = builders[name]()[1].encode("utf-8")
    for path in args.file or []:
        inputs[path.name] = path.read_bytes()
    check_formats("1 Island\n", cards=index)  # lazy imports outside the timing
    for companion in pool.companions:  # the condition grammar, built once per process
        check_formats(f"Companion\n1 {companion.name}\n", cards=index)
    del pool
    gc.collect()
    gc.freeze()  # as the service does with its card data (validator/service/cards.py)

    print(
        f"{'case':<32} {'bytes':>9} {'baseline CPU s':>15} {'now CPU s':>10} {'now/base':>9}"
        "  same answer"
    )
    total = [0.0, 0.0]
    same_everywhere = True
    for name, data in inputs.items():
        best = [float("inf"), float("inf")]
        answers: list[str] = ["", ""]
        for _ in range(args.repeat):
            for way in (0, 1):  # alternating: both ways see the same machine
                seconds, answers[way] = _run(data, index, shared=bool(way))
                best[way] = min(best[way], seconds)
        same = answers[0] == answers[1]
        same_everywhere &= same
        total[0] += best[0]
        total[1] += best[1]
        print(
            f"{name:<32} {len(data):>9,} {best[0]:>15.3f} {best[1]:>10.3f} "
            f"{best[1] / best[0]:>9.2f}  {'yes' if same else 'NO'}",
            flush=True,
        )
    print(
        f"{'total':<32} {'':>9} {total[0]:>15.3f} {total[1]:>10.3f} "
        f"{total[1] / total[0]:>9.2f}  {'yes' if same_everywhere else 'NO'}"
    )
    db.close()
    return 0 if same_everywhere else 1


if __name__ == "__main__":
    sys.exit(main())
