"""A whole event in one run: inputs (directories, globs, manifests, FILE:FORMAT, event files),
stable deck ids, --jobs, and the CSV / JSON / HTML reports."""

from __future__ import annotations

import csv
import json
import re

import pytest

from validator import event
from validator.cli import main
from validator.event import judge as event_judge
from validator.event import pool as event_pool
from validator.event import run as event_run

LEGAL_MODERN = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n\n3 Counterspell\n"
ILLEGAL_MODERN = "5 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n"


def event_file(
    *decks: tuple[str, list, list], fmt: str | None = "Modern", day: str = "2026-02-22"
) -> str:
    return json.dumps(
        {
            "Tournament": {"Date": day, "Name": "Test Open", "Formats": fmt},
            "Decks": [
                {
                    "Player": p,
                    "Date": f"{day}T00:00:00+00:00",
                    "Mainboard": [{"Count": n, "CardName": c} for n, c in main],
                    "Sideboard": [{"Count": n, "CardName": c} for n, c in side],
                }
                for p, main, side in decks
            ],
        }
    )


GOOD = [(4, "Lightning Bolt"), (56, "Mountain")]
BAD = [(5, "Lightning Bolt"), (55, "Mountain")]


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "event"
    (root / "alice").mkdir(parents=True)
    (root / "bob").mkdir()
    (root / ".git").mkdir()
    (root / "alice" / "deck.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    (root / "bob" / "deck.txt").write_text(ILLEGAL_MODERN, encoding="utf-8")
    (root / ".hidden.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    (root / ".git" / "config").write_text("[core]", encoding="utf-8")
    (root / "photo.png").write_bytes(b"\x89PNG\r\n")
    (root / "MANIFEST.json").write_text('[{"file": "x"}]', encoding="utf-8")
    (root / "open.json").write_text(
        event_file(("Zed <b>", GOOD, []), ("amy", BAD, [])), encoding="utf-8"
    )
    return root


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_directory_walk_skips_and_reports_non_decklists(folder):
    inputs = event.collect([str(folder)])
    assert [(j.source, j.player) for j in inputs.jobs] == [
        ("alice/deck.txt", None),
        ("bob/deck.txt", None),
        ("open.json", "Zed <b>"),
        ("open.json", "amy"),
    ]
    assert {s.source: s.reason for s in inputs.skipped} == {
        ".git": "hidden directory",
        ".hidden.txt": "hidden file",
        "photo.png": "not a decklist (.png file)",
        "MANIFEST.json": "JSON that is neither a decklist nor an event file",
    }
    assert all(j.format == "modern" for j in inputs.jobs[2:])  # the event file's own format


def test_event_file_of_python_mtg_shape_names_format_and_deck(tmp_path):
    path = tmp_path / "meta.json"
    path.write_text(
        json.dumps(
            {
                "decks": [
                    {
                        "name": "Burn",
                        "format": "Modern",
                        "date": "2026-03-01",
                        "cards": {"Lightning Bolt": 4, "Mountain": 56},
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    inputs = event.collect([str(path)], default_as_of="event")
    [job] = inputs.jobs
    assert (job.format, job.event_date, job.as_of, job.player) == (
        "modern",
        "2026-03-01",
        None,
        None,
    )
    assert json.loads(job.data) == {
        "main": [[4, "Lightning Bolt"], [56, "Mountain"]],
        "sideboard": [],
        "name": "Burn",
    }


def test_event_file_of_python_mtg_shape_keeps_the_decks_commanders(tmp_path):
    """python-mtg's cEDH files name each deck's commanders in `commander`: they are the deck's
    commanders (its 98 `cards` alone would be "no commander found", 903.3)."""
    path = tmp_path / "cedh.json"
    path.write_text(
        json.dumps(
            {
                "decks": [
                    {
                        "name": "Blue Farm",
                        "commander": ["Tymna the Weaver", "Kraum, Ludevic's Opus"],
                        "cards": {"Island": 98},
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    [job] = event.collect([str(path)]).jobs
    assert json.loads(job.data)["commanders"] == ["Tymna the Weaver", "Kraum, Ludevic's Opus"]
    from validator import parse_decklist

    deck = parse_decklist(job.data, filename=job.filename)
    assert sorted(e.name for e in deck.entries if e.section.value == "commander") == [
        "Kraum, Ludevic's Opus",
        "Tymna the Weaver",
    ]


def test_named_file_that_is_neither_deck_nor_event_is_an_input_error(folder, core_db, capsys):
    code, _, err = run(
        capsys, "validate", str(folder / "MANIFEST.json"), "--format", "modern", "--db", core_db
    )
    assert code == 2 and "neither a decklist nor an event file" in err and "tried:" in err


def test_event_directory_one_deck_per_player_with_stable_ids(folder, core_db, capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, err = run(
        capsys,
        "validate",
        str(folder),
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        str(out_json),
    )
    assert code == 1 and not err
    data = json.loads(out_json.read_text(encoding="utf-8"))
    ids = [r["id"] for r in data["reports"]]
    assert ids == ["alice/deck.txt", "bob/deck.txt", "open.json#Zed <b>", "open.json#amy"]
    assert [r["legal"] for r in data["reports"]] == [True, False, True, False]
    assert data["reports"][2]["player"] == "Zed <b>"
    # The summary counts are the terminal's.
    s = data["summary"]
    assert (s["decks"], s["legal"], s["illegal"], s["unreadable"], s["skipped"]) == (4, 2, 2, 0, 4)
    row = re.search(r"^modern\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M).groups()
    assert row == ("4", "2", "2", "0", "0")  # decks, legal, illegal, unconfirmed, unreadable
    assert "2 of 4 decks legal" in out
    assert data["provenance"]["card_data"]["synced_at"] and data["provenance"]["deckcheck"]


def test_globs_file_format_and_unreadable_inputs_accounted_for(folder, core_db, capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, err = run(
        capsys,
        "validate",
        str(folder / "*" / "deck.txt"),
        f"{folder / 'alice' / 'deck.txt'}:legacy",
        str(folder / "nope.txt"),
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        str(out_json),
    )
    assert code == 2
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert [(r["id"].split("/")[-2], r["format"]) for r in data["reports"]] == [
        ("alice", "modern"),
        ("bob", "modern"),
        ("alice", "legacy"),
    ]
    assert [u["error"] for u in data["unreadable"]] == ["no such file or directory"]
    assert data["summary"]["unreadable"] == 1 and "nope.txt: no such file" in err
    # Two inputs naming the same file get distinct ids.
    assert len({r["id"] for r in data["reports"]}) == 3


def test_manifest_columns_relative_paths_and_player_selection(folder, core_db, capsys, tmp_path):
    manifest = folder / "players.csv"
    manifest.write_text(
        "file,player,format,commander,as_of\n"
        "alice/deck.txt,Alice,,,\n"
        "bob/deck.txt,Bob,modern,,2021-12-01\n"
        "open.json,amy,legacy,,\n"
        "missing.txt,Carl,,,\n",
        encoding="utf-8",
    )
    out_json = tmp_path / "r.json"
    code, _, err = run(
        capsys,
        "validate",
        str(manifest),
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        str(out_json),
    )
    assert code == 2 and "missing.txt" in err
    data = json.loads(out_json.read_text(encoding="utf-8"))
    got = [(r["id"], r["player"], r["format"], r["as_of"]) for r in data["reports"]]
    assert got == [
        ("alice/deck.txt#Alice", "Alice", "modern", None),
        ("bob/deck.txt#Bob", "Bob", "modern", "2021-12-01"),
        ("open.json#amy", "amy", "legacy", "2026-02-22"),  # the event file's date
    ]
    # Bob's Lurrus was legal in Modern on 2021-12-01; his 5 Bolts were not.
    bob = data["reports"][1]
    assert [p["code"] for p in bob["problems"] if p["severity"] == "error"] == ["too-many-copies"]
    assert data["unreadable"][0]["player"] == "Carl"


def test_a_month_as_of_beside_decks_with_their_own_date_is_judged_per_deck(
    folder, core_db, capsys, tmp_path
):
    """`--as-of 2022-03` with a manifest row carrying its own date: the run is "per deck", and
    the provenance says no month precision (it belongs to one date), nor "only the month".
    Before, the month precision stayed and the terminal line read "only the month each de"."""
    manifest = folder / "dated.csv"
    manifest.write_text(
        "file,format,as_of\nalice/deck.txt,modern,2021-12-01\nbob/deck.txt,modern,\n",
        encoding="utf-8",
    )
    out_json = tmp_path / "r.json"
    _, text, _ = run(
        capsys,
        "validate",
        str(manifest),
        "--db",
        core_db,
        "--as-of",
        "2022-03",
        "--report",
        str(out_json),
    )
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert [r["as_of"] for r in data["reports"]] == ["2021-12-01", "2022-03-31"]
    assert data["provenance"]["legality_as_of"] == "per deck"
    assert "legality_as_of_precision" not in data["provenance"]
    assert "as of each deck's date (legality history)" in text and "only the month" not in text


def test_a_per_deck_run_with_undated_decks_says_they_were_judged_on_the_card_data(
    folder, core_db, capsys, tmp_path
):
    """A manifest whose rows carry dates only for some decks: the undated ones were judged on
    the card data, and the provenance says so rather than "as of each deck's date" alone; with
    --as-of event and no dated deck at all, the run is plainly the card data's."""
    manifest = folder / "some-dated.csv"
    manifest.write_text(
        "file,format,as_of\nalice/deck.txt,modern,2021-12-01\nbob/deck.txt,modern,\n",
        encoding="utf-8",
    )
    out_json = tmp_path / "r.json"
    _, text, _ = run(capsys, "validate", str(manifest), "--db", core_db, "--report", str(out_json))
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert [r["as_of"] for r in data["reports"]] == ["2021-12-01", None]
    assert data["provenance"]["legality_as_of"] == "per deck"
    assert data["provenance"]["legality_basis"] == "history"
    assert data["provenance"]["undated_decks_basis"] == "card data"
    assert "decks without a date: current card data" in text
    undated = folder / "undated.csv"
    undated.write_text("file,format\nbob/deck.txt,modern\n", encoding="utf-8")
    _, text, _ = run(
        capsys,
        "validate",
        str(undated),
        "--db",
        core_db,
        "--as-of",
        "event",
        "--report",
        str(out_json),
    )
    prov = json.loads(out_json.read_text(encoding="utf-8"))["provenance"]
    assert prov["legality_basis"] == "card data" and "each deck's date" not in text


def test_duplicate_players_and_names_get_distinct_ids(tmp_path):
    path = tmp_path / "league.json"
    path.write_text(event_file(("amy", GOOD, []), ("amy", GOOD, [])), encoding="utf-8")
    inputs = event.collect([str(path)])
    results = [
        event.DeckResult(id="", source=j.source, player=j.player, format=None) for j in inputs.jobs
    ]
    event_judge._ids(results, inputs.jobs)
    assert [r.id for r in results] == [f"{path}#amy", f"{path}#amy~2"]


def test_jobs_give_the_same_report_as_one_process(folder, core_db, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(event_pool, "MIN_DECKS_PER_PROCESS", 1)
    monkeypatch.setattr(event_run, "INDEX_LOAD_S", 0.0)  # use the in-memory index: forkable
    spawned = []
    real = event_pool.run_jobs

    def spy(jobs, cards, options, *, processes=1, **kw):
        spawned.append(processes)
        return real(jobs, cards, options, processes=processes, **kw)

    monkeypatch.setattr(event_pool, "run_jobs", spy)
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"r{jobs}.json"
        run(
            capsys,
            "validate",
            str(folder),
            "--format",
            "modern",
            "--db",
            core_db,
            "--jobs",
            jobs,
            "--report",
            str(out),
        )
        outputs.append(out.read_text(encoding="utf-8"))
    assert spawned == [1, 2]
    assert outputs[0] == outputs[1]


def test_jobs_under_spawn_give_the_same_reports_as_one_process(
    folder, core_db, capsys, tmp_path, monkeypatch
):
    """The path for platforms without fork (Windows; macOS by default): each worker process
    is spawned and loads its own index and history from the database. Chosen here with
    DECKCHECK_START_METHOD; as of a date, so the workers' history is used too."""
    import multiprocessing

    monkeypatch.setattr(event_pool, "MIN_DECKS_PER_PROCESS", 1)
    monkeypatch.setattr(event_run, "INDEX_LOAD_S", 0.0)  # the in-memory index: processes are used
    methods = []
    real = multiprocessing.get_context

    def spy(method=None):
        methods.append(method)
        return real(method)

    monkeypatch.setattr(multiprocessing, "get_context", spy)
    outputs = {}
    for jobs, method in (("1", ""), ("2", "spawn")):
        monkeypatch.setenv("DECKCHECK_START_METHOD", method)
        outs = [tmp_path / f"r{jobs}.{ext}" for ext in ("json", "csv", "html")]
        argv = [
            "validate",
            str(folder),
            "--format",
            "modern",
            "--db",
            core_db,
            "--jobs",
            jobs,
            "--as-of",
            "2022-03",
        ]
        for out in outs:
            argv += ["--report", str(out)]
        code, text, _ = run(capsys, *argv)
        outputs[jobs] = (code, text, [out.read_text(encoding="utf-8") for out in outs])
    assert methods == ["spawn"]
    assert outputs["1"] == outputs["2"]
    data = json.loads(outputs["2"][2][0])
    assert data["summary"]["decks"] == 4 and data["summary"]["unreadable"] == 0
    assert {r["as_of"] for r in data["reports"]} == {"2022-03-31"}
    # Lurrus (bob's deck) was legal in March 2022: only the extra Bolt is wrong; its ban in a
    # window meeting that month is noted.
    bob = next(r for r in data["reports"] if r["id"] == "bob/deck.txt")
    assert [p["code"] for p in bob["problems"]] == ["too-many-copies", "legality-date-uncertain"]


def test_unknown_start_method_is_a_usage_error(folder, core_db, capsys, monkeypatch):
    monkeypatch.setattr(event_pool, "MIN_DECKS_PER_PROCESS", 1)
    monkeypatch.setattr(event_run, "INDEX_LOAD_S", 0.0)
    monkeypatch.setenv("DECKCHECK_START_METHOD", "teleport")
    code, _, err = run(
        capsys, "validate", str(folder), "--format", "modern", "--db", core_db, "--jobs", "2"
    )
    assert code == 2 and "DECKCHECK_START_METHOD='teleport'" in err and "spawn" in err


def test_csv_one_row_per_problem_and_per_legal_deck(folder, core_db, capsys, tmp_path):
    out_csv = tmp_path / "r.csv"
    run(
        capsys,
        "validate",
        str(folder),
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        str(out_csv),
    )
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    errors = [(r["id"], r["code"]) for r in rows if r["severity"] == "error"]
    assert errors == [
        ("bob/deck.txt", "too-many-copies"),
        ("bob/deck.txt", "banned"),
        ("open.json#amy", "too-many-copies"),
    ]
    legal = [r["id"] for r in rows if r["verdict"] == "legal" and r["code"] == ""]
    assert legal == ["alice/deck.txt", "open.json#Zed <b>"]
    bob = next(r for r in rows if r["code"] == "banned")
    assert (bob["player"], bob["format"], bob["citation"], bob["cards"], bob["lines"]) == (
        "",
        "modern",
        "format:modern",
        "Lurrus of the Dream-Den",
        "3",
    )
    assert all(r["deckcheck"] and r["card_data_synced_at"] for r in rows)


def test_html_is_self_contained_escaped_and_ordered(folder, core_db, capsys, tmp_path):
    (folder / "evil.json").write_text(
        event_file(("<script>alert(1)</script>", BAD, [])), encoding="utf-8"
    )
    out = tmp_path / "r.html"
    run(
        capsys, "validate", str(folder), "--format", "modern", "--db", core_db, "--report", str(out)
    )
    page = out.read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert page.index("<h2>Summary</h2>") < page.index("Illegal decks (3)")
    # Illegal decks sorted by player; decks without one (bob's file, shown by id) last.
    order = re.findall(r"<h3>(.*?) &mdash;", page)
    assert order == ["&lt;script&gt;alert(1)&lt;/script&gt;", "amy", "bob/deck.txt"]
    assert "line 1: 5 Lightning Bolt" in page  # the offending line as written
    assert "5 Lightning Bolt (main)" in page  # event decks: the entries naming the card
    assert "card data synced" in page and "legality as of" in page


def test_html_names_the_cards_a_deck_lists_outside_its_counted_sections(
    folder, core_db, capsys, tmp_path
):
    """A maybeboard's cards are not counted, and the organizer's page says so by name."""
    (folder / "bob" / "deck.txt").write_text(
        ILLEGAL_MODERN + "\nMaybeboard\n1 Black Lotus\n", encoding="utf-8"
    )
    out = tmp_path / "r.html"
    run(
        capsys, "validate", str(folder), "--format", "modern", "--db", core_db, "--report", str(out)
    )
    page = out.read_text(encoding="utf-8")
    line = len(ILLEGAL_MODERN.splitlines()) + 3
    assert f"not counted: 1 Black Lotus (Maybeboard, line {line})" in page


def test_html_lists_legal_decks_whose_date_is_near_a_change(folder, core_db, capsys, tmp_path):
    out = tmp_path / "r.html"
    (folder / "bob" / "deck.txt").write_text(
        "4 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n", encoding="utf-8"
    )
    run(
        capsys,
        "validate",
        str(folder / "bob"),
        "--format",
        "modern",
        "--db",
        core_db,
        "--as-of",
        "2022-03-10",
        "--report",
        str(out),
    )
    page = out.read_text(encoding="utf-8")
    assert "Legal decks with a legality date to check (1)" in page
    assert "changed between 2022-01-18 and 2022-06-09" in page


def test_cost_model_has_no_cliff():
    """The card source is chosen by cost: N decks never cost much more than N-1."""

    def cost(n: int) -> float:
        return (
            event_run.INDEX_LOAD_S + n * event_run.WARM_DECK_S
            if event.use_index(n)
            else n * event_run.DB_DECK_S
        )

    assert not event.use_index(1) and event.use_index(10_000)
    # The cheaper source every time (so no step in the cost), and no more per deck as N grows.
    assert all(
        cost(n) == min(event_run.INDEX_LOAD_S + n * event_run.WARM_DECK_S, n * event_run.DB_DECK_S)
        for n in range(1, 5000)
    )
    assert all(cost(n + 1) <= cost(n) * (n + 1) / n + 1e-9 for n in range(1, 5000))


def test_processes_are_used_only_when_the_batch_repays_them():
    assert event.processes_for(8, 10) == 1
    assert event.processes_for(2, 10_000) == 2
    assert event.processes_for(64, 1_000) == 1_000 // event_pool.MIN_DECKS_PER_PROCESS


@pytest.mark.parametrize(
    "decks, cores, load, expected",
    [
        (2236, 2, 0.1, 2),  # an idle machine: the event in both cores
        (2236, 8, 0.0, 8),
        (2236, 2, 3.0, 1),  # busy: workers would only take turns with the others
        (2236, 2, 0.6, 1),  # one core free: one process
        (10_000, 8, 6.0, 2),  # as many as the cores others leave free
        (10_000, 8, 9.0, 1),
        (300, 2, 0.0, 1),  # too small a batch to repay a second process
        (100, 64, 0.0, 1),
        (0, 4, 0.0, 1),
    ],
)
def test_the_default_jobs_take_the_free_cores_the_batch_repays(decks, cores, load, expected):
    assert event_pool.default_processes(decks, cores, load) == expected


def test_the_default_jobs_never_expect_to_be_slower_than_one_process():
    one = event_pool.JUDGE_DECK_S
    for decks in range(0, 20_000, 97):
        for cores in (1, 2, 4, 8, 64):
            for load in (0.0, 0.4, 1.0, 2.5, 7.0):
                n = event_pool.default_processes(decks, cores, load)
                assert 1 <= n <= max(1, int(cores - load + 0.5))
                assert n == 1 or n <= decks // event_pool.MIN_DECKS_PER_PROCESS
                wall = decks * one * event_pool.PARALLEL_CPU / n + n * event_pool.WORKER_START_S
                assert n == 1 or wall * event_pool.MIN_SPEEDUP < decks * one


def test_the_default_jobs_read_the_cores_and_the_load(monkeypatch):
    monkeypatch.setattr(event_pool, "usable_cores", lambda: 4)
    monkeypatch.setattr(event_pool, "other_load", lambda: 0.0)
    assert event.processes_for(None, 10_000) == 4
    assert event.processes_for(0, 10_000) == 4
    monkeypatch.setattr(event_pool, "other_load", lambda: 5.0)
    assert event.processes_for(None, 10_000) == 1
    assert event.processes_for(3, 10_000) == 3  # asked for: as given


@pytest.mark.parametrize(
    "label, name, expected",
    [
        ("Modern", "Test Open", "modern"),  # the label decides
        (None, "Premodern Challenge 32", "premodern"),  # no label: the event's name
        ("Commander", "Duel Commander Trial 16", "duel"),  # MTGO labels Duel Commander so
        ("Commander", "Commander Celebration", "commander"),
        (None, "Friday Night Magic", None),  # neither: --format must say
    ],
)
def test_event_format_from_label_and_name(tmp_path, label, name, expected):
    path = tmp_path / "event.json"
    data = json.loads(event_file(("amy", GOOD, []), fmt=label))
    data["Tournament"]["Name"] = name
    path.write_text(json.dumps(data), encoding="utf-8")
    inputs = event.collect([str(path)])
    assert [j.format for j in inputs.jobs] == [expected]


def test_event_file_naming_no_format_says_so_once(core_db, capsys, tmp_path):
    """An event file with no format (Formats null, a name that names none) stops each of its
    decks for one reason: one stderr line naming the file, not one per player; the report
    still lists every deck as unreadable."""
    path = tmp_path / "fnm.json"
    path.write_text(
        json.dumps(
            {
                "Tournament": {"Name": "Friday Night Magic", "Formats": None},
                "Decks": [
                    {
                        "Player": p,
                        "Sideboard": [],
                        "Mainboard": [{"Count": 60, "CardName": "Mountain"}],
                    }
                    for p in ("ann", "bob", "cy")
                ],
            }
        ),
        encoding="utf-8",
    )
    out_json = tmp_path / "r.json"
    code, out, err = run(capsys, "validate", str(path), "--db", core_db, "--report", str(out_json))
    assert code == 2
    assert (
        err.count("\n") == 1 and "fnm.json (3 decks): no format: this event file names none" in err
    )
    assert len(json.loads(out_json.read_text(encoding="utf-8"))["unreadable"]) == 3
