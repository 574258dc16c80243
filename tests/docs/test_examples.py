"""Every shell and Python example in README.md and docs/*.md runs against the test cards.

A fenced `sh`, `bash`, `console` or `python` block is run, unless the line before its fence is
`<!-- no-run: REASON -->` (it needs the network, a server or the full card data). Shell
examples run with bash in a temp dir holding the deck files they name; every `deckcheck` they
call must end with a verdict (0 or 1), never 2 (could not judge). Python examples run with
`python -c` there. The database is synced from tests/fixtures/cards_core.json (`core_db`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)")
NO_RUN = re.compile(r"^<!-- no-run: .+ -->$")
SHELL, PYTHON = {"sh", "bash", "console"}, {"python"}

LEGAL_MODERN = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n\n4 Counterspell\n"
ILLEGAL_MODERN = "5 Lightning Bolt\n55 Mountain\n"


def examples() -> list:
    """(page, line, language, code) of every runnable example, and the marked ones apart."""
    found = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(lines):
            match = FENCE.match(lines[i])
            if not match:
                i += 1
                continue
            end = lines.index("```", i + 1)
            marked = i > 0 and bool(NO_RUN.match(lines[i - 1]))
            found.append(
                (
                    page.relative_to(ROOT).as_posix(),
                    i + 1,
                    match.group(1),
                    "\n".join(lines[i + 1 : end]) + "\n",
                    marked,
                )
            )
            i = end + 1
    return found


RUNNABLE = [e[:4] for e in examples() if e[2] in SHELL | PYTHON and not e[4]]


def _event_file() -> str:
    deck = lambda main: [{"Count": n, "CardName": c} for n, c in main]  # noqa: E731
    return json.dumps(
        {
            "Tournament": {"Date": "2026-02-22", "Name": "Test Open", "Formats": "Modern"},
            "Decks": [
                {
                    "Player": "amy",
                    "Mainboard": deck([(4, "Lightning Bolt"), (56, "Mountain")]),
                    "Sideboard": [],
                }
            ],
        }
    )


@pytest.fixture
def workdir(tmp_path: Path, core_db: str) -> tuple[Path, dict]:
    """The files the examples name, a `deckcheck` on PATH that runs this checkout and notes
    every exit code that is no verdict (2: could not judge; 0, 1 and 3 are legal, illegal and
    unconfirmed), and the environment."""
    (tmp_path / "mydeck.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    (tmp_path / "late.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    for folder, decks in (
        ("registrations", {"amy.txt": LEGAL_MODERN, "bo.txt": ILLEGAL_MODERN}),
        ("decks", {"a.txt": LEGAL_MODERN}),
    ):
        (tmp_path / folder).mkdir()
        for name, text in decks.items():
            (tmp_path / folder / name).write_text(text, encoding="utf-8")
    (tmp_path / "players.csv").write_text(
        "file,player,format\nmydeck.txt,amy,modern\n", encoding="utf-8"
    )
    (tmp_path / "tournaments").mkdir()
    (tmp_path / "tournaments" / "open.json").write_text(_event_file(), encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "deckcheck"
    shim.write_text(
        f'#!/usr/bin/env bash\n"{sys.executable}" -m validator "$@"\nrc=$?\n'
        f'[ $rc -le 1 ] || [ $rc -eq 3 ] || echo "deckcheck $* -> exit $rc" >> "{tmp_path}/failures"\n'
        "exit $rc\n",
        encoding="utf-8",
    )
    shim.chmod(0o755)
    env = dict(
        os.environ,
        DECKCHECK_DB=core_db,
        PYTHONPATH=str(ROOT),
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        NO_COLOR="1",
    )
    env.pop("DECKCHECK_DEBUG", None)
    return tmp_path, env


def test_the_pages_have_runnable_examples_and_mark_the_others() -> None:
    every = examples()
    assert len(RUNNABLE) >= 8
    assert {page for page, *_ in RUNNABLE} >= {"README.md", "docs/index.md", "docs/python-api.md"}
    # the install and serve commands cannot run here: they must be marked, not silently run
    for page, line, lang, code, marked in every:
        if lang in SHELL and re.search(r"^\s*(pip install|deckcheck serve|curl )", code, re.M):
            assert marked, f"{page}:{line} installs, serves or calls a server: mark it no-run"


@pytest.mark.parametrize("page,line,lang,code", RUNNABLE, ids=[f"{p}:{n}" for p, n, *_ in RUNNABLE])
def test_example_runs(page: str, line: int, lang: str, code: str, workdir) -> None:
    cwd, env = workdir
    if lang in PYTHON:
        run = subprocess.run(
            [sys.executable, "-c", code],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, f"{page}:{line}\n{run.stderr}"
        return
    if lang == "console":  # `$ command` lines are the commands, the rest is output
        code = "\n".join(ln[2:] for ln in code.splitlines() if ln.startswith("$ ")) + "\n"
    run = subprocess.run(
        ["bash", "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    failures = cwd / "failures"
    assert not failures.exists(), f"{page}:{line}\n{failures.read_text()}\n{run.stderr}"
    assert run.returncode in (0, 1, 3), f"{page}:{line} exit {run.returncode}\n{run.stderr}"
