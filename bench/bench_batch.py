"""Benchmark: no cliff in the batch path. `deckcheck validate` picks its card source by cost
(validator/event/run.py `use_index`: query the database per deck, or load the in-memory index once);
this script measures the cost model's constants on this machine and the CPU of cold CLI runs
around the old threshold (25/26 files) and around the model's break-even, in the same run.

    python bench/bench_batch.py [--repeat 3] [--db cards.sqlite3] [--sizes 25,26,...]

Target: one more file costs at most 2% beyond its own share: n files at most
n/(n-1) x 1.02 of n-1 files, at the old threshold and at the model's break-even, where the
index is loaded instead (its memory is shown beside: the peak RSS of each size). Figures are
CPU seconds of the CLI process (user + system) and its peak RSS, the least of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SHARED_DATA, derived_db, installed_env, render_mtgo_text  # noqa: E402

#: One more deck may cost at most this much beyond its own share (n/(n-1)).
STEP_TARGET = 0.02

EVENT = (
    SHARED_DATA
    / "decklists"
    / "tournaments"
    / "MTGmelee"
    / "uper-unday-rcq-modern-scg-con-milwaukee-sunday-1000-am-395229-2026-02-22.json"
)


def cli_cpu(files: list[Path], db: Path, source: str | None = None) -> float:
    return cli_run(files, db, source)[0]


def cli_run(files: list[Path], db: Path, source: str | None = None) -> tuple[float, float]:
    """CPU seconds and peak resident MB of one cold CLI run."""
    env = installed_env()  # as an installed deckcheck runs: its bytecode compiled once
    env.pop("DECKCHECK_CARD_SOURCE", None)
    if source:
        env["DECKCHECK_CARD_SOURCE"] = source  # force one path (validator/event/run.py)
    proc = subprocess.Popen(
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
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    # wait4: this run's own rusage (CPU, peak RSS in KiB on Linux), not all children's.
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(stderr[-2000:].decode(errors="replace"))
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def fit_base(fit: dict[tuple[str, int], float], small: int, db_deck: float) -> float:
    """The fixed CPU of a database-path run (start-up, imports) on the fitted line."""
    return fit["database", small] - db_deck * small


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
        # At the break-even both paths forced at the same size: where the model switches,
        # the index path should cost what the database path does (the step is their gap).
        forced: dict[str, list[float]] = {"database": [], "index": []}
        for _ in range(args.repeat):
            for src in forced:
                forced[src].append(cli_cpu(files[:b], db, src))
        at_b = {src: min(v) for src, v in forced.items()}
        gap = at_b["index"] / at_b["database"] - 1
        print(
            f"at the switch ({b} files) with each path forced: database {at_b['database']:.3f} s, "
            f"index {at_b['index']:.3f} s: the index path {gap:+.1%}; the fitted lines' gap "
            f"there {(load + b * warm - b * db_deck) / (b * db_deck + fit_base(fit, small, db_deck)):+.1%}"
        )
        runs: dict[int, list[tuple[float, float]]] = {n: [] for n in sizes}
        for _ in range(args.repeat):
            for n in sizes:  # interleaved: machine load hits every size alike
                runs[n].append(cli_run(files[:n], db))
    # The least CPU of the repeats: a shared machine only ever adds (cache and frequency
    # contention), so the minimum is the steadiest estimate of each size's own cost.
    cpu = {n: min(r[0] for r in v) for n, v in runs.items()}
    rss = {n: min(r[1] for r in v) for n, v in runs.items()}
    print(
        f"{'files':>6} {'source':<8} {'CPU s':>7} {'per file ms':>11} {'peak MB':>8}  "
        "step over the previous size, beyond its n/(n-1)"
    )
    prev = None
    worst = 0.0
    for n in sizes:
        step = ""
        if prev is not None and n == prev + 1:
            # One more deck should cost one deck more: anything beyond is a step.
            beyond = cpu[n] / cpu[prev] / (n / prev) - 1
            worst = max(worst, beyond)
            step = f"{beyond:+.1%} CPU, {rss[n] - rss[prev]:+.0f} MB"
        print(
            f"{n:>6} {'index' if event.use_index(n) else 'database':<8} {cpu[n]:>7.3f} "
            f"{cpu[n] / n * 1000:>11.2f} {rss[n]:>8.0f}  {step}"
        )
        prev = n
    print(
        f"largest CPU step between neighbouring sizes: {worst:+.1%} "
        f"{'PASS' if worst <= STEP_TARGET else 'MISS'} (target <= {STEP_TARGET:.0%}; the "
        "least of --repeat cold runs, so single figures carry this machine's noise)"
    )


if __name__ == "__main__":
    main()
