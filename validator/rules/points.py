"""Points formats (Canadian and Australian Highlander): each listed card costs points and a
deck may spend at most the format's cap. The lists are dated data (data/points/*.toml, or a
house format's own file): a deck is judged by the version in force on its as-of date.

A points file holds one `[[version]]` table per list version:

    [[version]]
    date = "2025-07-19"        # the day the version took effect (ISO date)
    source = "..."             # where it comes from (optional)
    points = { "Black Lotus" = 7, "Sol Ring" = 4 }
    companion = { "Lurrus of the Dream-Den" = 3 }   # optional: a declared companion's cost

The format's table names the file (`points = "points/canadian-highlander.toml"`, relative to
the formats file) and the cap (`points_cap`); `points_sideboard = false` where only the main
deck counts. Everything is checked when the formats are read; an error names the file, the
format, the version and the key.
"""

from __future__ import annotations

import bisect
import tomllib
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from validator.cards.names import lookup_key
from validator.model import (
    COMMANDER,
    COMPANION,
    ERROR,
    INFO,
    MAIN,
    SIDEBOARD,
    WARNING,
    Problem,
    ResolvedDeck,
    ResolvedEntry,
    entry_lines,
)


class PointsError(ValueError):
    """A points list is malformed (formats.py raises it as a FormatError, exit 2)."""


@dataclass(frozen=True)
class PointsVersion:
    """One dated version of a points list: card name -> points, and a declared companion's
    own points where the format gives companions points of their own (Australian)."""

    day: date
    points: Mapping[str, int]  # as written in the list
    companion: Mapping[str, int] = field(default_factory=dict)
    source: str | None = None
    # lookup_key(name) -> points, so a list's spelling ("Lim-Dûl's Vault", case) matches the
    # card's Oracle name however the decklist wrote it.
    _folded: Mapping[str, int] = field(default_factory=dict, repr=False, compare=False)
    _folded_companion: Mapping[str, int] = field(default_factory=dict, repr=False, compare=False)
    # Oracle name -> deck points, and the names that cost any: a warm run prices each card
    # once per version.
    _deck_costs: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    _pointed: set[str] = field(default_factory=set, repr=False, compare=False)
    #: A dated ban list's version (`lists`): names banned, restricted, allowed from this day.
    banned: tuple[str, ...] = ()
    restricted: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    #: The legal sets from this day (Scryfall set codes, lower case): a card is legal only
    #: when printed in one of them (Old School 93/94). Empty: no set rule.
    sets: tuple[str, ...] = ()

    def cost(self, card_name: str, as_companion: bool = False) -> int:
        """Points of the card named `card_name` (Oracle name; a multi-face card also matches
        its front face's name), as a declared companion when `as_companion`."""
        if as_companion:
            return self._cost(card_name, True)
        hit = self._deck_costs.get(card_name)
        if hit is None:
            hit = self._deck_costs[card_name] = self._cost(card_name, False)
            if hit:
                self._pointed.add(card_name)
        return hit

    def _cost(self, card_name: str, as_companion: bool) -> int:
        if as_companion:
            own = self.companion_cost(card_name)
            if own is not None:
                return own
        key = lookup_key(card_name)
        return self._folded.get(key, self._folded.get(key.split(" // ")[0], 0))

    def companion_cost(self, card_name: str) -> int | None:
        """The card's own points as a declared companion; None when the list gives none."""
        key = lookup_key(card_name)
        return self._folded_companion.get(key, self._folded_companion.get(key.split(" // ")[0]))


@dataclass(frozen=True)
class PointsList:
    """Every version of a format's points list, oldest first, and its cap."""

    versions: tuple[PointsVersion, ...]
    cap: int | None  # None: a dated ban list without points (`lists`)
    sideboard: bool = True  # the sideboard's cards cost points too
    source: str | None = None  # the file it was read from
    note: str | None = None  # said with the version used (e.g. what its dates are)
    #: A dated ban list's format as of each version (`FormatRules.on`), made once each.
    formats_on: dict = field(default_factory=dict, repr=False, compare=False)
    #: The versions' dates, for the bisection of `in_force`.
    _days: list[date] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_days", [v.day for v in self.versions])

    def in_force(self, day: date) -> PointsVersion | None:
        """The version in force on `day`: the latest that took effect on or before it; None
        before the first (the list of that day is not known)."""
        i = bisect.bisect_right(self._days, day)
        return self.versions[i - 1] if i else None

    def names(self) -> set[str]:
        """Every card name any version lists (for checking them against the card data)."""
        return {n for v in self.versions for n in (*v.points, *v.companion)}

    def summary(self, today: date | None = None) -> dict[str, Any]:
        """What `deckcheck formats` and GET /v1/formats show: cap, the version in force today,
        the number of versions and their range."""
        current = self.in_force(today or date.today())
        out: dict[str, Any] = {
            "cap": self.cap,
            "sideboard_counts": self.sideboard,
            "version": current.day.isoformat() if current else None,
            "versions": len(self.versions),
            "first_version": self.versions[0].day.isoformat(),
            "last_version": self.versions[-1].day.isoformat(),
            "file": Path(self.source).name if self.source else None,
        }
        if current is not None and current.sets:  # a dated list's legal sets (Old School)
            out["sets"] = list(current.sets)
        return out


