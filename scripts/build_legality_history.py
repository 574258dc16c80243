"""Build deckcheck's shipped legality history, `data/legality-history.json.gz`, from
`../shared/data/legalities/` (see its README: 49,213 legality changes 2015-2026 for standard,
pioneer, modern, legacy and vintage, and each card name's first-seen date).

    python scripts/build_legality_history.py [--source ../shared/data/legalities] [--out data/...]

Re-runnable and deterministic (same input, same bytes; tests/history/test_history.py rebuilds it and
compares). The layout is made to load fast (a cold `deckcheck validate --as-of` reads it on
every run): lookups are by folded name (`validator.cards.names.fold_name`, as the validator folds a
card's name), so the folded keys are stored, sorted, and nothing is folded or decoded at load
but the one card a deck asks about:

- `keys`: every folded name, sorted; `first_seen`: per key, an index into `first_seen_dates`
  (-1: only in the change list);
- `events`: the distinct (format, window, kind, from, to) of the changes (one per announcement
  or rotation); `names`: the display names of changed cards, sorted;
- `changes`: per changed key, `[key index, event, name, event, name, ...]`, in date order;
- `first_seen_after`: per first-seen date, the snapshot before it (null for the first one):
  a card first seen on D was released in the window [after, D), not on D (the builds are
  days to years apart: 2016-06-05 to 2019-01-08, 2022-06-09 to 2023-01-21, ...);
- `aliases`: `[alias key index, source key index, ...]`: a name "A // B" is also found as
  "A" when the source has no entry "A" of its own (see `aliases` below);
- `restrictions_from`: per format, the first snapshot that records its restricted list;
- `end_statuses`: the distinct tuples of each name's statuses on `end` (2026-08-22) in
  `formats` order (`legal`, `restricted` or the source's `not_legal_or_banned`), and
  `end_status`: per key one character, the index of its tuple in END_DIGITS ("." when the
  source has no reliable row for it): a database first synced after `end` compares its cards
  with it to find the changes made in between (validator/history/legality.py "gap").

The source does not tell "banned" from "not legal" (`not_legal_or_banned`); this script
classifies each change (documented with `classify` below) so that undoing a change restores
the status a validator reports: a ban's previous status is `legal`, an unban's is `banned`,
a rotation's next status is `not_legal`, a release's or reprint's previous is `not_legal`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from validator.cards.names import fold_name  # noqa: E402 - the validator's own folding decides keys
from validator.history.legality import END_DIGITS, HISTORY_SCHEMA, RELEASE_DAYS  # noqa: E402 - shared

DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "legalities"
DEFAULT_OUT = ROOT / "data" / "legality-history.json.gz"
HISTORY = "legality-history-spmlv-2015-2026.jsonl.gz"
FIRST_SEEN = "first-seen-2015-2026.jsonl.gz"
END = "real-legalities-spmlv-pauper-2026-08-22.jsonl.gz"
#: The rows of END taken from the 2026-08-22 build itself: the others fell back to an older
#: build (2026-04-28) or to a printing without legalities ("unreliable"), and disagree with
#: the card data on ~1,500 old cards' Legacy/Vintage status, so they would read as changes.
END_SOURCE = "mtgjson-allidentifiers-2026-08-22"
FORGE = ROOT.parent / "shared" / "data" / "formats" / "forge"

SCHEMA = HISTORY_SCHEMA  # the reader's: the file it writes is the one it reads
STATUSES = ("legal", "restricted", "banned", "not_legal")
#: A group of more than this many cards leaving a format on one date is a rotation or a data
#: clean-up (planes leaving Legacy in 2015), not a ban announcement (the largest real one, the
#: 2025-06-30 Standard announcement, names 7 cards).
MAX_BAN_GROUP = 12
#: More changes than this in one format and window are a glitch of the source, not history: in
#: Pioneer about 12,900 cards (the whole card pool, Lightning Bolt included) flip to legal and
#: back three times in 2019-2020. Real windows hold at most ~1,600 (a Standard rotation).
GLITCH_GROUP = 5000
#: The source's builds record no restricted list before these snapshots: every restricted card
#: reads "legal" until then, so the window that first shows the list holds one "legal ->
#: restricted" change per restricted card (42 in Vintage between 2016-06-04 and 2016-06-05).
#: That is the source starting to record restrictions, not history: those changes are dropped,
#: so that an earlier date keeps this snapshot's restricted list (and the validator warns that
#: the list before it is not known) instead of calling Black Lotus legal in 2016-03.
RESTRICTIONS_FROM = {"vintage": "2016-06-05"}


def _read_jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _forge_banned() -> dict[str, set[str]]:
    """Forge's ban lists (late 2023..2025): evidence that an old card's return is an unban."""
    out: dict[str, set[str]] = {}
    for fmt, file in (
        ("standard", "Standard.txt"),
        ("pioneer", "Pioneer.txt"),
        ("modern", "Modern.txt"),
        ("legacy", "Legacy.txt"),
        ("vintage", "Vintage.txt"),
    ):
        path = FORGE / file
        if not path.is_file():
            continue
        m = re.search(r"^Banned:(.*)$", path.read_text(encoding="utf-8"), re.M)
        out[fmt] = {n.strip() for n in m.group(1).split(";")} if m else set()
    return out


def classify(changes: list[dict], first_seen: dict[str, str]) -> list[tuple[dict, str, str, str]]:
    """Each change with its kind and precise (from, to) statuses.

    - legal -> restricted / restricted -> legal: restriction, unrestriction (Vintage).
    - legal -> out: a ban when few cards leave the format that day, else a rotation (not_legal).
    - out -> legal: an unban when the card was banned earlier in this history, when Forge's ban
      list names it, or (Legacy/Vintage, where every old card is legal unless banned) when the
      card is older than RELEASE_DAYS; otherwise a release or reprint (it was not legal).
    """
    groups: dict[tuple, int] = defaultdict(int)
    for r in changes:
        groups[(r["format"], r["seen"], r["from"], r["to"])] += 1
    forge = _forge_banned()
    banned_before: set[tuple[str, str]] = set()
    out = []
    for r in changes:
        fmt, name, frm, to = r["format"], r["name"], r["from"], r["to"]
        key = (fmt, name)
        if frm == "legal" and to == "restricted":
            out.append((r, "restricted", "legal", "restricted"))
        elif frm == "restricted" and to == "legal":
            out.append((r, "unrestricted", "restricted", "legal"))
        elif frm == "restricted":
            out.append((r, "banned", "restricted", "banned"))
        elif to == "not_legal_or_banned":
            if groups[(fmt, r["seen"], frm, to)] <= MAX_BAN_GROUP:
                banned_before.add(key)
                out.append((r, "banned", frm, "banned"))
            else:
                out.append((r, "rotated-out", frm, "not_legal"))
        else:  # not_legal_or_banned -> legal (or restricted)
            seen = date.fromisoformat(r["seen"])
            first = first_seen.get(name)
            young = first is not None and (seen - date.fromisoformat(first)).days <= RELEASE_DAYS
            if (
                key in banned_before
                or name in forge.get(fmt, ())
                or (fmt in ("legacy", "vintage") and not young)
            ):
                banned_before.discard(key)
                out.append((r, "unbanned", "banned", to))
            else:
                out.append((r, "became-legal", "not_legal", to))
    return out


def _untracked_restrictions(r: dict) -> bool:
    """A "legal -> restricted" change in the window where the source begins recording the
    format's restricted list (RESTRICTIONS_FROM)."""
    return (r["from"], r["to"]) == ("legal", "restricted") and r["seen"] == RESTRICTIONS_FROM.get(
        r["format"]
    )


