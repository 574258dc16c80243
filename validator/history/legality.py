"""Legality history: when each card's legality changed, from two sources.

- the shipped history `data/legality-history.json.gz` (built by
  `scripts/build_legality_history.py`): bans, unbans, restrictions, rotations and releases for
  standard, pioneer, modern, legacy and vintage from 2015-02-24, and each card's first-seen date;
- the card database's own change log (`legality_changes`), which every sync extends, so the
  history keeps growing after the shipped file's end;
- for a database first synced after the shipped file's end, the "gap" between the two: a card
  whose status at the first sync differs from its shipped end status changed in between, and a
  card the shipped file does not know at all was released in between.

`AsOf` (validator/history/asof.py) uses it to judge a deck as of a past date; `deckcheck changes
--format F --since DATE` lists it.
"""

from __future__ import annotations

import gzip
import json
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import lru_cache
from types import MappingProxyType
from typing import Any, cast

from validator.cards.names import fold_name
from validator.dates import AsOfError, parse_date
from validator.errors import DeckcheckError
from validator.history.provenance import card_data_date as _data_date
from validator.history.provenance import card_data_sync
from validator.resources import resource_path

HISTORY_FILE = "legality-history.json.gz"
HISTORY_SCHEMA = "deckcheck.legality-history/4"
#: A card becoming legal within this many days of its first sighting was released (previews
#: appear a few days to weeks before release), not unbanned (scripts/build_legality_history.py
#: classifies by it too).
RELEASE_DAYS = 60
#: One character per key in the file's `end_status`: an index into `end_statuses` ("." for
#: none); the builder writes it with these digits.
END_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True, slots=True)
class Change:
    """One change of a card's legality in one format. It took effect after `after` and on or
    before `on` (the two snapshots or syncs that bracket it)."""

    on: date
    after: date
    format: str
    name: str
    old: str
    new: str
    kind: str  # banned, unbanned, restricted, unrestricted, rotated-out, became-legal, changed
    source: str  # "shipped", "database" or "gap" (LegalityHistory.gap_changes)
    oracle_id: str | None = None  # shipped: None (the file holds names; cli resolves them)
    #: Every source that knows this change (`merge_sources`: one known from the shipped
    #: history and the database's log is listed once); empty: `source` alone.
    sources: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The fields of `deckcheck changes --json` (schema deckcheck.changes/1), plus the
        window the change took effect in, its kind and its source."""
        return {
            "changed_at": self.on.isoformat(),
            "oracle_id": self.oracle_id,
            "name": self.name,
            "format": self.format,
            "old_status": self.old,
            "new_status": self.new,
            "after": self.after.isoformat(),
            "kind": self.kind,
            "source": self.source,
            "sources": list(self.sources or (self.source,)),
        }


def merge_sources(changes: Iterable[Change]) -> list[Change]:
    """`changes` (oldest first) with a change that two sources know (the same card, format,
    old and new status, their windows overlapping) listed once, with both sources and the
    window both allow; `source` stays the first one's."""
    out: list[Change] = []
    open_: dict[tuple[str, str, str, str], int] = {}
    for c in changes:
        key = (c.format, c.name.casefold(), c.old, c.new)
        at = open_.get(key)
        if at is not None:
            seen = out[at]
            if seen.source != c.source and c.after <= seen.on and seen.after <= c.on:
                out[at] = replace(
                    seen,
                    after=max(seen.after, c.after),
                    on=min(seen.on, c.on),
                    oracle_id=seen.oracle_id or c.oracle_id,
                    sources=tuple(dict.fromkeys((*(seen.sources or (seen.source,)), c.source))),
                )
                continue
        open_[key] = len(out)
        out.append(c)
    return out


