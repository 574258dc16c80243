"""Legality as of a past date: a card-source wrapper over any `CardSource`.

Legality on date D is today's legality (the card data's) with every later change undone, card
by card and format by format: the status before the earliest change after D. Changes come from
the shipped history and the database's change log (validator/history/legality.py). A card first seen
after D did not exist yet: it is not legal (an `unreleased-card` problem, which replaces the
card-pool problem the undone release would give) -- unless D is inside its release window
(between the snapshot before its first sighting and that sighting): a deck of that date playing
it is evidence it was out, so it is judged as released, with a warning naming the window. A date inside a change's window
is judged by the more permissive of its two statuses, for the same reason, with a warning; when
D falls within a few days of a change to one of the deck's cards, the report says so (the
dates are only as exact as the snapshots). A database first synced after the shipped history's
end adds the "gap" in between (LegalityHistory.gap_changes, .gap_released): it is judged like
any other change or release window.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import date, timedelta
from typing import Any, cast

from validator.history.legality import Change, LegalityHistory
from validator.model import Card, Problem, ResolvedDeck, Severity

#: A change whose window [after - NEAR, on + NEAR] holds the deck's date earns a note.
NEAR_DAYS = 3
#: Card-pool problem codes an unreleased card would also get (undoing its release).
_POOL_CODES = frozenset({"not-legal", "banned", "restricted"})


class AsOfCards:
    """A `CardSource` whose cards carry their legalities as of `as_of`.

    Everything but the legalities comes from the wrapped source; cards are rebuilt once per
    oracle id. Works over `CardDB` and `CardIndex` alike, through the card-source protocol.
    """

    def __init__(self, inner: Any, history: LegalityHistory, as_of: date):
        history.check_date(as_of)
        self.inner = inner
        self.history = history
        self.as_of = as_of
        self._cards: dict[str, Card] = {}

    # -- the card-source protocol
    def lookup(self, names: Iterable[str]) -> dict[str, list[Card]]:
        return {k: [self._overlay(c) for c in v] for k, v in self.inner.lookup(names).items()}

    def lookup_folded(self, folded_names: Iterable[str]) -> dict[str, list[Card]]:
        return {
            k: [self._overlay(c) for c in v]
            for k, v in self.inner.lookup_folded(folded_names).items()
        }

    @property
    def database(self) -> Any:
        return self.inner.database

    def all_names(self) -> list[str]:
        return self.inner.all_names()  # the same list object: suggestion caches stay warm

    def printing(self, set_code: str, collector_number: str) -> tuple[str, str] | None:
        return self.inner.printing(set_code, collector_number)

    def lookup_printed(self, folded: Iterable[str]) -> dict[str, list[tuple[str, str, str, int]]]:
        reader = getattr(self.inner, "lookup_printed", None)
        return reader(folded) if reader is not None else {}

    def all_printed_names(self) -> list[tuple[str, str, str]]:
        reader = getattr(self.inner, "all_printed_names", None)
        return reader() if reader is not None else []

    def card_by_id(self, oracle_id: str) -> Card | None:
        card = self.inner.card_by_id(oracle_id)
        return self._overlay(card) if card is not None else None

    def rarities(self, oracle_id: str) -> set[str] | None:
        return self.inner.rarities(oracle_id)

    def printed_sets(self, oracle_ids: Iterable[str]) -> dict[str, set[str]] | None:
        return self.inner.printed_sets(oracle_ids)

    def formats(self) -> list[str]:
        return self.inner.formats()

    def __len__(self) -> int:
        return len(self.inner)

    # -- the overlay
    def legalities_as_of(self, card: Card) -> dict[str, str]:
        out = dict(card.legalities)
        undone: set[str] = set()
        window = released_in_window(self.history, card, self.as_of)
        for change in self.history.card_changes(card):
            if window is not None and _is_release(change, window):
                continue  # judged as released (README "Legality as of a date")
            # The earliest change after the date decides: its old status is what held then.
            if change.on > self.as_of and change.format not in undone:
                undone.add(change.format)
                out[change.format] = (
                    _more_permissive(change.old, change.new)
                    if change.after <= self.as_of
                    else change.old
                )
        return out

    def _overlay(self, card: Card) -> Card:
        found = self._cards.get(card.oracle_id)
        if found is None:
            legalities = self.legalities_as_of(card)
            found = card if legalities == card.legalities else replace(card, legalities=legalities)
            self._cards[card.oracle_id] = found
        return found


def released_in_window(
    history: LegalityHistory, card: Card, as_of: date
) -> tuple[date, date] | None:
    """The card's release window (after, first) when `as_of` is inside it (after <= as_of <
    first): the snapshots say only that the card came out in between, so a deck of that date
    playing it is judged as if it had (else None)."""
    window = history.release_window(card)
    if window is None or window[0] is None:
        return None  # unknown, or in the history's first snapshot
    after, first = cast(tuple[date, date], window)  # window[0] is not None
    return (after, first) if after <= as_of < first else None


def _is_release(change: Change, window: tuple[date, date]) -> bool:
    """The card's release in a format, dated at its first sighting (not legal -> legal)."""
    return change.kind == "became-legal" and change.on == window[1]


