"""Benchmark: `validator.recheck` over the MTGO bulk decks stored as rows.

    python bench/bench_recheck.py                # all 81,883 decks
    python bench/bench_recheck.py --sample 10000 # the first N decks

The decks are written as JSON Lines rows (id, format, decklist text; a deck of a format
deckcheck does not map is stored as Vintage). Then, in one process, all measured with
`time.process_time` in the same run:

1. the first run: every deck judged and STATE written (full-run throughput);
2. a re-check with nothing changed (target: under 2 s of CPU);
3. a real sync of the full card file with one card banned in one format, the card chosen so
   that about 2% of the decks hold it in that format; then the re-check (targets: at most
   1/20 of a full revalidation's CPU, at most 2x judging the affected decks alone), run
   `--repeat` times on copies of STATE as the sync left it, alternating with the affected
   decks alone: the ratios are of the medians, every run's figure printed;
4. the baselines, each opening the database and loading its card source inside its timing,
   as the re-check does: a full revalidation (every deck parsed and judged with an index of
   every card), and the affected decks alone, judged with the card source a re-check picks
   for that many decks (`rechecking.judging`: an index of the cards they name, for a few
   thousand; the 2x target's baseline) and, for comparison, with the event runs' (an index of
   every card);
5. STATE's size (target: under 50 MB) and that the re-checked STATE equals a from-scratch one.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    BULK_DECKS,
    DERIVED_FILE,
    derived_db,
    format_key,
    iter_bulk_decks,
    render_mtgo_text,
)


def cpu() -> float:
    return time.process_time()


def write_rows(path: Path, sample: int | None) -> list[dict]:
    rows = []
    for n, d in enumerate(iter_bulk_decks(BULK_DECKS)):
        if sample is not None and n >= sample:
            break
        fmt = format_key(d.get("format"), d.get("src") or "") or "vintage"
        rows.append(
            {"id": f"deck-{n}", "format": fmt, "decklist": render_mtgo_text(d["main"], d["side"])}
        )
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return rows


def pick_card(rows: list[dict], db: Path) -> tuple[str, str, int]:
    """The (card, format) pair held by the number of decks closest to 2% of them, among cards
    legal in that format's legality key."""
    import validator
    from validator.rules.formats import get_format

    holding: Counter[tuple[str, str]] = Counter()
    for row in rows:
        names = set()
        for line in row["decklist"].splitlines():
            count, _, name = line.partition(" ")
            if count.isdigit() and name:
                names.add(name)
        for name in names:
            holding[(name, row["format"])] += 1
    target = 0.02 * len(rows)
    cards = validator.open_db(str(db))
    try:
        for (name, fmt), count in sorted(holding.items(), key=lambda kv: abs(kv[1] - target)):
            card = cards.card(name)
            if card is None or name in ("Island", "Mountain", "Forest", "Plains", "Swamp"):
                continue
            key = get_format(fmt).legality
            if card.legalities.get(key) == "legal":
                return name, key, count
    finally:
        cards.close()
    raise SystemExit("no card to ban")


def sync_with_ban(db: Path, name: str, key: str, workdir: Path) -> float:
    """Sync the full card file again with `name` banned in `key` (a real sync: the change log
    records it); returns its wall seconds (not part of any ratio)."""
    from validator.sync import import_file

    changed = workdir / "oracle-cards-derived-20260901.jsonl.gz"
    with gzip.open(DERIVED_FILE, "rt", encoding="utf-8") as src:
        with gzip.open(changed, "wt", encoding="utf-8", compresslevel=1) as out:
            for line in src:
                if f'"name":"{name}"' in line or f'"name": "{name}"' in line:
                    card = json.loads(line)
                    if card.get("name") == name:
                        card["legalities"][key] = "banned"
                        line = json.dumps(card) + "\n"
                out.write(line)
    started = time.perf_counter()
    import_file(changed, str(db))
    return time.perf_counter() - started


def stored(state: Path) -> dict:
    conn = sqlite3.connect(state)
    try:
        return {
            i: (v, p) for i, v, p in conn.execute("SELECT id, verdict, problems FROM recheck_decks")
        }
    finally:
        conn.close()


def full_revalidation(rows: list[dict], db: Path) -> float:
    import validator

    start = cpu()
    cards = validator.CardIndex.from_db(validator.open_db(str(db)))
    for row in rows:
        try:
            validator.validate(
                validator.parse_decklist(row["decklist"]), row["format"], cards=cards
            )
        except validator.DeckcheckError:
            pass
    return cpu() - start