class _ShippedChanges(Mapping[str, tuple[Change, ...]]):
    """Folded name -> its changes in date order, decoded the first time a name is asked for:
    an event asks about a few thousand of the file's names, a cold CLI run should not build
    the other tens of thousands.

    A front-face alias ("urza, lord protector" for the source's only spelling "Urza, Lord
    Protector // Urza, Planeswalker", scripts/build_legality_history.py `aliases`) is found
    too, but not iterated: iterating gives each change once, under its own name."""

    def __init__(self, raw: dict[str, Any], keys: list[str]):
        self._rows = {keys[row[0]]: row for row in raw["changes"]}
        self._aliases = {keys[row[0]]: [keys[i] for i in row[1:]] for row in raw["aliases"]}
        self._names, self._formats = raw["names"], raw["formats"]
        self._statuses, self._kinds = raw["statuses"], raw["kinds"]
        self._windows = [(date.fromisoformat(a), date.fromisoformat(b)) for a, b in raw["windows"]]
        self._events = raw["events"]
        self._decoded: dict[str, tuple[Change, ...]] = {}

    def __getitem__(self, key: str) -> tuple[Change, ...]:
        found = self._decoded.get(key)
        if found is None and key not in self._rows and key in self._aliases:
            merged = [c for source in self._aliases[key] for c in self[source]]
            found = self._decoded[key] = tuple(sorted(merged, key=lambda c: c.on))
        if found is None:
            row = self._rows[key]  # KeyError: no change of this name
            out = []
            for i in range(1, len(row), 2):
                fmt_i, win_i, kind_i, old_i, new_i = self._events[row[i]]
                after, on = self._windows[win_i]
                out.append(
                    Change(
                        on,
                        after,
                        self._formats[fmt_i],
                        self._names[row[i + 1]],
                        self._statuses[old_i],
                        self._statuses[new_i],
                        self._kinds[kind_i],
                        "shipped",
                    )
                )
            found = self._decoded[key] = tuple(out)
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._rows or key in self._aliases

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class _FirstSeen(Mapping[str, date]):
    """Folded name -> first-seen date, by binary search in the file's sorted keys (no table
    of 38,000 entries built at load)."""

    def __init__(self, keys: list[str], seen: list[int], dates: list[str], after: list[str | None]):
        self._keys, self._seen = keys, seen
        self._dates = [date.fromisoformat(d) for d in dates]
        self._after = [date.fromisoformat(d) if d else None for d in after]

    def _index(self, key: str) -> int:
        i = bisect_left(self._keys, key)
        if i < len(self._keys) and self._keys[i] == key and self._seen[i] >= 0:
            return i
        raise KeyError(key)

    def __getitem__(self, key: str) -> date:
        return self._dates[self._seen[self._index(key)]]

    def window(self, key: str) -> tuple[date | None, date] | None:
        """The window the name was released in: (the build before its first sighting, its
        first sighting); None when the name is not known. (None, start) for a name in the
        first build (released on or before it)."""
        try:
            i = self._seen[self._index(key)]
        except KeyError:
            return None
        return self._after[i], self._dates[i]

    def __contains__(self, key: object) -> bool:
        try:
            self._index(key)  # type: ignore[arg-type]
        except (KeyError, TypeError):
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return (k for k, d in zip(self._keys, self._seen) if d >= 0)

    def __len__(self) -> int:
        return sum(1 for d in self._seen if d >= 0)


class _EndStatus:
    """Folded name -> its statuses on the history's end, per format (the builder's
    `end_statuses`/`end_status`: one character per key), by binary search in the sorted keys."""

    def __init__(self, keys: list[str], codes: str, table: list[list[str]], formats: list[str]):
        self._keys, self._codes = keys, codes
        self._table = [dict(zip(formats, row)) for row in table]

    def get(self, key: str) -> dict[str, str] | None:
        """The name's statuses (`legal`, `restricted`, `not_legal_or_banned`), or None."""
        i = bisect_left(self._keys, key)
        if i < len(self._keys) and self._keys[i] == key and self._codes[i] != ".":
            return self._table[END_DIGITS.index(self._codes[i])]
        return None