#: Legality statuses from the least to the most a deck may play.
_PERMISSIVE = {None: 0, "not_legal": 0, "banned": 1, "restricted": 2, "legal": 3}


def _more_permissive(old: str, new: str) -> str:
    """A change's status for a date inside its window (after <= date < on): the snapshots
    say only that it changed in between, and a deck of that date playing the card is evidence
    for the status that allows it, as for a release window. Judged by that one, with a
    warning (`as_of_problems`)."""
    return new if _PERMISSIVE.get(new, 0) > _PERMISSIVE.get(old, 0) else old


def _status(key: str | None) -> str:
    """A legality key as a player reads it ("not_legal" -> "not legal")."""
    return (key or "not legal").replace("_", " ")


def as_of_problems(
    deck: ResolvedDeck,
    fmt: Any,
    history: LegalityHistory,
    as_of: date,
    problems: list[Problem],
    *,
    month_only: bool = False,
) -> list[Problem]:
    """`problems` with the as-of findings: `unreleased-card` errors (replacing the card-pool
    problem of the same card) for cards released after the date, a warning for a card whose
    release window holds the date (judged as released), notes for changes near the date, and
    warnings where the history does not reach the date.

    `month_only`: only the deck's month is known and `as_of` is its last day (README "Legality
    as of a date"): the notes name every change to the deck's cards within the month (and a
    card first seen in it), since the event may have been on either side of it."""
    cite = fmt.cite("card_pool")
    first_day = as_of.replace(day=1) if month_only else as_of
    month = as_of.isoformat()[:7]
    unreleased: list[Problem] = []
    notes: list[Problem] = []
    late: set[str] = set()
    by_card: dict[str, list] = {}
    for e in deck.entries + deck.sticker_sheets:
        by_card.setdefault(e.card.oracle_id, []).append(e)

    def judged(window_start: date, window_end: date, verdict: str) -> str:
        """Where the deck's date is against a window, and what it was judged by: one wording
        for a release and a change, so the notes read alike."""
        if month_only:
            return (
                f"the deck's date is known only to the month ({month}) and it was judged "
                f"as of the month's last day, {as_of.isoformat()}: {verdict}; check the "
                "event's exact date"
            )
        where = "inside that window" if window_start <= as_of < window_end else "close to it"
        return f"the deck's date {as_of.isoformat()} is {where}: {verdict}"

    for group in by_card.values():
        card = group[0].card
        lines = tuple(sorted(x.entry.line for x in group if x.entry.line))
        status = _status(card.legalities.get(fmt.legality))  # as of the date (AsOfCards)
        window = history.release_window(card)
        released: tuple[date, date] | None = None
        if window is not None and window[0] is not None and first_day < window[1]:
            after, first = cast(tuple[date, date], window)
            if as_of < after:  # before its release window: it did not exist yet
                late.add(card.name)
                if history.gap_released(card):
                    message = (
                        f"{card.name} is not in deckcheck's legality history up to "
                        f"{after.isoformat()} (released since, or renamed since; this "
                        f"card database first saw it on {first.isoformat()}), after "
                        f"{as_of.isoformat()}: it was not legal on that date"
                    )
                else:
                    message = (
                        f"{card.name} was released between {after.isoformat()} and "
                        f"{first.isoformat()} (first seen on {first.isoformat()}), "
                        f"after {as_of.isoformat()}: it was not legal on that date"
                    )
                unreleased.append(
                    Problem("unreleased-card", message, cite, cards=(card.name,), lines=lines)
                )
                continue
            # The deck's date (or month) meets the window the card was released in: a deck of
            # that date playing it is evidence it was out, so it is judged as released.
            released = (after, first)
            seen = (
                f"not in deckcheck's legality history up to {after.isoformat()}, first "
                f"seen by this card database on {first.isoformat()}"
                if history.gap_released(card)
                else f"first seen between {after.isoformat()} and {first.isoformat()}"
            )
            notes.append(
                Problem(
                    "legality-date-uncertain",
                    f"{card.name}: {seen}; "
                    + judged(after, first, f"judged as released ({status})")
                    + "; check the set's release date",
                    cite,
                    Severity.WARNING,
                    cards=(card.name,),
                    lines=lines,
                )
            )
        near = [
            c
            for c in _near(history.card_changes(card), fmt.legality, first_day, as_of)
            if released is None or not _is_release(c, released)
        ]
        for change in near:
            # Inside the window the verdict is the more permissive status's (AsOfCards): a
            # guess either way, so a warning; close to it, a note.
            inside = change.after <= as_of < change.on
            notes.append(
                Problem(
                    "legality-date-uncertain",
                    f"{card.name}: {_status(change.old)} -> {_status(change.new)} in {fmt.name}, "
                    f"changed between {change.after.isoformat()} and {change.on.isoformat()}; "
                    + judged(
                        change.after,
                        change.on,
                        f"judged as {status}"
                        + (
                            " (the more permissive status: a deck of that date playing the "
                            "card is evidence for it)"
                            if inside and change.old != change.new
                            else ""
                        ),
                    )
                    + ("" if month_only else "; check the announcement's effective date"),
                    cite,
                    Severity.WARNING if inside else Severity.INFO,
                    cards=(card.name,),
                    lines=lines,
                )
            )
    kept = [p for p in problems if not (p.code in _POOL_CODES and p.cards and set(p.cards) <= late)]
    return (
        kept
        + unreleased
        + notes
        + _unknown_history(fmt, history, as_of, cite)
        + _unknown_restrictions(fmt, history, as_of, cite)
        + _after_card_data(fmt, history, as_of, cite)
    )


