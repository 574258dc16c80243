"""Per-format deck rules, read from `data/formats.toml` (and an organizer's own file)."""

from __future__ import annotations

from .errors import DeckcheckError

import functools
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from .resources import resource_path

KINDS = ("constructed", "commander", "oathbreaker")


class FormatError(DeckcheckError, ValueError):
    """A format file is malformed, or a format name is unknown."""

    code = "bad-format"


@dataclass(frozen=True)
class FormatRules:
    key: str
    name: str
    legality: str
    kind: str = "constructed"
    min_deck: int = 60
    max_deck: int | None = None
    sideboard_max: int = 15
    copy_limit: int = 4
    restricted_limit: int = 1
    companions: bool = True
    commander_types: tuple[str, ...] = ()
    colorless_basics: bool = False
    restricted_means: str | None = None
    banned_as_commander: frozenset[str] = frozenset()
    banned_as_companion: frozenset[str] = frozenset()
    commander_rarity: str | None = None
    legendary_commander: bool = True
    brackets: bool = False
    citations: Mapping[str, str] = field(default_factory=dict)
    url: str | None = None

    @property
    def is_commander(self) -> bool:
        """Commander-family deck rules (CR 903): commanders, color identity, exact size."""
        return self.kind in ("commander", "oathbreaker")

    def cite(self, check: str, fallback: str | None = None) -> str:
        return self.citations.get(check) or fallback or f"format:{self.key}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (frozenset, tuple)):
                value = sorted(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            out[f.name] = value
        return out


_FIELD_NAMES = {f.name for f in fields(FormatRules)} - {"key"}


def _build(key: str, table: Mapping[str, Any], defaults: Mapping[str, Any], source: str) -> FormatRules:
    unknown = set(table) - _FIELD_NAMES
    if unknown:
        raise FormatError(f"{source}: format [{key}] has unknown keys: {', '.join(sorted(unknown))}")
    merged: dict[str, Any] = {**defaults, **table}
    merged["citations"] = {**defaults.get("citations", {}), **table.get("citations", {})}
    for required in ("name", "legality"):
        if required not in merged:
            raise FormatError(f"{source}: format [{key}] needs a `{required}`")
    if merged.get("kind", "constructed") not in KINDS:
        raise FormatError(f"{source}: format [{key}] kind must be one of {', '.join(KINDS)}")
    for name in ("banned_as_commander", "banned_as_companion"):
        merged[name] = frozenset(merged.get(name, ()))
    merged["commander_types"] = tuple(merged.get("commander_types", ()))
    try:
        return FormatRules(key=key, **merged)
    except TypeError as exc:
        raise FormatError(f"{source}: format [{key}]: {exc}") from exc


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise FormatError(f"cannot read formats file {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"{path}: not valid TOML ({exc})") from exc


@functools.lru_cache(maxsize=1)
def _builtin() -> tuple[dict[str, FormatRules], dict[str, Any]]:
    """The built-in formats, read once per process (validating many decks reuses them)."""
    path = resource_path("data", "formats.toml")
    data = _read(path)
    defaults = data.pop("defaults", {})
    return {k: _build(k, v, defaults, str(path)) for k, v in data.items()}, defaults


def load_formats(extra_file: str | Path | None = None) -> dict[str, FormatRules]:
    """The built-in formats, plus (replacing same-named ones) those of `extra_file`."""
    builtin, defaults = _builtin()
    formats = dict(builtin)
    if extra_file:
        extra = _read(Path(extra_file))
        extra_defaults = {**defaults, **extra.pop("defaults", {})}
        for key, table in extra.items():
            if not isinstance(table, dict):
                raise FormatError(f"{extra_file}: `{key}` must be a table ([{key}])")
            formats[key] = _build(key, table, extra_defaults, str(extra_file))
    return formats


def get_format(name: str, formats: Mapping[str, FormatRules] | None = None) -> FormatRules:
    formats = formats if formats is not None else load_formats()
    key = name.strip().lower().replace(" ", "").replace("-", "")
    aliases = {"edh": "commander", "duelcommander": "duel", "pdh": "paupercommander",
               "historicbrawl": "brawl", "oldschool9394": "oldschool"}
    key = aliases.get(key, key)
    if key not in formats:
        raise FormatError(f"unknown format {name!r}; known formats: {', '.join(sorted(formats))}")
    return formats[key]