@dataclass(frozen=True)
class ShippedHistory:
    start: date  # the first snapshot: first-seen dates equal to it mean "on or before"
    end: date
    changes: Mapping[str, tuple[Change, ...]]  # folded name -> changes in date order
    first_seen: _FirstSeen  # folded name -> first-seen date (and .window: its release window)
    formats: tuple[str, ...]
    #: Per format, the first snapshot whose restricted list the source records (before it,
    #: the list is not known: deckcheck judges by this snapshot's).
    restrictions_from: Mapping[str, date]
    #: Folded name -> its statuses on `end` (None: not known then, or no reliable row).
    end_status: _EndStatus


@lru_cache(maxsize=1)
def shipped_history() -> ShippedHistory:
    """The shipped file, read once per process. Its layout (scripts/build_legality_history.py)
    needs no work at load beyond JSON decoding: names are stored folded and sorted, and a
    name's changes are decoded when a deck first asks about it (about 20 ms, was 0.27 s)."""
    with gzip.open(resource_path("data", HISTORY_FILE), "rb") as f:
        raw = json.loads(f.read())
    if raw.get("schema") != HISTORY_SCHEMA:
        raise DeckcheckError(
            f"{HISTORY_FILE}: schema {raw.get('schema')!r}, expected "
            f"{HISTORY_SCHEMA!r}; rebuild it with scripts/build_legality_history.py"
        )
    keys = raw["keys"]
    return ShippedHistory(
        start=date.fromisoformat(raw["start"]),
        end=date.fromisoformat(raw["end"]),
        changes=_ShippedChanges(raw, keys),
        first_seen=_FirstSeen(
            keys, raw["first_seen"], raw["first_seen_dates"], raw["first_seen_after"]
        ),
        formats=tuple(raw["formats"]),
        restrictions_from=MappingProxyType(
            {f: date.fromisoformat(d) for f, d in raw["restrictions_from"].items()}
        ),
        end_status=_EndStatus(keys, raw["end_status"], raw["end_statuses"], raw["formats"]),
    )


def check_history_start(as_of: date, start: date, what: str = "as-of date") -> None:
    """Raise AsOfError for a date before the legality history begins (nothing to undo from)."""
    if as_of < start:
        raise AsOfError(
            f"{what} {as_of.isoformat()} is before the legality history begins "
            f"({start.isoformat()}); use a date on or after it"
        )


def _as_date(value: date | datetime | str) -> date:
    """A change log or sync time (never empty) as a date."""
    day = parse_date(value, "database time")
    assert day is not None
    return day


def _db_kind(old: str, new: str) -> str:
    if new == "banned":
        return "banned"
    if old == "banned":
        return "unbanned"
    if new == "restricted":
        return "restricted"
    if old == "restricted":
        return "unrestricted"
    if new == "not_legal":
        return "rotated-out"
    if new == "legal":
        return "became-legal"
    return "changed"


