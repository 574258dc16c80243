"""Paper cuts a new user meets in the `deckcheck` command line: what it prints when a command,
an option or an extra is missing or mistyped, its --help examples and shell completion, and
the files a package is expected to carry (LICENSE, project URLs)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

from validator.cli import main
from validator.cli.commands import COMMANDS
from validator.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits (--help, usage errors)
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("deckcheck: ")


def subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


# ----------------------------------------------------------------- serve without its extra


@pytest.mark.parametrize("module", ["uvicorn", "fastapi"])
def test_serve_without_the_serve_extra_says_how_to_install_it(module, tmp_path):
    # A subprocess: the module is hidden from a fresh interpreter (None in sys.modules makes
    # its import fail), where nothing imported it yet.
    code = (
        "import sys; sys.modules[sys.argv[1]] = None\n"
        "from validator.cli import main\n"
        "sys.exit(main(['serve', '--db', sys.argv[2], '--port', '0']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, module, str(tmp_path / "none.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 2 and result.stdout == ""
    assert one_line(result.stderr), result.stderr
    assert "pip install '.[serve]'" in result.stderr and module in result.stderr
    assert "internal error" not in result.stderr and "bug" not in result.stderr


# ------------------------------------------------------------------------ bare `deckcheck`


def test_bare_deckcheck_lists_its_commands_and_exits_2(capsys):
    code, out, err = run(capsys)
    assert code == 2  # nothing was done
    for name in COMMANDS:
        assert re.search(rf"^\s+{re.escape(name)}\b", out, re.M), (name, out)
    assert one_line(err) and "COMMAND --help" in err and "required" not in err


# --------------------------------------------------------------------- mistyped options


@pytest.mark.parametrize(
    "argv, unknown, hint, help_of",
    [
        (
            ["validate", "x", "--fromat", "modern"],
            "--fromat modern",
            "--format",
            "deckcheck validate",
        ),
        (["validate", "x", "--fromat=modern"], "--fromat=modern", "--format", "deckcheck validate"),
        (["card", "Lightning", "Bolt", "--jsn"], "--jsn", "--json", "deckcheck card"),
        (["serve", "--prot", "80"], "--prot 80", "--port", "deckcheck serve"),
        (["--verison"], "--verison", "--version", "deckcheck"),
    ],
)
def test_a_mistyped_option_suggests_the_closest_and_the_commands_help(
    capsys, argv, unknown, hint, help_of
):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and one_line(err), err
    assert err == (
        f"deckcheck: unrecognized arguments: {unknown} (did you mean {hint}?); "
        f"see {help_of} --help\n"
    )


def test_an_unknown_option_with_nothing_close_still_names_the_commands_help(capsys):
    code, out, err = run(capsys, "validate", "x", "--zzzzzz")
    assert code == 2 and one_line(err)
    assert "did you mean" not in err and "see deckcheck validate --help" in err


# ------------------------------------------------------------------ card NAME, unquoted


def test_card_takes_an_unquoted_name_of_several_words(core_db, capsys):
    code, out, err = run(capsys, "card", "Lightning", "Bolt", "--db", core_db)
    assert (code, err) == (0, "") and out.startswith("name: Lightning Bolt\n")
    code, _, err = run(capsys, "card", "Lightnig", "Bolt", "--db", core_db)
    assert code == 2 and "no card named 'Lightnig Bolt'" in err
    help_text = " ".join(subparsers()["card"].format_help().split())
    assert "joined with one space, so quotes are not needed" in help_text


# ----------------------------------------------------------------- human text, same JSON


def test_card_text_is_for_people_and_its_json_unchanged(core_db, capsys):
    code, out, _ = run(capsys, "card", "Lightning Bolt", "--db", core_db)
    assert code == 0
    lines = out.splitlines()
    assert "deck card: yes" in lines and "mana value: 1" in lines and "mana cost: {R}" in lines
    assert "True" not in out and "1.0" not in out and "deck_card" not in out
    code, out, _ = run(capsys, "card", "Lightning Bolt", "--db", core_db, "--json")
    facts = json.loads(out)
    assert facts["deck_card"] is True and facts["mana_value"] == 1.0
    assert isinstance(facts["mana_value"], float)


def test_info_says_unknown_for_a_sync_without_scryfalls_time(core_db, capsys):
    # The fixture import is a `sync --from` file that carries no updated_at.
    code, out, _ = run(capsys, "info", "--db", core_db)
    assert code == 0 and "None" not in out
    assert re.search(r"^  updated_at: unknown  sha256: [0-9a-f]{64}$", out, re.M), out
    code, out, _ = run(capsys, "info", "--db", core_db, "--json")
    assert json.loads(out)["last_sync"]["updated_at"] is None  # the JSON keeps its null


# ---------------------------------------------------------------------------- --port 0


def test_serve_port_out_of_range_is_still_refused(core_db, capsys):
    pytest.importorskip("uvicorn", reason="the service needs the serve extra")
    code, out, err = run(capsys, "serve", "--db", core_db, "--port", "65536")
    assert code == 2 and one_line(err) and "--port 0-65535" in err


def test_serve_port_0_listens_on_a_port_the_os_picks_and_says_which(core_db, tmp_path):
    pytest.importorskip("uvicorn", reason="the service needs the serve extra")
    log = open(tmp_path / "serve.log", "w+b")
    proc = subprocess.Popen(
        [sys.executable, "-m", "validator", "serve", "--db", core_db, "--port", "0", "--poll", "0"],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline, port, text = time.monotonic() + 30, None, ""
        while port is None and time.monotonic() < deadline and proc.poll() is None:
            text = (tmp_path / "serve.log").read_text(errors="replace")
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", text)
            port = int(found.group(1)) if found else None
            time.sleep(0.05)
        assert port, f"no port said (exit {proc.poll()}):\n{text}"
        assert port != 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            assert answer.status == 200 and json.loads(answer.read())["status"] == "ok"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


# --------------------------------------------------------------- LICENSE and project URLs


def test_the_mit_license_pyproject_declares_is_shipped():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 deckcheck contributors\n")
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    urls = project["urls"]
    assert {"Homepage", "Documentation", "Changelog", "Issues"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())
    assert any(dep.startswith("shtab>=") for dep in project["dependencies"])


# ------------------------------------------------------------------------ completion


def test_bash_completion_completes_deckcheck_and_its_commands(capsys):
    code, out, err = run(capsys, "completion", "bash")
    assert (code, err) == (0, "")
    assert re.search(r"^complete .*-F _shtab_deckcheck deckcheck$", out, re.M), out[-500:]
    subcommands = re.search(r"^_shtab_deckcheck_subparsers=\((.*)\)$", out, re.M)
    assert subcommands and set(subcommands.group(1).split()) == set(COMMANDS)
    # each command's options, e.g. validate's
    assert re.search(r"^_shtab_deckcheck_validate_option_strings=\(.*--format .*\)$", out, re.M)
    if shutil.which("bash"):
        check = subprocess.run(
            ["bash", "-n"], input=out, capture_output=True, text=True, timeout=30
        )
        assert check.returncode == 0, check.stderr


def test_zsh_completion_is_a_compdef_for_deckcheck(capsys):
    code, out, _ = run(capsys, "completion", "zsh")
    assert code == 0 and out.startswith("#compdef deckcheck")
    for name in COMMANDS:
        assert name in out


def test_completion_of_an_unknown_shell_is_a_usage_error(capsys):
    code, out, err = run(capsys, "completion", "fish")
    assert code == 2 and out == "" and one_line(err) and "'bash', 'zsh'" in err


# -------------------------------------------------------------------- --help examples

EXAMPLE = re.compile(r'(?:eval "\$\()?(deckcheck [^>|)]*)')


def examples(help_text: str) -> list[str]:
    block = help_text.split("examples:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in block.splitlines()]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_commands_help_ends_with_examples_that_parse(name):
    lines = examples(subparsers()[name].format_help())
    assert 1 <= len(lines) <= 3
    for line in lines:
        argv = shlex.split(EXAMPLE.match(line).group(1))
        assert argv[:2] == ["deckcheck", name], line
        assert build_parser().parse_args(argv[1:]).command == name


def test_top_level_help_has_examples_too():
    for line in examples(build_parser().format_help()):
        argv = shlex.split(line)
        assert argv[1] in COMMANDS and build_parser().parse_args(argv[1:]).command == argv[1]
