"""Event runs keep their promises whatever the inputs (README "Events"): one unreadable input
never stops the others, exit 2 when anything could not be judged (nothing to judge included),
never a traceback, reports always printable and never half-written, never written over an
input, and safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
import json
import os
import sys

import pytest

from validator import event
from validator.cli import main
from validator.event import pool as event_pool

LEGAL_MODERN = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n"
DEEP = '{"main": ' + "[" * 3000 + "]" * 3000 + "}"


def event_json(*players: str, card: str = "Lightning Bolt") -> str:
    return json.dumps(
        {
            "Tournament": {"Date": "2026-02-22", "Name": "Test Open", "Formats": "Modern"},
            "Decks": [
                {
                    "Player": p,
                    "Mainboard": [
                        {"Count": 4, "CardName": card},
                        {"Count": 56, "CardName": "Mountain"},
                    ],
                    "Sideboard": [],
                }
                for p in players
            ],
        }
    )


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    # Whatever went in, what comes out can be written as UTF-8 (a terminal, a pipe, a file).
    out.encode("utf-8"), err.encode("utf-8")
    assert "internal error" not in err and "Traceback" not in err
    return code, out, err


def read_csv(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------------------- 1. deep JSON


def test_deeply_nested_json_is_one_unreadable_input_and_the_others_are_judged(
    tmp_path, core_db, capsys
):
    deck_dir = tmp_path / "decks"
    deck_dir.mkdir()
    (deck_dir / "a.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    (deck_dir / "b.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    (deck_dir / "z.json").write_text(DEEP, encoding="utf-8")
    report = tmp_path / "mn.csv"
    code, out, err = run(
        capsys, "validate", deck_dir, "--format", "modern", "--db", core_db, "--report", report
    )
    assert code == 2  # an input could not be judged
    assert "z.json: malformed JSON: nested too deeply" in err
    rows = {r["id"]: r for r in read_csv(report)}
    assert rows["a.txt"]["verdict"] == rows["b.txt"]["verdict"] == "legal"
    assert rows["z.json"]["verdict"] == "unreadable"
    assert "nested too deeply" in rows["z.json"]["message"]


def test_deeply_nested_json_on_stdin_and_through_the_library(
    tmp_path, core_db, capsys, monkeypatch
):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(DEEP.encode())))
    code, _, err = run(capsys, "validate", "-", "--format", "modern", "--db", core_db)
    assert code == 2 and "-: malformed JSON: nested too deeply" in err
    path = tmp_path / "z.json"
    path.write_text(DEEP, encoding="utf-8")
    [job] = event.collect([str(path)]).jobs
    assert job.error == "malformed JSON: nested too deeply"


def test_event_file_nested_near_the_recursion_limit_never_raises(tmp_path):
    """At every depth around the limit json.loads has, collect gives a job (or this input's
    error), never raises: a deck nested just below it is taken apart and re-encoded too."""
    path = tmp_path / "ev.json"
    limit = sys.getrecursionlimit()
    for depth in range(limit - 60, limit + 5, 3):
        path.write_text(
            '{"Decks": [{"Player": "p", "Mainboard": ' + "[" * depth + "]" * depth + "}]}",
            encoding="utf-8",
        )
        [job] = event.collect([str(path)]).jobs
        assert job.error in (None, "malformed JSON: nested too deeply")


def test_an_event_file_entry_that_is_no_object_is_an_error_on_that_deck(tmp_path):
    path = tmp_path / "ev.json"
    data = json.loads(event_json(*"abcde"))
    data["Decks"].append("not a deck")  # the detector looks at the first five entries only
    path.write_text(json.dumps(data), encoding="utf-8")
    jobs = event.collect([str(path)]).jobs
    assert [j.error for j in jobs[:5]] == [None] * 5
    assert jobs[5].deck_index == 5 and "deck 6 of this event file is not an object" in jobs[5].error


# ---------------------------------------------------------------------------- 2. surrogates


def test_lone_surrogates_in_an_event_file_are_printed_escaped_and_every_deck_judged(
    tmp_path, core_db, capsys
):
    # JSON's "\ud800" escape: a lone surrogate, which no UTF-8 output can carry.
    path = tmp_path / "ev.json"
    path.write_text(
        '{"Tournament": {"Formats": "Modern"}, "Decks": ['
        '{"Player": "\\ud800x", "name": "\\ud801n", "Mainboard": ['
        '{"Count": 4, "CardName": "Lightning Bolt"}, {"Count": 56, "CardName": "Mountain"}]},'
        '{"Player": "bo", "Mainboard": [{"Count": 4, "CardName": "\\ud803Bolt"},'
        '{"Count": 56, "CardName": "Mountain"}]},'
        '{"Player": "cy", "Date": "2026-\\ud802", "Mainboard": [{"Count": 1, "CardName": "Island"}]}]}',
        encoding="utf-8",
    )
    reports = [tmp_path / f"r.{ext}" for ext in ("csv", "json", "html")]
    argv = ["validate", path, "--db", core_db, *[a for r in reports for a in ("--report", r)]]
    code, out, err = run(capsys, *argv, "--json", "--as-of", "today")  # not cy's broken date
    data = json.loads(out)
    assert [r["player"] for r in data["reports"]] == ["\\ud800x", "bo", "cy"]
    assert data["reports"][0]["id"] == f"{path}#\\ud800x"
    # The deck's own name is a problem on its item (no name taken from it).
    assert any("name: is not valid Unicode" in p["message"] for p in data["reports"][0]["problems"])
    # The surrogate card name is a problem on its item, the deck still judged.
    assert any("lone surrogate" in p["message"] for p in data["reports"][1]["problems"])
    assert code == 1
    assert read_csv(reports[0])[0]["player"] == "\\ud800x"
    assert json.loads(reports[1].read_text(encoding="utf-8"))["summary"]["decks"] == 3
    assert "ev.json#\\ud800x" in reports[2].read_text(encoding="utf-8")
    # A date that is no date (with a surrogate in it) is that deck's error, printable.
    for as_of in (["--as-of", "event"], []):  # judged as of its event's date by default
        code, out, err = run(capsys, "validate", path, "--db", core_db, *as_of)
        assert code == 2 and "as_of '2026-\\ud802' is not a date" in err
    assert "ev.json#\\ud800x" in out and "ev.json#bo" in out


def test_control_characters_in_names_are_escaped_so_each_deck_stays_one_line(
    tmp_path, core_db, capsys
):
    path = tmp_path / "ev.json"
    path.write_text(event_json("Ann\nEvil\x1b[2J", "Bo\u2028b"), encoding="utf-8")
    code, out, _ = run(capsys, "validate", path, "--db", core_db)
    assert code == 0 and "\x1b" not in out and "\u2028" not in out
    # The folder the ids share is said once above the table (the columns stay aligned).
    assert out.splitlines()[0] == f"decks in {path.parent}/"
    assert [line.split()[0] for line in out.splitlines()[2:4]] == [
        "ev.json#Ann\\nEvil\\x1b[2J",
        "ev.json#Bo\\u2028b",
    ]
    # The data keeps the names as given: JSON escapes them its own way, unambiguously.
    code, out, _ = run(capsys, "validate", path, "--db", core_db, "--json")
    players = [r["player"] for r in json.loads(out)["reports"]]
    assert players == ["Ann\nEvil\x1b[2J", "Bo\u2028b"]
    report = tmp_path / "r.csv"
    run(capsys, "validate", path, "--db", core_db, "--report", report)
    lines = report.read_text(encoding="utf-8").split("\n")
    assert len(lines) == 4 and lines[-1] == "" and "\x1b" not in report.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- 3. file names

needs_bytes_names = pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="the file system keeps names as Unicode text"
)


@needs_bytes_names
def test_undecodable_file_names_are_written_as_escapes_in_every_report(tmp_path, core_db, capsys):
    deck_dir = tmp_path / "decks"
    deck_dir.mkdir()
    try:
        with open(os.fsencode(deck_dir) + b"/bad\xff.txt", "w", encoding="utf-8") as f:
            f.write("5 Lightning Bolt\n55 Mountain\n")  # illegal: the HTML page shows it
        (deck_dir / "ok.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    except OSError as exc:  # a file system that refuses the name
        pytest.skip(f"cannot create a non-UTF-8 file name here: {exc}")
    reports = [tmp_path / f"p.{ext}" for ext in ("csv", "json", "html")]
    argv = [
        "validate",
        deck_dir,
        "--format",
        "modern",
        "--db",
        core_db,
        *[a for r in reports for a in ("--report", r)],
    ]
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 1
    assert [r["id"] for r in json.loads(out)["reports"]] == ["bad\\xff.txt", "ok.txt"]
    assert read_csv(reports[0])[0]["source"] == "bad\\xff.txt"
    assert json.loads(reports[1].read_text(encoding="utf-8"))["reports"][0]["id"] == "bad\\xff.txt"
    assert "bad\\xff.txt" in reports[2].read_text(encoding="utf-8")


def test_a_failed_report_write_leaves_the_previous_report_whole(tmp_path, monkeypatch):
    from validator.event import reports as eventreport

    previous = tmp_path / "keep.csv"
    previous.write_text("the previous report\n", encoding="utf-8")
    os.chmod(previous, 0o640)
    result = event.EventResult([], [], {})
    monkeypatch.setattr(eventreport, "render_event_csv", lambda r: "new report\n")
    real_fsync = os.fsync

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        eventreport.write_event_report(previous, result)
    assert previous.read_text(encoding="utf-8") == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.csv"]  # no temporary left
    monkeypatch.setattr(os, "fsync", real_fsync)
    eventreport.write_event_report(previous, result)
    assert previous.read_text(encoding="utf-8") == "new report\n"
    if os.name == "posix":
        assert previous.stat().st_mode & 0o777 == 0o640  # the report keeps its permissions
        # A link to the report stays a link: the file it names gets the new report.
        link = tmp_path / "latest.csv"
        link.symlink_to(previous)
        monkeypatch.setattr(eventreport, "render_event_csv", lambda r: "newer report\n")
        eventreport.write_event_report(link, result)
        assert link.is_symlink() and previous.read_text(encoding="utf-8") == "newer report\n"


def test_report_whose_directory_cannot_take_the_temporary_file_fails_before_judging(
    tmp_path, core_db, capsys, monkeypatch
):
    from validator.event import reports as eventreport

    deck = tmp_path / "deck.txt"
    deck.write_text(LEGAL_MODERN, encoding="utf-8")
    report = tmp_path / "r.csv"
    report.write_text("old\n", encoding="utf-8")  # writable itself; its directory is not

    def read_only_directory(path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(eventreport, "_temporary_beside", read_only_directory)
    code, out, err = run(
        capsys, "validate", deck, "--format", "modern", "--db", core_db, "--report", report
    )
    assert code == 2 and "cannot write --report" in err and "Permission denied" in err
    assert out == "" and report.read_text(encoding="utf-8") == "old\n"


@needs_bytes_names
def test_a_format_given_with_undecodable_bytes_is_shown_escaped(tmp_path, core_db, capsys):
    deck = tmp_path / "deck.txt"
    deck.write_text(LEGAL_MODERN, encoding="utf-8")
    report = tmp_path / "r.csv"
    # The shell passes bytes; Python keeps the undecodable one as a surrogate escape.
    arg = os.fsdecode(os.fsencode(str(deck)) + b":mod\xff")
    code, out, err = run(
        capsys, "validate", arg, deck, "--format", "modern", "--db", core_db, "--report", report
    )
    assert code == 2 and "unknown format 'mod\\udcff'" in err
    assert [r["format"] for r in read_csv(report)] == ["mod\\xff", "modern"]
    # So is the format of an input that cannot be read (larger than a decklist may be).
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"x" * 1_000_001)
    arg = os.fsdecode(os.fsencode(str(huge)) + b":mod\xff")
    code, _, err = run(
        capsys, "validate", arg, deck, "--format", "modern", "--db", core_db, "--report", report
    )
    assert code == 2 and [r["format"] for r in read_csv(report)] == ["mod\\xff", "modern"]


# ---------------------------------------------------------------------------- 4. nothing to judge


def test_an_event_file_without_decks_is_nothing_to_judge(tmp_path, core_db, capsys):
    path = tmp_path / "decksempty.json"
    path.write_text('{"Tournament": {"Date": "2026-02-22"}, "Decks": []}', encoding="utf-8")
    code, _, err = run(capsys, "validate", path, "--as-of", "event", "--db", core_db)
    assert code == 2
    assert "decksempty.json: no decks in this event file" in err and "one deck per player" in err


def test_a_manifest_naming_only_itself_is_nothing_to_judge(tmp_path, core_db, capsys):
    manifest = tmp_path / "m.csv"
    manifest.write_text("file,player\nm.csv,Ann\n", encoding="utf-8")
    code, out, err = run(capsys, "validate", manifest, "--db", core_db)
    assert code == 2 and "m.csv: no decklist to judge in this manifest" in err
    assert "0 of 0 decks legal" in out
    # Named with a format it is a manifest used as a decklist: skipped, so nothing either.
    code, _, err = run(capsys, "validate", f"{manifest}:modern", "--db", core_db)
    assert code == 2 and "nothing to judge in this input" in err


# ---------------------------------------------------------------------------- 5. FIFOs, devices

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


@needs_fifo
def test_a_fifo_in_a_deck_folder_is_skipped_not_waited_on(tmp_path):
    deck_dir = tmp_path / "fifodir"
    deck_dir.mkdir()
    (deck_dir / "a.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    os.mkfifo(deck_dir / "b.txt")  # nobody writes: opening it to read would wait forever
    import threading

    collected: list = []
    worker = threading.Thread(
        target=lambda: collected.append(event.collect([str(deck_dir)])), daemon=True
    )
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # waiting on the FIFO: give it its end of file, then fail
        os.close(os.open(deck_dir / "b.txt", os.O_WRONLY | os.O_NONBLOCK))
        worker.join(timeout=10)
        pytest.fail("collect waited on a FIFO")
    [inputs] = collected
    assert [j.source for j in inputs.jobs] == ["a.txt"]
    assert [(s.source, s.reason) for s in inputs.skipped] == [
        ("b.txt", "not a regular file (a named pipe)")
    ]


@pytest.mark.skipif(
    not hasattr(os, "symlink") or sys.platform == "win32",
    reason="symbolic links need privileges on Windows",
)
def test_a_link_to_a_missing_file_says_so(tmp_path):
    (tmp_path / "c.txt").symlink_to(tmp_path / "gone.txt")
    [job] = event.collect([str(tmp_path)]).jobs
    assert job.error == f"cannot read: a link to {tmp_path / 'gone.txt'}, which does not exist"


@needs_fifo
def test_a_pipe_or_a_device_named_as_input_is_read_like_standard_input(tmp_path, core_db, capsys):
    """A path the user names is read even when it is a pipe (`deckcheck validate <(curl ...)`)
    or a device, up to the size limit: /dev/zero is "too large", never read for ever. (In a
    folder they are skipped: test_a_fifo_in_a_deck_folder_is_skipped_not_waited_on.)"""
    import threading

    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)

    def writer() -> None:
        with open(fifo, "w", encoding="utf-8") as f:
            f.write("4 Lightning Bolt\n56 Mountain\n")

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    code, out, err = run(capsys, "validate", fifo, "--format", "modern", "--db", core_db)
    thread.join(10)
    assert code == 0 and "LEGAL" in out, err
    # An event file larger than one decklist may be, through a pipe: read once, whole (a
    # second open of the pipe would see nothing).
    from validator.decklist import MAX_BYTES

    players = [f"Player {i:05d}" for i in range(MAX_BYTES // 120)]
    big = event_json(*players)
    assert len(big.encode()) > MAX_BYTES
    thread = threading.Thread(target=lambda: fifo.write_text(big, encoding="utf-8"), daemon=True)
    thread.start()
    code, out, err = run(capsys, "validate", fifo, "--db", core_db)
    thread.join(30)
    assert code == 0 and f"{len(players)} of {len(players)} decks legal" in out, err[-300:]
    if os.path.exists("/dev/zero"):
        code, _, err = run(capsys, "validate", "/dev/zero", "--format", "modern", "--db", core_db)
        assert code == 2 and "/dev/zero" in err and "limit" in err, err


# ---------------------------------------------------------------------------- 6. reports, inputs


@pytest.mark.parametrize("target", ["m.csv", "deck.csv", "decks/inner.txt.csv"])
def test_a_report_over_one_of_the_inputs_is_refused_before_judging(
    tmp_path, core_db, capsys, target
):
    (tmp_path / "decks").mkdir()
    (tmp_path / "deck.csv").write_text(
        "count,name\n4,Lightning Bolt\n56,Mountain\n", encoding="utf-8"
    )
    (tmp_path / "decks" / "inner.txt.csv").write_text("count,name\n60,Mountain\n", encoding="utf-8")
    (tmp_path / "m.csv").write_text("file\ndeck.csv\n", encoding="utf-8")
    inputs = {
        "m.csv": [tmp_path / "m.csv"],
        "deck.csv": [tmp_path / "deck.csv"],
        "decks/inner.txt.csv": [tmp_path / "decks"],
    }[target]
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.csv")}
    # The report named by another spelling of the same path.
    report = tmp_path / "decks" / ".." / target
    code, out, err = run(
        capsys, "validate", *inputs, "--format", "modern", "--db", core_db, "--report", report
    )
    assert code == 2 and out == ""
    assert "is one of the inputs" in err and "choose a file elsewhere" in err
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.csv")} == before


def test_a_new_report_that_the_walk_of_an_input_directory_would_read_is_refused(
    tmp_path, core_db, capsys
):
    regs = tmp_path / "regs"
    regs.mkdir()
    (regs / "a.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    code, out, err = run(
        capsys,
        "validate",
        regs,
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        regs / "report.csv",
    )
    assert code == 2 and out == "" and "in the input directory" in err
    assert sorted(p.name for p in regs.iterdir()) == ["a.txt"]
    # What the walk skips is no input: an HTML page, a JSON report, a hidden file; and the
    # next run over the folder judges the same deck, the reports skipped.
    reports = [regs / "report.html", regs / "report.json", regs / ".report.csv"]
    code, _, _ = run(
        capsys,
        "validate",
        regs,
        "--format",
        "modern",
        "--db",
        core_db,
        *[x for r in reports for x in ("--report", r)],
    )
    assert code == 0 and all(r.exists() for r in reports)
    code, out, _ = run(capsys, "validate", regs, "--format", "modern", "--db", core_db)
    assert code == 0 and "1 of 1 decks legal" in out and "3 file(s) skipped" in out


# ---------------------------------------------------------------------------- 7. CSV injection


def test_csv_report_neutralises_formulas_and_other_reports_keep_the_text(tmp_path, core_db, capsys):
    path = tmp_path / "ev.json"
    path.write_text(
        event_json(
            '=HYPERLINK("http://x","y")', "+1", "-2", "@SUM(A1)", "Ann", card="=cmd|' /C calc'!A0"
        ),
        encoding="utf-8",
    )
    out_csv, out_json = tmp_path / "r.csv", tmp_path / "r.json"
    code, _, _ = run(
        capsys, "validate", path, "--db", core_db, "--report", out_csv, "--report", out_json
    )
    assert code == 3  # unknown card names only: unconfirmed
    rows = read_csv(out_csv)
    players = [r["player"] for r in rows if r["code"] == "unknown-card"]
    assert players == ['\'=HYPERLINK("http://x","y")', "'+1", "'-2", "'@SUM(A1)", "Ann"]
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), row
    assert any(r["message"].startswith("'") is False and "=cmd|" in r["message"] for r in rows)
    assert any(r["cards"] == "'=cmd|' /C calc'!A0" for r in rows)
    # The JSON report is data, not a spreadsheet: the names as given.
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["reports"][0]["player"] == '=HYPERLINK("http://x","y")'


# ---------------------------------------------------------------------------- 8. telling ids


def test_same_file_names_in_two_directories_get_telling_ids(tmp_path, core_db, capsys):
    for side in ("east", "west"):
        (tmp_path / "regs" / side).mkdir(parents=True)
        (tmp_path / "regs" / side / "c.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    out_csv = tmp_path / "r.csv"
    code, _, _ = run(
        capsys,
        "validate",
        tmp_path / "regs" / "east",
        tmp_path / "regs" / "west",
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        out_csv,
    )
    assert code == 0
    assert [(r["id"], r["source"]) for r in read_csv(out_csv)] == [
        ("east/c.txt", "east/c.txt"),
        ("west/c.txt", "west/c.txt"),
    ]
    # One directory: ids stay relative to it (README "Events").
    assert [j.source for j in event.collect([str(tmp_path / "regs")]).jobs] == [
        "east/c.txt",
        "west/c.txt",
    ]
    assert [j.source for j in event.collect([str(tmp_path / "regs" / "east")]).jobs] == ["c.txt"]


def test_directories_named_in_a_manifest_keep_their_names_in_ids(tmp_path):
    for side in ("east", "west"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "c.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    manifest = tmp_path / "players.csv"
    manifest.write_text("file,format\neast,modern\nwest/,modern\n", encoding="utf-8")
    assert [j.source for j in event.collect([str(manifest)]).jobs] == ["east/c.txt", "west/c.txt"]


# ---------------------------------------------------------------------------- 9. SIGTERM


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find workers")
def test_sigterm_stops_the_worker_processes_and_exits_143(tmp_path, core_db):
    import signal
    import subprocess
    import time

    path = tmp_path / "big.json"
    path.write_text(event_json(*(f"p{i}" for i in range(30000))), encoding="utf-8")
    report = tmp_path / "r.csv"
    report.write_text("the previous report\n", encoding="utf-8")
    err_path = tmp_path / "err.txt"
    # stderr to a file: a worker that outlived the run would hold a pipe open.
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "validator",
                "validate",
                str(path),
                "--db",
                core_db,
                "--jobs",
                "2",
                "--report",
                str(report),
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, "DECKCHECK_START_METHOD": "fork"},
        )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
            workers = _children(proc.pid)
        if proc.poll() is not None or len(workers) < 2:
            pytest.skip("the run ended (or started no workers) before it could be signalled")
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        deadline = time.monotonic() + 10
        while any(os.path.exists(f"/proc/{w}") for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        alive = [w for w in workers if os.path.exists(f"/proc/{w}")]
    finally:
        for pid in workers:  # nothing this test started outlives it
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    ours = os.fsencode(path) in f.read()
                if ours:  # not a process that reused the number
                    os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
    assert alive == []
    assert code == 128 + 15
    assert "terminated (SIGTERM)" in err_path.read_text(encoding="utf-8")
    assert report.read_text(encoding="utf-8") == "the previous report\n"


def test_sigterm_in_a_fork_callback_stops_the_run_without_a_traceback(tmp_path, core_db):
    """SIGTERM handled while a fork callback runs (logging's, as a worker starts): its
    exception cannot be raised there. Before, Python printed it as "Exception ignored" with a
    traceback (and, earlier still, the run went on to exit 0). Made certain here: a fork
    callback signals its own process as the first worker starts."""
    import subprocess
    import textwrap

    if sys.platform == "win32" or not hasattr(os, "register_at_fork"):
        pytest.skip("fork callbacks are POSIX only")
    path = tmp_path / "event.json"
    # Enough decks for two processes (event_pool.MIN_DECKS_PER_PROCESS each).
    path.write_text(
        event_json(*(f"p{i}" for i in range(4 * event_pool.MIN_DECKS_PER_PROCESS))),
        encoding="utf-8",
    )
    report = tmp_path / "r.csv"
    script = textwrap.dedent(f"""
        import os, signal, sys
        from validator.cli import main
        sent = []
        def before():
            if not sent:
                sent.append(1)
                os.kill(os.getpid(), signal.SIGTERM)
        os.register_at_fork(before=before)
        sys.exit(main(["validate", {str(path)!r}, "--db", {core_db!r}, "--jobs", "2",
                       "--report", {str(report)!r}]))
        """)
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DECKCHECK_START_METHOD": "fork"},
    )
    assert proc.returncode == 128 + 15, proc.stderr
    assert "terminated (SIGTERM)" in proc.stderr
    assert "Exception ignored" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not report.exists()


def test_text_output_never_passes_a_control_character_to_the_terminal(tmp_path, core_db, capsys):
    """A card, commander or deck name can carry ESC sequences (a hostile upload an organizer
    checks at a terminal): every line of text output shows them escaped, one deck, many decks,
    whatever message quotes the name."""
    deck = tmp_path / "esc.json"
    deck.write_text(
        '{"name": "Deck\\u001b[31mX", "main": [[4, "Lightning Bolt"], [56, "Mountain"]],'
        ' "commanders": ["Evil\\u001b[31mRED\\u0085"]}',
        encoding="utf-8",
    )
    other = tmp_path / "b.txt"
    other.write_text("4 Lightning Bolt\n1 Bad\x1b]0;title\x07Name\n55 Mountain\n", encoding="utf-8")
    for inputs in ([deck], [deck, other]):
        code, out, _ = run(
            capsys, "validate", *inputs, "--format", "modern", "--db", core_db, "--verbose"
        )
        assert code in (1, 3)  # the bad names are unknown cards: unconfirmed, or worse
        assert not any(c in out for c in "\x1b\x07\x85"), out
        assert "\\x1b[31m" in out


@needs_fifo
def test_a_named_pipe_whose_writer_came_and_went_before_the_read_keeps_its_data(tmp_path):
    """The sequence that hung a run now and then: the pipe is opened (without blocking) to
    look at it, its writer opens, writes and leaves, then the reading starts. The data is in
    the pipe the first descriptor holds; it is read from there, not waited for again."""
    from validator.event.inputs import _read_stream

    fifo = tmp_path / "p.txt"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.write(writer, b"4 Lightning Bolt\n56 Mountain\n")
        os.close(writer)
        assert _read_stream(reader, 1000) == b"4 Lightning Bolt\n56 Mountain\n"
        assert _read_stream(reader, 1000) == b""  # its writer left: the end, not a wait
    finally:
        os.close(reader)


@needs_fifo
def test_a_named_pipe_read_before_its_writer_comes_waits_for_it(tmp_path):
    """Opened without blocking before any writer, the pipe is not "empty": the read waits for
    the writer, as cat does, and stops at the limit + 1 byte."""
    import threading
    import time

    from validator.event.inputs import _read_stream

    fifo = tmp_path / "p.txt"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)

    def late_writer() -> None:
        time.sleep(0.2)
        try:
            with open(fifo, "wb") as f:
                f.write(b"x" * 5000)
        except BrokenPipeError:  # the reader stopped at its limit and left
            pass

    thread = threading.Thread(target=late_writer, daemon=True)
    thread.start()
    try:
        assert _read_stream(reader, 100) == b"x" * 101
    finally:
        os.close(reader)
        thread.join(10)
