"""The package's public face: `import validator` names every public name, lazily."""

from __future__ import annotations

import pydoc
import subprocess
import sys

import validator


def test_dir_lists_every_public_name() -> None:
    names = dir(validator)
    assert set(validator.__all__) <= set(names)
    assert "validate" in names and "CardSource" in names and "DeckcheckError" in names
    assert "Any" not in names and "annotations" not in names  # no implementation details


def test_every_public_name_resolves() -> None:
    for name in validator.__all__:
        assert getattr(validator, name) is not None, name
    assert isinstance(validator.__version__, str)


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    try:
        validator.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("validator.no_such_name resolved")


def test_help_shows_the_public_names() -> None:
    text = pydoc.render_doc(validator)
    for name in ("validate", "open_db", "parse_decklist", "check_formats", "CardSource"):
        assert name in text, name


def test_importing_the_package_loads_no_submodule() -> None:
    """The names are imported on first use, so that `deckcheck` starts fast."""
    code = (
        "import sys, validator; print(sorted(m for m in sys.modules if m.startswith('validator.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
