"""Benchmark: import the full-size bulk file the way a user does, next to a standard-library
baseline measured in the same run.

    python bench/bench_sync.py                  # ../shared/data/scryfall/oracle-cards-derived-*.jsonl.gz
    python bench/bench_sync.py --file FILE      # any bulk file (JSON Lines or JSON array, gzip or not)
    python bench/bench_sync.py --repeat 3       # best of 3 for each side
    python bench/bench_sync.py --profile        # also cProfile import_file in this process
    python bench/bench_sync.py --scaling        # also import a 2x file: peak RSS must not grow

Ours: `deckcheck sync --from FILE --db TMP` in a child process (`python -m validator`, or, when
validator/cli/commands.py does not exist yet, `python -c "from validator.sync import import_file ..."`,
which the output says).
Baseline: the same file read with `gzip` + `json.loads` per line and inserted with plain
`sqlite3.executemany` into one table, in WAL mode, one transaction, in a child process too.
`--baseline columns` (default): oracle_id, name, layout, type_line, oracle_text and the
legalities as JSON text. `--baseline json`: oracle_id, name and the whole JSON line.

Every run is its own child process; wall time is measured around it. Peak RSS is the larger of
that child's own ru_maxrss (os.wait4: exactly that child, so runs never mix) and the resident
size of its whole process tree sampled every 20 ms, since a full sync reads the file in a
second process while the first writes the database.

Targets (from the issue): ours within 2x of the baseline's wall time, and under 300 MB peak
RSS. Each prints PASS or MISS; the exit code is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = (
    ROOT.parent / "shared" / "data" / "scryfall" / "oracle-cards-derived-20260822.jsonl.gz"
)
TIME_RATIO_TARGET = 2.0
RSS_TARGET_MB = 300.0
#: Issue 12: CPU (user + sys of the sync and its reader process) at most 1.4x the baseline's;
#: peak RSS summed over all its processes under 200 MB; a --force re-sync of an unchanged file
#: no slower than a fresh one.
CPU_RATIO_TARGET = 1.4
TREE_RSS_TARGET_MB = 200.0

BASELINE = textwrap.dedent("""
    import gzip, json, sqlite3, sys
    path, db, variant = sys.argv[1], sys.argv[2], sys.argv[3]
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    if variant == "json":
        con.execute("CREATE TABLE cards (oracle_id TEXT PRIMARY KEY, name TEXT NOT NULL, "
                    "data TEXT NOT NULL)")
        sql = "INSERT OR REPLACE INTO cards VALUES (?, ?, ?)"
    else:
        con.execute("CREATE TABLE cards (oracle_id TEXT PRIMARY KEY, name TEXT NOT NULL, "
                    "layout TEXT, type_line TEXT, oracle_text TEXT, legalities TEXT)")
        sql = "INSERT OR REPLACE INTO cards VALUES (?, ?, ?, ?, ?, ?)"
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\\x1f\\x8b"
    opener = gzip.open if gz else open
    rows, n = [], 0
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            o = json.loads(line)
            oid = o.get("oracle_id") or o["card_faces"][0]["oracle_id"]
            if variant == "json":
                rows.append((oid, o["name"], line))
            else:
                rows.append((oid, o["name"], o.get("layout"), o.get("type_line"),
                             o.get("oracle_text"), json.dumps(o.get("legalities"))))
            n += 1
            if len(rows) >= 2000:
                con.executemany(sql, rows)
                rows.clear()
    con.executemany(sql, rows)
    con.commit()
    count = con.execute("SELECT count(*) FROM cards").fetchone()[0]
    con.close()
    print(f"{n} lines, {count} rows")
""")

FALLBACK = textwrap.dedent("""
    import sys
    from pathlib import Path
    from validator.sync import import_file
    result = import_file(Path(sys.argv[1]), sys.argv[2])
    print(result.summary())