def aliases(names: list[str], first: dict[str, str]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Front-face keys for names the source spells only as "A // B".

    The source lists a meld pair's front cards only with their meld result ("Urza, Lord
    Protector // Urza, Planeswalker", CR 712.4), and some two-faced cards only as "A // A",
    while the card database names the front card "Urza, Lord Protector": so the key fold("A")
    also finds the names "A // ..." when the source has no name "A" of its own. Returns the
    alias key -> its source names (sorted), and alias key -> first-seen date: the earliest of
    its names', and of a meld sibling's (another front "C // B" with the same back B and a
    name "C" of its own): the two fronts of a meld pair are printed in the same set, and the
    source lists "Midnight Scavengers" only from 2020 while its sibling "Graf Rats" (Eldritch
    Moon, 2016) is there from 2019-01-08.
    """
    own = {fold_name(n) for n in names}
    sources: dict[str, list[str]] = defaultdict(list)
    fronts_of_back: dict[str, set[str]] = defaultdict(set)
    for n in names:
        parts = n.split(" // ")
        if len(parts) == 2 and parts[0] != parts[1]:
            fronts_of_back[parts[1]].add(parts[0])
        if len(parts) > 1 and fold_name(parts[0]) not in own:
            sources[fold_name(parts[0])].append(n)
    seen: dict[str, str] = {}
    for key, group in sources.items():
        dates = [first[n] for n in group if n in first]
        for n in group:
            front, back = n.split(" // ", 1)
            dates += [first[c] for c in fronts_of_back.get(back, ()) if c != front and c in first]
        if dates:
            seen[key] = min(dates)
    return {k: sorted(v) for k, v in sources.items()}, seen


def build(source: Path) -> dict:
    changes = _read_jsonl(source / HISTORY)
    # Every build the source tells of (both ends of each change's window; first-seen dates are
    # added below), taken before any change is dropped: a first-seen date's previous build is
    # where its release window starts.
    builds = {d for r in changes for d in (r["previous_snapshot"], r["seen"])}
    untracked = sum(1 for r in changes if _untracked_restrictions(r))
    changes = [r for r in changes if not _untracked_restrictions(r)]
    size: dict[tuple, int] = defaultdict(int)
    for r in changes:
        size[(r["format"], r["previous_snapshot"], r["seen"])] += 1
    glitches = sum(
        1 for r in changes if size[(r["format"], r["previous_snapshot"], r["seen"])] > GLITCH_GROUP
    )
    changes = [
        r for r in changes if size[(r["format"], r["previous_snapshot"], r["seen"])] <= GLITCH_GROUP
    ]
    changes.sort(key=lambda r: (r["seen"], r["format"], r["name"]))
    first = {r["name"]: r["first_seen"] for r in _read_jsonl(source / FIRST_SEEN)}
    names = sorted(set(first) | {r["name"] for r in changes})
    alias_names, alias_seen = aliases(names, first)
    keys = sorted({fold_name(n) for n in names} | set(alias_names))
    key_index = {k: i for i, k in enumerate(keys)}
    formats = sorted({r["format"] for r in changes})
    windows = sorted(
        {(r["previous_snapshot"], r["seen"]) for r in changes}, key=lambda w: (w[1], w[0])
    )
    kinds = ("banned", "unbanned", "restricted", "unrestricted", "rotated-out", "became-legal")
    grouped: dict[tuple, list[str]] = defaultdict(list)
    for r, kind, frm, to in classify(changes, first):
        grouped[
            (
                formats.index(r["format"]),
                windows.index((r["previous_snapshot"], r["seen"])),
                kinds.index(kind),
                STATUSES.index(frm),
                STATUSES.index(to),
            )
        ].append(r["name"])
    events = sorted(grouped)
    changed_names = sorted({n for group in grouped.values() for n in group})
    name_index = {n: i for i, n in enumerate(changed_names)}
    # Per key, its changes in date order (a stable sort of event order, then name order: two
    # spellings of one name, "Aether Vial" and "Æther Vial", share their key's list).
    per_key: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for e, event in enumerate(events):
        for n in sorted(grouped[event]):
            per_key[key_index[fold_name(n)]].append((e, name_index[n]))
    for refs in per_key.values():
        refs.sort(key=lambda ref: windows[events[ref[0]][1]][1])
    # First-seen dates: per key, the date of its first spelling (in name order) that has one.
    dates = sorted(set(first.values()))
    date_index = {d: i for i, d in enumerate(dates)}
    seen = [-1] * len(keys)
    for n in names:
        k = key_index[fold_name(n)]
        if seen[k] < 0 and n in first:
            seen[k] = date_index[first[n]]
    for alias, day in alias_seen.items():
        seen[key_index[alias]] = date_index[day]
    # Each first-seen date's previous build.
    builds = sorted(builds | set(dates))
    after = [builds[builds.index(d) - 1] if builds.index(d) else None for d in dates]
    # An alias finds the changes of its names that have any (keys of changed names only).
    alias_refs = []
    for alias in sorted(alias_names):
        sources = sorted({key_index[fold_name(n)] for n in alias_names[alias]} & set(per_key))
        if sources:
            alias_refs.append([key_index[alias]] + sources)
    snapshots = [w[1] for w in windows]
    end_statuses, end_status = _end_statuses(source, keys, key_index, alias_names, formats)
    return {
        "schema": SCHEMA,
        "source": "shared/data/legalities (MTGJSON legalities as rebuilt by Fryyyyy/decklist; "
        "448 builds diffed)",
        "start": min(dates),
        "end": "2026-08-22",
        "last_change": max(snapshots),
        "formats": formats,
        "statuses": list(STATUSES),
        "kinds": list(kinds),
        "windows": [list(w) for w in windows],
        "events": [list(e) for e in events],
        "names": changed_names,
        "keys": keys,
        "first_seen_dates": dates,
        "first_seen": seen,
        "first_seen_after": after,
        "changes": [[k] + [x for ref in refs for x in ref] for k, refs in sorted(per_key.items())],
        "aliases": alias_refs,
        "restrictions_from": RESTRICTIONS_FROM,
        "end_statuses": end_statuses,
        "end_status": end_status,
        "change_count": len(changes),
        "dropped_glitches": glitches,
        "dropped_untracked_restrictions": untracked,
        "alias_count": len(alias_names),
    }


def _end_statuses(
    source: Path,
    keys: list[str],
    key_index: dict[str, int],
    alias_names: dict[str, list[str]],
    formats: list[str],
) -> tuple[list[list[str]], str]:
    """Each key's statuses on the history's end, from the 2026-08-22 legalities file (rows of
    that build only, END_SOURCE): the distinct tuples, and one END_DIGITS character per key. A
    key with several spellings takes its first spelling's (in name order) that has a row; an
    alias key ("urza, lord protector") its first source name's."""
    rows = {
        r["name"]: tuple(r[f] for f in formats)
        for r in _read_jsonl(source / END)
        if r["src_spmlv"] == END_SOURCE
    }
    per_key: dict[int, tuple[str, ...]] = {}
    for name in sorted(rows):
        k = key_index.get(fold_name(name))
        if k is not None:  # every row's name is in first-seen (checked below)
            per_key.setdefault(k, rows[name])
    missing = sorted(n for n in rows if fold_name(n) not in key_index)
    assert not missing, f"names of {END} not in {FIRST_SEEN}: {missing[:5]}"
    for alias in sorted(alias_names):
        found = [rows[n] for n in alias_names[alias] if n in rows]
        if found:
            per_key.setdefault(key_index[alias], found[0])
    table = sorted(set(per_key.values()))
    assert len(table) <= len(END_DIGITS), "more distinct status tuples than END_DIGITS"
    index = {t: END_DIGITS[i] for i, t in enumerate(table)}
    return [list(t) for t in table], "".join(
        index[per_key[k]] if k in per_key else "." for k in range(len(keys))
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    data = build(args.source)
    known = sum(1 for c in data["end_status"] if c != ".")
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    # mtime=0: the same input gives the same bytes (a reproducible wheel).
    packed = gzip.compress(raw, compresslevel=9, mtime=0)
    args.out.write_bytes(packed)
    print(
        f"{args.out}: {data['change_count']} changes ({data['dropped_glitches']} glitch "
        f"changes and {data['dropped_untracked_restrictions']} untracked restrictions "
        f"dropped), {len(data['keys'])} names ({data['alias_count']} front-face aliases), "
        f"{data['start']}..{data['end']}, {known} end statuses "
        f"({len(data['end_statuses'])} distinct); {len(raw):,} bytes JSON, {len(packed):,} bytes gzip"
    )


if __name__ == "__main__":
    main()
