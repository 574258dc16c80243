"""Benchmark: the speed targets, each next to a baseline measured in the same run.

    python bench/bench_speed.py                          # cold CLI, CardIndex, warm run
    python bench/bench_speed.py --baseline /tmp/old      # ... also the code before a change
    python bench/bench_speed.py --only warm --sample 5000

`--baseline DIR` is a source tree of older deckcheck code (e.g. `git archive main | tar -x -C
DIR`): every measurement also runs with that code, in the same run, and the warm run compares
the reports of every deck (sha256 of each report's JSON) and FAILS LOUDLY (exit 1) on any
difference. `--hashes FILE` compares against per-deck hashes written earlier by
`perf_worker.py warm --hashes FILE` instead.

Parts (CPU time, since the machine is shared and noisy):
* cold: `deckcheck validate` of one 75-card deck, --json, in a fresh process: CPU and peak RSS,
  next to `python -c "import sqlite3"`; the JSON must be byte for byte the baseline's.
  Targets: CPU at most 0.12 s and within 0.1 s of the sqlite3 baseline; peak RSS at most 30 MB.
* index: `CardIndex.from_db` of the full card file in a fresh process. Targets: 0.6 s, 60 MB.
* warm: every deck of the bulk corpus (81,883) through `validate` with a warm `CardIndex`.
  Targets: 12,000 decks per CPU-second of `parse_decklist` + `validate` (the deck's text
  rendered beforehand; the loop as a whole, report hashing included, at least 3,000), a
  100-card Commander deck at most 1.5x a 75-card deck (medians), p99 at most 2 ms.
  `--repeat N` runs each tree's warm loop N times, interleaved with the baseline's, and keeps
  each tree's best (the machine's load changes while they run).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from common import BULK_DECKS, SHARED_DATA, derived_db  # noqa: E402

#: Warm throughput target: decks judged (parse_decklist + validate) per CPU-second.
WARM_DECKS_PER_CPU_S = 12_000
FULL_CARDS = SHARED_DATA / "scryfall" / "oracle-cards-derived-20260822.jsonl.gz"
#: The console script pip writes for `deckcheck = "validator.cli:main"`, as a -c program.
ENTRY_POINT = "import sys; from validator.cli import main; sys.exit(main())"
CLI_DECK = (
    SHARED_DATA
    / "decklists"
    / "text"
    / "rendered_from_tournament_json"
    / "modern_2026-08-08_nahuel10_1st-place.mtgo.txt"
)


def _env(code: Path) -> dict[str, str]:
    """The environment of a measured child: `code` first on the path, and bytecode caching on
    (an installed deckcheck has its .pyc files; PYTHONDONTWRITEBYTECODE would make every cold
    run compile every module again)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_code(code: Path) -> None:
    """Write the .pyc files of `code`'s package, as `pip install` does."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(code / "validator")],
        check=True,
        env=_env(code),
    )


#: Runs a module or code as `python -m` / `python -c` would, then writes the process's own peak
#: RSS (VmHWM) to stderr at exit. ru_maxrss of a child counts the memory of the parent it was
#: forked from (this benchmark's), so it is no measure of a small process.
_HWM = (
    "import atexit, runpy, sys\n"
    "def hwm():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'): sys.stderr.write('VMHWM ' + line.split()[1] + '\\n')\n"
    "atexit.register(hwm)\n"
    "kind, what = sys.argv[1], sys.argv[2]\n"
    "sys.argv = sys.argv[2:]\n"
    "if kind == '-c': exec(what)\n"
    "else: runpy.run_module(what, run_name='__main__', alter_sys=True)\n"
)


def run_measured(
    args: list[str], env: dict[str, str] | None = None
) -> tuple[float, float, str, int]:
    """(CPU seconds user+sys, peak RSS MB, stdout, exit code) of `python ARGS` (ARGS starting
    with -m MODULE or -c CODE), run from an empty directory so that `-m` finds the code on
    PYTHONPATH, not a checkout in the current directory."""
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as cwd,
    ):
        proc = subprocess.Popen(
            [sys.executable, "-c", _HWM, *args], stdout=out, stderr=err, env=env, cwd=cwd
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode()
        hwm = [
            int(line.split()[1])
            for line in err.read().decode().splitlines()
            if line.startswith("VMHWM ")
        ]
    return (
        usage.ru_utime + usage.ru_stime,
        (hwm[-1] / 1024 if hwm else float("nan")),
        text,
        proc.returncode,
    )


def code_db(code: Path, db: Path) -> Path:
    """The card database `code` reads: `db` when `code` has this code's card schema, else the
    full card file imported by `code` itself (after a schema change older code cannot read the
    new layout, nor this code the old one), cached as `derived_db` caches."""
    snippet = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); from common import derived_db, "
        "_cache_key, DERIVED_FILE; print(_cache_key(DERIVED_FILE)); print(derived_db())"
    )
    proc = subprocess.run(
        [sys.executable, "-c", snippet],
        env=_env(code),
        capture_output=True,
        text=True,
        cwd=str(code),
    )
    if proc.returncode:
        raise SystemExit(f"building the card database with {code} failed:\n{proc.stderr[-3000:]}")
    key, built = proc.stdout.strip().splitlines()[-2:]
    return db if key in Path(db).name else Path(built)


def _without_sync_time(out: str) -> str:
    """A JSON report with its card data's sync time left out (two databases built by two
    imports of the same file differ only there)."""
    try:
        data = json.loads(out)
        data["provenance"]["card_data"].pop("synced_at", None)
    except (ValueError, KeyError, TypeError):
        return out
    return json.dumps(data, sort_keys=True)


def cold(db: Path, runs: int, codes: dict[str, Path], dbs: dict[str, Path] | None = None) -> dict:
    """`dbs`: the database of each code label when they differ (a schema change)."""
    dbs = dbs or {}

    def cli(label: str) -> list[str]:
        # What the installed `deckcheck` script runs (pyproject's [project.scripts] entry
        # point: import validator.cli, call its main), not `python -m validator`, which also
        # imports runpy (~4 ms) that no user's `deckcheck validate` pays.
        return [
            "-c",
            ENTRY_POINT,
            "validate",
            str(CLI_DECK),
            "--format",
            "modern",
            "--db",
            str(Path(dbs.get(label, db)).resolve()),
            "--json",
        ]

    variants = {"python -c 'import sqlite3'": (["-c", "import sqlite3"], _env(ROOT))}
    for label, code in codes.items():
        compile_code(code)
        variants[f"deckcheck validate ({label})"] = (cli(label), _env(code))
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in variants}
    outputs: dict[str, set[str]] = {k: set() for k in variants}
    for _ in range(runs):  # interleaved, so load changes hit every variant alike
        for label, (cmd, env) in variants.items():
            cpu, rss, out, _code = run_measured(cmd, env)
            samples[label].append((cpu, rss))
            outputs[label].add(out)
    result = {
        label: {
            "cpu_median_s": statistics.median(c for c, _ in s),
            "cpu_min_s": min(c for c, _ in s),
            "rss_median_mb": statistics.median(r for _, r in s),
        }
        for label, s in samples.items()
    }
    outs = [o for k, o in outputs.items() if k.startswith("deckcheck")]
    if len({str(Path(dbs.get(label, db))) for label in codes}) > 1:
        outs = [{_without_sync_time(x) for x in o} for o in outs]
    result["json_identical"] = all(len(o) == 1 for o in outs) and len(set().union(*outs)) == 1
    return result


def worker(what: str, code: Path, db: Path, *extra: str) -> dict:
    """perf_worker `what` run with `code` on `db`."""
    proc = subprocess.run(
        [sys.executable, str(HERE / "perf_worker.py"), what, "--db", str(db), *extra],
        env=_env(code),
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        raise SystemExit(f"perf_worker {what} ({code}) failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _per_line(r: dict) -> str:
    """The two medians as a cost per deck plus a cost per line (the line through both), and
    the cost per line that would meet 1.5x at that cost per deck: where the ratio's time goes
    (each line of a 95-line Commander list against 32 for a 75-card one)."""
    l75, lcmd = r["lines_median_75"], r["lines_median_cmd100"]
    m75, mcmd = r["median_75_ms"] * 1000, r["median_cmd100_ms"] * 1000
    if lcmd <= l75:
        return "per line: not measurable (the lists have as many lines)"
    per_line = (mcmd - m75) / (lcmd - l75)
    fixed = m75 - per_line * l75
    needed = 0.5 * fixed / (lcmd - 1.5 * l75) if lcmd > 1.5 * l75 else float("inf")
    return (
        f"per deck {fixed:.0f} µs + {per_line:.2f} µs per line; 1.5x at this per-deck "
        f"cost needs at most {needed:.2f} µs per line; per card: Commander "
        f"{mcmd / 100:.2f} µs, 75-card {m75 / 75:.2f} µs"
    )


def compare_hashes(a: Path, b: Path) -> list[str]:
    la = a.read_text().splitlines()
    lb = b.read_text().splitlines()
    diffs = [
        f"deck {x.split(chr(9))[0]} ({x.split(chr(9))[1]}): {x.split(chr(9))[2][:12]} != "
        f"{y.split(chr(9))[2][:12]}"
        for x, y in zip(la, lb)
        if x != y
    ]
    if len(la) != len(lb):
        diffs.append(f"{len(la)} reports vs {len(lb)}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, help="source tree of the code before the change")
    ap.add_argument("--hashes", type=Path, help="per-deck report hashes to compare against")
    ap.add_argument("--db", type=Path, help="card database (default: built from the full file)")
    ap.add_argument("--only", choices=["cold", "index", "warm"], action="append")
    ap.add_argument("--runs", type=int, default=7, help="cold CLI runs per variant")
    ap.add_argument("--sample", type=int, help="warm run over N evenly spaced decks")
    ap.add_argument(
        "--repeat", type=int, default=1, help="warm runs per tree, interleaved; the best is kept"
    )
    ap.add_argument("--profile", action="store_true", help="cProfile of the warm loop (top 25)")
    args = ap.parse_args(argv)
    if not BULK_DECKS.is_file() or not FULL_CARDS.is_file():
        print(f"shared data not found under {SHARED_DATA}; nothing to measure")
        return 0
    db = args.db or derived_db(FULL_CARDS)
    codes = {"this code": ROOT}
    dbs = {"this code": db}
    if args.baseline:
        codes["baseline"] = args.baseline.resolve()
        # the same database unless the baseline has another card schema (and no --db given)
        dbs["baseline"] = db if args.db else code_db(codes["baseline"], db)
    parts = args.only or ["cold", "index", "warm"]
    failed = False
    print(f"card database: {db}")
    if dbs.get("baseline", db) != db:
        print(
            f"baseline's card database: {dbs['baseline']} (another card schema: the same file "
            "imported by the baseline code; cold JSON compared without the sync time)"
        )

    if "cold" in parts:
        r = cold(db, args.runs, codes, dbs)
        print(
            f"\n== cold `deckcheck validate --json` of one 75-card deck ({args.runs} runs each) =="
        )
        for label, v in r.items():
            if isinstance(v, dict):
                print(
                    f"  {label:<44} CPU median {v['cpu_median_s']:.3f} s (min "
                    f"{v['cpu_min_s']:.3f}), peak RSS {v['rss_median_mb']:.1f} MB"
                )
        base = r["python -c 'import sqlite3'"]["cpu_median_s"]
        mine = r["deckcheck validate (this code)"]
        ok = (
            mine["cpu_median_s"] <= 0.12
            and mine["cpu_median_s"] - base <= 0.1
            and mine["rss_median_mb"] <= 30
        )
        print(
            f"  {'PASS' if ok else 'MISS'}: CPU {mine['cpu_median_s']:.3f} s (target 0.12 s), "
            f"{mine['cpu_median_s'] - base:+.3f} s over `import sqlite3` (target +0.1 s), "
            f"peak {mine['rss_median_mb']:.1f} MB (target 30 MB)"
        )
        if len(codes) > 1:
            print(f"  JSON byte for byte identical to the baseline: {r['json_identical']}")
            failed |= not r["json_identical"]

    if "index" in parts:
        print("\n== CardIndex.from_db, full card file, fresh process ==")
        for label, code in codes.items():
            r = worker("index", code, dbs[label])
            print(
                f"  {label:<12} {r['cards']} cards: CPU {r['cpu_s']:.3f} s (wall "
                f"{r['wall_s']:.3f}), RSS +{r['rss_growth_mb']:.1f} MB"
            )
            if label == "this code":
                ok = r["cpu_s"] <= 0.6 and r["rss_growth_mb"] <= 60
                print(f"  {'PASS' if ok else 'MISS'}: target 0.6 s and 60 MB")

    if "warm" in parts:
        print(
            f"\n== warm validation of {'a sample of ' + str(args.sample) if args.sample else 'every'}"
            " bulk deck =="
        )
        extra = ["--sample", str(args.sample)] if args.sample else []
        hashes = {}
        with tempfile.TemporaryDirectory() as tmp:
            best: dict[str, dict] = {}
            for _ in range(args.repeat):  # interleaved: a change of load hits both trees
                for label, code in codes.items():
                    hashes[label] = Path(tmp) / f"{label.replace(' ', '_')}.txt"
                    r = worker("warm", code, dbs[label], "--hashes", str(hashes[label]), *extra)
                    kept = best.get(label)
                    if kept is None or r["decks_per_judge_cpu_s"] > kept["decks_per_judge_cpu_s"]:
                        best[label] = r
            for label, r in best.items():
                print(
                    f"  {label:<12} {r['decks']} decks ({r['legal']} legal): "
                    f"{r['decks_per_judge_cpu_s']:,.0f} decks per CPU-second judging "
                    f"({r['judge_cpu_s']:.2f} s), {r['decks_per_cpu_s']:,.0f} with the "
                    f"report hashing; median {r['median_ms']:.3f} ms, "
                    f"p99 {r['p99_ms']:.3f} ms, max {r['max_ms']:.1f} ms; 75-card median "
                    f"{r['median_75_ms']:.3f} ms ({r['decks_75']}), 100-card Commander median "
                    f"{r['median_cmd100_ms']:.3f} ms ({r['decks_cmd100']}): "
                    f"{r['cmd100_over_75']:.2f}x; p99 75-card {r.get('p99_75_ms', float('nan')):.3f}"
                    f" ms, 100-card Commander {r.get('p99_cmd100_ms', float('nan')):.3f} ms; "
                    f"index load {r['load_cpu_s']:.2f} s; "
                    f"peak {r['peak_mb']:.0f} MB"
                )
                if "floor_cmd100_over_75" in r:
                    print(
                        f"  {'':<12} lower bound, the same decks read line by line with no "
                        f"rules (split, one look-up per line and per card): 75-card "
                        f"{r['floor_median_75_ms'] * 1000:.1f} µs ({r['lines_median_75']:.0f} "
                        f"lines), Commander {r['floor_median_cmd100_ms'] * 1000:.1f} µs "
                        f"({r['lines_median_cmd100']:.0f} lines): "
                        f"{r['floor_cmd100_over_75']:.2f}x"
                    )
                    print(f"  {'':<12} {_per_line(r)}")
                if label == "this code" and "baseline" in best:
                    ratio = r["decks_per_judge_cpu_s"] / best["baseline"]["decks_per_judge_cpu_s"]
                    print(f"  {'':<12} {ratio:.2f}x the baseline's decks per CPU-second judging")
                if label == "this code":
                    for ok, what in (
                        (
                            r["decks_per_judge_cpu_s"] >= WARM_DECKS_PER_CPU_S,
                            f"{WARM_DECKS_PER_CPU_S:,} decks per CPU-second (parse + validate)",
                        ),
                        (r["decks_per_cpu_s"] >= 3000, "3,000 decks per CPU-second, hashing too"),
                        (r["cmd100_over_75"] <= 1.5, "100-card Commander <= 1.5x a 75-card deck"),
                        (r["p99_ms"] <= 2.0, "p99 <= 2 ms"),
                    ):
                        print(f"  {'PASS' if ok else 'MISS'}: {what}")
            reference = hashes.get("baseline") or args.hashes
            if reference:
                diffs = compare_hashes(reference, hashes["this code"])
                if diffs:
                    failed = True
                    print(f"\n!!! REPORTS DIFFER from {reference} in {len(diffs)} decks !!!")
                    for d in diffs[:20]:
                        print("   ", d)
                else:
                    print(
                        f"  reports identical to {'the baseline' if 'baseline' in hashes else reference}"
                        " for every deck"
                    )
        if args.profile:
            r = worker("profile", ROOT, db, "--sample", str(args.sample or 10000))
            print("\n" + r["profile"])
    if failed:
        print("\nFAILED: the reports are not identical")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
