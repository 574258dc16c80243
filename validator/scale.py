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
import os
import threading
from typing import Any, Iterable, Iterator, Mapping

from .location import database_url

#: `meta=` for `dask.dataframe.map_partitions`: column -> dtype. Concrete dtypes, not
#: `object`: Dask infers a parquet schema from the meta, and an `object` column has no type
#: to infer (`to_parquet` failed: "Could not convert <object object>"). `legal` is pandas'
#: nullable boolean (NA: not judged); text columns are strings, `id` too (as REPORT_SCHEMA).
REPORT_META = {"id": "string", "format": "string", "legal": "boolean", "errors": "int64",
               "warnings": "int64", "codes": "string", "report": "string", "failure": "string"}
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
                from .api import open_db
                from .resolve import CardIndex

                index = _INDEXES[key] = CardIndex.from_db(open_db(db))
                _LOADS += 1
    return index


def forget_indexes() -> None:
    """Drop this process's cached indexes (after a sync, to read the new cards)."""
    with _LOCK:
        _INDEXES.clear()


def cache_info() -> dict[str, Any]:
    """Indexes loaded by this process and the syncs they were read from (for `client.run`)."""
    return {"loads": _LOADS, "pid": os.getpid(),
            "indexes": {k: (v.sync.id if v.sync else None) for k, v in _INDEXES.items()}}


def _fields(row: Any) -> Mapping[str, Any]:
    if isinstance(row, Mapping):
        return row
    as_dict = getattr(row, "asDict", None)  # pyspark.sql.Row
    if as_dict is not None:
        return as_dict()
    return row._asdict()  # a namedtuple (pandas itertuples)


def _blank(value: Any) -> bool:
    """None, NaN, NaT or "": a missing value in a dataframe column."""
    if value is None or (isinstance(value, str) and not value):
        return True
    try:
        return bool(value != value)  # NaN and NaT are not equal to themselves
    except (TypeError, ValueError):
        return False


def validate_row(row: Any, db: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """One report row for one deck row (see the module doc). Input that stops deckcheck from
    judging the deck (an unreadable decklist, an unknown format) gives `legal` None and the
    message in `failure`; it never raises."""
    from .api import parse_decklist, validate
    from .errors import DeckcheckError

    fields = _fields(row)
    deck_id, fmt = fields.get("id"), fields.get("format")
    out: dict[str, Any] = {"id": deck_id, "format": fmt, "legal": None, "errors": 0,
                           "warnings": 0, "codes": "", "report": None, "failure": None}
    try:
        text = fields.get("decklist")
        if _blank(text):
            text = fields.get("deck")
            if isinstance(text, Mapping):
                text = json.dumps(text, ensure_ascii=False)
        if _blank(text):
            raise ValueError("the row has neither a decklist nor a deck")
        if _blank(fmt):
            raise ValueError("the row has no format")
        options: dict[str, Any] = {}
        as_of = fields.get("as_of")
        if not _blank(as_of):
            options["as_of"] = as_of
        report = validate(parse_decklist(text), str(fmt), cards=card_index(db),
                          source=None if _blank(deck_id) else str(deck_id), **options)
    except (DeckcheckError, ValueError) as exc:
        out["failure"] = str(exc)
        return out
    data = report.to_dict()
    out.update(legal=report.legal, errors=data["counts"]["error"],
               warnings=data["counts"]["warning"],
               codes=";".join(p.code for p in report.problems if p.severity.value == "error"),
               report=json.dumps(data, ensure_ascii=False, sort_keys=True))
    return out


def validate_rows(rows: Iterable[Any], db: str | os.PathLike[str] | None = None
                  ) -> Iterator[dict[str, Any]]:
    """Report rows for deck rows, lazily (PySpark's `mapPartitions` takes this as is)."""
    for row in rows:
        yield validate_row(row, db)


def validate_partition(partition: Any, db: str | os.PathLike[str] | None = None) -> Any:
    """Validate one partition of decks into report rows.

    A pandas DataFrame (a Dask dataframe partition) gives a DataFrame with the columns of
    `REPORT_FIELDS` and the dtypes of `REPORT_META` (`id` as text, `legal` nullable boolean); any other iterable of rows (dicts, PySpark Rows: a Dask bag partition, a
    Spark partition) gives a list of dicts. `db` is the card database every worker reads (a
    path or URL; default `DECKCHECK_DB`)."""
    if hasattr(partition, "itertuples") and hasattr(partition, "columns"):
        import pandas as pd

        rows = [validate_row(r, db) for r in partition.to_dict("records")]
        frame = pd.DataFrame(rows, columns=list(REPORT_FIELDS))
        if rows:  # an id column of numbers: its text, as the meta says
            frame["id"] = [None if _blank(v) else str(v) for v in frame["id"]]
        return frame.astype(REPORT_META)
    return list(validate_rows(partition, db))


__all__ = ["validate_partition", "validate_rows", "validate_row", "card_index",
           "forget_indexes", "cache_info", "REPORT_FIELDS", "REPORT_META", "REPORT_SCHEMA"]
