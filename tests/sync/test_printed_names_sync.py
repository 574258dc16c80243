"""`deckcheck sync --languages`: the printed names of an all_cards file, kept with the cards."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest
from support import FIXTURES

from validator.sync import SyncError, import_file
from validator.sync.printednames import parse_languages

CARDS = FIXTURES / "cards_localized.json"
ALL_CARDS = FIXTURES / "all_cards_localized.jsonl"


def _rows(db: Path) -> set[tuple[str, str, int, str]]:
    con = sqlite3.connect(db)
    try:
        return {
            (name, lang, part, card)
            for name, lang, part, card in con.execute(
                "SELECT COALESCE(p.name, p.folded), p.lang, p.part, c.name FROM printed_names p "
                "JOIN printed_name_cards n ON n.id = p.card JOIN cards c ON c.oracle_id = n.oracle_id"
            )
        }
    finally:
        con.close()


def test_names_faces_and_languages(tmp_path):
    db = tmp_path / "c.sqlite3"
    result = import_file(CARDS, str(db), languages_from=ALL_CARDS, languages={"ja", "de"})
    rows = _rows(db)
    assert ("稲妻", "ja", 0, "Lightning Bolt") in rows
    # a split card: the whole printed name and each face's
    assert ("火 // 氷", "ja", 0, "Fire // Ice") in rows
    assert ("火", "ja", 1, "Fire // Ice") in rows and ("氷", "ja", 2, "Fire // Ice") in rows
    # Scryfall's real shape (no root printed_name on a multi-face object): faces joined
    assert (
        "Geheimnisstöberer // Insekten-Scheußlichkeit",
        "de",
        0,
        "Delver of Secrets // Insectile Aberration",
    ) in rows
    # an English printing's printed name (the MTGO/Arena name) is kept too
    assert ("Leyline Weaver", "en", 0, "Spider Manifestation") in rows
    assert {lang for _, lang, _, _ in rows} == {"ja", "de", "en"}
    assert result.languages == ["de", "en", "ja"]
    assert result.printed_name_count == len(rows)
    assert "printed names:" in result.summary()


def test_gzip_json_array_reads_the_same(tmp_path):
    objs = [json.loads(line) for line in ALL_CARDS.read_text(encoding="utf-8").splitlines()]
    packed = tmp_path / "all-cards.json.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as f:
        json.dump(objs, f, ensure_ascii=False)
    import_file(CARDS, str(tmp_path / "a.sqlite3"), languages_from=ALL_CARDS)
    import_file(CARDS, str(tmp_path / "b.sqlite3"), languages_from=packed)
    assert _rows(tmp_path / "a.sqlite3") == _rows(tmp_path / "b.sqlite3")


def test_names_of_cards_not_in_the_oracle_data_are_skipped_and_counted(tmp_path):
    extra = tmp_path / "all.jsonl"
    lines = ALL_CARDS.read_text(encoding="utf-8")
    stray = {"object": "card", "oracle_id": "no-such-card", "name": "X", "lang": "ja"}
    stray["printed_name"] = "存在しない"
    extra.write_text(lines + json.dumps(stray, ensure_ascii=False) + "\n", encoding="utf-8")
    result = import_file(CARDS, str(tmp_path / "c.sqlite3"), languages_from=extra)
    assert result.printed_names_skipped == 1
    assert "1 skipped (cards not in the oracle data)" in result.summary()


def test_missing_key_names_key_and_line_and_keeps_the_database(tmp_path):
    db = tmp_path / "c.sqlite3"
    import_file(CARDS, str(db), languages_from=ALL_CARDS)
    before = _rows(db)
    bad = tmp_path / "bad.jsonl"
    lines = ALL_CARDS.read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[2])
    del broken["lang"]
    lines[2] = json.dumps(broken, ensure_ascii=False)
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SyncError, match=r"bad.jsonl, line 3: no 'lang'"):
        import_file(CARDS, str(db), languages_from=bad, force=True)
    assert _rows(db) == before  # the failed sync rolled back, names included


@pytest.mark.parametrize("broken_line", [1, 2500, 19000])
def test_a_bad_object_deep_in_a_big_file_names_its_line_and_keeps_the_names(tmp_path, broken_line):
    """Thousands of lines are decoded and written a block at a time: a bad object is still
    named by its own line, wherever it falls in a block, and the names of the blocks already
    written are rolled back with the rest of the sync."""
    db = tmp_path / "c.sqlite3"
    import_file(CARDS, str(db), languages_from=ALL_CARDS, languages={"ja"})
    before = _rows(db)
    lines = ALL_CARDS.read_text(encoding="utf-8").splitlines() * 400
    broken = json.loads(lines[broken_line - 1])
    broken["card_faces"] = "not a list"
    lines[broken_line - 1] = json.dumps(broken, ensure_ascii=False)
    bad = tmp_path / "big.jsonl.gz"
    with gzip.open(bad, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with pytest.raises(SyncError, match=rf"big.jsonl.gz, line {broken_line}: card_faces is not"):
        import_file(CARDS, str(db), languages_from=bad, force=True)
    assert _rows(db) == before


def test_oracle_only_sync_keeps_the_names(tmp_path):
    db = tmp_path / "c.sqlite3"
    import_file(CARDS, str(db), languages_from=ALL_CARDS)
    before = _rows(db)
    import_file(CARDS, str(db), force=True)
    assert _rows(db) == before


def test_language_codes():
    assert parse_languages("ja, IT") == {"ja", "it"}
    assert parse_languages("all") is None
    with pytest.raises(ValueError, match="unknown language code jp; Scryfall's codes are en, es"):
        parse_languages("jp")


def test_cli_unknown_language_is_a_usage_error(tmp_path, capsys):
    from validator.cli import main

    code = main(
        [
            "sync",
            "--db",
            str(tmp_path / "c.sqlite3"),
            "--from",
            str(CARDS),
            "--languages-from",
            str(ALL_CARDS),
            "--languages",
            "ja,xx",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "unknown language code xx" in err and "zhs, zht" in err


def test_cli_sync_from_files(tmp_path, capsys):
    from validator.cli import main

    args = ["sync", "--db", str(tmp_path / "c.sqlite3"), "--from", str(CARDS)]
    assert main([*args, "--languages-from", str(ALL_CARDS), "--languages", "ja"]) == 0
    assert "printed names:" in capsys.readouterr().out
    deck = tmp_path / "deck.txt"
    deck.write_text("4 稲妻\n56 山\n", encoding="utf-8")
    assert main(["validate", "--db", str(tmp_path / "c.sqlite3"), str(deck), "-f", "vintage"]) == 0
    assert "names read: 2 in Japanese" in capsys.readouterr().out


def test_online_sync_downloads_all_cards(tmp_path):
    """`deckcheck sync --languages ja`: the oracle file and Scryfall's all_cards file, both
    from a mocked Scryfall (`responses`), imported in one transaction."""
    import responses

    from validator.sync import sync
    from validator.sync.http import make_session

    api, files = "https://api.scryfall.test", "https://data.scryfall.test"
    oracle = gzip.compress(
        b"".join(
            json.dumps(o, ensure_ascii=False).encode() + b"\n"
            for o in json.loads(CARDS.read_text(encoding="utf-8"))
        )
    )
    names = gzip.compress(ALL_CARDS.read_bytes())

    def descriptor(kind: str, uri: str, size: int) -> dict:
        return {
            "object": "bulk_data",
            "type": kind,
            "updated_at": "2026-09-08T09:01:57.053+00:00",
            "jsonl_download_uri": uri,
            "compressed_size": size,
        }

    db = str(tmp_path / "c.sqlite3")
    with responses.RequestsMock() as rsps:
        oracle_uri, names_uri = f"{files}/oracle.jsonl.gz", f"{files}/all-cards.jsonl.gz"
        rsps.get(
            f"{api}/bulk-data/oracle-cards",
            json=descriptor("oracle_cards", oracle_uri, len(oracle)),
        )
        rsps.get(f"{api}/bulk-data/all-cards", json=descriptor("all_cards", names_uri, len(names)))
        rsps.get(oracle_uri, body=oracle, headers={"Content-Type": "application/gzip"})
        rsps.get(names_uri, body=names, headers={"Content-Type": "application/gzip"})
        session = make_session(min_interval=0.0, backoff=0.0, rate_limit_wait=0.0)
        [result] = sync(db, api=api, session=session, languages={"ja"})
    assert result.languages == ["en", "ja"]
    assert ("稲妻", "ja", 0, "Lightning Bolt") in _rows(Path(db))
    assert not list(tmp_path.glob("deckcheck-*"))
