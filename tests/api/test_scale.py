"""Scale-out: `validator.scale.validate_partition` on Dask (bag, dataframe) and as PySpark's
mapPartitions function; the card index is loaded once per worker process."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from support import shared_data, two_worker_cluster

import validator
from validator import scale
from validator.cards.names import fold_name

BOLT = "4 Lightning Bolt\n56 Mountain\n\n4 Counterspell\n"
LOTUS = "1 Black Lotus\n59 Island\n"


@pytest.fixture(autouse=True)
def fresh_cache():
    scale.forget_indexes()
    yield
    scale.forget_indexes()


def expected(text: str, fmt: str, db: str, source: str) -> str:
    report = validator.validate(
        text, fmt, cards=validator.CardIndex.from_db(validator.open_db(db)), source=source
    )
    return json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True)


def test_partition_of_dicts_gives_report_rows(core_db: str) -> None:
    rows = [
        {"id": 1, "format": "modern", "decklist": BOLT},
        {"id": "b", "format": "legacy", "deck": {"main": [[1, "Black Lotus"], [59, "Island"]]}},
        {"id": 3, "format": "no-such-format", "decklist": BOLT},
        {"id": 4, "format": "modern"},
    ]
    out = scale.validate_partition(rows, core_db)
    assert [r["id"] for r in out] == [1, "b", 3, 4]
    assert out[0]["legal"] is True and out[0]["report"] == expected(BOLT, "modern", core_db, "1")
    assert out[1]["legal"] is False and out[1]["codes"] == "banned" and out[1]["errors"] == 1
    assert out[2]["legal"] is None and "no-such-format" in out[2]["failure"]
    assert out[3]["legal"] is None and "neither a decklist nor a deck" in out[3]["failure"]
    assert all(set(r) == set(scale.REPORT_FIELDS) for r in out)


def test_index_is_loaded_once_per_process(core_db: str) -> None:
    before = scale.cache_info()["loads"]
    for _ in range(3):
        scale.validate_partition([{"id": 1, "format": "modern", "decklist": BOLT}], core_db)
    assert scale.cache_info()["loads"] == before + 1
    assert list(scale.cache_info()["indexes"].values())[0] is not None  # the sync it read


def test_as_of_is_passed_only_when_given(core_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    real = validator.api.validate

    def fake_validate(deck, fmt, *, cards=None, source=None, as_of=None):
        seen.append(as_of)
        return real(deck, fmt, cards=cards, source=source)

    monkeypatch.setattr(validator.api, "validate", fake_validate)
    rows = [
        {"id": 1, "format": "modern", "decklist": BOLT, "as_of": "2024-01-01"},
        {"id": 2, "format": "modern", "decklist": BOLT, "as_of": None},
        {"id": 3, "format": "modern", "decklist": BOLT, "as_of": float("nan")},
    ]
    out = scale.validate_partition(rows, core_db)
    assert seen == ["2024-01-01", None, None] and all(r["legal"] for r in out)


def test_a_bad_as_of_is_a_failure_row(core_db: str) -> None:
    out = scale.validate_partition(
        [{"id": 1, "format": "modern", "decklist": BOLT, "as_of": "1999-01-01"}], core_db
    )
    assert out[0]["legal"] is None and "1999-01-01" in out[0]["failure"]


def test_dataframe_partition_gives_a_dataframe(core_db: str) -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"id": [1, 2], "format": ["modern", "legacy"], "decklist": [BOLT, LOTUS]})
    out = scale.validate_partition(frame, core_db)
    assert list(out.columns) == list(scale.REPORT_FIELDS)
    assert out["legal"].tolist() == [True, False]
    assert out["errors"].dtype == "int64"
    empty = scale.validate_partition(frame.iloc[:0], core_db)
    assert list(empty.columns) == list(scale.REPORT_FIELDS) and len(empty) == 0


def test_spark_rows_are_read_with_asdict(core_db: str) -> None:
    class Row:  # the part of pyspark.sql.Row mapPartitions hands over
        def __init__(self, **kw):
            self.kw = kw

        def asDict(self):
            return dict(self.kw)

    out = list(scale.validate_rows(iter([Row(id=7, format="modern", decklist=BOLT)]), core_db))
    assert out[0]["id"] == 7 and out[0]["legal"] is True


# ---------------------------------------------------------------------------- LocalCluster


def _sample_decks(n: int, seed: int = 12) -> list[dict]:
    sys_path = Path(__file__).resolve().parents[2] / "bench"
    import sys

    sys.path.insert(0, str(sys_path))
    try:
        from common import format_key
    finally:
        sys.path.remove(str(sys_path))
    path = shared_data("decklists", "bulk", "mtgo_2026-01_to_2026-08_all_decks.jsonl.gz")
    import orjson

    with gzip.open(path, "rb") as f:  # every 250th deck: spread over the whole corpus
        chosen = [orjson.loads(line) for i, line in enumerate(f) if i % 250 == seed % 250]
    chosen = chosen[:n]
    rows = []
    for i, d in enumerate(chosen):
        fmt = format_key(d.get("format"), d.get("src") or "") or "vintage"
        text = (
            "\n".join(f"{c} {name}" for c, name in d["main"])
            + "\n\n"
            + "\n".join(f"{c} {name}" for c, name in d["side"])
            + "\n"
        )
        rows.append({"id": i, "format": fmt, "decklist": text})
    return rows


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> tuple[str, list[dict]]:
    """A database of the real cards the sampled decks name (taken from the full derived
    card file), and the sampled deck rows."""
    rows = _sample_decks(300)
    cards_file = shared_data("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
    wanted = {
        fold_name(line.split(" ", 1)[1])
        for r in rows
        for line in r["decklist"].splitlines()
        if " " in line
    }
    import orjson

    keep = []
    with gzip.open(cards_file, "rb") as f:
        for line in f:
            obj = orjson.loads(line)
            names = [obj.get("name", "")] + [
                face.get("name", "") for face in obj.get("card_faces") or []
            ]
            if any(fold_name(n) in wanted for n in names):
                keep.append(obj)
    tmp = tmp_path_factory.mktemp("scale")
    (tmp / "cards.json").write_text(json.dumps(keep), encoding="utf-8")
    from validator.sync import import_file

    db = str(tmp / "cards.sqlite3")
    import_file(tmp / "cards.json", db)
    return db, rows


@pytest.mark.integration
def test_local_cluster_gives_the_in_process_verdicts(sample_db) -> None:
    db, rows = sample_db
    dask = pytest.importorskip("dask")
    pytest.importorskip("dask.distributed")
    import dask.bag as db_bag

    in_process = scale.validate_partition(rows, db)
    with two_worker_cluster() as client:
        bag = db_bag.from_sequence(rows, npartitions=8)
        on_cluster = bag.map_partitions(scale.validate_partition, db).compute()
        infos = client.run(scale.cache_info)
    assert [r["report"] for r in on_cluster] == [r["report"] for r in in_process]
    assert [r["legal"] for r in on_cluster] == [r["legal"] for r in in_process]
    assert any(r["legal"] for r in in_process) and any(r["legal"] is False for r in in_process)
    # 8 tasks on 2 worker processes: each loaded the card index once.
    assert len(infos) == 2 and all(info["loads"] == 1 for info in infos.values()), infos
    assert dask.__version__


# ---------------------------------------------------------------------------- docs examples


def test_report_schema_names_every_row_field_in_order(core_db: str) -> None:
    """PySpark's `createDataFrame(rows, REPORT_SCHEMA)`: the DDL names exactly the fields
    `validate_rows` yields, in order, with types that hold their values (None included)."""
    ddl = [part.strip().split() for part in scale.REPORT_SCHEMA.split(",")]
    names = [name for name, _ in ddl]
    rows = list(
        scale.validate_rows(
            [
                {"id": "1", "format": "modern", "decklist": BOLT},
                {"id": "2", "format": "no-such-format", "decklist": BOLT},
            ],
            core_db,
        )
    )
    assert names == list(scale.REPORT_FIELDS) == list(rows[0]) == list(rows[1])
    spark_types = {"STRING": str, "BOOLEAN": bool, "BIGINT": int}
    for row in rows:
        for name, kind in ddl:
            assert row[name] is None or isinstance(row[name], spark_types[kind]), (name, row[name])
    # the dataframe's meta and the schema agree on the numeric columns
    assert {n for n, k in ddl if k == "BIGINT"} == {
        n for n, t in scale.REPORT_META.items() if t == "int64"
    }


def _readme_block(starts: str) -> str:
    page = (Path(__file__).resolve().parents[2] / "docs" / "python-api.md").read_text(
        encoding="utf-8"
    )
    for block in page.split("```python\n")[1:]:
        code = block.split("```", 1)[0]
        if code.startswith(starts):
            return code
    raise AssertionError(f"no docs/python-api.md python block starts with {starts!r}")


def test_readme_dask_example_runs_on_a_local_cluster(
    core_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Dask example of docs/python-api.md, run as written (paths and the scheduler address swapped in):
    illegal decks are the judged ones with legal False; a deck that could not be judged is in
    `failed/`, not counted as illegal."""
    pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("dask.distributed")
    import pandas as pd

    decks = [
        {"id": "legal", "format": "modern", "decklist": BOLT},
        {"id": "illegal", "format": "modern", "decklist": LOTUS},
        {"id": "unjudged", "format": "no-such-format", "decklist": BOLT},
    ]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "decks-0.jsonl").write_text("".join(json.dumps(d) + "\n" for d in decks))
    pd.DataFrame(decks).to_parquet("decks.parquet")
    code = _readme_block("import json\nimport dask.bag")
    # in-process workers (inproc:// transport: no port opened)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        code = code.replace('"scheduler:8786"', repr(cluster.scheduler_address))
        code = code.replace('"/data/cards.sqlite3"', repr(core_db))
        names: dict = {}
        exec(compile(code, "docs/python-api.md", "exec"), names)  # noqa: S102 - our own docs
        names["client"].close()
    assert sorted(r["id"] for r in names["reports"].compute().to_dict("records")) == [
        "illegal",
        "legal",
        "unjudged",
    ]
    assert pd.read_parquet("illegal/")["id"].tolist() == ["illegal"]
    assert pd.read_parquet("failed/")["id"].tolist() == ["unjudged"]