def affected_alone(rows: list[dict], ids: set[str], db: Path, *, named: bool) -> float:
    """Judging the affected decks and nothing else. `named`: with the card source a re-check
    picks for that many decks (an index of only the cards they name, for some thousands: the
    cheapest, so that the ratio is the re-check's own overhead); else with the event runs'
    cost model (an index of every card past a few dozen decks)."""
    import validator
    from validator.event.run import use_index
    from validator.rechecking.judging import named_cards, reads_named_cards

    chosen = [r for r in rows if r["id"] in ids]
    start = cpu()
    database = validator.open_db(str(db))
    decks = [validator.parse_decklist(row["decklist"]) for row in chosen]
    cards = database
    if use_index(len(chosen)):
        if named and reads_named_cards(database, len(chosen)):
            cards = named_cards(database, decks)
        else:
            cards = validator.CardIndex.from_db(database)
    for row, deck in zip(chosen, decks):
        validator.validate(deck, row["format"], cards=cards)
    spent = cpu() - start
    database.close()
    return spent


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sample", type=int, default=None, help="only the first N decks")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--profile", action="store_true", help="profile the re-check after the sync")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="re-checks after the sync (each on a copy of STATE as the sync left it), each "
        "followed by the affected decks alone: the ratios are of the medians (default 3)",
    )
    args = ap.parse_args()
    if not BULK_DECKS.is_file() or not DERIVED_FILE.is_file():
        print(f"shared data not found: {BULK_DECKS} / {DERIVED_FILE}", file=sys.stderr)
        return 2
    import validator

    work = Path(tempfile.mkdtemp(prefix="bench-recheck-"))
    try:
        db = work / "cards.sqlite3"
        shutil.copy(derived_db(), db)
        decks = work / "decks.jsonl"
        rows = write_rows(decks, args.sample)
        n = len(rows)
        state = work / "state.sqlite3"
        print(f"{n} decks as rows in {decks.stat().st_size / 1e6:.1f} MB of JSON Lines")

        start = cpu()
        first = validator.recheck(str(decks), state=state, db=str(db))
        t_first = cpu() - start
        print(
            f"first run:           {t_first:7.2f} s CPU  ({n / t_first:,.0f} decks per CPU-second; "
            f"{len(first.failures)} rows not judged)"
        )
        size = state.stat().st_size
        print(
            f"STATE:               {size / 1e6:7.1f} MB  (target < 50 MB: {'PASS' if size < 50e6 else 'MISS'})"
        )

        start = cpu()
        noop = validator.recheck(str(decks), state=state, db=str(db))
        t_noop = cpu() - start
        rejudged = sum(s.rejudged for s in noop.summary.values())
        print(
            f"nothing changed:     {t_noop:7.2f} s CPU  ({rejudged} re-judged; target < 2 s: "
            f"{'PASS' if t_noop < 2 else 'MISS'})"
        )

        name, key, holding = pick_card(rows, db)
        took = sync_with_ban(db, name, key, work)
        print(
            f"sync banning {name} in {key} ({holding} decks, {100 * holding / n:.1f}%): "
            f"{took:.0f} s wall (not measured)"
        )

        if args.profile:  # where the re-check's time goes, on a copy of STATE (not timed)
            import cProfile
            import pstats

            copy = work / "profiled.sqlite3"
            shutil.copy(state, copy)
            profiler = cProfile.Profile()
            profiler.runcall(validator.recheck, str(decks), state=copy, db=str(db))
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        before = work / "synced-state.sqlite3"
        shutil.copy(state, before)
        start = cpu()
        after = validator.recheck(str(decks), state=state, db=str(db))
        re_runs = [cpu() - start]
        affected = {c.id for c in after.changed}
        rejudged_ids = sum(s.rejudged for s in after.summary.values())

        t_full = full_revalidation(rows, db)
        print(f"full revalidation:   {t_full:7.2f} s CPU  ({n / t_full:,.0f} decks per CPU-second)")
        conn = sqlite3.connect(state)
        touched = {i for (i,) in conn.execute(
            "SELECT d.id FROM recheck_decks d JOIN recheck_deck_cards dc ON dc.deck_no = d.deck_no "
            "JOIN recheck_cards c ON c.card_no = dc.card_no JOIN json_each(?) j ON j.value = c.oracle_id "
            "WHERE d.legality = ?",
            (json.dumps([validator.open_db(str(db)).card(name).oracle_id]), key),
        )}  # fmt: skip
        conn.close()
        ids = touched | affected
        # The machine is shared: the re-check and its 2x baseline alternate, and the ratio is
        # of their medians (each run's figures printed).
        alone_runs = [affected_alone(rows, ids, db, named=True)]
        for _ in range(args.repeat - 1):
            shutil.copy(before, state)
            start = cpu()
            validator.recheck(str(decks), state=state, db=str(db))
            re_runs.append(cpu() - start)
            alone_runs.append(affected_alone(rows, ids, db, named=True))
        t_re, t_alone = statistics.median(re_runs), statistics.median(alone_runs)
        shown = lambda runs: ", ".join(f"{t:.2f}" for t in runs)  # noqa: E731
        print(
            f"re-check:            {t_re:7.2f} s CPU  ({rejudged_ids} re-judged, "
            f"{len(after.changed)} verdicts changed; median of {shown(re_runs)})"
        )
        t_every = affected_alone(rows, ids, db, named=False)
        print(f"affected alone:      {t_every:7.2f} s CPU  ({len(ids)} decks, every card loaded)")
        print(
            f"affected alone:      {t_alone:7.2f} s CPU  ({len(ids)} decks, the cards they name; "
            f"median of {shown(alone_runs)})"
        )
        print(
            f"re-check / full revalidation: {t_re / t_full:.3f}  (target <= 0.050: "
            f"{'PASS' if t_re / t_full <= 0.05 else 'MISS'})"
        )
        print(
            f"re-check / affected alone:    {t_re / t_alone:.2f}x  (target <= 2x: "
            f"{'PASS' if t_re / t_alone <= 2 else 'MISS'}; {t_re / t_every:.2f}x judging them "
            "with every card loaded, as the event runs do)"
        )

        fresh = work / "fresh.sqlite3"
        validator.recheck(str(decks), state=fresh, db=str(db))
        same = stored(state) == stored(fresh)
        print(f"re-checked STATE equals a from-scratch one: {'yes' if same else 'NO'}")
        return 0 if same else 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
