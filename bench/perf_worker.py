"""One measurement in a fresh process, for `bench_speed.py` (not a benchmark on its own).

    PYTHONPATH=CODE python bench/perf_worker.py index --db cards.sqlite3
    PYTHONPATH=CODE python bench/perf_worker.py warm --db cards.sqlite3 --hashes out.txt
    PYTHONPATH=CODE python bench/perf_worker.py profile --db cards.sqlite3 --kind commander

`CODE` is the source tree whose `validator` package is measured (this checkout, or an older
one made with `git archive main | tar -x -C DIR`), so the code before and after a change run
side by side in the same benchmark run. Prints one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(1, str(Path(__file__).resolve().parent))
from common import BULK_DECKS, format_key, iter_bulk_decks, percentile, render_mtgo_text  # noqa: E402

COMMANDER_FORMATS = {"duel", "commander"}
#: Decks whose corpus label maps to no deckcheck format are still validated (so every deck of
#: the corpus is covered by the report hashes), against the broadest card pool.
FALLBACK_FORMAT = "vintage"


def _rss_mb() -> float:
    """Current resident set size (Linux /proc), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1e6


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000


def load_decks(path: Path, sample: int | None) -> list[tuple[str, dict]]:
    decks = []
    for obj in iter_bulk_decks(path):
        key = format_key(obj.get("format"), obj.get("src") or "") or FALLBACK_FORMAT
        decks.append((key, obj))
    if sample is not None and sample < len(decks):
        step = len(decks) / sample
        decks = [decks[int(i * step)] for i in range(sample)]
    return decks


def cmd_index(args) -> dict:
    import validator
    import validator.api  # the code the index needs is loaded first: RSS growth is the index

    try:
        import validator.rules.resolve  # noqa: F401
    except ImportError:  # a baseline tree from before the packages
        import validator.resolve  # noqa: F401

    rss0 = _rss_mb()
    c0, t0 = time.process_time(), time.perf_counter()
    db = validator.open_db(args.db)
    index = validator.CardIndex.from_db(db)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    return {
        "cards": len(index),
        "cpu_s": cpu,
        "wall_s": wall,
        "rss_growth_mb": _rss_mb() - rss0,
        "peak_growth_mb": _peak_mb() - rss0,
        "rss_before_mb": rss0,
    }


def cmd_warm(args) -> dict:
    import validator
    from validator.api import parse_decklist, validate

    decks = load_decks(args.decks, args.sample)
    texts = [(fmt, render_mtgo_text(d["main"], d["side"]), d) for fmt, d in decks]
    db = validator.open_db(args.db)
    c0 = time.process_time()
    index = validator.CardIndex.from_db(db)
    load_cpu = time.process_time() - c0
    # One untimed deck per format: lazy imports (companion, commander, rapidfuzz) are start-up.
    for fmt in sorted({f for f, _, _ in texts}):
        validate(parse_decklist(next(t for f, t, _ in texts if f == fmt)), fmt, cards=index)
    # CPU time (the machine is shared: wall time would measure the others too) of this
    # thread, which does all the work: thread_time costs half of process_time per call (about
    # 0.7 against 1.4 µs here), and it is called twice per deck.
    cpu = time.thread_time
    times, t75, tcmd = [], [], []
    digest = hashlib.sha256()
    out = open(args.hashes, "w", encoding="utf-8") if args.hashes else None
    legal = 0
    total0 = cpu()
    for i, (fmt, text, d) in enumerate(texts):
        c = cpu()
        report = validate(parse_decklist(text), fmt, cards=index)
        dt = cpu() - c
        times.append(dt)
        kind = _kind(fmt, d)
        if kind == "commander":
            tcmd.append(dt)
        elif kind == "75":
            t75.append(dt)
        legal += report.legal
        h = hashlib.sha256(
            json.dumps(report.to_dict(), sort_keys=True, ensure_ascii=False).encode()
        ).hexdigest()
        digest.update(h.encode())
        if out:
            out.write(f"{i}\t{fmt}\t{h}\n")
    total = cpu() - total0
    if out:
        out.close()
    floor = _floor(texts, index)
    for v in (times, t75, tcmd):
        v.sort()
    med75, medcmd = percentile(t75, 50), percentile(tcmd, 50)
    judge = sum(times)
    return {
        "decks": len(times),
        "legal": legal,
        "cpu_s": total,
        "load_cpu_s": load_cpu,
        "decks_per_cpu_s": len(times) / total,
        # parse_decklist + validate alone, what a warm caller pays per deck: the loop's total
        # also holds the report hashing (to_dict, json.dumps, sha256) done for the comparison
        "judge_cpu_s": judge,
        "decks_per_judge_cpu_s": len(times) / judge,
        "median_ms": percentile(times, 50) * 1000,
        "p99_ms": percentile(times, 99) * 1000,
        "max_ms": times[-1] * 1000,
        "median_75_ms": med75 * 1000,
        "decks_75": len(t75),
        "median_cmd100_ms": medcmd * 1000,
        "decks_cmd100": len(tcmd),
        "p99_75_ms": percentile(t75, 99) * 1000,
        "p99_cmd100_ms": percentile(tcmd, 99) * 1000,
        "cmd100_over_75": medcmd / med75 if med75 else float("nan"),
        **floor,
        "digest": digest.hexdigest(),
        "peak_mb": _peak_mb(),
    }