# ---------------------------------------------------------------------------- hostile rows

BOLT_DECK = {"main": [[4, "Lightning Bolt"], [56, "Mountain"]], "sideboard": [[4, "Counterspell"]]}


def test_dataframe_ids_stay_text_when_one_is_missing(core_db: str) -> None:
    """`id` as text, each as the deck rows write it: integer ids around a missing one are not
    turned into floats ("1.0" would not join back to deck 1)."""
    pd = pytest.importorskip("pandas")
    columns = {
        "Int64 with NA": pd.array([1, 2, None], dtype="Int64"),
        "ints and None": pd.Series([1, 2, None], dtype=object),
        "float64 (pandas' ints with a NaN)": [1.0, 2.0, float("nan")],
    }
    for label, ids in columns.items():
        frame = pd.DataFrame({"id": ids, "format": ["modern"] * 3, "decklist": [BOLT] * 3})
        out = scale.validate_partition(frame, core_db)
        assert out["id"].tolist()[:2] == ["1", "2"] and out["id"].isna().tolist()[2], label
        assert str(out["id"].dtype) == "string", label
        assert out["legal"].tolist() == [True] * 3, label
        # the report's source is the same text, and a missing id gives none
        sources = [json.loads(r)["source"] for r in out["report"]]
        assert sources == ["1", "2", None], label
    mixed = pd.DataFrame(
        {
            "id": pd.Series([7, "b", 2.5, None], dtype=object),
            "format": ["modern"] * 4,
            "decklist": [BOLT] * 4,
        }
    )
    assert scale.validate_partition(mixed, core_db)["id"].tolist()[:3] == ["7", "b", "2.5"]


