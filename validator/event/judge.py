"""Judging: one deck job (`judge`) into a `DeckResult`, and the stable ids of a batch (`_ids`);
validator/event/pool.py judges a batch, here or in worker processes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from validator.errors import DeckcheckError
from validator.event.inputs import DeckJob, shown
from validator.report import Report


@dataclass
class DeckResult:
    """One input's outcome: a report, or why it could not be judged."""

    id: str
    source: str
    player: str | None
    format: str | None
    report: Report | None = None
    error: str | None = None
    #: Per problem of `report.sorted_problems()`, the offending decklist lines as written.
    offending: list[list[str]] = field(default_factory=list)
    deck_name: str | None = None
    #: The event the deck was registered for, when its input names it (DeckJob).
    event_name: str | None = None
    event_date: str | None = None

    @property
    def verdict(self) -> str:
        """ "legal", "illegal", "unconfirmed" (report.py `Report.verdict`) or "unreadable"."""
        if self.report is None:
            return "unreadable"
        return self.report.verdict


@dataclass
class RunOptions:
    default_format: str | None = None
    formats: Mapping[str, Any] | None = None
    commanders: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    bracket: int | None = None
    input_format: str | None = None
    #: --as-of: a date, the default for decks that do not carry their own; "today" for the
    #: card data's current legality; None (or "event") judges a deck whose input carries its
    #: event's date as of that date (`as_of_for`).
    as_of: str | None = None

    @property
    def event_dates(self) -> bool:
        """Whether decks are judged as of their event's date (no --as-of, or 'event')."""
        return self.as_of in (None, "event")

    @property
    def fixed_as_of(self) -> str | None:
        """The one date --as-of gives every deck without its own, or None."""
        return None if self.as_of in (None, "event", "today") else self.as_of


def as_of_for(job: DeckJob, deck: Any, options: RunOptions) -> tuple[str | None, str | None]:
    """The date a deck is judged as of, and where it comes from: the deck's own (a manifest's
    `as_of` cell, a JSON deck's "as_of": "deck"), else --as-of ("option"), else its event's
    date when --as-of is not given ("event": an event file's or a manifest's `date`), else
    (None, None): the card data's current legality. `--as-of today` sets aside the event's
    date: an event judged by today's ban list (what a deck may be played with now)."""
    own = job.as_of or deck.as_of
    if own:
        return own, "deck"
    if options.fixed_as_of:
        return options.fixed_as_of, "option"
    if options.event_dates and job.event_date:
        return job.event_date, "event"
    return None, None


def _offending(report: Report, deck: Any) -> list[list[str]]:
    """The decklist lines each problem is about: its line numbers, else the entries naming its
    cards (event-file and JSON decks have no line numbers)."""
    from validator.cards.names import fold_name

    by_line = {e.line: e for e in deck.entries if e.line}
    out = []
    for p in report.sorted_problems():
        lines: list[str] = []
        if p.lines:
            for n in p.lines:
                e = by_line.get(n)
                text = (e.text or f"{e.quantity} {e.name}") if e else ""
                lines.append(f"line {n}: {text.strip()}")
        elif p.cards:
            wanted = set()
            for c in p.cards:
                wanted.add(fold_name(c))
                wanted.update(fold_name(part) for part in c.split(" // "))
            lines = [
                f"{e.quantity} {e.name} ({e.section.value})"
                for e in deck.entries
                if fold_name(e.name) in wanted
            ]
        out.append(lines)
    return out


