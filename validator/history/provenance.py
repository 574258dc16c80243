"""Where a verdict came from: deckcheck's version, the card data (sync time, Scryfall's
`updated_at`) and the date legality was judged as of. Every report carries it."""

from __future__ import annotations

import os
import re
from datetime import date, datetime
from typing import Any


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return str(value)


#: A date in a bulk file's name, as Scryfall names them ("oracle-cards-20260908090157.json")
#: and as the derived file is ("oracle-cards-derived-20260822.jsonl.gz").
_NAME_DATE = re.compile(r"(?<![0-9])(20[0-9]{2})([01][0-9])([0-3][0-9])(?:[0-9]{6})?(?![0-9])")


def _day(value: Any) -> date | None:
    """A sync record's time (a datetime, date or ISO text) as a date; None when it is none."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value or "").strip()[:10]
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def card_data_date(sync: dict[str, Any] | None) -> date | None:
    """The date of a sync's card data -- the one date every report, warning and the legality
    history give for it (README "Legality as of a date"): Scryfall's `updated_at`; for `sync
    --from` a file without it, the date its name carries (a bulk file imported months after
    it was saved holds that day's legalities, not the sync's); else the sync's own date.
    None: no sync (or one without any date)."""
    if not sync:
        return None
    updated = _day(sync.get("updated_at"))
    if updated is not None:
        return updated
    name = os.path.basename(str(sync.get("source_uri") or "").replace("\\", "/"))
    for match in _NAME_DATE.finditer(name):
        try:
            return date(*map(int, match.groups()))
        except ValueError:
            continue
    return _day(sync.get("finished_at"))


def prov_card_data_date(prov: dict[str, Any]) -> date | None:
    """`card_data_date` of a provenance block's card data (its `card_data` fields)."""
    data = prov.get("card_data") or {}
    return card_data_date(
        {
            "updated_at": data.get("scryfall_updated_at"),
            "source_uri": data.get("source"),
            "finished_at": data.get("synced_at"),
        }
    )


def card_data_sync(db: Any, *, first: bool = False) -> dict[str, Any] | None:
    """The last oracle-cards sync of `db` (when and from what the card data came), or with
    `first` its first one (where its legality change log begins)."""
    try:
        return db.first_sync("oracle_cards") if first else db.last_sync("oracle_cards")
    except Exception:  # noqa: BLE001 - provenance is best effort, never a reason to fail
        return None


def provenance(db: Any = None, as_of: date | str | None = None) -> dict[str, Any]:
    """The provenance block of reports (`db`: a `CardDB`, or None when unknown)."""
    return provenance_of(card_data_sync(db) if db is not None else None, as_of)


def provenance_of(last: dict[str, Any] | None, as_of: date | str | None = None) -> dict[str, Any]:
    """The provenance block for the card data of one sync (`last`: its `sync_runs` record, as
    `card_data_sync` gives it; the service passes the sync its loaded data came from)."""
    from validator import __version__

    synced = last.get("finished_at") if last else None
    updated = last.get("updated_at") if last else None
    when = None
    if as_of is not None:  # the history module (and its imports) only for a dated verdict
        from validator.dates import parse_as_of

        when = parse_as_of(as_of)
    day = when.day if when else None
    data = card_data_date(last)  # the date the history judges "current" legality as of too
    data_day = data.isoformat() if data else None
    return {
        "deckcheck": __version__,
        "card_data": {
            "synced_at": _iso(synced),
            "scryfall_updated_at": _iso(updated),
            "source": last.get("source_uri") if last else None,
            "cards": last.get("card_count") if last else None,
        },
        # The date legality was judged as of: the --as-of date, else the card data's own date.
        "legality_as_of": day.isoformat() if day else data_day,
        "legality_basis": "history" if day else "card data",
        # A date known only to its month: judged as of the month's last day.
        **({"legality_as_of_precision": "month"} if when and when.month_only else {}),
    }


def as_of_label(as_of: str | None, precision: str | None) -> str:
    """A judged-as-of date as reports show it: "2026-05-31 (only the month 2026-05 is
    known)" for a date known only to its month."""
    if not as_of:
        return ""
    return f"{as_of} (only the month {as_of[:7]} is known)" if precision == "month" else as_of


def synced_shown(prov: dict[str, Any]) -> str:
    """When the card data was synced, as reports show it ("2026-08-22 09:00:00")."""
    return (prov["card_data"]["synced_at"] or "unknown")[:19].replace("T", " ")


def provenance_line(prov: dict[str, Any]) -> str:
    """One line for terminal output."""
    data = prov["card_data"]
    synced = synced_shown(prov)
    updated = data["scryfall_updated_at"] or "unknown"
    when = prov["legality_as_of"]
    when = "each deck's date" if when == "per deck" else when
    source = "legality history"
    if prov.get("legality_as_of_precision") == "month":  # "only the month 2026-05 is known"
        source = f"only the month {when[:7]} is known; {source}"
    if prov.get("undated_decks_basis") == "card data":  # a per-deck run, some undated
        source += "; decks without a date: current card data"
    basis = (
        f"as of {when} ({source})"
        if prov["legality_basis"] == "history"
        else f"current card data ({prov['legality_as_of'] or 'unknown date'})"
    )
    return (
        f"deckcheck {prov['deckcheck']}; card data synced {synced}, Scryfall updated_at "
        f"{updated}; legality {basis}"
    )