def test_a_deck_of_numpy_values_is_judged(core_db: str) -> None:
    """A parquet list/struct `deck` column reaches the function as numpy arrays and numpy
    integers: the deck is judged as the same deck of plain values."""
    np = pytest.importorskip("numpy")
    plain = scale.validate_row({"id": "a", "format": "modern", "deck": BOLT_DECK}, core_db)
    assert plain["legal"] is True
    as_numpy = {
        "main": [[np.int64(4), "Lightning Bolt"], [np.int64(56), "Mountain"]],
        "sideboard": np.array([[np.int32(4), "Counterspell"]], dtype=object),
    }
    out = scale.validate_row({"id": "a", "format": "modern", "deck": as_numpy}, core_db)
    assert out["failure"] is None and out["report"] == plain["report"]


def test_a_parquet_struct_deck_column_is_judged(core_db: str, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    entries = [{"quantity": q, "name": n} for q, n in BOLT_DECK["main"]]
    pq.write_table(
        pa.table(
            {
                "id": [1, 2],
                "format": ["modern", "modern"],
                "deck": [{"main": entries}, {"main": entries[:1]}],
            }
        ),
        tmp_path / "decks.parquet",
    )
    out = scale.validate_partition(pd.read_parquet(tmp_path / "decks.parquet"), core_db)
    assert out["failure"].isna().all(), out["failure"].tolist()
    assert out["legal"].tolist() == [True, False] and out["codes"][1] == "deck-too-small"


def test_an_exception_in_one_row_is_that_rows_failure(core_db: str, monkeypatch, caplog) -> None:
    """A bug met on one row does not fail the partition: the row says so in `failure`
    (INTERNAL_ERROR, the exception's type and message), the traceback is logged, and the
    other rows are judged."""
    pd = pytest.importorskip("pandas")
    real = validator.api.validate

    def flaky(deck, fmt, *, cards=None, source=None, **options):
        if source == "2":
            raise RuntimeError("boom on deck 2")
        return real(deck, fmt, cards=cards, source=source, **options)

    monkeypatch.setattr(validator.api, "validate", flaky)
    frame = pd.DataFrame({"id": [1, 2, 3], "format": ["modern"] * 3, "decklist": [BOLT] * 3})
    with caplog.at_level("ERROR", logger="validator.scale"):
        out = scale.validate_partition(frame, core_db)
    assert out["legal"].tolist()[0] is True and out["legal"].tolist()[2] is True
    assert pd.isna(out["legal"][1]) and pd.isna(out["report"][1])
    assert out["failure"][1] == f"{scale.INTERNAL_ERROR}: RuntimeError: boom on deck 2"
    assert "Traceback" in caplog.text and "boom on deck 2" in caplog.text
    assert list(out.dtypes.astype(str)) == list(scale.REPORT_META.values())


def test_rows_that_are_not_mappings_are_failure_rows(core_db: str) -> None:
    rows = [
        None,
        ("1", "modern", BOLT),
        '{"id": 1, "format": "modern"}',
        {"id": 4, "format": "modern", "decklist": 12},
        {"id": 5, "format": "modern", "decklist": BOLT},
    ]
    out = scale.validate_partition(rows, core_db)
    assert [r["legal"] for r in out] == [None, None, None, None, True]
    assert all(set(r) == set(scale.REPORT_FIELDS) for r in out)
    assert out[0]["failure"].startswith("the row is None, not a mapping of fields")
    assert "a tuple" in out[1]["failure"] and "to_bag(format='dict')" in out[1]["failure"]
    assert "a str" in out[2]["failure"] and "json.loads" in out[2]["failure"]
    assert out[3]["id"] == 4 and "decklist is of type int" in out[3]["failure"]
    assert not any(r["failure"].startswith(scale.INTERNAL_ERROR) for r in out[:4])
