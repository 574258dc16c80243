"""`deckcheck recheck`: the changed decks printed and written, the exit codes, the notice."""

from __future__ import annotations

import csv
import hashlib
import hmac
import json

import pytest
import responses

from validator.cli import main

HOOK = "https://hooks.example.org/deckcheck"
ROWS = [
    {"id": "a", "format": "modern", "decklist": "4 Lightning Bolt\n56 Mountain\n"},
    {"id": "b", "format": "modern", "decklist": "4 Counterspell\n56 Island\n"},
]


def write_rows(tmp_path, kind: str = "jsonl") -> str:
    path = tmp_path / f"decks.{kind}"
    if kind == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    elif kind == "csv":
        with open(path, "w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, ["id", "format", "decklist"])
            writer.writeheader()
            writer.writerows(ROWS)
    else:
        import pandas as pd

        pd.DataFrame(ROWS).to_parquet(path)
    return str(path)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_a_ban_is_printed_written_and_exits_1(tmp_path, capsys, synced, kind):
    decks, state = write_rows(tmp_path, kind), str(tmp_path / "state.sqlite3")
    code, out, err = run(capsys, "recheck", decks, "--store", state, "--db", synced("20260501"))
    assert (code, err) == (0, "")
    assert "modern" in out and "0 verdicts changed" in out
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    report = tmp_path / "changed.csv"
    code, out, err = run(
        capsys, "recheck", decks, "--store", state, "--db", db, "--report", str(report)
    )
    assert code == 1, err
    assert "a (modern): legal -> illegal" in out
    assert "because Lightning Bolt: legal -> banned in Modern, card data of 2026-05-18" in out
    assert "1 verdicts changed" in out
    (row,) = list(csv.DictReader(report.open(encoding="utf-8")))
    assert (row["id"], row["old_verdict"], row["new_verdict"]) == ("a", "legal", "illegal")
    assert "added banned" in row["changes"]


def test_a_new_deck_not_legal_is_printed_with_the_verdicts_after_the_run(tmp_path, capsys, synced):
    decks, state = write_rows(tmp_path), str(tmp_path / "state.sqlite3")
    db = synced("20260501", {"Lightning Bolt": {"modern": "banned"}})
    code, out, err = run(capsys, "recheck", decks, "--store", state, "--db", db)
    # No verdict changed (exit 0), yet the new banned deck is named, with its problem.
    assert (code, err) == (0, "")
    assert "a (modern): new, illegal\n  banned: Lightning Bolt is banned in Modern" in out
    assert "after this run: 1 illegal, 0 unconfirmed of 2 decks; 1 new deck not legal" in out
    code, out, err = run(capsys, "recheck", decks, "--store", state, "--db", db)
    assert "new, illegal" not in out  # new once
    assert "after this run: 1 illegal, 0 unconfirmed of 2 decks\n" in out + "\n"


def test_json_and_report_kinds(tmp_path, capsys, synced):
    decks, state = write_rows(tmp_path), str(tmp_path / "state.sqlite3")
    run(capsys, "recheck", decks, "--store", state, "--db", synced("20260501"))
    db = synced("20260518", {"Counterspell": {"modern": "banned"}})
    out_json = tmp_path / "result.json"
    code, out, _ = run(
        capsys, "recheck", decks, "--store", state, "--db", db, "--json", "--report", str(out_json)
    )
    assert code == 1
    doc = json.loads(out)
    assert doc["schema"] == "deckcheck.recheck/1" and doc["changed"][0]["id"] == "b"
    assert json.loads(out_json.read_text())["summary"]["modern"]["newly_illegal"] == 1
    code, _, err = run(
        capsys, "recheck", decks, "--store", state, "--db", db, "--report", str(tmp_path / "x.xlsx")
    )
    assert code == 2 and ".csv, .jsonl, .parquet, .json" in err


def test_a_state_that_is_not_deckchecks_is_exit_2_in_one_line(tmp_path, capsys, synced):
    state = tmp_path / "state.sqlite3"
    state.write_text("hello", encoding="utf-8")
    code, out, err = run(
        capsys, "recheck", write_rows(tmp_path), "--store", str(state), "--db", synced("20260501")
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "untouched" in err
    assert state.read_text(encoding="utf-8") == "hello"


def test_a_row_that_cannot_be_judged_is_exit_2_and_the_others_are_judged(tmp_path, capsys, synced):
    path = tmp_path / "decks.jsonl"
    path.write_text(json.dumps(ROWS[0]) + "\n{oops\n", encoding="utf-8")
    code, out, _ = run(
        capsys,
        "recheck",
        str(path),
        "--store",
        str(tmp_path / "s.sqlite3"),
        "--db",
        synced("20260501"),
    )
    assert code == 2
    assert "could not judge decks.jsonl line 2: not a JSON object" in out
    assert "modern" in out and " 1 " in out


def _changed(tmp_path, capsys, synced) -> tuple[str, str, str]:
    decks, state = write_rows(tmp_path), str(tmp_path / "state.sqlite3")
    run(capsys, "recheck", decks, "--store", state, "--db", synced("20260501"))
    return decks, state, synced("20260518", {"Lightning Bolt": {"modern": "banned"}})


@responses.activate
def test_the_notice_is_signed_and_says_what_changed(tmp_path, capsys, synced, monkeypatch):
    monkeypatch.setenv("DECKCHECK_NOTIFY_SECRET", "s3cret")
    responses.add(responses.POST, HOOK, status=204)
    decks, state, db = _changed(tmp_path, capsys, synced)
    code, _, err = run(capsys, "recheck", decks, "--store", state, "--db", db, "--notify", HOOK)
    assert code == 1, err
    (call,) = responses.calls
    body = call.request.body
    expected = "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert call.request.headers["X-Deckcheck-Signature"] == expected
    doc = json.loads(body)
    assert doc["schema"] == "deckcheck.recheck-notice/1"
    assert doc["changed"][0]["id"] == "a" and doc["summary"]["modern"]["newly_illegal"] == 1
    # Nothing changed: no notice.
    code, _, _ = run(capsys, "recheck", decks, "--store", state, "--db", db, "--notify", HOOK)
    assert code == 0 and len(responses.calls) == 1


@responses.activate
def test_a_busy_receiver_is_retried(tmp_path, capsys, synced, monkeypatch):
    monkeypatch.setattr("validator.rechecking.notify.DEFAULT_DEADLINE", 0.1)
    responses.add(responses.POST, HOOK, status=503)
    responses.add(responses.POST, HOOK, status=503)
    responses.add(responses.POST, HOOK, status=200)
    decks, state, db = _changed(tmp_path, capsys, synced)
    code, _, err = run(capsys, "recheck", decks, "--store", state, "--db", db, "--notify", HOOK)
    assert code == 1, err
    assert len(responses.calls) == 3


@responses.activate
def test_a_refused_notice_is_exit_2_and_state_keeps_the_verdicts(
    tmp_path, capsys, synced, monkeypatch
):
    monkeypatch.setattr("validator.rechecking.notify.DEFAULT_DEADLINE", 0.1)
    responses.add(responses.POST, HOOK, status=500)
    decks, state, db = _changed(tmp_path, capsys, synced)
    code, _, err = run(capsys, "recheck", decks, "--store", state, "--db", db, "--notify", HOOK)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "HTTP 500" in err and "stored in STATE" in err
    assert len(responses.calls) == 6  # the first try and 5 retries
    code, out, _ = run(capsys, "recheck", decks, "--store", state, "--db", db)
    assert code == 0 and "0 verdicts changed" in out
