"""Helpers shared by the benchmark scripts (not part of the package, not a test).

* `derived_db()` builds a card database from the full-size derived card file once and caches it
  under /tmp/deckcheck-bench/, keyed by the file's size and mtime (and the database schema
  version), so repeated benchmark runs start warm.
* `render_mtgo_text()` / `render_json()` turn a (main, side) pair of `[count, name]` lists into
  the decklist formats users paste.
* `format_key()` maps the format labels of the decklist corpora to deckcheck format keys.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
DERIVED_FILE = SHARED_DATA / "scryfall" / "oracle-cards-derived-20260822.jsonl.gz"
BULK_DECKS = SHARED_DATA / "decklists" / "bulk" / "mtgo_2026-01_to_2026-08_all_decks.jsonl.gz"
T = TypeVar("T")

CACHE_DIR = Path(os.environ.get("DECKCHECK_BENCH_CACHE", "/tmp/deckcheck-bench"))

#: Corpus format labels -> deckcheck format keys. "Commander" depends on the event (see
#: `format_key`); labels not here (e.g. "Contraption(unknown)", None) are skipped.
FORMAT_KEYS = {
    "Standard": "standard",
    "Pioneer": "pioneer",
    "Modern": "modern",
    "Legacy": "legacy",
    "Vintage": "vintage",
    "Pauper": "pauper",
    "Premodern": "premodern",
    "Duel Commander": "duel",
}


def format_key(label: str | None, path: str = "") -> str | None:
    """The deckcheck format key for a corpus format label, or None to skip the deck.

    MTGO calls Duel Commander "Commander"; the Melee cEDH events (file names "cedh...") are
    real (multiplayer) Commander.
    """
    if label is None:
        return None
    if label == "Commander":
        name = Path(path).name.lower()
        if name.startswith("cedh"):
            return "commander"
        if "/mtgo/" in f"/{path.lower()}":
            return "duel"
        return None
    return FORMAT_KEYS.get(label)


# ---------------------------------------------------------------------------- rendering

Pair = Sequence  # [count, name]


def render_mtgo_text(main: Iterable[Pair], side: Iterable[Pair]) -> str:
    """MTGO .txt: `N Name` lines, a blank line, sideboard lines.

    A deck with an empty main deck cannot be written that way (a lone block is the main deck),
    so its sideboard gets a "Sideboard" header instead of the blank line.
    """
    main_lines = [f"{n} {name}" for n, name in main]
    side_lines = [f"{n} {name}" for n, name in side]
    if not side_lines:
        return "\n".join(main_lines) + "\n"
    sep = [""] if main_lines else ["Sideboard"]
    return "\n".join(main_lines + sep + side_lines) + "\n"


def render_json(main: Iterable[Pair], side: Iterable[Pair]) -> str:
    """The JSON deck: {"main": [[n, name], ...], "sideboard": [...]}."""
    return json.dumps(
        {"main": [[n, name] for n, name in main], "sideboard": [[n, name] for n, name in side]},
        ensure_ascii=False,
    )


# ---------------------------------------------------------------------------- decks


def iter_bulk_decks(path: Path = BULK_DECKS) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


# ---------------------------------------------------------------------------- card database


def _cache_key(source: Path) -> str:
    # The schema and the compact card index's encoding: a database built by older code (no
    # card_index table, or an older encoding) would silently measure the slow fallback path.
    try:
        from validator.cards.compact import ENCODING_VERSION, SCHEMA_VERSION
    except ImportError:  # a baseline tree from before the packages (validator/compact.py)
        from validator.compact import ENCODING_VERSION, SCHEMA_VERSION  # type: ignore[no-redef]

    st = source.stat()
    return f"{source.stem}-{st.st_size}-{int(st.st_mtime)}-s{SCHEMA_VERSION}-e{ENCODING_VERSION}"


def derived_db(
    source: Path = DERIVED_FILE,
    *,
    cache_dir: Path = CACHE_DIR,
    log=lambda s: print(s, file=sys.stderr),
) -> Path:
    """A SQLite card database imported from `source`, built once and cached.

    The cache file name carries the source's size and mtime, so a changed derived file gives a
    new database. The import writes to a temporary file renamed into place, so two processes
    building at once never see a half-written database.
    """
    if not source.is_file():
        raise FileNotFoundError(f"derived card file not found: {source}")
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / f"{_cache_key(source)}.sqlite3"
    if target.is_file():
        return target
    from validator.sync import import_file

    fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=".sqlite3", dir=cache_dir)
    os.close(fd)
    os.unlink(tmp)  # import_file creates the database itself
    started = time.perf_counter()
    try:
        result = import_file(source, tmp)
        # Fold the WAL into the main file so the renamed database is self-contained.
        import sqlite3

        con = sqlite3.connect(tmp)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("PRAGMA journal_mode=DELETE")
        con.close()
        os.replace(tmp, target)
    finally:
        for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
            if os.path.exists(leftover):
                os.unlink(leftover)
    log(f"built {target} ({result.card_count} cards) in {time.perf_counter() - started:.1f} s")
    return target


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list (q in 0..100)."""
    if not sorted_values:
        return float("nan")
    import math

    rank = math.ceil(q / 100 * len(sorted_values))
    return sorted_values[max(0, min(len(sorted_values), rank) - 1)]


def in_turn(variants: Sequence[T], repetition: int) -> Sequence[T]:
    """The variants of a benchmark in the order repetition `repetition` runs them: they take
    turns going first, so that load rising or falling through a repetition on this shared
    machine favours none of them."""
    return variants if repetition % 2 == 0 else variants[::-1]


def children_cpu() -> float:
    """CPU seconds (user + sys) of this process's finished children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def installed_env() -> dict[str, str]:
    """The CLI's environment as after `pip install deckcheck`, which byte-compiles the package:
    with PYTHONDONTWRITEBYTECODE set (as in this project's sandbox) and the editable install,
    every run would compile deckcheck's modules from source (~0.12 s), a cost no installed
    deckcheck pays. The bytecode goes to a cache beside the benchmark database (the first run
    writes it)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(CACHE_DIR / "pycache")
    return env