def judge(job: DeckJob, cards: Any, options: RunOptions, history: Any = None) -> DeckResult:
    """Validate one job; anything that stops judging it becomes the result's `error`."""
    from validator.api import parse_decklist, validate
    from validator.decklist import NoCardLines

    wanted = job.format or options.default_format
    # Reported as given when it names no format (FILE:FORMAT, a manifest): printable.
    result = DeckResult(
        id=job.source,
        source=job.source,
        player=job.player,
        format=shown(wanted),
        event_name=job.event_name,
        event_date=shown(job.event_date),
    )
    if job.error is not None:
        result.error = job.error
        return result
    if result.format is None:
        try:  # an input that is no decklist (malformed JSON...) says so: a format won't help
            parse_decklist(
                job.data or b"", input_format=options.input_format, filename=job.filename
            )
        except DeckcheckError as exc:
            result.error = shown(str(exc))
            return result
        why = (
            "this event file names none (neither its Tournament's Formats or Name, nor the "
            "deck's format); "
            if job.deck_index is not None
            else ""
        )
        result.error = f"no format: {why}give --format, FILE:FORMAT or a manifest format column"
        return result
    try:
        from validator.rules.formats import get_format

        fmt = get_format(wanted, options.formats)  # type: ignore[arg-type]  # None: above
        result.format = fmt.key
        try:
            deck = parse_decklist(
                job.data or b"", input_format=options.input_format, filename=job.filename
            )
        except NoCardLines as exc:
            if job.deck_index is None:
                raise
            # A registration in an event file with no card: the player's deck is empty, a
            # verdict to give ("0 cards", CR 100.2a), unlike an empty file, which holds nothing.
            deck = exc.deck
        as_of, as_of_from = as_of_for(job, deck, options)
        commanders, bracket = job.commanders or options.commanders, options.bracket
        if not fmt.is_commander:
            # The run's --commander and --bracket are for its Commander decks (a run whose
            # default format is outside the family is refused before any deck: cli); a
            # manifest's commander cell on a deck of another format is a slip in the sheet:
            # the deck is judged without it, and its report says so.
            commanders, bracket = (), None
        report = validate(
            deck,
            fmt,
            cards=cards,
            commanders=commanders,
            rules=options.rules,
            bracket=bracket,
            source=job.source,
            as_of=as_of,
            history=history,
        )
        if job.commanders and not fmt.is_commander:
            report.problems.append(_commander_ignored(job.commanders, fmt))
    except DeckcheckError as exc:
        from validator.errors import UsageError

        if isinstance(exc, UsageError) and not job.commanders:
            raise  # the command's own options (--commander, --bracket) are wrong for every deck
        result.error = shown(str(exc) + _row_cell(job, exc))
        return result
    result.deck_name = shown(deck.name)
    report.player = job.player
    report.as_of_from = as_of_from if report.as_of else None
    result.report = report
    # The offending lines are shown for illegal decks only (the HTML report's deck sections).
    result.offending = [] if report.legal else _offending(report, deck)
    return result


def _row_cell(job: DeckJob, exc: Exception) -> str:
    """For a manifest row's format or commander that stopped its deck: the cell to fix."""
    from validator.rules.formats import FormatError

    if job.listed_in is None:
        return ""
    if isinstance(exc, FormatError) and job.format:
        return f" (the format column of {job.listed_in})"
    if job.commanders and "commander" in str(exc).lower():
        return f" (the commander column of {job.listed_in})"
    return ""


def _commander_ignored(names: Sequence[str], fmt: Any) -> Any:
    from validator.model import WARNING, Problem

    # CR 903.3: a commander belongs to the Commander variants; other formats have none.
    return Problem(
        "commander-ignored",
        f"the manifest names a commander ({', '.join(names)}) for this "
        f"{fmt.name} deck; {fmt.name} has no commander, so the deck was judged without it: "
        "remove the commander from the row, or set its format",
        "CR 903.3",
        WARNING,
        cards=tuple(names),
    )


def _ids(results: list[DeckResult], jobs: list[DeckJob]) -> None:
    """Stable ids: path, #player, #deck name; a repeat gets ~2, ~3 in input order."""
    seen: dict[str, int] = {}
    for r, job in zip(results, jobs):
        parts = [job.source]
        if job.player:
            parts.append(job.player)
        elif job.deck_index is not None:
            parts.append(str(job.deck_index + 1))
        if r.deck_name:
            parts.append(r.deck_name)
        base = "#".join(parts)
        n = seen[base] = seen.get(base, 0) + 1
        r.id = base if n == 1 else f"{base}~{n}"
        if r.report is not None:
            r.report.deck_id = r.id
