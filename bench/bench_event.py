"""Benchmark: a whole event folder in ONE `deckcheck validate` invocation (HTML and CSV
reports) against the same work through the API in one process, measured in the same run.

    python bench/bench_event.py [--repeat 3] [--jobs N] [--db cards.sqlite3]

The work: every deck of the 53 event files in ../shared/data/decklists/tournaments/ (2,220
decks, mixed formats), each judged as of its event date, through a manifest (file, format,
as_of: MTGO's "Commander" events are Duel Commander, which only the manifest can say), with an
HTML and a CSV report. The API side does the same in-process: `event.collect` +
`event.run_event` + the two reports (and, for reference, a bare loop of `validate` calls with
a `CardIndex`). Figures are CPU seconds (this process, or the CLI process and its children)
and wall seconds; the target is the CLI within 1.2x of the in-process API.

Without --db the card database is imported once from the full-size derived card file and
cached (bench/common.py).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SHARED_DATA, derived_db, format_key  # noqa: E402

TOURNAMENTS = SHARED_DATA / "decklists" / "tournaments"
TARGET = 1.2


def write_manifest(path: Path) -> tuple[int, int]:
    """A manifest of every event file; returns (decks, event files)."""
    items = json.loads((TOURNAMENTS / "MANIFEST.json").read_text(encoding="utf-8"))
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["file", "format", "as_of"])
        for item in items:
            w.writerow([str(TOURNAMENTS.parent / item["file"]),
                        format_key(item["format"], item["file"]), item["date"][:10]])
    return sum(item["decks"] for item in items), len(items)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_cli(manifest: Path, db: Path, out: Path, jobs: int | None) -> tuple[float, float, str]:
    cmd = [sys.executable, "-m", "validator", "validate", str(manifest), "--db", str(db),
           "--report", str(out / "cli.html"), "--report", str(out / "cli.csv")]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    c0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"CLI failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return cpu, wall, proc.stdout.strip().splitlines()[-2]


def run_api(manifest: Path, db: Path, out: Path) -> tuple[float, float, str]:
    from validator.event import collect, run_event
    from validator.eventreport import write_event_report

    c0, t0 = self_cpu(), time.perf_counter()
    result = run_event(collect([str(manifest)]), db=str(db), jobs=1)
    write_event_report(out / "api.html", result)
    write_event_report(out / "api.csv", result)
    wall, cpu = time.perf_counter() - t0, self_cpu() - c0
    s = result.summary()
    return cpu, wall, f"{s['legal']} of {s['legal'] + s['illegal']} decks legal"


def run_bare(manifest: Path, db: Path) -> tuple[float, float]:
    """The validations alone: a CardIndex and one validate() per deck, no reports."""
    from validator.api import legality_history, validate
    from validator.db import CardDB
    from validator.resolve import CardIndex

    rows = list(csv.DictReader(manifest.open(encoding="utf-8")))
    decks = []
    for row in rows:
        data = json.loads(Path(row["file"]).read_text(encoding="utf-8"))
        for d in data["Decks"]:
            deck = {"main": [[c["Count"], c["CardName"]] for c in d.get("Mainboard") or []],
                    "sideboard": [[c["Count"], c["CardName"]] for c in d.get("Sideboard") or []]}
            decks.append((json.dumps(deck), row["format"], row["as_of"]))
    c0, t0 = self_cpu(), time.perf_counter()
    database = CardDB(db)
    index = CardIndex.from_db(database)
    history = legality_history(database)
    for text, fmt, as_of in decks:
        validate(text, fmt, cards=index, as_of=as_of, history=history)
    database.close()
    return self_cpu() - c0, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, help="card database (default: built from the derived file)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=None,
                    help="--jobs for the CLI (default: deckcheck's default, the cores)")
    args = ap.parse_args()
    if not TOURNAMENTS.is_dir():
        raise SystemExit(f"shared data not available: {TOURNAMENTS}")
    db = args.db or derived_db()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        manifest = out / "manifest.csv"
        decks, files = write_manifest(manifest)
        print(f"{decks} decks in {files} event files; "
              f"database {db}; {os.cpu_count()} cores; loadavg {os.getloadavg()[0]:.1f}")
        cli1, clin, api, bare = [], [], [], []
        for i in range(args.repeat):
            # Interleaved, so that load on the shared machine hits every variant alike.
            cli1.append(run_cli(manifest, db, out, 1))
            clin.append(run_cli(manifest, db, out, args.jobs))
            api.append(run_api(manifest, db, out))
            bare.append(run_bare(manifest, db))
        same = ((out / "cli.csv").read_bytes() == (out / "api.csv").read_bytes()
                and (out / "cli.html").read_bytes() == (out / "api.html").read_bytes())

    def med(runs, k):
        return statistics.median(r[k] for r in runs)

    print(f"{'run':<34} {'CPU s':>7} {'wall s':>7}  verdicts")
    print(f"{'CLI, one process (--jobs 1)':<34} {med(cli1, 0):>7.2f} {med(cli1, 1):>7.2f}  {cli1[-1][2]}")
    print(f"{'CLI, default --jobs':<34} {med(clin, 0):>7.2f} {med(clin, 1):>7.2f}  {clin[-1][2]}")
    print(f"{'API in-process (event + reports)':<34} {med(api, 0):>7.2f} {med(api, 1):>7.2f}  {api[-1][2]}")
    print(f"{'API bare validate() loop':<34} {med(bare, 0):>7.2f} {med(bare, 1):>7.2f}")
    print(f"reports of the CLI and the API byte-identical: {same}")
    for label, runs in (("CLI --jobs 1", cli1), ("CLI default --jobs", clin)):
        ratio_cpu = med(runs, 0) / med(api, 0)
        ratio_wall = med(runs, 1) / med(api, 1)
        ok = "PASS" if min(ratio_cpu, ratio_wall) <= TARGET else "MISS"
        print(f"{label} / API: CPU {ratio_cpu:.2f}x, wall {ratio_wall:.2f}x "
              f"(target <= {TARGET}x) {ok}")
    if not same:
        raise SystemExit("the CLI and the API wrote different reports")


if __name__ == "__main__":
    main()
