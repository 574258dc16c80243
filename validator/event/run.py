"""Orchestration: `run_event` collects the inputs (if not collected yet), picks the card
source, judges every deck in the processes the batch repays, and returns an `EventResult`
with the run's provenance."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# run_jobs is called through its module, so that a patch of validator.event.pool.run_jobs
# (the tests' spy on the process count) takes effect here.
from validator.event import pool
from validator.event.inputs import EventInputs, Skipped, collect
from validator.event.judge import DeckResult, RunOptions

#: Cost model for choosing the card source, CPU seconds measured by bench/bench_batch.py on
#: the full card file (34k cards, 75-card Modern decks; rerun it when the read path changes):
#: querying the database costs DB_DECK_S per deck; loading the in-memory index costs
#: INDEX_LOAD_S once, then WARM_DECK_S per deck. Taking the cheaper one keeps the cost of N
#: decks continuous in N: no cliff at a fixed file count (it was 25 files, 0.6 s -> 2.8 s).
#: Continuous only where the model's break-even (INDEX_LOAD_S / (DB_DECK_S - WARM_DECK_S),
#: 189 decks) is where the two paths really cost the same: each deck off it is a step of
#: about DB_DECK_S - WARM_DECK_S. Fitted 2026-12-04 from cold CLI runs with each path forced
#: (they cross at 175-190 decks) on a database synced by this version (with the compact
#: index; a database synced before it loads its index in ~3 s instead: re-sync it).
DB_DECK_S = 0.0011
WARM_DECK_S = 0.0002
INDEX_LOAD_S = 0.17


#: The summary's counts: decks, and decks per verdict (`DeckResult.verdict`).
SUMMARY_COUNTS = ("decks", "legal", "illegal", "unconfirmed", "unreadable")


@dataclass
class EventResult:
    results: list[DeckResult]
    skipped: list[Skipped]
    provenance: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        """Counts per verdict and per format: the numbers every rendering prints."""
        per_format: dict[str, dict[str, int]] = {}
        totals = dict.fromkeys(SUMMARY_COUNTS, 0)
        for r in self.results:
            key = r.format or "(no format)"
            row = per_format.setdefault(key, dict.fromkeys(SUMMARY_COUNTS, 0))
            for target in (row, totals):
                target["decks"] += 1
                target[r.verdict] += 1
        return dict(totals, skipped=len(self.skipped), per_format=dict(sorted(per_format.items())))


def _event_inputs(inputs: Any, options: RunOptions) -> EventInputs:
    """`run_event`'s inputs as collected jobs: an EventInputs as is, a path or a list of input
    strings through `collect`; anything else is a UsageError saying what to pass."""
    from validator.errors import UsageError

    if isinstance(inputs, EventInputs):
        return inputs
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    if isinstance(inputs, (list, tuple)) and all(isinstance(i, (str, os.PathLike)) for i in inputs):
        names = [os.fspath(i) for i in inputs]
        if any(n == "-" or n.startswith("-:") for n in names):
            # "-" is the CLI's standard input; a library caller passes the text itself.
            raise UsageError(
                "run_event(inputs=...): '-' (standard input) is the CLI's; read "
                "the decklist yourself and pass validator.validate(text, format) "
                "its text, or collect(inputs, read_stdin=...) with a reader"
            )
        return collect(names, formats=options.formats, default_as_of=options.as_of)
    raise UsageError(
        f"run_event(inputs=...): got {type(inputs).__name__}; pass what "
        "validator.event.run.collect(...) returns, or a list of input strings "
        "(paths, directories, FILE:FORMAT, manifests, event files)"
    )


def use_index(decks: int) -> bool:
    """Load the in-memory index when it is cheaper than querying the database per deck."""
    return INDEX_LOAD_S + decks * WARM_DECK_S < decks * DB_DECK_S


def run_event(
    inputs: EventInputs | Sequence[str] | str | os.PathLike,
    *,
    db: str | None = None,
    options: RunOptions | None = None,
    jobs: int | None = 1,
    cards: Any = None,
) -> EventResult:
    """Validate a collected event with one card source: the database for a few decks, one
    in-memory index for many (decided by `use_index`), in `pool.processes_for(jobs)` processes.
    `inputs` is what `collect` returns, or the input strings themselves (paths, directories,
    `FILE:FORMAT`...), collected here with `options`' formats and as-of date."""
    from validator.api import open_db
    from validator.history.provenance import provenance

    options = options or RunOptions()
    inputs = _event_inputs(inputs, options)
    to_judge = [j for j in inputs.jobs if j.error is None]
    database = open_db(db)  # checked now: no usable database stops the run before any deck
    try:
        history = None
        wants_history = (
            bool(options.fixed_as_of)
            or any(j.as_of for j in to_judge)
            or (options.event_dates and any(j.event_date for j in to_judge))
            or any(b'"as_of"' in (j.data or b"") for j in to_judge)
        )
        if wants_history:
            from validator.history.legality import history_for

            history = history_for(database)
        if cards is None:
            # DECKCHECK_CARD_SOURCE=index|database forces a path: bench/bench_batch.py measures
            # both at the same size to fit the cost model's constants.
            forced = os.environ.get("DECKCHECK_CARD_SOURCE")
            if forced == "index" or (forced != "database" and use_index(len(to_judge))):
                from validator.store.index import CardIndex

                cards = CardIndex.from_db(database)
            else:
                cards = database
        processes = pool.processes_for(jobs, len(to_judge)) if cards is not database else 1
        if processes > 1:
            # A forked child must not use the parent's open connections (SQLite forbids
            # carrying one across fork): close them; both processes reopen on demand.
            database.close()
        results = pool.run_jobs(
            inputs.jobs, cards, options, processes=processes, history=history, db=db
        )
        prov = provenance(database, options.fixed_as_of)
        dates = {r.report.as_of for r in results if r.report is not None}
        # The precision belongs to one date: said again below only when every deck has it.
        prov.pop("legality_as_of_precision", None)
        dated = dates - {None}
        if dated and (options.as_of == "event" or len(dates) > 1):  # "event": as documented
            # Each deck as of its own date; a deck without one was judged on the card data.
            prov["legality_as_of"], prov["legality_basis"] = "per deck", "history"
            if None in dates:  # an added field: the values of the others stay as documented
                prov["undated_decks_basis"] = "card data"
        elif dates and None not in dates:
            prov["legality_as_of"], prov["legality_basis"] = dates.pop(), "history"
            precisions = {r.report.as_of_precision for r in results if r.report is not None}
            if precisions == {"month"}:
                prov["legality_as_of_precision"] = "month"
        return EventResult(results, inputs.skipped, prov)
    finally:
        database.close()
