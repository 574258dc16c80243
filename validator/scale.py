"""Validating a whole site's decks on a distributed engine: one function per partition.

`validate_partition(rows, db)` turns a partition of deck rows into report rows. It serves a
Dask bag (`bag.map_partitions`), a Dask dataframe (`ddf.map_partitions`, with `meta=REPORT_META`)
and PySpark (`rdd.mapPartitions`) alike; see README "Revalidating at scale".

The card index is loaded once per worker process and kept in a module-level cache keyed by the
database (`card_index`): never once per task, and never shipped in the task graph (only the
database path travels with the tasks). Each worker reads the same database file or URL.

Input row fields: `id`, `format`, and the deck as `decklist` (any supported decklist text) or
`deck` (a JSON deck: a dict or its JSON text); optional `as_of` (legality as of a date), passed
to `validate` only when the row has one. Output row fields: see `REPORT_FIELDS`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from validator.rechecking.rows import blank, deck_text, id_text, not_a_row, row_fields
from validator.store.location import database_url

#: `meta=` for `dask.dataframe.map_partitions`: column -> dtype. Concrete dtypes, not
#: `object`: Dask infers a parquet schema from the meta, and an `object` column has no type
#: to infer (`to_parquet` failed: "Could not convert <object object>"). `legal` is pandas'
#: nullable boolean (NA: not judged); text columns are strings, `id` too (as REPORT_SCHEMA).
REPORT_META = {
    "id": "string",
    "format": "string",
    "legal": "boolean",
    "errors": "int64",
    "warnings": "int64",
    "codes": "string",
    "report": "string",
    "failure": "string",
    # "legal" / "illegal" / "unconfirmed" (report.py `Report.verdict`); NA: not judged.
    "verdict": "string",
}
#: The fields of every report row, in order (a dataframe partition gets these columns).
REPORT_FIELDS = tuple(REPORT_META)

#: A dtype of REPORT_META -> the Spark SQL type of the same values.
_SPARK_TYPES = {"string": "STRING", "boolean": "BOOLEAN", "int64": "BIGINT"}
#: The report rows' schema for PySpark, as a DDL string: `spark.createDataFrame(rows,
#: REPORT_SCHEMA)`. Spark infers a schema from the first rows otherwise, and fails
#: (CANNOT_DETERMINE_TYPE) when a field is None in all of them: `failure` is None for every
#: judged deck, `legal` and `report` for every deck that could not be judged. `id` is a
#: string: cast a numeric id column first (README "Revalidating at scale").
REPORT_SCHEMA = ", ".join(f"{name} {_SPARK_TYPES[dtype]}" for name, dtype in REPORT_META.items())

_LOG = logging.getLogger(__name__)
#: The start of a row's `failure` when deckcheck itself failed on it (a bug, not bad input):
#: the rest is the exception's type and message; the traceback goes to this module's logger.
INTERNAL_ERROR = "internal error (a bug in deckcheck: please report it with this row)"

_INDEXES: dict[str, Any] = {}
_LOCK = threading.Lock()
_LOADS = 0


def card_index(db: str | os.PathLike[str] | None = None) -> Any:
    """The `CardIndex` of `db` for this process: loaded on first use, then reused by every
    task the process runs (threads share it; the lock makes it load once)."""
    global _LOADS
    key = database_url(db)
    index = _INDEXES.get(key)
    if index is None:
        with _LOCK:
            index = _INDEXES.get(key)
            if index is None:
                from validator.api import open_db
                from validator.store.index import CardIndex

                index = _INDEXES[key] = CardIndex.from_db(open_db(db))
                _LOADS += 1
    return index


def forget_indexes() -> None:
    """Drop this process's cached indexes (after a sync, to read the new cards)."""
    with _LOCK:
        _INDEXES.clear()


def cache_info() -> dict[str, Any]:
    """Indexes loaded by this process and the syncs they were read from (for `client.run`)."""
    return {
        "loads": _LOADS,
        "pid": os.getpid(),
        "indexes": {k: (v.sync.id if v.sync else None) for k, v in _INDEXES.items()},
    }


