"""Exit codes and event reports tell the three verdicts apart: 0 legal, 1 illegal, 3
unconfirmed (every error one deckcheck cannot decide), 2 no verdict at all."""

from __future__ import annotations

import csv
import json

from cli_support import run

DECK = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n"
TYPO = DECK.replace("4 Goblin Guide", "4 Goblin Guid")
BANNED = DECK.replace("52 Mountain", "51 Mountain\n1 Black Lotus")


def test_validate_exit_codes(core_db, tmp_path, capsys):
    for name, text in (("legal", DECK), ("typo", TYPO), ("banned", BANNED)):
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    cases = [
        (["legal.txt"], 0),
        (["typo.txt"], 3),
        (["banned.txt"], 1),
        (["legal.txt", "typo.txt"], 3),
        (["typo.txt", "banned.txt"], 1),
        (["typo.txt", "missing.txt"], 2),
    ]
    for files, code in cases:
        paths = [str(tmp_path / f) for f in files]
        got, out, _ = run(capsys, "validate", *paths, "--format", "modern", "--db", core_db)
        assert got == code, (files, out)


def test_check_formats_exit_3_when_no_format_is_legal_but_one_is_unconfirmed(
    core_db, tmp_path, capsys
):
    path = tmp_path / "typo.txt"
    path.write_text(TYPO.replace("4 Lightning Bolt", "4 Lightnin Bolt"), encoding="utf-8")
    code, out, _ = run(capsys, "check-formats", str(path), "--db", core_db, "--json")
    data = json.loads(out)
    assert data["legal_in"] == [] and "modern" in data["unconfirmed_in"]
    assert data["formats"]["modern"]["verdict"] == "unconfirmed"
    assert code == 3


def test_event_reports_carry_the_unconfirmed_verdict(core_db, tmp_path, capsys):
    folder = tmp_path / "event"
    folder.mkdir()
    for name, text in (("ann", DECK), ("bob", TYPO), ("cid", BANNED)):
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    reports = [tmp_path / f"r.{ext}" for ext in ("csv", "json", "html")]
    code, out, _ = run(
        capsys,
        "validate",
        str(folder),
        "--format",
        "modern",
        "--db",
        core_db,
        *[x for r in reports for x in ("--report", str(r))],
    )
    assert code == 1
    verdicts = {line.split()[0]: line.split()[2] for line in out.splitlines()[1:4]}
    assert verdicts == {"ann.txt": "legal", "bob.txt": "UNCONFIRMED", "cid.txt": "ILLEGAL"}
    assert "1 of 3 decks legal; 1 unconfirmed" in out
    with open(reports[0], encoding="utf-8") as f:
        rows = {r["id"]: r["verdict"] for r in csv.DictReader(f)}
    assert rows == {"ann.txt": "legal", "bob.txt": "unconfirmed", "cid.txt": "illegal"}
    data = json.loads(reports[1].read_text(encoding="utf-8"))
    assert [r["verdict"] for r in data["reports"]] == ["legal", "unconfirmed", "illegal"]
    assert data["summary"]["unconfirmed"] == 1
    html = reports[2].read_text(encoding="utf-8")
    assert "Unconfirmed decks" in html and "Goblin Guid" in html