class LegalityHistory:
    """The shipped history plus a card database's change log, for one card data snapshot.

    `card_data_date` is the date of the legalities the card source holds (`provenance.
    card_data_date`: Scryfall's `updated_at`, else the date in the imported file's name, else
    the sync's date): shipped changes after it are not in the card data yet, so they are not
    undone.

    `db_changes`: the change log's rows in any order (`CardDB.changes` gives them newest
    first); they are used oldest first, by date and then by `id` (the log's sequence), so two
    syncs on one day (a ban, then its unban) are read in the order they happened.
    """

    def __init__(
        self,
        db_changes: Iterable[dict[str, Any]] = (),
        card_data_date: date | None = None,
        sync_dates: Iterable[date] = (),
        log_start: date | None = None,
        first_data_date: date | None = None,
    ):
        self.shipped = shipped_history()
        self.card_data_date = card_data_date
        #: The database's first sync: its change log holds every change since (None: unknown).
        self.log_start = log_start
        #: The date of the first sync's card data (Scryfall's `updated_at`, else the sync's
        #: date) when it is after the shipped history's end: the gap in between is known
        #: only by comparing each card with its shipped end status (`gap_changes`). None
        #: when there is no gap (the first sync is not after the shipped end).
        first = first_data_date or log_start
        self.gap_end = first if first is not None and first > self.shipped.end else None
        self._by_oracle: dict[str, list[Change]] = {}
        self._db: list[Change] = []
        syncs = sorted(set(sync_dates))
        rows = [
            (_as_date(row["changed_at"]), row)
            for row in db_changes
            if row.get("format") not in (None, "*") and row.get("new_status") is not None
        ]
        # Oldest first, and within a day in the log's own order (its ids): the store gives the
        # log newest first, and a stable sort by date alone kept a same-day ban and unban
        # newest first, so the unban's old status ("banned") was taken for the first sync's.
        # Rows without ids keep the order they came in.
        rows.sort(key=lambda item: (item[0], item[1].get("id") or 0))
        for on, row in rows:
            before = bisect_left(syncs, on)  # the last sync before this one: the window's start
            old, new = row.get("old_status") or "not_legal", row["new_status"]
            change = Change(
                on,
                syncs[before - 1] if before else on,
                row["format"],
                row["name"],
                old,
                new,
                _db_kind(old, new),
                "database",
                row.get("oracle_id"),
            )
            self._db.append(change)
            self._by_oracle.setdefault(row["oracle_id"], []).append(change)
        # Per oracle id: an event asks about the same few thousand cards again and again.
        self._card_changes: dict[str, list[Change]] = {}
        self._first_seen: dict[str, tuple[date | None, date] | None] = {}

    @property
    def start(self) -> date:
        return self.shipped.start

    def known_since(self, fmt_key: str) -> date | None:
        """From when this history knows every change of `fmt_key`: the shipped history's start
        for the formats it covers, else the date of the database's first sync (its change log
        knows every change since), else None (nothing before the card data's own date)."""
        # The first sync's date as the change log's changes are dated (`_dated_by_card_data`:
        # its card data's, or its finish time when the syncs' data dates are out of order),
        # so that this date and the changes' windows never disagree.
        return self.start if fmt_key in self.shipped.formats else self.log_start

    def unknown_before(self, fmt_key: str, as_of: date) -> date | None:
        """The date from which `fmt_key`'s changes are known, when that is after `as_of` and
        the card data is newer than `as_of` (so a change in between would be missed); else
        None: legality as of `as_of` is fully known."""
        newest = self.card_data_date
        if newest is None or as_of >= newest:
            return None  # nothing after the date to undo
        since = self.known_since(fmt_key)
        if since is not None and since <= as_of:
            return None
        return since if since is not None else newest

    def restrictions_unknown_before(self, fmt_key: str, as_of: date) -> date | None:
        """The first snapshot recording `fmt_key`'s restricted list when `as_of` is before it
        (the list as of `as_of` is not known, and was judged as of that snapshot's), else
        None."""
        since = self.shipped.restrictions_from.get(fmt_key)
        return since if since is not None and as_of < since else None

    def check_date(self, as_of: date) -> None:
        check_history_start(as_of, self.start)

    def _names(self, card: Any) -> list[str]:
        names = [fold_name(card.name)]
        front = getattr(card, "front_name", card.name)
        if front != card.name:
            names.append(fold_name(front))
        return names

    def card_changes(self, card: Any) -> list[Change]:
        """Every change of this card (shipped ones up to the card data's date), by date."""
        found = self._card_changes.get(card.oracle_id)
        if found is None:
            found = self._card_changes[card.oracle_id] = self._find_changes(card)
        return found

    def _find_changes(self, card: Any) -> list[Change]:
        shipped: tuple[Change, ...] = ()
        for name in self._names(card):
            shipped = self.shipped.changes.get(name, ())
            if shipped:
                break
        if self.card_data_date is not None:
            shipped = tuple(c for c in shipped if c.on <= self.card_data_date)
        return sorted(
            shipped
            + self.gap_changes(card, shipped)
            + tuple(self._by_oracle.get(card.oracle_id, ())),
            key=lambda c: c.on,
        )

    def first_sync_status(self, card: Any, fmt_key: str) -> str:
        """The card's status in `fmt_key` at the database's first sync: its current one with
        the change log undone (the old status of its earliest logged change there)."""
        for change in self._by_oracle.get(card.oracle_id, ()):
            if change.format == fmt_key:
                return change.old
        return card.legalities.get(fmt_key) or "not_legal"

    def _legal_at_first_sync(self, card: Any) -> bool:
        """Legal at least in Vintage at the first sync: the shipped source leaves out the cards
        legal nowhere (Un-cards, playtest and digital cards), so the gap leaves them alone."""
        return self.first_sync_status(card, "vintage") in ("legal", "restricted")

    def _end_status(self, card: Any) -> dict[str, str] | None:
        for name in self._names(card):
            found = self.shipped.end_status.get(name)
            if found is not None:
                return found
        return None

    def gap_changes(self, card: Any, shipped: tuple[Change, ...] = ()) -> tuple[Change, ...]:
        """The card's changes between the shipped history's end and the database's first
        sync (`gap_end`), when that sync is later: one per shipped format whose status at the
        first sync differs from the shipped end status, dated (end, first sync] with source
        "gap". The shipped source's `not_legal_or_banned` equals `banned` and `not_legal`; a
        card's return from it is classified as the builder does (scripts/
        build_legality_history.py `classify`): an unban when the card's last shipped change
        there was a ban, or in Legacy/Vintage (every old card is legal unless banned) when it
        was first seen more than RELEASE_DAYS before; else a release or reprint. `shipped`:
        the card's shipped changes, when the caller has them."""
        if self.gap_end is None or not self._legal_at_first_sync(card):
            # A card legal nowhere at the first sync (not even in Vintage: Un-cards, playtest,
            # digital cards) is left alone, as the gap's releases are (`release_window`).
            return ()
        end = self._end_status(card)
        if end is None:
            return ()
        out = []
        for fmt in self.shipped.formats:
            then, now = end.get(fmt), self.first_sync_status(card, fmt)
            if (
                then is None
                or then == now
                or (then == "not_legal_or_banned" and now in ("banned", "not_legal"))
            ):
                continue
            if then == "not_legal_or_banned":
                last = [c for c in shipped if c.format == fmt]
                seen = self.first_seen(card)
                old_card = seen is not None and (self.gap_end - seen).days > RELEASE_DAYS
                then = (
                    "banned"
                    if (last and last[-1].new == "banned")
                    or (fmt in ("legacy", "vintage") and old_card)
                    else "not_legal"
                )
            out.append(
                Change(
                    self.gap_end,
                    self.shipped.end,
                    fmt,
                    card.name,
                    then,
                    now,
                    _db_kind(then, now),
                    "gap",
                    card.oracle_id,
                )
            )
        return tuple(out)

    def gap_released(self, card: Any) -> bool:
        """True when the card's release window is the gap (`release_window`): the shipped
        history does not know it at all (README "Legality as of a date")."""
        window = self.release_window(card)
        # A shipped window ends on or before the shipped end; only the gap's ends after it.
        return window is not None and window[1] > self.shipped.end

    def first_seen(self, card: Any) -> date | None:
        """The date the card was first seen (the shipped history's start: on or before it)."""
        window = self.release_window(card)
        return window[1] if window is not None else None

    def release_window(self, card: Any) -> tuple[date | None, date] | None:
        """(the snapshot before the card was first seen, its first sighting): it was released
        in between, on a day the snapshots do not tell (None: the card is not in the history;
        (None, start): released on or before the history's start)."""
        if card.oracle_id in self._first_seen:
            return self._first_seen[card.oracle_id]
        found = None
        for name in self._names(card):
            found = self.shipped.first_seen.window(name)
            if found is not None:
                break
        if (
            found is None
            and self.gap_end is not None
            and self._end_status(card) is None
            and self._legal_at_first_sync(card)
        ):
            # Not in the shipped history under any of its names, but in the database's first
            # sync after its end: released (or renamed) in between. Only a card legal at
            # least in Vintage: the source leaves out on purpose the cards legal nowhere
            # (Un-cards, playtest and digital cards), which are already not legal.
            found = (self.shipped.end, self.gap_end)
        self._first_seen[card.oracle_id] = found
        return found

    def database_changes(self) -> list[Change]:
        """The database's change log, oldest first, each change dated by the card data of the
        sync that recorded it (`history_for`): what `deckcheck changes` lists."""
        return list(self._db)

    def changes(self, format: str | None = None, since: date | None = None) -> list[Change]:
        """Bans, unbans, restrictions and rotations (both sources) on or after `since`; a
        change both sources know is listed once (`merge_sources`)."""
        out: list[Change] = []
        for changes in self.shipped.changes.values():
            out += [
                c
                for c in changes
                if (format is None or c.format == format) and (since is None or c.on >= since)
            ]
        out += [
            c
            for c in self._db
            if (format is None or c.format == format) and (since is None or c.on >= since)
        ]
        return merge_sources(sorted(out, key=lambda c: (c.on, c.format, c.name)))