def validate_row(row: Any, db: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """One report row for one deck row (see the module doc). It never raises: a row that
    stops deckcheck from judging the deck (not a mapping, an unreadable decklist, an unknown
    format) gives `legal` None and the reason in `failure`; an exception of deckcheck's own
    (a bug) gives `failure` starting with `INTERNAL_ERROR`, then the exception's type and
    message, and is logged with its traceback (logger `validator.scale`), so that one bad
    row does not fail the whole partition."""
    out: dict[str, Any] = {
        "id": None,
        "format": None,
        "legal": None,
        "errors": 0,
        "warnings": 0,
        "codes": "",
        "report": None,
        "failure": None,
        "verdict": None,
    }
    try:
        fields = row_fields(row)
        if fields is None:
            out["failure"] = not_a_row(row)
            return out
        out["id"], out["format"] = fields.get("id"), fields.get("format")
        _judge(fields, out, db)
    except MemoryError:
        raise  # the worker is out of memory: the task fails and the engine retries it
    except Exception as exc:  # noqa: BLE001 - one row's failure, kept in its own row
        _LOG.exception("validate_row failed on the row with id %r", out["id"])
        out.update(
            legal=None,
            errors=0,
            warnings=0,
            codes="",
            report=None,
            failure=f"{INTERNAL_ERROR}: {type(exc).__name__}: {exc}",
            verdict=None,
        )
    return out


def _judge(
    fields: Mapping[str, Any], out: dict[str, Any], db: str | os.PathLike[str] | None
) -> None:
    """Fill `out` with the verdict on the deck of `fields`; input that stops the judging goes
    in `failure`."""
    from validator.api import parse_decklist, validate
    from validator.errors import DeckcheckError

    deck_id, fmt = out["id"], out["format"]
    try:
        text = deck_text(fields)
        if blank(fmt):
            raise ValueError("the row has no format")
        options: dict[str, Any] = {}
        as_of = fields.get("as_of")
        if not blank(as_of):
            options["as_of"] = as_of
        report = validate(
            parse_decklist(text),
            str(fmt),
            cards=card_index(db),
            source=id_text(deck_id),
            **options,
        )
    except (DeckcheckError, ValueError) as exc:
        out["failure"] = str(exc)
        return
    data = report.to_dict()
    out.update(
        legal=report.legal,
        verdict=report.verdict,
        errors=data["counts"]["error"],
        warnings=data["counts"]["warning"],
        codes=";".join(p.code for p in report.problems if p.severity.value == "error"),
        report=json.dumps(data, ensure_ascii=False, sort_keys=True),
    )


def validate_rows(
    rows: Iterable[Any], db: str | os.PathLike[str] | None = None
) -> Iterator[dict[str, Any]]:
    """Report rows for deck rows, lazily (PySpark's `mapPartitions` takes this as is)."""
    for row in rows:
        yield validate_row(row, db)


def validate_partition(partition: Any, db: str | os.PathLike[str] | None = None) -> Any:
    """Validate one partition of decks into report rows.

    A pandas DataFrame (a Dask dataframe partition) gives a DataFrame with the columns of
    `REPORT_FIELDS` and the dtypes of `REPORT_META` (`id` as text, see `id_text`; `legal`
    nullable boolean); any other iterable of rows (dicts, PySpark Rows: a Dask bag partition,
    a Spark partition) gives a list of dicts, `id` as the row has it. `db` is the card database every worker reads (a
    path or URL; default `DECKCHECK_DB`)."""
    if hasattr(partition, "itertuples") and hasattr(partition, "columns"):
        import pandas as pd

        rows = [validate_row(r, db) for r in partition.to_dict("records")]
        for row in rows:  # each id as text, before pandas makes [1, 2, None] floats
            row["id"] = id_text(row["id"])
        frame = pd.DataFrame(rows, columns=list(REPORT_FIELDS))
        return frame.astype(REPORT_META)
    return list(validate_rows(partition, db))


# ---------------------------------------------------------------------------- re-checking

#: The columns of STATE kept in Parquet (a re-check on Dask or Spark): what
#: validator/rechecking/state.py keeps per deck, with the cards as a JSON list of oracle ids.
STATE_META = {
    "id": "string",
    "format": "string",
    "legality": "string",
    "digest": "string",  # hex
    "verdict": "string",
    "problems": "string",  # JSON
    "cards": "string",  # JSON list of oracle ids
    "sync_id": "Int64",
    "judged_on": "string",
    "flags": "int64",
    "open_names": "string",  # JSON list, for decks a sync can settle
}
#: `meta=` of `recheck_partition`'s frames: STATE's columns (the deck's new STATE row), then
#: what the run found: the old verdict, the change (a ChangedDeck as JSON, when the verdict
#: changed), the failure, and 0/1 counters the summary adds up per format.
RECHECK_META = {
    **STATE_META,
    "old_verdict": "string",
    "change": "string",
    "failure": "string",
    "checked": "int64",
    "rejudged": "int64",
    "new": "int64",
    "newly_illegal": "int64",
    "newly_legal": "int64",
    "newly_unconfirmed": "int64",
    "illegal": "int64",
    "unconfirmed": "int64",
}
#: The file beside a Parquet STATE's parts: its schema and what it was last checked against.
STATE_INFO = "_deckcheck_state.json"


def recheck_plan(db: str | os.PathLike[str] | None, state: str | os.PathLike[str] | None) -> dict:
    """What every partition of a re-check needs to know, computed once on the client and
    shipped with the tasks (small: the changes since STATE's last check, not the cards)."""
    import datetime as dt
    from dataclasses import astuple

    from validator.api import open_db
    from validator.history.changes import sync_days
    from validator.rechecking.run import logged_changes, rules_digest

    info: dict[str, Any] = {}
    if state is not None and os.path.exists(os.path.join(os.fspath(state), STATE_INFO)):
        with open(os.path.join(os.fspath(state), STATE_INFO), encoding="utf-8") as f:
            info = json.load(f)
    database = open_db(db)
    try:
        days = sync_days(database)
        sync_id = max(days, default=None)
        checked = info.get("checked_sync")
        changes = logged_changes(database, checked, days) if info else []
    finally:
        database.close()
    return {
        "sync_id": sync_id,
        "card_data": days.get(sync_id) if sync_id is not None else None,
        "checked_sync": checked,
        "first_run": not info,  # no STATE yet: every deck is new
        "everything": bool(info) and info.get("rules") != rules_digest(),
        "today": dt.date.today().isoformat(),
        # A LoggedChange's fields in order (`LoggedChange(*c)` in the workers): plain lists
        # ship light.
        "changes": [list(astuple(c)) for c in changes],
    }


def _stored_frame(state: str | os.PathLike[str] | None, ids: list[str]) -> Any:
    """STATE's rows of these decks, read in the worker (a filter on `id`: the Parquet reader
    skips the row groups that hold none of them)."""
    import pandas as pd

    if state is None or not ids or not os.path.exists(os.fspath(state)):
        return pd.DataFrame(columns=list(STATE_META))
    return pd.read_parquet(
        state, columns=list(STATE_META), filters=[("id", "in", ids)], engine="pyarrow"
    )


def _index_of_sync(db: str | os.PathLike[str] | None, sync_id: int | None) -> Any:
    """`card_index(db)`, loaded again when the process holds the index of an older sync: a
    long-lived worker would otherwise judge a re-check by the card data before the ban."""
    index = card_index(db)
    held = getattr(getattr(index, "sync", None), "id", None)
    if sync_id is not None and held is not None and held != sync_id:
        with _LOCK:
            _INDEXES.pop(database_url(db), None)
        index = card_index(db)
    return index


def recheck_partition(
    partition: Any,
    state: str | os.PathLike[str] | None,
    plan_info: Mapping[str, Any],
    db: str | os.PathLike[str] | None = None,
) -> Any:
    """Re-check one partition of stored decks (a pandas DataFrame of deck rows, as
    `dd.read_parquet` reads them in the worker) against STATE kept in Parquet at `state`:
    the same planning and judging as `validator.recheck`, with the partition's STATE rows read
    here. `plan_info`: `recheck_plan(db, state)`. Gives a DataFrame of `RECHECK_META`; any
    other iterable of rows (a Dask bag's partition, Spark's `mapPartitions`) gives a list of
    dicts with those fields."""
    import datetime as dt

    import pandas as pd

    from validator.rechecking.plan import LoggedChange, plan, settled_decks
    from validator.rechecking.records import RecheckResult, RowFailure
    from validator.rechecking.rows import DeckRow, deck_row
    from validator.rechecking.run import compare, judge_planned
    from validator.rechecking.state import StoredDeck

    is_frame = hasattr(partition, "itertuples") and hasattr(partition, "columns")
    records = partition.to_dict("records") if is_frame else list(partition)
    read = [deck_row(r, f"partition row {n}") for n, r in enumerate(records, 1)]
    rows = [r for r in read if isinstance(r, DeckRow)]
    frame = _stored_frame(state, [r.id for r in rows])
    stored: dict[str, StoredDeck] = {}
    full: dict[str, dict[str, Any]] = {}
    for no, rec in enumerate(frame.to_dict("records")):
        sync = rec["sync_id"]
        stored[rec["id"]] = StoredDeck(
            no, rec["format"], rec["legality"], bytes.fromhex(rec["digest"]), rec["verdict"],
            None if blank(sync) else int(sync), rec["judged_on"], int(rec["flags"]),
        )  # fmt: skip
        full[rec["id"]] = rec

    def decks_with(cards: set[str]) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {c: set() for c in cards}
        for deck_id, rec in full.items():
            for card in json.loads(rec["cards"]):
                if card in out:
                    out[card].add(stored[deck_id].deck_no)
        return out

    changes = [LoggedChange(*c) for c in plan_info["changes"]]
    open_names = {
        i: json.loads(r["open_names"]) for i, r in full.items() if not blank(r["open_names"])
    }
    synced_since = plan_info["sync_id"] != plan_info["checked_sync"]
    todo = plan(
        rows,
        stored,
        changes,
        decks_with,
        key=lambda s: s.deck_no,
        # The card index is loaded only for names to look up (or decks to judge, below): a
        # partition a sync leaves as it was costs a worker no load of every card.
        settled=settled_decks(open_names, _index_of_sync(db, plan_info["sync_id"]))
        if synced_since and open_names
        else set(),
        today=plan_info["today"],
        everything=bool(plan_info["everything"]),
    )
    result = RecheckResult(sync_id=plan_info["sync_id"], card_data=plan_info["card_data"])
    today = dt.date.fromisoformat(plan_info["today"])
    cards = _index_of_sync(db, plan_info["sync_id"]) if todo else None
    judged = judge_planned(rows, todo, cards, None, plan_info["sync_id"], today, result)
    old_problems = {
        stored[i].deck_no: json.loads(full[i]["problems"]) for i in judged if i in stored
    }
    compare(rows, stored, judged, todo, old_problems, changes, result)
    changed = {c.id: c for c in result.changed}
    failed = {f.id: f for f in result.failures}  # rows read, then not judged
    out: list[dict[str, Any]] = []
    for item in read:
        deck_id: str | None = item.id
        row: dict[str, Any] = dict.fromkeys(RECHECK_META)
        j = judged.get(deck_id) if deck_id is not None else None
        old = full.get(deck_id) if deck_id is not None else None
        if j is not None:
            row.update(
                id=deck_id, format=j.format, legality=j.legality, digest=j.digest.hex(),
                verdict=j.verdict, problems=json.dumps(j.problems, ensure_ascii=False),
                cards=json.dumps(sorted(j.cards)), sync_id=j.sync_id,
                judged_on=j.judged_on, flags=j.flags,
                open_names=json.dumps(list(j.open_names)) if j.open_names else None,
            )  # fmt: skip
        elif old is not None:
            row.update({k: old[k] for k in STATE_META})
        else:
            row["id"] = deck_id
        failure = item if isinstance(item, RowFailure) else failed.get(deck_id)
        row["failure"] = f"{failure.where}: {failure.why}" if failure is not None else None
        row["old_verdict"] = old["verdict"] if old is not None else None
        change = changed.get(deck_id) if deck_id is not None else None
        row["change"] = json.dumps(change.to_dict(), ensure_ascii=False) if change else None
        counted = row["verdict"] is not None and failure is None
        row["checked"] = int(counted)
        row["rejudged"] = int(j is not None)
        row["new"] = int(j is not None and old is None)
        for verdict in ("illegal", "legal", "unconfirmed"):
            row[f"newly_{verdict}"] = int(change is not None and change.new_verdict == verdict)
        row["illegal"] = int(counted and row["verdict"] == "illegal")
        row["unconfirmed"] = int(counted and row["verdict"] == "unconfirmed")
        out.append(row)
    if not is_frame:  # a Dask bag's or Spark's partition of rows: rows back
        return out
    return pd.DataFrame(out, columns=list(RECHECK_META)).astype(RECHECK_META)


def recheck_dataframe(
    decks: str | os.PathLike[str],
    state: str | os.PathLike[str] | None,
    new_state: str | os.PathLike[str],
    db: str | os.PathLike[str] | None = None,
) -> Any:
    """Re-check the deck rows of the Parquet dataset `decks` on the current Dask client:
    the partitions are read in the workers (`dd.read_parquet`), re-checked against STATE at
    `state` (None or absent: the first run) and the new STATE written to `new_state` (a new
    directory: swap it in once this returns). Returns a `RecheckResult` (the changed decks,
    the failures, the summary per format, and on a later run the new decks not legal: on the
    first every deck is new, and the new STATE holds each one's verdict and problems, where
    tens of millions of decks stay on the workers' side rather than the client's)."""
    import dask
    import dask.dataframe as dd

    from validator.rechecking.records import (
        ChangedDeck,
        FormatSummary,
        NewDeck,
        RecheckResult,
        RowFailure,
    )
    from validator.rechecking.run import rules_digest

    plan_info = recheck_plan(db, state)
    frame = dd.read_parquet(os.fspath(decks))
    out = frame.map_partitions(recheck_partition, state, plan_info, db, meta=RECHECK_META).persist()
    keep = out[~out["verdict"].isna()][list(STATE_META)]
    keep.to_parquet(os.fspath(new_state), write_index=False)
    with open(os.path.join(os.fspath(new_state), STATE_INFO), "w", encoding="utf-8") as f:
        json.dump(
            {
                "schema": "deckcheck.recheck-state",
                "version": 1,
                "checked_sync": plan_info["sync_id"],
                "rules": rules_digest(),
            },
            f,
        )
    counters = list(FormatSummary().to_dict())  # its fields, the 0/1 columns of RECHECK_META
    # What the client needs of the persisted result, in one pass: the summary, the changed
    # and failed rows, and on a later run the new decks not legal.
    totals, found, fresh = dask.compute(
        out[out["checked"] == 1].groupby("format")[counters].sum(),
        out[~out["change"].isna() | ~out["failure"].isna()][["id", "change", "failure"]],
        None
        if plan_info["first_run"]
        else out[(out["new"] == 1) & (out["verdict"] != "legal")][
            ["id", "format", "verdict", "problems"]
        ],
    )
    result = RecheckResult(sync_id=plan_info["sync_id"], card_data=plan_info["card_data"])
    for key, counts in totals.iterrows():
        result.summary[str(key)] = FormatSummary(**{c: int(counts[c]) for c in counters})
    for rec in found.to_dict("records"):
        if not blank(rec["change"]):
            result.changed.append(ChangedDeck.from_dict(json.loads(rec["change"])))
        if not blank(rec["failure"]):
            where, _, why = str(rec["failure"]).partition(": ")
            result.failures.append(RowFailure(None if blank(rec["id"]) else rec["id"], where, why))
    for rec in () if fresh is None else fresh.to_dict("records"):
        result.new_not_legal.append(
            NewDeck(rec["id"], rec["format"], rec["verdict"], tuple(json.loads(rec["problems"])))
        )
    result.changed.sort(key=lambda c: c.id)
    result.new_not_legal.sort(key=lambda d: d.id)
    return result


__all__ = [
    "recheck_partition",
    "recheck_plan",
    "recheck_dataframe",
    "RECHECK_META",
    "STATE_META",
    "validate_partition",
    "validate_rows",
    "validate_row",
    "card_index",
    "forget_indexes",
    "cache_info",
    "REPORT_FIELDS",
    "REPORT_META",
    "REPORT_SCHEMA",
    "INTERNAL_ERROR",
]