def _unknown_history(fmt: Any, history: LegalityHistory, as_of: date, cite: str) -> list[Problem]:
    """A warning when the format's changes between `as_of` and the card data are not all
    known (its legalities are not in the shipped history, and the database's change log
    begins later): those cards were judged on the card data's legality, which a ban or unban
    in between would make wrong. Never silently "as of" a date the history does not reach."""
    since = history.unknown_before(fmt.legality, as_of)
    if since is None:
        return []
    shipped = ", ".join(history.shipped.formats)
    return [
        Problem(
            "legality-history-missing",
            f"deckcheck has no record of {fmt.name} bans and unbans "
            f"before {since.isoformat()} (its history covers {shipped}; for other formats, the "
            f"syncs of this card database since its first): the deck was judged by {fmt.name}'s "
            f"legality on {since.isoformat()}, so check by hand for a change between "
            f"{as_of.isoformat()} and then",
            cite,
            Severity.WARNING,
        )
    ]


def _unknown_restrictions(
    fmt: Any, history: LegalityHistory, as_of: date, cite: str
) -> list[Problem]:
    """A warning when the format's restricted list as of `as_of` is not known: the shipped
    history's source records Vintage's only from 2016-06-05, so an earlier date is judged by
    that day's list (scripts/build_legality_history.py RESTRICTIONS_FROM)."""
    since = history.restrictions_unknown_before(fmt.legality, as_of)
    if since is None:
        return []
    return [
        Problem(
            "legality-history-missing",
            f"deckcheck does not know {fmt.name}'s restricted list "
            f"before {since.isoformat()}: the deck was judged by the list of {since.isoformat()}, "
            f"so check by hand for a card restricted or unrestricted between {as_of.isoformat()} "
            "and then",
            cite,
            Severity.WARNING,
        )
    ]


def _after_card_data(fmt: Any, history: LegalityHistory, as_of: date, cite: str) -> list[Problem]:
    """A warning when `as_of` is later than the card data's date (an upcoming event, a deck
    of this month checked against older data): a ban or unban announced since is not known."""
    newest = history.card_data_date
    if newest is None or as_of <= newest:
        return []
    return [
        Problem(
            "legality-history-missing",
            f"{as_of.isoformat()} is after the card data's date "
            f"({newest.isoformat()}): a {fmt.name} ban or unban announced since is not known; run "
            "`deckcheck sync` for newer card data, or check the announcements by hand",
            cite,
            Severity.WARNING,
        )
    ]


def _near(changes: list[Change], fmt_key: str, first: date, last: date) -> list[Change]:
    """The changes in `fmt_key` whose window [after, on], widened by NEAR_DAYS, meets the
    deck's dates [first, last] (one day, or a month known only as a month)."""
    near = timedelta(days=NEAR_DAYS)
    return [
        c
        for c in changes
        if c.format == fmt_key and c.after - near <= last and first <= c.on + near
    ]
