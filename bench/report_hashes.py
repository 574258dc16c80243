"""Behaviour unchanged, proven: a hash of every report deckcheck writes for the real corpora.

    python bench/report_hashes.py                       # this checkout's hashes
    python bench/report_hashes.py --baseline /tmp/old   # ... and an older tree's, compared
    python bench/report_hashes.py --code /tmp/new --baseline /tmp/old   # two other trees

`--baseline DIR` is a source tree of older deckcheck code (`git archive REV | tar -x -C DIR`).
Both trees judge, each in a fresh process with its own code first on the path and the same card
database:

* bulk: the 81,883 MTGO decks of `decklists/bulk/` through the library API (`parse_decklist`,
  `validate` with a `CardIndex`), rendered as MTGO text; the sha256 of each report's JSON
  (sorted keys) folded into one digest;
* tournaments-json: `deckcheck validate decklists/tournaments --as-of event --json` (2,236
  decks of real event files judged as of their dates): the sha256 of its standard output and
  its exit code;
* tournaments-text: the same run's text output (what a person at a terminal sees).

Prints one line per corpus with the hashes, and exits 1 when a baseline is given and any hash
differs. The card database is built once from the full derived card file (cached under
/tmp/deckcheck-bench/, like the other benchmarks) by the checkout's code.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from common import BULK_DECKS, SHARED_DATA, derived_db  # noqa: E402

TOURNAMENTS = SHARED_DATA / "decklists" / "tournaments"

#: Run inside the measured tree: only the public API, so old and new layouts both answer.
BULK_PROGRAM = r"""
import hashlib, json, sys
sys.path.insert(1, sys.argv[2])
from common import iter_bulk_decks, format_key, render_mtgo_text
import validator
index = validator.CardIndex.from_db(validator.open_db(sys.argv[1]))
digest, count, legal = hashlib.sha256(), 0, 0
for obj in iter_bulk_decks():
    fmt = format_key(obj.get("format"), obj.get("src") or "") or "vintage"
    report = validator.validate(validator.parse_decklist(
        render_mtgo_text(obj["main"], obj["side"])), fmt, cards=index)
    digest.update(hashlib.sha256(json.dumps(report.to_dict(), sort_keys=True,
                                            ensure_ascii=False).encode()).hexdigest().encode())
    count += 1
    legal += report.legal
print(json.dumps({"decks": count, "legal": legal, "digest": digest.hexdigest()}))
"""


def _env(code: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(code), DECKCHECK_NO_PROGRESS="1")
    env.pop("DECKCHECK_DB", None)
    return env


#: The measured processes run here: `python -c` and `python -m` put their working directory
#: first on sys.path, so run from a checkout they would import its code whatever PYTHONPATH
#: says, and both trees would be the same code.
NEUTRAL = Path("/")


def _imports_from(code: Path) -> None:
    """Fail loudly unless a measured process imports `validator` from `code`."""
    where = subprocess.run(
        [sys.executable, "-c", "import validator; print(validator.__file__)"],
        env=_env(code),
        cwd=NEUTRAL,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(where).resolve().is_relative_to(code.resolve()):
        sys.exit(f"measuring {code} would import validator from {where}")


def measure(code: Path, db: Path) -> dict[str, str]:
    """The three hashes of one source tree."""
    _imports_from(code)
    bulk = subprocess.run(
        [sys.executable, "-c", BULK_PROGRAM, str(db), str(HERE)],
        env=_env(code),
        cwd=NEUTRAL,
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(bulk.stdout)
    hashes = {"bulk": f"{out['digest']} ({out['decks']} decks, {out['legal']} legal)"}
    for name, extra in (("tournaments-json", ["--json"]), ("tournaments-text", [])):
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "validator",
                "validate",
                str(TOURNAMENTS),
                "--as-of",
                "event",
                "--db",
                str(db),
                "--jobs",
                "1",
                *extra,
            ],
            env=_env(code),
            capture_output=True,
            cwd=NEUTRAL,
        )
        if run.returncode == 2:
            sys.exit(f"{code}: validate failed: {run.stderr.decode(errors='replace')[-2000:]}")
        digest = hashlib.sha256(run.stdout).hexdigest()
        hashes[name] = f"{digest} (exit {run.returncode}, {len(run.stdout):,} bytes)"
    return hashes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, help="an older source tree to compare with")
    ap.add_argument(
        "--code",
        type=Path,
        default=ROOT,
        help="the source tree measured as the checkout (default: this one)",
    )
    args = ap.parse_args()
    if not BULK_DECKS.is_file() or not TOURNAMENTS.is_dir():
        print(f"skipped: the real corpora are not here ({BULK_DECKS.parent})")
        return 0
    db = derived_db()
    trees = [("checkout", args.code)] + ([("baseline", args.baseline)] if args.baseline else [])
    results = {label: measure(code, db) for label, code in trees}
    for corpus in results["checkout"]:
        for label, _ in trees:
            print(f"{corpus:17} {label:9} {results[label][corpus]}")
    if args.baseline:
        same = results["checkout"] == results["baseline"]
        print("identical" if same else "DIFFERENT: behaviour changed")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
