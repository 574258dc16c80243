"""The legality changes a user asks for: the database's change log (what each sync brought),
or the changes of a format since a date from the shipped history and the log together.

`deckcheck changes` prints these; the functions here decide what is listed and what is said
about the limits of what is known, so that any other caller gets the same answers.
"""

from __future__ import annotations

import datetime as dt
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
