"""Re-checking on Dask: `validator.scale.recheck_partition` against STATE kept in Parquet,
the decks read in the workers; the same changed verdicts as `validator.recheck` in-process."""

from __future__ import annotations

import json

import pytest
from support import two_worker_cluster

import validator
from validator import scale
from validator.rechecking.run import rules_digest

pd = pytest.importorskip("pandas")

ROWS = [
    {"id": f"d{i}", "format": fmt, "decklist": text}
    for i, (fmt, text) in enumerate(
        [
            ("modern", "4 Lightning Bolt\n56 Mountain\n"),
            ("pauper", "4 Lightning Bolt\n56 Mountain\n"),
            ("modern", "4 Counterspell\n56 Island\n"),
            ("legacy", "4 Brainstorm\n4 Counterspell\n52 Island\n"),
            ("modern", "4 Lightning Bolt\n4 Counterspell\n26 Island\n26 Mountain\n"),
            ("vintage", "1 Black Lotus\n59 Island\n"),
            ("modern", "4 No Such Card\n56 Island\n"),
        ]
        * 3
    )
]


@pytest.fixture(autouse=True)
def fresh_cache():
    scale.forget_indexes()
    yield
    scale.forget_indexes()


def verdicts(result) -> list[tuple]:
    return sorted(
        (
            c.id,
            c.format,
            c.old_verdict,
            c.new_verdict,
            tuple(p.to_dict().items() for p in c.problems),
        )
        for c in result.changed
    )


def test_partitions_in_process_give_the_changed_verdicts_of_recheck(tmp_path, synced):
    state = tmp_path / "state.sqlite3"
    db = synced("20260501")
    validator.recheck(ROWS, state=state, db=db)
    plan = scale.recheck_plan(db, None)
    first = pd.concat(
        [
            scale.recheck_partition(pd.DataFrame(ROWS[i : i + 5]), None, plan, db)
            for i in (0, 5, 10, 15, 20)
        ]
    )
    assert first["rejudged"].sum() == len(ROWS) and first["change"].isna().all()
    stored = tmp_path / "state-1"
    stored.mkdir()
    first[list(scale.STATE_META)].to_parquet(stored / "part.0.parquet", index=False)
    (stored / scale.STATE_INFO).write_text(
        json.dumps({"checked_sync": plan["sync_id"], "rules": rules_digest()})
    )
    db = synced(
        "20260518", {"Lightning Bolt": {"modern": "banned"}, "Counterspell": {"legacy": "banned"}}
    )
    expected = validator.recheck(ROWS, state=state, db=db)
    plan = scale.recheck_plan(db, stored)
    again = scale.recheck_partition(pd.DataFrame(ROWS), stored, plan, db)
    changed = sorted(json.loads(c)["id"] for c in again["change"].dropna())
    assert changed == sorted(c.id for c in expected.changed) and changed
    # Only the decks the bans touch: the name no card has is still no card's, not re-judged.
    assert again["rejudged"].sum() == sum(s.rejudged for s in expected.summary.values()) == 9


def test_on_a_local_cluster_with_two_workers(tmp_path, synced):
    pytest.importorskip("dask.distributed")
    decks = tmp_path / "decks"
    decks.mkdir()
    for n in range(3):  # three files: three partitions, read in the workers
        pd.DataFrame(ROWS[n * 7 : n * 7 + 7]).to_parquet(decks / f"part.{n}.parquet", index=False)
    in_process_state = tmp_path / "state.sqlite3"
    db = synced("20260501", without=("Brainstorm",))
    validator.recheck(ROWS, state=in_process_state, db=db)
    # A registration since: a new deck, not legal once Lightning Bolt is banned.
    late = {"id": "late", "format": "modern", "decklist": "4 Lightning Bolt\n56 Mountain\n"}
    with two_worker_cluster():
        first = scale.recheck_dataframe(decks, None, tmp_path / "s1", db)
        assert first.changed == [] and first.summary["modern"].new == 12
        # The first run: every deck is new; their verdicts are in the new STATE, not listed.
        assert first.new_not_legal == [] and first.summary["modern"].unconfirmed == 3
        pd.DataFrame([late]).to_parquet(decks / "part.3.parquet", index=False)
        db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
        on_cluster = scale.recheck_dataframe(decks, tmp_path / "s1", tmp_path / "s2", db)
    in_process = validator.recheck([*ROWS, late], state=in_process_state, db=db)
    assert verdicts(on_cluster) == verdicts(in_process)
    assert [(d.id, d.verdict) for d in on_cluster.new_not_legal] == [("late", "illegal")]
    assert on_cluster.new_not_legal == in_process.new_not_legal
    assert {c.new_verdict for c in in_process.changed} == {"illegal", "legal"}  # ban and Brainstorm
    assert {k: v.to_dict() for k, v in on_cluster.summary.items()} == {
        k: v.to_dict() for k, v in in_process.summary.items()
    }


def test_a_partition_of_rows_gives_rows_for_spark(tmp_path, synced):
    db = synced("20260501")
    out = scale.recheck_partition(iter(ROWS[:7]), None, scale.recheck_plan(db, None), db)
    assert isinstance(out, list) and [r["id"] for r in out] == [r["id"] for r in ROWS[:7]]
    assert set(out[0]) == set(scale.RECHECK_META) and out[0]["verdict"] == "legal"


def test_a_partition_a_sync_leaves_as_it_was_loads_no_card_index(tmp_path, synced, monkeypatch):
    db = synced("20260501")
    plan = scale.recheck_plan(db, None)
    rows = [r for r in ROWS if r["format"] == "pauper"]  # no unknown name; no ban touches them
    first = scale.recheck_partition(pd.DataFrame(rows), None, plan, db)
    stored = tmp_path / "state-1"
    stored.mkdir()
    first[list(scale.STATE_META)].to_parquet(stored / "part.0.parquet", index=False)
    (stored / scale.STATE_INFO).write_text(
        json.dumps({"checked_sync": plan["sync_id"], "rules": rules_digest()})
    )
    db = synced("20260518", {"Counterspell": {"legacy": "banned"}})
    plan = scale.recheck_plan(db, stored)
    assert plan["sync_id"] != plan["checked_sync"] and plan["changes"]
    loads: list[str] = []
    monkeypatch.setattr(scale, "card_index", lambda db: loads.append(db))
    again = scale.recheck_partition(pd.DataFrame(rows), stored, plan, db)
    assert again["rejudged"].sum() == 0 and again["checked"].sum() == len(rows)
    assert loads == []