def logged(db: Any, method: str, *args: Any) -> list[dict[str, Any]]:
    """What a card source's change log or sync record holds (`db.changes(...)`,
    `db.syncs(...)`); [] for a source that keeps none (cards built in code). A store that has
    one but cannot be read raises: a re-check or an as-of verdict made without the changes it
    could not read would call a banned card legal."""
    read = getattr(db, method, None)
    return [] if read is None else list(read(*args))


def history_for(db: Any) -> LegalityHistory:
    """The history for a card database (a `CardDB`): its change log and its sync dates."""
    changes: list[dict[str, Any]] = []
    syncs: list[date] = []
    card_data_date = log_start = first_data = None
    if db is not None:
        changes = logged(db, "changes", None)
        last = card_data_sync(db)
        card_data_date = _data_date(last)
        first = card_data_sync(db, first=True)
        if first:
            log_start = _as_date(first["finished_at"])
            first_data = _data_date(first)
        changes, log_start = _dated_by_card_data(db, changes, log_start)
        # The first sync starts the first change's window (it logs no change itself).
        syncs = sorted(
            {_as_date(c["changed_at"]) for c in changes}
            | ({cast(date, log_start)} if first else set())
        )
    return LegalityHistory(changes, card_data_date, syncs, log_start, first_data)


def _dated_by_card_data(
    db: Any, changes: list[dict[str, Any]], log_start: date | None
) -> tuple[list[dict[str, Any]], date | None]:
    """The change log with each change dated by the card data of the sync that recorded it
    (`provenance.card_data_date`), and the first sync's card data date: a change found by
    syncing a file of 2026-08-22 happened by 2026-08-22, whenever the file was imported. As
    recorded (by sync time) when a store cannot list its syncs, or when the syncs' data dates
    do not follow their order (an older file imported after a newer one)."""
    runs = logged(db, "syncs", "oracle_cards")
    dates = [_data_date(run) for run in runs]
    if not runs or any(d is None for d in dates) or dates != sorted(cast(list[date], dates)):
        return changes, log_start
    by_id = {run.get("id"): day for run, day in zip(runs, dates)}
    dated = [
        dict(c, changed_at=by_id[c.get("sync_id")]) if c.get("sync_id") in by_id else c
        for c in changes
    ]
    return dated, dates[0]
