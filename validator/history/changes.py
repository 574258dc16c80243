"""The legality changes a user asks for: the database's change log (what each sync brought),
or the changes of a format since a date from the shipped history and the log together.

`deckcheck changes` prints these; the functions here decide what is listed and what is said
about the limits of what is known, so that any other caller gets the same answers.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any


def recorded_changes(cards: Any, limit: int | None) -> list[Any]:
    """The newest `limit` changes of the database's log (200 when None, every one for 0),
    listed oldest first, as `format_changes` lists them (the same `Change` shape, dated by the
    same rule: the card data of the sync that recorded each, `history_for`)."""
    from validator.history.legality import history_for

    changes = history_for(cards).database_changes()
    limit = 200 if limit is None else limit
    return changes[-limit:] if limit else changes


@dataclass(frozen=True)
class FormatChanges:
    """The answer to "what changed in format F since D": `changes` oldest first; `key` the
    format's legality key (None: every format); `known_from` says, when the question reaches
    before what deckcheck knows of `key`, from when it knows (else None)."""

    changes: list[Any]
    key: str | None
    since: dt.date | None
    known_from: str | None


def format_changes(
    cards: Any, key: str | None, since: dt.date | None, limit: int | None
) -> FormatChanges:
    """Bans, unbans, restrictions, rotations and releases in the format of legality key `key`
    (None: every format) since `since` (None: every change), from the shipped history and the
    database's log; with `limit`, the newest N (still oldest first)."""
    from validator.history.legality import history_for

    history = history_for(cards)
    changes = history.changes(key, since)
    if limit:  # the newest N, still oldest first; none given or 0: every change
        changes = changes[-limit:]
    return FormatChanges(changes, key, since, _known_from(history, key, since))


def _known_from(history: Any, key: str | None, since: dt.date | None) -> str | None:
    """When the question reaches before what is known of `key`: from when it is known, said
    by where that comes from (the shipped history's start for the formats it covers, else the
    database's first sync). Not "no changes": nothing is known before then."""
    known = history.known_since(key) if key else None
    if not key or (known is not None and (since is None or since >= known)):
        return None
    if known is not None and key in history.shipped.formats:
        return f"{known.isoformat()}, where the shipped legality history begins"
    if known is not None:
        return (
            f"{known.isoformat()}, the date of the card data of this database's first "
            f"sync (the shipped history does not cover {key})"
        )
    return f"this database's syncs (the shipped history does not cover {key})"


def with_oracle_ids(changes: list[Any], cards: Any) -> list[Any]:
    """The shipped history's changes (it holds names only) with the oracle id of the card of
    that name in the database, found in one look-up of their names; a name that is not one
    card's there keeps None."""
    from validator.cards.names import lookup_key

    names = {c.name for c in changes if c.oracle_id is None}
    if not names:
        return changes
    try:
        found = cards.lookup(names)
    except Exception:  # noqa: BLE001 - the ids are a convenience: never a reason to fail
        return changes
    ids = {}
    for name in names:
        hits = {card.oracle_id for card in found.get(lookup_key(name), ())}
        if len(hits) == 1:
            ids[name] = hits.pop()
    return [replace(c, oracle_id=ids.get(c.name)) if c.oracle_id is None else c for c in changes]


#: The schema of the change feed (`GET /v1/changes`).
FEED_SCHEMA = "deckcheck.change-feed/1"


def sync_days(db: Any) -> dict[int, str | None]:
    """Each oracle-card sync's id -> the date of its card data (ISO; `provenance.
    card_data_date`), oldest first; {} for a source with no sync record."""
    from validator.history.legality import logged
    from validator.history.provenance import card_data_date

    days: dict[int, str | None] = {}
    for run in logged(db, "syncs", "oracle_cards"):
        day = card_data_date(run)
        days[int(run["id"])] = day.isoformat() if day else None
    return days


def since_sync(since: Any, days: dict[int, str | None]) -> int:
    """A `since` of the change feed and `deckcheck recheck`: a sync id (its changes and later
    ones are wanted) or a date (the changes of card data of that day or later), as the id of
    the last sync before them. UsageError for anything else."""
    from validator.errors import UsageError

    text = str(since).strip()
    if text.isdigit():
        return int(text) - 1
    try:
        day = dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise UsageError(
            f"since {text!r} is neither a sync id (as deckcheck recheck and GET /v1/changes report it) nor a "
            "date (YYYY-MM-DD)"
        ) from None
    return max((sid for sid, d in days.items() if d is not None and d < day), default=0)


def changes_after(
    db: Any, after: int | None, days: Mapping[int, str | None]
) -> list[dict[str, Any]]:
    """The change log's rows recorded by the syncs after sync `after` (None: every one),
    oldest first, each with `card_data`: the date of the card data of the sync that found it
    (`days`: `sync_days(db)`, which every caller has read already). Format "*" is a card the
    card data no longer has."""
    from validator.history.legality import logged

    rows = logged(db, "changes", 0)
    out = [
        dict(r, card_data=days.get(r["sync_id"]))
        for r in rows
        if r.get("sync_id") is not None and (after is None or r["sync_id"] > after)
    ]
    out.sort(key=lambda r: (r["sync_id"], r.get("id") or 0))
    return out


def change_feed(db: Any, since: Any = None, legality: str | None = None) -> dict[str, Any]:
    """The legality change feed (`GET /v1/changes`): the change log since a sync id or date,
    in one format's legality key (None: all), with the last sync a poller compares against."""
    days = sync_days(db)
    after = since_sync(since, days) if since not in (None, "") else None
    rows = changes_after(db, after, days)
    if legality is not None:
        rows = [r for r in rows if r["format"] in (legality, "*")]
    last = max(days, default=None)
    return {
        "schema": FEED_SCHEMA,
        "sync_id": last,
        "card_data": days.get(last) if last is not None else None,
        "changes": [
            {
                "sync_id": r["sync_id"],
                "card_data": r["card_data"],
                "oracle_id": r["oracle_id"],
                "name": r["name"],
                "legality": r["format"],
                "old_status": r["old_status"],
                "new_status": r["new_status"],
            }
            for r in rows
        ],
    }
