"""Where the grammar and data files are: inside the installed package, or at the top of a
source checkout (they live in `grammar/` and `data/` there and are copied into the wheel)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """`grammar` or `data`: the installed copy first, then the checkout's."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"deckcheck's {name}/ directory is missing from the installation")


def resource_path(name: str, filename: str) -> Path:
    return resource_dir(name) / filename
