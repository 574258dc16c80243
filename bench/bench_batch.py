"""Benchmark: no cliff in the batch path. `deckcheck validate` picks its card source by cost
(validator/event/run.py `use_index`: query the database per deck, or load the in-memory index once);
this script measures the cost model's constants on this machine and the CPU of cold CLI runs
around the old threshold (25/26 files) and around the model's break-even, in the same run.

    python bench/bench_batch.py [--repeat 3] [--db cards.sqlite3] [--sizes 25,26,...]

Target: 26 files cost about 26/25 of 25 files (and likewise at the break-even).
Figures are CPU seconds of the CLI process (user + system), the least of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SHARED_DATA, children_cpu, derived_db, installed_env, render_mtgo_text  # noqa: E402

EVENT = (
    SHARED_DATA
    / "decklists"
    / "tournaments"
    / "MTGmelee"
    / "uper-unday-rcq-modern-scg-con-milwaukee-sunday-1000-am-395229-2026-02-22.json"
)


def cli_cpu(files: list[Path], db: Path, source: str | None = None) -> float:
    env = installed_env()  # as an installed deckcheck runs: its bytecode compiled once
    env.pop("DECKCHECK_CARD_SOURCE", None)
    if source:
        env["DECKCHECK_CARD_SOURCE"] = source  # force one path (validator/event/run.py)
    c0 = children_cpu()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "validator",
            "validate",
            *map(str, files),
            "--format",
            "modern",
            "--db",
            str(db),
            "--jobs",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr[-2000:])
    return children_cpu() - c0


def constants(texts: list[str], db: Path) -> dict[str, float]:
    """DB_DECK_S, WARM_DECK_S and INDEX_LOAD_S as validator/event/run.py defines them."""
    from validator.api import validate
    from validator.store.database import CardDB
    from validator.store.index import CardIndex

    cpu = time.process_time
    database = CardDB(db)
    validate(texts[0], "modern", cards=database)  # imports, first connection
    t = cpu()
    for text in texts:
        validate(text, "modern", cards=database)
    db_deck = (cpu() - t) / len(texts)
    t = cpu()
    index = CardIndex.from_db(database)
    load = cpu() - t
    t = cpu()
    for text in texts:
        validate(text, "modern", cards=index)
    warm = (cpu() - t) / len(texts)
    database.close()
    return {"DB_DECK_S": db_deck, "WARM_DECK_S": warm, "INDEX_LOAD_S": load}


def main() -> None:
    from validator.event import run as event

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="")
    args = ap.parse_args()
    if not EVENT.is_file():
        raise SystemExit(f"shared data not available: {EVENT}")
    db = args.db or derived_db()
    decks = json.loads(EVENT.read_text(encoding="utf-8"))["Decks"]
    texts = [
        render_mtgo_text(
            [[c["Count"], c["CardName"]] for c in d["Mainboard"]],
            [[c["Count"], c["CardName"]] for c in d.get("Sideboard") or []],
        )
        for d in decks
    ]
    measured = constants(texts[:100], db)
    print("in-process figures (for reference), vs validator/event/run.py:")
    for key, value in measured.items():
        print(f"  {key:<13} {value:8.4f} s   (event.py: {getattr(event, key):.4f} s)")
    b = next(n for n in range(1, 10**5) if event.use_index(n))
    sizes = [int(s) for s in args.sizes.split(",") if s] or [24, 25, 26, 27, b - 2, b - 1, b, b + 1]
    small, large = 50, 800
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i in range(max(sizes + [large])):
            path = Path(tmp) / f"deck{i:04d}.txt"
            path.write_text(texts[i % len(texts)], encoding="utf-8")
            files.append(path)
        # Both paths forced at two sizes: a line each (fixed + per deck) fits the constants.
        fit = {
            (src, n): min(cli_cpu(files[:n], db, src) for _ in range(args.repeat))
            for src in ("database", "index")
            for n in (small, large)
        }
        db_deck = (fit["database", large] - fit["database", small]) / (large - small)
        warm = (fit["index", large] - fit["index", small]) / (large - small)
        load = (fit["index", small] - warm * small) - (fit["database", small] - db_deck * small)
        print(
            "cost model fitted from cold CLI runs (both paths forced at "
            f"{small} and {large} files), vs validator/event/run.py:"
        )
        for key, value in (("DB_DECK_S", db_deck), ("WARM_DECK_S", warm), ("INDEX_LOAD_S", load)):
            print(f"  {key:<13} {value:8.4f} s   (event.py: {getattr(event, key):.4f} s)")
        print(
            f"break-even: {load / (db_deck - warm):.0f} decks fitted, "
            f"{event.INDEX_LOAD_S / (event.DB_DECK_S - event.WARM_DECK_S):.0f} in event.py "
            f"(first size using the index: {b})"
        )
        cpu: dict[int, list[float]] = {n: [] for n in sizes}
        for _ in range(args.repeat):
            for n in sizes:  # interleaved: machine load hits every size alike
                cpu[n].append(cli_cpu(files[:n], db))
    # The least CPU of the repeats: a shared machine only ever adds (cache and frequency
    # contention), so the minimum is the steadiest estimate of each size's own cost.
    med = {n: min(v) for n, v in cpu.items()}
    print(
        f"{'files':>6} {'source':<8} {'CPU s':>7} {'per file ms':>11}  vs previous size (ideal n/(n-1))"
    )
    prev = None
    worst = 0.0
    for n in sizes:
        step = ""
        if prev is not None and n == prev + 1:
            ratio = med[n] / med[prev]
            ideal = n / prev
            worst = max(worst, ratio / ideal)
            step = f"{ratio:.3f} (ideal {ideal:.3f})"
        print(
            f"{n:>6} {'index' if event.use_index(n) else 'database':<8} {med[n]:>7.2f} "
            f"{med[n] / n * 1000:>11.1f}  {step}"
        )
        prev = n
    print(
        f"largest step over the ideal: {worst:.3f}x "
        f"{'PASS' if worst <= 1.15 else 'MISS'} (target: about n/(n-1); 15% allows for "
        "this machine's noise, the old cliff was 4.7x)"
    )


if __name__ == "__main__":
    main()
