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
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

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


def _fields(row: Any) -> Mapping[str, Any] | None:
    """The row's fields by name, or None for a row that has none (not a mapping)."""
    if isinstance(row, Mapping):
        return row
    as_dict = getattr(row, "asDict", None)  # pyspark.sql.Row
    if callable(as_dict):
        return as_dict()
    as_dict = getattr(row, "_asdict", None)  # a namedtuple (pandas itertuples)
    if callable(as_dict):
        return as_dict()
    return None


def _not_a_row(row: Any) -> str:
    """Why a row without fields cannot be read, and what to send instead."""
    kind = type(row).__name__
    hint = {
        "str": " (a line of text: parse JSON lines first, bag.map(json.loads))",
        "tuple": " (a dataframe's values without their names: use ddf.to_bag(format='dict'))",
        "NoneType": "",
    }.get(kind, "")
    return (
        f"the row is {'None' if row is None else 'a ' + kind}, not a mapping of fields "
        f"(id, format, decklist or deck){hint}"
    )


def _blank(value: Any) -> bool:
    """None, NaN, NaT, pandas' NA or "": a missing value in a dataframe column."""
    if value is None or (isinstance(value, str) and not value):
        return True
    pandas = sys.modules.get("pandas")  # pd.NA: only a value of a loaded pandas
    if pandas is not None and value is pandas.NA:
        return True
    try:
        return bool(value != value)  # NaN and NaT are not equal to themselves
    except (TypeError, ValueError):
        return False


def _id_text(value: Any) -> str | None:
    """A deck id as text, as it is written in the deck rows: 7 -> "7", "b" -> "b", missing
    -> None. A whole float is written as the integer it holds (1.0 -> "1"): pandas turns a
    column of integer ids with a missing one into floats."""
    if _blank(value):
        return None
    if type(value).__module__ == "numpy":
        value = value.item()  # a numpy scalar -> its Python value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _json_value(value: Any) -> Any:
    """`json.dumps`' fallback for numpy values, which a parquet list or struct column gives
    (a numpy array for a list, numpy integers inside): their Python values."""
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars alike
    if callable(tolist):
        return tolist()
    raise TypeError(f"a value of type {type(value).__name__} in the deck is not JSON")


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
        fields = _fields(row)
        if fields is None:
            out["failure"] = _not_a_row(row)
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
        text, field = fields.get("decklist"), "decklist"
        if _blank(text):
            text, field = fields.get("deck"), "deck"
            if isinstance(text, Mapping):
                text = json.dumps(text, ensure_ascii=False, default=_json_value)
        if _blank(text):
            raise ValueError("the row has neither a decklist nor a deck")
        if not isinstance(text, (str, bytes)):
            raise ValueError(
                f"the row's {field} is of type {type(text).__name__}: give decklist "
                "text, or a JSON deck (an object or its JSON text)"
            )
        if _blank(fmt):
            raise ValueError("the row has no format")
        options: dict[str, Any] = {}
        as_of = fields.get("as_of")
        if not _blank(as_of):
            options["as_of"] = as_of
        report = validate(
            parse_decklist(text),
            str(fmt),
            cards=card_index(db),
            source=_id_text(deck_id),
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
    `REPORT_FIELDS` and the dtypes of `REPORT_META` (`id` as text, see `_id_text`; `legal`
    nullable boolean); any other iterable of rows (dicts, PySpark Rows: a Dask bag partition,
    a Spark partition) gives a list of dicts, `id` as the row has it. `db` is the card database every worker reads (a
    path or URL; default `DECKCHECK_DB`)."""
    if hasattr(partition, "itertuples") and hasattr(partition, "columns"):
        import pandas as pd

        rows = [validate_row(r, db) for r in partition.to_dict("records")]
        for row in rows:  # each id as text, before pandas makes [1, 2, None] floats
            row["id"] = _id_text(row["id"])
        frame = pd.DataFrame(rows, columns=list(REPORT_FIELDS))
        return frame.astype(REPORT_META)
    return list(validate_rows(partition, db))


__all__ = [
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