def _points_table(value: Any, where: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise PointsError(f"{where} must be a table of card name = points, not {value!r}")
    for name, points in value.items():
        if isinstance(points, bool) or not isinstance(points, int) or points < 0:
            raise PointsError(
                f"{where}: {name!r} = {points!r}; points are whole numbers, 0 or more"
            )
        if not name.strip():
            raise PointsError(f"{where}: an empty card name")
    return dict(value)


def _day(value: Any, where: str) -> date:
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise PointsError(f"{where}: date must be an ISO date (2024-01-31), not {value!r}")


def parse_points(
    data: Mapping[str, Any],
    *,
    cap: Any,
    sideboard: Any,
    where: str,
    source: str | None = None,
    lists: bool = False,
) -> PointsList:
    """A PointsList from a points file's content (`lists`: a dated ban list, which needs no
    cap). Raises PointsError naming `where` (the file and format), the version and the key."""
    if cap is None and not lists:
        raise PointsError(f"{where}: a points format needs `points_cap` (the most a deck spends)")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
        raise PointsError(f"{where}: points_cap must be a whole number (0 or more), not {cap!r}")
    if not isinstance(sideboard, bool):
        raise PointsError(f"{where}: points_sideboard must be true or false, not {sideboard!r}")
    unknown = set(data) - {"version", "source", "note"}
    if unknown:
        raise PointsError(
            f"{where}: unknown key {sorted(unknown)[0]} in the points list; "
            "it holds [[version]] tables (and an optional source and note)"
        )
    raw = data.get("version")
    if not isinstance(raw, list) or not raw or not all(isinstance(v, dict) for v in raw):
        raise PointsError(
            f"{where}: the points list needs one or more [[version]] tables "
            "(date, points, optional companion and source)"
        )
    versions: list[PointsVersion] = []
    seen: dict[date, int] = {}
    for i, table in enumerate(raw, 1):
        label = f"{where}: version {table.get('date', f'#{i}')}"
        keys = {"date", "source", *(("banned", "restricted", "allowed", "sets") if lists else ())}
        keys |= set() if lists else {"points", "companion"}
        extra = set(table) - keys
        if extra:
            raise PointsError(
                f"{label}: unknown key {sorted(extra)[0]}; a version has {', '.join(sorted(keys))}"
            )
        names: dict[str, tuple[str, ...]] = {}
        for key in ("banned", "restricted", "allowed"):
            value = table.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise PointsError(f"{label}: {key} must be a list of card names, not {value!r}")
            names[key] = tuple(value)
        sets = table.get("sets", [])
        if not isinstance(sets, list) or not all(isinstance(v, str) and v.strip() for v in sets):
            raise PointsError(
                f'{label}: sets must be a list of set codes ("lea", "arn"), not {sets!r}'
            )
        if "date" not in table:
            raise PointsError(f"{label}: needs a `date` (the day it took effect)")
        day = _day(table["date"], label)
        if day in seen:
            raise PointsError(
                f"{label}: two versions (#{seen[day]} and #{i}) have the date {day}; "
                "keep one per date"
            )
        seen[day] = i
        points = _points_table(table.get("points", {}), f"{label}: points")
        companion = _points_table(table.get("companion", {}), f"{label}: companion")
        src = table.get("source")
        if src is not None and not isinstance(src, str):
            raise PointsError(f"{label}: source must be a string, not {src!r}")
        versions.append(
            PointsVersion(
                day,
                points,
                companion,
                src,
                {lookup_key(n): p for n, p in points.items()},
                {lookup_key(n): p for n, p in companion.items()},
                **names,  # type: ignore[arg-type]  # its keys: banned, restricted, allowed
                sets=tuple(sorted({v.strip().lower() for v in sets})),
            )
        )
    versions.sort(key=lambda v: v.day)
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        raise PointsError(f"{where}: note must be a string, not {note!r}")
    return PointsList(tuple(versions), cap, sideboard, source, note)


def load_points(
    value: Any, *, base: Path, cap: Any, sideboard: Any, where: str, lists: bool = False
) -> PointsList:
    """A format's `points` (or, with `lists`, its dated ban list `lists`): a file name
    (relative to the formats file's folder `base`) or an inline table with the same keys as a
    points file."""
    if isinstance(value, dict):
        return parse_points(value, cap=cap, sideboard=sideboard, where=where, lists=lists)
    if not isinstance(value, str):
        raise PointsError(f"{where}: points must be a points file name (or a table), not {value!r}")
    path = base / value
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise PointsError(
            f"{where}: cannot read its points file {path}: {exc.strerror or exc}"
        ) from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PointsError(f"{where}: points file {path} is not valid TOML ({exc})") from exc
    return parse_points(
        data,
        cap=cap,
        sideboard=sideboard,
        where=f"{where} ({path.name})",
        source=str(path),
        lists=lists,
    )


def _spending(deck: ResolvedDeck, plist: PointsList, version: PointsVersion):
    """(card name, points, entries) for every card of the deck that costs points.

    Main deck (and commander) always; the sideboard when the format counts it. A declared
    companion costs its companion points where the list gives it some (Australian
    Highlander), else its deck points when the sideboard counts; listed in the sideboard as
    well (Arena exports do), it is one card, counted once.
    """
    # The warm path: the deck's names against the names already priced (set operations, in
    # C), so that only the few pointed entries are looked at one by one.
    companions = deck.cards_in(COMPANION) if deck.count(COMPANION) else []
    counted = (MAIN, COMMANDER, SIDEBOARD) if plist.sideboard else (MAIN, COMMANDER)
    entries = deck.cards_in(*counted)
    priced = version._deck_costs
    by_name = {e.card.name: e for e in entries}
    for name in set(by_name).difference(priced):  # not keys() - keys(): that copies both
        version.cost(name)  # prices it (and remembers a pointed name in _pointed)
    hits = version._pointed.intersection(by_name)
    pointed: list[tuple[ResolvedEntry, int]] = []
    if hits and len(by_name) == len(entries) and not companions:
        pointed = [(by_name[name], priced[name]) for name in hits]  # one line per card
    elif hits:
        declared = {e.card.oracle_id for e in companions}
        for e in entries:
            if e.card.name in hits and not (
                e.section is SIDEBOARD and e.card.oracle_id in declared
            ):
                pointed.append((e, priced[e.card.name]))
    for e in companions:
        if plist.sideboard or version.companion_cost(e.card.name) is not None:
            each = version.cost(e.card.name, as_companion=True)
            if each:
                pointed.append((e, each))
    spent: dict[str, tuple[str, int, list[ResolvedEntry]]] = {}
    for e, each in pointed:
        old = spent.get(e.card.oracle_id)
        total = each * e.quantity + (old[1] if old else 0)
        spent[e.card.oracle_id] = (e.card.name, total, (old[2] if old else []) + [e])
    return sorted(spent.values(), key=lambda s: (-s[1], s[0]))


def _priced(name: str, points: int, entries: list[ResolvedEntry]) -> str:
    """ "Sol Ring 3", or "Sol Ring 8 (2 copies x 4)" where copies multiply the cost."""
    copies = sum(e.quantity for e in entries)
    return f"{name} {points}" + (f" ({copies} copies x {points // copies})" if copies > 1 else "")


def points_problems(deck: ResolvedDeck, fmt: Any, day: date) -> list[Problem]:
    """The points check of a points format on `day`: an error over the cap naming every
    pointed card with its points, the total, the cap and the list's version; an info note
    with the total otherwise; a warning when `day` is before the first known version ("cannot
    tell" is not "illegal")."""
    plist: PointsList | None = fmt.points
    if plist is None:
        return []
    cite = fmt.cite("points")
    version = plist.in_force(day)
    if version is None:
        return [
            Problem(
                "points-list-missing",
                f"{fmt.name}'s points list is known from {plist.versions[0].day} on; the "
                f"deck's date {day} is before it, so its points are not checked",
                cite,
                WARNING,
            )
        ]
    spent = _spending(deck, plist, version)
    total = sum(s[1] for s in spent)
    listed = ", ".join(_priced(*s) for s in spent) or "no pointed cards"
    which = f"points list of {version.day}" + (f"; {plist.note}" if plist.note else "")
    cards = tuple(name for name, _, _ in spent)
    lines = entry_lines([e for _, _, entries in spent for e in entries])
    if total > plist.cap:
        return [
            Problem(
                "points-over-cap",
                f"the deck spends {total} points, over {fmt.name}'s cap of {plist.cap} "
                f"({which}): {listed}",
                cite,
                ERROR,
                cards=cards,
                lines=lines,
            )
        ]
    return [
        Problem(
            "points-total",
            f"the deck spends {total} of {fmt.name}'s {plist.cap} points ({which}): {listed}",
            cite,
            INFO,
            cards=cards,
            lines=lines,
        )
    ]


def unknown_point_names(plist: PointsList, version: PointsVersion, known) -> list[str]:
    """The names of `version` that `known(names) -> set of the names that are cards` does not
    find: a misspelled name would otherwise never apply."""
    names = sorted(
        {*version.points, *version.companion, *version.banned, *version.restricted}
        | {*version.allowed}
    )
    found = known(names)
    return [n for n in names if n not in found]


def card_points(card_name: str, formats: Mapping[str, Any], day: date | None = None) -> dict:
    """A card's points in each points format on `day` (today when None): `deckcheck card`
    and GET /v1/cards/{name}. Per format key: points, the version's date, and the points as a
    declared companion where the list gives the card its own."""
    day = day or date.today()
    out: dict[str, dict[str, Any]] = {}
    for key, fmt in formats.items():
        plist = getattr(fmt, "points", None)
        version = plist.in_force(day) if plist is not None else None
        if plist is None or version is None:
            continue
        entry: dict[str, Any] = {
            "points": version.cost(card_name),
            "cap": plist.cap,
            "version": version.day.isoformat(),
        }
        companion = version.companion_cost(card_name)
        if companion is not None:
            entry["as_companion"] = companion
        out[key] = entry
    return out


def list_in_force(fmt: Any, day: date) -> tuple[Any, list[Problem]]:
    """The format as its dated banned / restricted list in force on `day` has it; before the
    list's first version, the format as the card data has it, with a warning saying so."""
    dated = fmt.on(day)
    if dated is not fmt:
        return dated, []
    return fmt, [
        Problem(
            "format-list-missing",
            f"{fmt.name}'s own banned / restricted list is known from "
            f"{fmt.lists.versions[0].day} on; the deck's date "
            f"{day} is before it, so it was judged by the card "
            "data's legalities: check it against the list of its date by hand",
            fmt.cite("card_pool"),
            WARNING,
        )
    ]


#: Per card source: (points list id, version date) -> the version's names that are no card.
_POINT_NAMES_CACHE: weakref.WeakKeyDictionary[Any, dict[tuple, list[str]]] = (
    weakref.WeakKeyDictionary()
)


def point_name_problems(fmt: Any, day: date, cards: Any) -> list[Problem]:
    """A warning naming each card of the points list (and of the dated ban list) in force on
    `day` that the card data does not know: a misspelled name would never apply, silently.
    Looked up once per card source and version."""
    if cards is None:
        return []
    from validator.rules.resolve import can_look_up

    def known(names: list[str]) -> set[str]:
        found = cards.lookup([n for n in names if can_look_up(n)])
        return {n for n in names if found.get(lookup_key(n))}

    try:
        per_source = _POINT_NAMES_CACHE.setdefault(cards, {})
    except TypeError:  # a card source that cannot be weakly referenced: not cached
        per_source = {}
    problems = []
    for plist, what in ((fmt.points, "points list"), (fmt.lists, "banned / restricted list")):
        version = plist.in_force(day) if plist is not None else None
        if version is None:
            continue
        key = (id(plist), version.day)
        if key not in per_source:
            per_source[key] = unknown_point_names(plist, version, known)
        missing = tuple(per_source[key])
        if not missing:
            continue
        message = (
            f"{fmt.name}'s {what} of {version.day} names {', '.join(missing)}, which the card "
            f"data does not know (misspelled, or newer than the sync): they never apply; fix "
            f"the name in the {what}"
        )
        if plist is fmt.points:
            problems.append(
                Problem(
                    "points-unknown-card",
                    message,
                    fmt.cite("points"),
                    WARNING,
                    cards=missing,
                )
            )
        else:
            problems.append(
                Problem(
                    "list-unknown-card",
                    message,
                    fmt.cite("card_pool"),
                    WARNING,
                    cards=missing,
                )
            )
    return problems


def points_month_problems(deck: ResolvedDeck, fmt: Any, last_day: date) -> list[Problem]:
    """Only the deck's month is known and it was judged by the points list of the month's last
    day: when another list was in force earlier in the month, a note (a warning where the
    verdicts differ) with the deck's points under it, since the event may have been then."""
    first_day = last_day.replace(day=1)
    plist = fmt.points
    earlier, judged = plist.in_force(first_day), plist.in_force(last_day)
    if earlier is judged:
        return []
    before = points_problems(deck, fmt, first_day)
    after = points_problems(deck, fmt, last_day)
    differ = {p.code for p in before} != {p.code for p in after}
    what = before[0].message if before else ""
    took = judged.day if judged is not None else last_day
    return [
        Problem(
            "points-date-uncertain",
            f"the deck's date is known only to the month ({last_day.isoformat()[:7]}), and "
            f"{fmt.name}'s points list changed on {took}: it was judged by the list of the "
            f"month's last day; under the list in force on {first_day}: {what}; check the "
            "event's exact date",
            fmt.cite("points"),
            WARNING if differ else INFO,
        )
    ]
