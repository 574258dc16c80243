"""The verdicts of the real MTGO decks: every bulk deck (`decklists/bulk/`) of the six formats
with real legalities (standard, pioneer, modern, legacy, vintage, pauper), judged as of its own
date with a warm `CardIndex` on the full derived card file (cached by `common.derived_db`, the
`deckcheck sync --from` import). Prints how many are legal, illegal and unconfirmed, and the
unknown names most decks use.

    python bench/bench_verdicts.py [--code DIR] [--limit N]

`--code DIR` judges with other code (a checkout of another commit: `git worktree add DIR
REV`); code without verdicts counts "unconfirmed" as 0, and prints how many of its illegal
decks have unknown-card errors only (the decks the verdict calls unconfirmed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from common import derived_db  # noqa: E402

SIX = ("standard", "pioneer", "modern", "legacy", "vintage", "pauper")

#: Run in a fresh process with the measured code first on the path.
PROGRAM = r"""
import json, sys
from collections import Counter
sys.path.insert(1, sys.argv[2])
from common import iter_bulk_decks, format_key, render_mtgo_text
import validator
print("code:", validator.__file__, file=sys.stderr)
six, limit = set(sys.argv[3].split(",")), int(sys.argv[4])
index = validator.CardIndex.from_db(validator.open_db(sys.argv[1]))
counts, unknown_only, names, decks = Counter(), 0, Counter(), 0
for obj in iter_bulk_decks():
    fmt = format_key(obj.get("format"), obj.get("src") or "")
    if fmt not in six:
        continue
    decks += 1
    if limit and decks > limit:
        break
    report = validator.validate(validator.parse_decklist(
        render_mtgo_text(obj["main"], obj["side"])), fmt, cards=index, as_of=obj["date"])
    verdict = getattr(report, "verdict", None) or ("legal" if report.legal else "illegal")
    counts[verdict] += 1
    errors = [p for p in report.problems if p.severity.value == "error"]
    if errors and all(p.code == "unknown-card" for p in errors):
        unknown_only += 1
        names.update({n for p in errors for n in p.message.split("'")[1:2]})
print(json.dumps({"decks": sum(counts.values()), "verdicts": counts,
                  "unknown_card_only": unknown_only, "unknown_names": len(names),
                  "top_names": names.most_common(8)}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", help="a checkout whose validator/ to measure")
    parser.add_argument("--limit", type=int, default=0, help="at most this many decks")
    args = parser.parse_args()
    code = Path(args.code).resolve() if args.code else ROOT
    db = derived_db()
    run = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(db), str(HERE), ",".join(SIX), str(args.limit)],
        env={"PYTHONPATH": str(code), "DECKCHECK_NO_PROGRESS": "1", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        cwd=str(HERE),  # not the checkout: `python -c` puts the working folder first on the path
    )
    if run.returncode:
        print(run.stderr, file=sys.stderr)
        return 1
    out = json.loads(run.stdout)
    v = out["verdicts"]
    print(f"code: {code}")
    print(
        f"{out['decks']:,} decks as of their dates: {v.get('legal', 0):,} legal, "
        f"{v.get('illegal', 0):,} illegal, {v.get('unconfirmed', 0):,} unconfirmed"
    )
    print(
        f"  {out['unknown_card_only']:,} decks whose only errors are unknown-card "
        f"({out['unknown_names']} names; most used: "
        + ", ".join(f"{n} ({c})" for n, c in out["top_names"])
        + ")"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
