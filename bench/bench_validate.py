"""Benchmark: validate the MTGO bulk decks through the Python API with a warm card index, and
time a cold `deckcheck validate` process.

    python bench/bench_validate.py                 # all 81,883 decks (minus unmapped formats)
    python bench/bench_validate.py --sample 10000  # a fixed-seed random sample
    python bench/bench_validate.py --db cards.sqlite3 --profile

Without --db, the card database is imported once from the full-size derived card file and
cached under /tmp/deckcheck-bench/ (see bench/common.py).

Targets (from the issue): median under 2 ms per 75-card deck warm; a cold CLI run under 0.5 s.
Each target prints PASS or MISS; on a MISS (or with --profile) the script profiles the miss
and prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    BULK_DECKS,
    SHARED_DATA,
    children_cpu,
    derived_db,
    format_key,
    iter_bulk_decks,
    percentile,
    render_mtgo_text,
)

WARM_TARGET_MS = 2.0
COLD_TARGET_S = 0.5
CLI_DECK = (
    SHARED_DATA
    / "decklists"
    / "text"
    / "rendered_from_tournament_json"
    / "modern_2026-08-08_nahuel10_1st-place.mtgo.txt"
)
COMMANDER_FORMATS = {"duel", "commander"}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


# ---------------------------------------------------------------------------- decks


def load_decks(
    path: Path, sample: int | None, seed: int
) -> tuple[list[tuple[str, dict]], Counter, int]:
    """(format key, deck) pairs, the skipped labels, and the number of decks read."""
    decks, skipped, total = [], Counter(), 0
    for obj in iter_bulk_decks(path):
        total += 1
        key = format_key(obj.get("format"), obj.get("src") or "")
        if key is None:
            skipped[str(obj.get("format"))] += 1
            continue
        decks.append((key, obj))
    if sample is not None and sample < len(decks):
        decks = random.Random(seed).sample(decks, sample)
    return decks, skipped, total


# ---------------------------------------------------------------------------- warm API run


def warm_run(decks, db_path: Path) -> dict:
    from validator.api import parse_decklist, validate
    from validator.store.database import CardDB
    from validator.store.index import CardIndex

    t0 = time.perf_counter()
    db = CardDB(db_path)
    index = CardIndex.from_db(db)
    load_s = time.perf_counter() - t0

    # One untimed deck per format first: lazy imports (companion, commander, rapidfuzz...)
    t0 = time.perf_counter()
    for fmt in sorted({f for f, _ in decks}):
        fmt_deck = next(d for f, d in decks if f == fmt)
        validate(
            parse_decklist(render_mtgo_text(fmt_deck["main"], fmt_deck["side"])), fmt, cards=index
        )
    warmup_s = time.perf_counter() - t0

    times, cpu_times, phases = [], [], {"render": 0.0, "parse": 0.0, "validate": 0.0}
    times_75, cpu_75 = [], []
    per_format = defaultdict(lambda: {"decks": 0, "legal": 0, "times": [], "cpu": []})
    codes: Counter = Counter()
    unknown: Counter = Counter()
    slowest: list[tuple[float, str, str, int]] = []
    perf, cpu = time.perf_counter, time.thread_time
    load_before = os.getloadavg()
    wall0, cpu0 = perf(), cpu()
    for fmt, d in decks:
        c0 = cpu()
        t0 = perf()
        text = render_mtgo_text(d["main"], d["side"])
        t1 = perf()
        deck = parse_decklist(text)
        t2 = perf()
        report = validate(deck, fmt, cards=index)
        t3 = perf()
        dc = cpu() - c0
        dt = t3 - t0
        times.append(dt)
        cpu_times.append(dc)
        phases["render"] += t1 - t0
        phases["parse"] += t2 - t1
        phases["validate"] += t3 - t2
        s = per_format[fmt]
        s["decks"] += 1
        s["legal"] += report.legal
        s["times"].append(dt)
        s["cpu"].append(dc)
        size = sum(n for n, _ in d["main"]) + sum(n for n, _ in d["side"])
        if fmt not in COMMANDER_FORMATS and size == 75:
            times_75.append(dt)
            cpu_75.append(dc)
        for p in report.errors:
            codes[p.code] += 1
            if p.code == "unknown-card":
                unknown.update(p.cards)
        slowest.append((dt, fmt, d.get("player") or "", size))
    wall, cpu_total = perf() - wall0, cpu() - cpu0
    load_after = os.getloadavg()
    db.close()
    for values in (times, times_75, cpu_times, cpu_75):
        values.sort()
    slowest.sort(reverse=True)
    return {
        "index_load_s": load_s,
        "index_cards": len(index),
        "warmup_s": warmup_s,
        "decks": len(times),
        "wall_s": wall,
        "sum_s": sum(times),
        "decks_per_s": len(times) / wall if wall else float("nan"),
        "median_s": percentile(times, 50),
        "p90_s": percentile(times, 90),
        "p99_s": percentile(times, 99),
        "max_s": times[-1] if times else float("nan"),
        "decks_75": len(times_75),
        "median_75_s": percentile(times_75, 50),
        "p99_75_s": percentile(times_75, 99),
        "cpu_s": cpu_total,
        "cpu_median_s": percentile(cpu_times, 50),
        "cpu_p99_s": percentile(cpu_times, 99),
        "cpu_median_75_s": percentile(cpu_75, 50),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "phases_s": phases,
        "per_format": {
            f: {
                "decks": s["decks"],
                "legal": s["legal"],
                "illegal": s["decks"] - s["legal"],
                "median_s": statistics.median(s["times"]),
                "cpu_median_s": statistics.median(s["cpu"]),
            }
            for f, s in sorted(per_format.items())
        },
        "error_codes": codes.most_common(12),
        "unknown_cards": unknown.most_common(10),
        "slowest": slowest[:5],
    }


def _is_75(fmt: str, d: dict) -> bool:
    return fmt not in COMMANDER_FORMATS and (
        sum(n for n, _ in d["main"]) + sum(n for n, _ in d["side"]) == 75
    )


def breakdown(decks, db_path: Path, limit: int) -> dict:
    """Where a warm validation spends its time, stage by stage, without profiler overhead:
    the stages `validate()` runs, timed separately on the first `limit` decks."""
    from validator.api import _rarities, check_resolved, parse_decklist, validate
    from validator.report import Report, summarize_deck
    from validator.rules.formats import get_format, load_formats
    from validator.rules.resolve import resolve, suggestions
    from validator.store.database import CardDB
    from validator.store.index import CardIndex

    db = CardDB(db_path)
    index = CardIndex.from_db(db)
    formats = load_formats()
    perf = time.thread_time  # CPU time: stage costs without other processes' noise
    stages = defaultdict(list)  # stage -> times for 75-card decks whose names all resolve
    suggest_times, unknown_decks = [], 0
    for fmt, d in decks[:limit]:
        text = render_mtgo_text(d["main"], d["side"])
        t0 = perf()
        deck = parse_decklist(text)
        t1 = perf()
        rules = get_format(fmt)
        t2 = perf()
        resolved = resolve(deck, index, suggest=False)
        t3 = perf()
        rarities = _rarities(index)
        problems = check_resolved(resolved, rules, rarities=rarities)
        t4 = perf()
        report = Report(format=rules.key, format_name=rules.name, problems=problems)
        summarize_deck(report, resolved)
        t5 = perf()
        for entry in resolved.unresolved:
            s0 = perf()
            suggestions(entry.name, index)
            suggest_times.append(perf() - s0)
        unknown_decks += bool(resolved.unresolved)
        if _is_75(fmt, d) and not resolved.unresolved:
            s0 = perf()
            validate(parse_decklist(text), formats[fmt], cards=index)
            stages["validate() with a FormatRules object (no TOML reload)"].append(perf() - s0)
            for name, dt in (
                ("parse_decklist", t1 - t0),
                ("get_format(str) -> load_formats()", t2 - t1),
                ("resolve (no suggestions)", t3 - t2),
                ("check_resolved", t4 - t3),
                ("Report + summarize_deck", t5 - t4),
            ):
                stages[name].append(dt)
    db.close()
    suggest_times.sort()
    return {
        "decks": min(limit, len(decks)),
        "decks_75_known": len(stages["parse_decklist"]),
        "median_ms": {k: statistics.median(v) * 1000 for k, v in stages.items() if v},
        "unknown_names": len(suggest_times),
        "decks_with_unknown": unknown_decks,
        "suggestions_median_ms": percentile(suggest_times, 50) * 1000 if suggest_times else 0.0,
        "suggestions_max_ms": suggest_times[-1] * 1000 if suggest_times else 0.0,
    }


def profile_warm(decks, db_path: Path, limit: int, top: int) -> str:
    """cProfile over the warm loop of `limit` 75-card decks whose names all resolve (the
    decks the median target is about; unknown names cost "did you mean" suggestions, which
    the breakdown reports separately)."""
    from validator.api import parse_decklist, validate
    from validator.rules.resolve import resolve
    from validator.store.database import CardDB
    from validator.store.index import CardIndex

    index = CardIndex.from_db(CardDB(db_path))
    chosen = []
    for f, d in decks:
        if len(chosen) >= limit:
            break
        if _is_75(f, d):
            deck = parse_decklist(render_mtgo_text(d["main"], d["side"]))
            if not resolve(deck, index, suggest=False).unresolved:
                chosen.append((f, d))
    for f, d in chosen[:20]:  # warm-up
        validate(parse_decklist(render_mtgo_text(d["main"], d["side"])), f, cards=index)
    prof = cProfile.Profile()
    prof.enable()
    for f, d in chosen:
        validate(parse_decklist(render_mtgo_text(d["main"], d["side"])), f, cards=index)
    prof.disable()
    return _stats_text(prof, top, f"warm loop, {len(chosen)} 75-card decks, all names known")


def _stats_text(prof_or_path, top: int, title: str) -> str:
    out = io.StringIO()
    st = pstats.Stats(prof_or_path, stream=out)
    st.strip_dirs()
    out.write(f"--- cProfile ({title}): by cumulative time ---\n")
    st.sort_stats("cumulative").print_stats(top)
    out.write(f"--- cProfile ({title}): by own time ---\n")
    st.sort_stats("tottime").print_stats(top)
    return out.getvalue()


# ---------------------------------------------------------------------------- cold CLI


def _deckcheck() -> list[str]:
    script = Path(sys.executable).parent / "deckcheck"
    if script.is_file():
        return [str(script)]
    found = shutil.which("deckcheck")
    return [found] if found else [sys.executable, "-m", "validator"]


def cold_cli(db_path: Path, runs: int, deck_file: Path) -> dict:
    args = ["validate", str(deck_file), "--format", "modern", "--db", str(db_path)]
    cmd = _deckcheck() + args
    times, cpu_times, last = [], [], None
    for _ in range(runs):
        c0 = children_cpu()
        t0 = time.perf_counter()
        last = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        cpu_times.append(children_cpu() - c0)
    # Python's own start-up, for scale.
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)
    bare_s = time.perf_counter() - t0
    imp = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "validator"] + args,
        capture_output=True,
        text=True,
    )
    return {
        "cmd": " ".join(cmd),
        "runs": times,
        "min_s": min(times),
        "median_s": statistics.median(times),
        "exit": last.returncode,
        "cpu_runs": cpu_times,
        "cpu_median_s": statistics.median(cpu_times),
        "stdout": last.stdout.strip().splitlines()[:3],
        "stderr": last.stderr.strip()[-500:],
        "python_startup_s": bare,
        "python_startup_nosite_s": bare_s,
        "importtime": parse_importtime(imp.stderr),
    }


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def parse_importtime(stderr: str) -> dict:
    rows = []
    for line in stderr.splitlines():
        m = _IMPORT_LINE.match(line)
        if m:
            rows.append((m.group(4), int(m.group(1)), int(m.group(2)), len(m.group(3)) // 2))
    top_level = sorted((r for r in rows if r[3] == 0), key=lambda r: -r[2])
    by_self = sorted(rows, key=lambda r: -r[1])
    # Root package of each module, summed over own time: "what family of imports costs".
    families: Counter = Counter()
    for name, own, _cum, _depth in rows:
        families[name.split(".")[0]] += own
    names = {r[0] for r in rows}
    return {
        "modules": len(rows),
        "total_us": sum(r[1] for r in rows),
        "top_cumulative": [(n, cum) for n, _, cum, _ in top_level[:15]],
        "top_self": [(n, own) for n, own, _, _ in by_self[:15]],
        "families": families.most_common(12),
        "heavy_present": sorted(
            n
            for n in (
                "sqlalchemy",
                "rapidfuzz",
                "lark",
                "requests",
                "tomllib",
                "orjson",
                "ijson",
                "defusedxml",
                "platformdirs",
                "tqdm",
                "urllib3",
                "validator.rules.companion.predicates",
                "validator.rules.companion.reader",
                "validator.rules.commander.designation",
                "validator.rules.commander.rules",
                "validator.cards.types",
                "validator.cards.abilities",
                "validator.sync.job",
                "validator.sync.http",
                "validator.sync.importer",
            )
            if n in names
        ),
    }


def profile_cli(db_path: Path, deck_file: Path, top: int) -> str:
    args = ["validate", str(deck_file), "--format", "modern", "--db", str(db_path)]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cli.prof")
        subprocess.run(
            [sys.executable, "-m", "cProfile", "-o", out, "-m", "validator"] + args,
            capture_output=True,
            text=True,
        )
        return _stats_text(out, top, "cold CLI process")


# ---------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="validate a fixed-seed random sample of N decks (default: all)",
    )
    ap.add_argument("--seed", type=int, default=20260609, help="sample seed")
    ap.add_argument(
        "--db", type=Path, help="card database (default: built/cached from the derived card file)"
    )
    ap.add_argument("--decks", type=Path, default=BULK_DECKS, help="bulk decks JSONL.gz")
    ap.add_argument("--cli-runs", type=int, default=7, help="cold CLI runs (default 7)")
    ap.add_argument("--cli-deck", type=Path, default=CLI_DECK, help="the 75-card deck file")
    ap.add_argument("--no-cli", action="store_true", help="skip the cold CLI measurement")
    ap.add_argument("--profile", action="store_true", help="profile even when targets pass")
    ap.add_argument("--profile-decks", type=int, default=1000)
    ap.add_argument(
        "--breakdown-decks", type=int, default=3000, help="decks timed stage by stage (0: skip)"
    )
    ap.add_argument("--top", type=int, default=25, help="profile lines shown")
    ap.add_argument("--json", type=Path, metavar="OUT", help="also write the figures as JSON")
    args = ap.parse_args(argv)

    db_path = args.db or derived_db()
    if not Path(db_path).exists() and "://" not in str(db_path):
        ap.error(f"--db: no such file: {db_path}")
    print(f"card database: {db_path}")

    t0 = time.perf_counter()
    decks, skipped, total = load_decks(args.decks, args.sample, args.seed)
    print(
        f"decks: {total} read in {time.perf_counter() - t0:.1f} s; "
        f"{sum(skipped.values())} skipped (unmapped format: "
        + ", ".join(f"{k} {v}" for k, v in skipped.most_common())
        + "); "
        + (
            f"fixed-seed sample of {len(decks)} (seed {args.seed})"
            if args.sample
            else f"all {len(decks)} validated"
        )
    )

    warm = warm_run(decks, db_path)
    print("\n== warm API (CardIndex in memory) ==")
    print(
        f"CardIndex.from_db: {warm['index_load_s']:.2f} s ({warm['index_cards']} cards); "
        f"first deck per format (lazy imports, untimed): {warm['warmup_s']:.2f} s"
    )
    print(f"{warm['decks']} decks in {warm['wall_s']:.1f} s: {warm['decks_per_s']:.0f} decks/s")
    print(
        f"per deck (render + parse + validate): median {_ms(warm['median_s'])}, "
        f"p90 {_ms(warm['p90_s'])}, p99 {_ms(warm['p99_s'])}, max {_ms(warm['max_s'])}"
    )
    print(
        f"75-card constructed decks ({warm['decks_75']}): median {_ms(warm['median_75_s'])}, "
        f"p99 {_ms(warm['p99_75_s'])}"
    )
    print(
        f"CPU time of this thread: {warm['cpu_s']:.1f} s of {warm['wall_s']:.1f} s wall; per deck "
        f"median {_ms(warm['cpu_median_s'])}, p99 {_ms(warm['cpu_p99_s'])}; 75-card median "
        f"{_ms(warm['cpu_median_75_s'])} (load average {warm['loadavg_before'][0]:.1f} -> "
        f"{warm['loadavg_after'][0]:.1f} on {os.cpu_count()} CPUs: wall > CPU means other "
        "processes took the CPU)"
    )
    ph = warm["phases_s"]
    print(
        "time by phase: "
        + ", ".join(f"{k} {v / max(warm['decks'], 1) * 1000:.3f} ms/deck" for k, v in ph.items())
    )
    print(
        f"{'format':<10} {'decks':>6} {'legal':>6} {'illegal':>7} {'median':>10} {'CPU median':>11}"
    )
    for f, s in warm["per_format"].items():
        print(
            f"{f:<10} {s['decks']:>6} {s['legal']:>6} {s['illegal']:>7} {_ms(s['median_s']):>10} "
            f"{_ms(s['cpu_median_s']):>11}"
        )
    print("commonest errors: " + ", ".join(f"{c} {n}" for c, n in warm["error_codes"]))
    print("commonest unknown cards: " + "; ".join(f"{c} ({n})" for c, n in warm["unknown_cards"]))
    print(
        "slowest decks: "
        + "; ".join(f"{_ms(t)} {f} {p} ({n} cards)" for t, f, p, n in warm["slowest"])
    )

    results = {"warm": warm, "skipped": dict(skipped), "total_read": total}
    if args.breakdown_decks:
        bd = breakdown(decks, db_path, args.breakdown_decks)
        results["breakdown"] = bd
        print(
            f"\nstage medians (CPU time) over {bd['decks_75_known']} 75-card decks with every name known "
            f"(first {bd['decks']} decks):"
        )
        for name, ms in bd["median_ms"].items():
            print(f"  {name:<58} {ms:8.3f} ms")
        print(
            f"unknown names: {bd['unknown_names']} in {bd['decks_with_unknown']} decks; "
            f'"did you mean" suggestions cost {bd["suggestions_median_ms"]:.1f} ms per name '
            f"(median; max {bd['suggestions_max_ms']:.1f} ms)"
        )
    warm_ok = warm["median_75_s"] * 1000 < WARM_TARGET_MS
    cli_ok = None
    if not args.no_cli:
        cli = cold_cli(db_path, args.cli_runs, args.cli_deck)
        results["cli"] = cli
        print(f"\n== cold CLI ==\n$ {cli['cmd']}")
        print(
            f"exit {cli['exit']}: {' | '.join(cli['stdout'])}"
            + (f"\nstderr: {cli['stderr']}" if cli["stderr"] else "")
        )
        print(
            f"{len(cli['runs'])} runs: min {cli['min_s']:.3f} s, median {cli['median_s']:.3f} s "
            f"(all: {', '.join(f'{t:.3f}' for t in cli['runs'])}); CPU (user+sys) median "
            f"{cli['cpu_median_s']:.3f} s; bare `python -c pass` "
            f"{cli['python_startup_s']:.3f} s, with -S {cli['python_startup_nosite_s']:.3f} s"
        )
        it = cli["importtime"]
        print(
            f"python -X importtime: {it['modules']} modules, {it['total_us'] / 1e6:.3f} s of imports"
        )
        print(
            "  top-level imports by cumulative time: "
            + ", ".join(f"{n} {us / 1000:.1f} ms" for n, us in it["top_cumulative"][:10])
        )
        print(
            "  modules by own time: "
            + ", ".join(f"{n} {us / 1000:.1f} ms" for n, us in it["top_self"][:10])
        )
        print(
            "  own time by package: "
            + ", ".join(f"{n} {us / 1000:.1f} ms" for n, us in it["families"])
        )
        print("  heavy modules imported: " + ", ".join(it["heavy_present"]))
        cli_ok = cli["median_s"] < COLD_TARGET_S

    print("\n== targets ==")
    cpu_ok = warm["cpu_median_75_s"] * 1000 < WARM_TARGET_MS
    print(
        f"{'PASS' if warm_ok else 'MISS'}: warm median per 75-card deck "
        f"{_ms(warm['median_75_s'])} (target < {WARM_TARGET_MS} ms; CPU-time median "
        f"{_ms(warm['cpu_median_75_s'])}: {'PASS' if cpu_ok else 'MISS'})"
    )
    if cli_ok is not None:
        cli = results["cli"]
        print(
            f"{'PASS' if cli_ok else 'MISS'}: cold CLI median {cli['median_s']:.3f} s "
            f"(target < {COLD_TARGET_S} s; min {cli['min_s']:.3f} s, CPU median "
            f"{cli['cpu_median_s']:.3f} s: {'PASS' if cli['cpu_median_s'] < COLD_TARGET_S else 'MISS'})"
        )

    if args.profile or not (warm_ok and cpu_ok):
        text = profile_warm(decks, db_path, args.profile_decks, args.top)
        results["profile_warm"] = text
        print("\n" + text)
    if not args.no_cli and (args.profile or not cli_ok):
        text = profile_cli(db_path, args.cli_deck, args.top)
        results["profile_cli"] = text
        print("\n" + text)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