""")


def _tree_rss_kb(root: int) -> int:
    """Resident KiB of `root` and all its descendants now (Linux /proc; 0 elsewhere)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        rss[int(entry)] = int(fields[21]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(rss.get(pid, 0) for pid in tree)


LAST_CPU: list[float] = []  # CPU seconds of each run_child, user + sys, reaped children included


def run_child(
    cmd: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT
) -> tuple[float, float, int, str, float]:
    """(wall seconds, peak RSS in MB of its largest process, exit code, output, peak MB of the
    whole process tree sampled every 20 ms: a sync reads the file in a second process). The
    CPU time (user + sys, the reader process included: it is reaped by the sync) is appended
    to LAST_CPU."""
    import threading

    peak_tree = 0
    done = threading.Event()
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)

        def sample() -> None:
            nonlocal peak_tree
            while not done.wait(0.02):
                peak_tree = max(peak_tree, _tree_rss_kb(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        LAST_CPU.append(usage.ru_utime + usage.ru_stime)
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    # ru_maxrss is in KiB on Linux, bytes on macOS
    rss_mb = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return wall, rss_mb, proc.returncode, text, peak_tree / 1024


def ours_command(path: Path, db: Path) -> tuple[list[str], str]:
    if (ROOT / "validator" / "cli" / "commands.py").is_file():
        return (
            [sys.executable, "-m", "validator", "sync", "--from", str(path), "--db", str(db)],
            "deckcheck sync --from FILE --db TMP (python -m validator)",
        )
    return (
        [sys.executable, "-c", FALLBACK, str(path), str(db)],
        "validator/cli/commands.py not found: FALLBACK python -c 'from validator.sync import import_file'",
    )


def count_lines(path: Path) -> int:
    import gzip

    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rb") as f:
        return sum(1 for line in f if line.strip())


BEST_CPU: dict[str, float] = {}  # label -> the lowest CPU time of its runs


def best_of(
    label: str, repeat: int, make_cmd, env: dict[str, str], cwd: Path = ROOT
) -> tuple[float, float, str]:
    walls, rsss, cpus, text = [], [], [], ""
    for i in range(repeat):
        with tempfile.TemporaryDirectory(prefix="deckcheck-bench-") as tmp:
            cmd = make_cmd(Path(tmp) / "cards.sqlite3")
            wall, largest, code, text, tree = run_child(cmd, env, cwd)
            rss = max(largest, tree)  # all processes together: a sync reads in a second one
        if code != 0:
            sys.exit(f"{label} failed (exit {code}):\n{text}")
        walls.append(wall)
        rsss.append(rss)
        cpus.append(LAST_CPU[-1])
        print(
            f"  {label} run {i + 1}: {wall:.2f} s, CPU {cpus[-1]:.2f} s, peak RSS {rss:.0f} MB",
            flush=True,
        )
    BEST_CPU[label] = min(cpus)
    return min(walls), max(rsss), text.strip()


def resync(path: Path, env: dict[str, str], repeat: int, cwd: Path = ROOT) -> tuple[float, float]:
    """(fresh CPU, --force re-sync CPU), best of `repeat`: import the file into a new database,
    then import the same file again with --force (every card read and compared, changes
    computed; only cards whose rows changed are rewritten) into that database."""
    fresh, again = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="deckcheck-bench-") as tmp:
            db = Path(tmp) / "cards.sqlite3"
            cmd = ours_command(path, db)[0]
            for runs, extra in ((fresh, []), (again, ["--force"])):
                _, _, code, text, _ = run_child(cmd + extra, env, cwd)
                if code != 0:
                    sys.exit(f"resync run failed (exit {code}):\n{text}")
                runs.append(LAST_CPU[-1])
    return min(fresh), min(again)


def doubled_file(path: Path, dest: Path) -> int:
    """Write `path`'s cards twice as gzip JSON Lines, the copy under new oracle ids and names."""
    import gzip

    import orjson

    sys.path.insert(0, str(ROOT))
    from validator.sync.bulkfile import iter_bulk_file

    n = 0
    with gzip.open(dest, "wb", compresslevel=1) as out:
        for copy in (0, 1):
            for _, obj in iter_bulk_file(path):
                if copy:
                    obj["name"] = obj.get("name", "") + " (copy)"
                    for holder in [obj] + list(obj.get("card_faces") or []):
                        if holder.get("oracle_id"):
                            holder["oracle_id"] = "c0" + holder["oracle_id"][2:]
                out.write(orjson.dumps(obj) + b"\n")
                n += 1
    return n


def check_scaling(path: Path, rss_1x: float, env: dict[str, str]) -> bool:
    with tempfile.TemporaryDirectory(prefix="deckcheck-bench-") as tmp:
        big = Path(tmp) / "doubled.jsonl.gz"
        n = doubled_file(path, big)
        wall, largest, code, text, tree = run_child(
            ours_command(big, Path(tmp) / "cards.sqlite3")[0], env
        )
        rss = max(largest, tree)
    if code != 0:
        sys.exit(f"the 2x import failed (exit {code}):\n{text}")
    growth = rss / rss_1x
    ok = growth < 1.25
    print(
        f"scaling: 2x file ({n} lines) {wall:.2f} s, peak RSS {rss:.0f} MB vs {rss_1x:.0f} MB "
        f"for 1x ({growth:.2f}x; target < 1.25x)  {'PASS' if ok else 'MISS'}"
    )
    return ok


def profile_import(path: Path) -> None:
    import cProfile
    import pstats

    sys.path.insert(0, str(ROOT))
    from validator.sync import import_file

    with tempfile.TemporaryDirectory(prefix="deckcheck-bench-") as tmp:
        prof = cProfile.Profile()
        prof.enable()
        import_file(path, str(Path(tmp) / "cards.sqlite3"))
        prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE, help="bulk file to import")
    ap.add_argument("--repeat", type=int, default=1, help="runs per side; the best time counts")
    ap.add_argument(
        "--baseline",
        choices=("columns", "json"),
        default="columns",
        help="baseline table: a few columns (default) or the whole JSON text",
    )
    ap.add_argument("--profile", action="store_true", help="also cProfile import_file")
    ap.add_argument(
        "--scaling",
        action="store_true",
        help="also import a file twice as big (every card again under a new oracle "
        "id and name) and compare peak RSS: streaming keeps it flat",
    )
    ap.add_argument(
        "--resync",
        action="store_true",
        help="also time a --force re-sync of the same file against a fresh one",
    )
    ap.add_argument(
        "--code",
        type=Path,
        metavar="DIR",
        help="also run `ours` with the deckcheck source tree DIR (older code)",
    )
    args = ap.parse_args(argv)

    path = args.file.resolve()
    if not path.is_file():
        print(
            f"bench_sync: the bulk file is not there: {path}\n"
            "  (the full-size derived file lives in ../shared/data/scryfall/ next to the repo; "
            "pass --file FILE for another one)",
            file=sys.stderr,
        )
        return 2
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    lines = count_lines(path)
    print(f"file: {path} ({path.stat().st_size / 1e6:.1f} MB, {lines} lines)")
    ours_cmd, how = ours_command(path, Path("DB"))
    print(f"ours: {how}")

    base_wall, base_rss, base_out = best_of(
        "baseline",
        args.repeat,
        lambda db: [sys.executable, "-c", BASELINE, str(path), str(db), args.baseline],
        env,
    )
    ours_wall, ours_rss, ours_out = best_of(
        "ours", args.repeat, lambda db: ours_command(path, db)[0], env
    )
    other: tuple[float, float] | None = None
    if args.code:
        code_env = dict(os.environ, PYTHONPATH=str(args.code.resolve()))
        with tempfile.TemporaryDirectory() as empty:  # so that -m finds DIR's package
            _, other_rss, _ = best_of(
                "code " + str(args.code),
                args.repeat,
                lambda db: ours_command(path, db)[0],
                code_env,
                Path(empty),
            )
        other = (BEST_CPU["code " + str(args.code)], other_rss)

    ratio = ours_wall / base_wall
    print()
    print(
        f"baseline (gzip + json.loads + sqlite3.executemany, one table, {args.baseline}): "
        f"{base_wall:6.2f} s "
        f"{lines / base_wall:8.0f} cards/s  peak RSS {base_rss:5.0f} MB   [{base_out}]"
    )
    print(
        f"ours     ({how.split(' (')[0]}): {ours_wall:6.2f} s {lines / ours_wall:8.0f} "
        f"cards/s  peak RSS {ours_rss:5.0f} MB"
    )
    print(f"         [{ours_out.splitlines()[-1] if ours_out else ''}]")
    time_ok = ratio <= TIME_RATIO_TARGET
    rss_ok = ours_rss < RSS_TARGET_MB
    print(
        f"time ratio ours/baseline: {ratio:.2f}x (target <= {TIME_RATIO_TARGET:.0f}x)  "
        f"{'PASS' if time_ok else 'MISS'}"
    )
    print(
        f"peak RSS: {ours_rss:.0f} MB (target < {RSS_TARGET_MB:.0f} MB)  "
        f"{'PASS' if rss_ok else 'MISS'}"
    )
    cpu_ratio = BEST_CPU["ours"] / BEST_CPU["baseline"]
    print(
        f"CPU (user+sys, reader process included): ours {BEST_CPU['ours']:.2f} s, baseline "
        f"{BEST_CPU['baseline']:.2f} s: {cpu_ratio:.2f}x (target <= "
        f"{CPU_RATIO_TARGET}x)  {'PASS' if cpu_ratio <= CPU_RATIO_TARGET else 'MISS'}"
    )
    print(
        f"peak RSS summed over the sync's processes: {ours_rss:.0f} MB (target < "
        f"{TREE_RSS_TARGET_MB:.0f} MB)  {'PASS' if ours_rss < TREE_RSS_TARGET_MB else 'MISS'}"
    )
    if other:
        print(
            f"code {args.code}: CPU {other[0]:.2f} s ({other[0] / BEST_CPU['baseline']:.2f}x the "
            f"baseline), peak RSS {other[1]:.0f} MB"
        )
    if args.resync:
        fresh, again = resync(path, env, args.repeat)
        print(
            f"re-sync --force of the unchanged file: CPU {again:.2f} s vs fresh {fresh:.2f} s "
            f"({again / fresh:.2f}x; target <= 1x)  {'PASS' if again <= fresh else 'MISS'}"
        )
    if args.scaling:
        scaling_ok = check_scaling(path, ours_rss, env)
        rss_ok = rss_ok and scaling_ok
    if args.profile or not time_ok:
        print("\nprofile of import_file (cProfile, in this process):")
        profile_import(path)
    return 0 if time_ok and rss_ok else 1


if __name__ == "__main__":
    sys.exit(main())