def _floor(texts: list[tuple[str, str, dict]], index) -> dict:
    """The least work any reading of a decklist line by line does, timed like the warm loop
    (same decks, same order, CPU time per deck): split the text into lines, look each line up
    in a dict of lines read before, look its name up in a dict of cards, read the card's
    legality. No objects, no rules. Its Commander / 75-card ratio bounds what the checker's own
    ratio can reach: the checker does all of this and more for every line."""
    from validator.api import parse_decklist

    try:
        from validator.rules.resolve import resolve
    except ImportError:  # a baseline tree from before the packages
        from validator.resolve import resolve

    line_map: dict[str, tuple[int, str]] = {}
    card_map: dict = {}
    for _, text, _ in texts:  # built untimed: what earlier decks taught
        for e in resolve(parse_decklist(text), index).entries:
            line_map[e.entry.text] = (e.entry.quantity, e.entry.name)
            card_map[e.entry.name] = e.card
    cpu = time.thread_time
    f75, fcmd, lines75, linescmd = [], [], [], []
    for fmt, text, d in texts:
        kind = _kind(fmt, d)
        c = cpu()
        legal = 0
        lines = text.split("\n")
        for raw in lines:
            hit = line_map.get(raw)
            if hit is not None:
                card = card_map.get(hit[1])
                if card is not None and card.legalities.get(fmt, "not_legal") == "legal":
                    legal += hit[0]
        dt = cpu() - c
        if kind == "commander":
            fcmd.append(dt)
            linescmd.append(len(lines))
        elif kind == "75":
            f75.append(dt)
            lines75.append(len(lines))
    for v in (f75, fcmd, lines75, linescmd):
        v.sort()
    m75, mcmd = percentile(f75, 50), percentile(fcmd, 50)
    return {
        "floor_median_75_ms": m75 * 1000,
        "floor_median_cmd100_ms": mcmd * 1000,
        "floor_cmd100_over_75": mcmd / m75 if m75 else float("nan"),
        "lines_median_75": percentile(lines75, 50),
        "lines_median_cmd100": percentile(linescmd, 50),
    }


def _kind(fmt: str, deck: dict) -> str:
    """ "commander" (a 100-card Commander deck), "75" (a 75-card deck) or "other"."""
    size = sum(n for n, _ in deck["main"]) + sum(n for n, _ in deck["side"])
    if fmt in COMMANDER_FORMATS:
        return "commander" if size == 100 else "other"
    return "75" if size == 75 else "other"


def cmd_profile(args) -> dict:
    """cProfile of the warm loop over the first `--sample` decks (of one `--kind`, when given):
    where the time goes."""
    import cProfile
    import io
    import pstats

    import validator
    from validator.api import parse_decklist, validate

    decks = load_decks(args.decks, None if args.kind != "all" else args.sample)
    if args.kind != "all":
        decks = [(fmt, d) for fmt, d in decks if _kind(fmt, d) == args.kind][: args.sample]
    texts = [(fmt, render_mtgo_text(d["main"], d["side"])) for fmt, d in decks]
    index = validator.CardIndex.from_db(validator.open_db(args.db))
    for fmt in sorted({f for f, _ in texts}):
        validate(parse_decklist(next(t for f, t in texts if f == fmt)), fmt, cards=index)
    prof = cProfile.Profile()
    prof.enable()
    for fmt, text in texts:
        validate(parse_decklist(text), fmt, cards=index)
    prof.disable()
    buf = io.StringIO()
    st = pstats.Stats(prof, stream=buf).strip_dirs()
    st.sort_stats("tottime").print_stats(args.top)
    return {"profile": buf.getvalue()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["index", "warm", "profile"])
    ap.add_argument("--db", required=True)
    ap.add_argument("--decks", type=Path, default=BULK_DECKS)
    ap.add_argument("--sample", type=int)
    ap.add_argument("--hashes")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument(
        "--kind",
        choices=["all", "commander", "75"],
        default="all",
        help="profile: only 100-card Commander or only 75-card decks",
    )
    args = ap.parse_args()
    result = {"index": cmd_index, "warm": cmd_warm, "profile": cmd_profile}[args.what](args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
