"""Per-format deck rules, read from `data/formats.toml` (and an organizer's own file)."""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field, fields, replace
from datetime import date
from pathlib import Path
from typing import Any, cast

from validator.cards.names import lookup_key
from validator.errors import DeckcheckError
from validator.resources import resource_path
from validator.rules.points import PointsError, PointsList, load_points

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
    #: A points format's dated lists and cap (Canadian / Australian Highlander).
    points: PointsList | None = None
    #: Names banned, restricted (to `restricted_limit` copies) or allowed on top of the
    #: legality key, as written; `name_status` maps each folded name to its status.
    banned: frozenset[str] = frozenset()
    restricted: frozenset[str] = frozenset()
    allowed: frozenset[str] = frozenset()
    name_status: Mapping[str, str] = field(default_factory=dict, repr=False)
    #: Dated banned / restricted / allowed lists (Premodern's ban list by announcement): the
    #: version in force on the deck's date applies on top of the lists above (`on`).
    lists: PointsList | None = None
    #: The dated list's `banned` is the format's whole ban list: a card the legality key
    #: (today's) bans is legal on a date whose list does not ban it.
    lists_complete: bool = False
    #: The legal sets (Scryfall set codes): a card is legal only when printed in one of them
    #: (`validator/rules/sets.py`, which needs printings); from the dated list's version when
    #: it names sets. Empty: the legality key decides the card pool.
    sets: frozenset[str] = frozenset()
    #: The date of the dated list's version this format is as of (`on`), and what its dates
    #: are (the list's `note`), for the messages.
    list_version: date | None = None
    list_note: str | None = None
    #: Oracle name -> its `name_status` (None: not listed), filled as cards are judged.
    _by_name: dict[str, str | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def is_commander(self) -> bool:
        """Commander-family deck rules (CR 903): commanders, color identity, exact size."""
        return self.kind in ("commander", "oathbreaker")

    def cite(self, check: str, fallback: str | None = None) -> str:
        return self.citations.get(check) or fallback or f"format:{self.key}"

    def on(self, day: Any) -> FormatRules:
        """This format as of `day`: with the names of its dated list's version in force then
        (itself when it has no dated list, or the date is before the list's first version).
        Made once per version."""
        version = self.lists.in_force(day) if self.lists is not None else None
        if self.lists is None or version is None:
            return self
        cache = self.lists.formats_on
        hit = cache.get(version.day)
        if hit is None:
            where = f"format [{self.key}] list of {version.day}"
            own = {
                "banned": [*self.banned, *version.banned],
                "restricted": [*self.restricted, *version.restricted],
                "allowed": [*self.allowed, *version.allowed],
            }
            # the version decides over the format's fixed names where they disagree
            status = {**_name_status(own, where, strict=False)}
            sets = frozenset(version.sets) if version.sets else self.sets
            hit = cache[version.day] = replace(
                self,
                lists=None,
                name_status=status,
                sets=sets,
                list_version=version.day,
                list_note=self.lists.note,
            )
        return hit

    def listed(self, card: Any) -> str | None:
        """The card's status by the format's own banned / restricted / allowed names ("legal"
        for an allowed one), None when they do not name it."""
        if not self.name_status:
            return None
        # by Oracle name, folded once per name (the card-pool check asks for every card)
        hit = self._by_name.get(card.name, _UNLISTED)
        if hit is _UNLISTED:
            hit = self.name_status.get(lookup_key(card.name))
            if hit is None and " // " in card.name:
                hit = self.name_status.get(lookup_key(card.name.split(" // ")[0]))
            if len(self._by_name) < 100_000:  # bounded: one entry per card name
                self._by_name[card.name] = hit
        return cast("str | None", hit)

    @property
    def as_of_list(self) -> str:
        """ " (list of 2023-10-26; what its dates are)" when the format is as of a dated list's
        version, for the problems its lists decide; "" otherwise."""
        if not self.list_version:
            return ""
        note = f"; {self.list_note}" if self.list_note else ""
        return f" (list of {self.list_version}{note})"

    def status(self, card: Any) -> str:
        """The card's legality in this format: the format's own banned / restricted / allowed
        names first (a house list on top of the format it builds on), then the card data's
        status for `legality`."""
        hit = self.listed(card)
        if hit is not None:
            return hit
        if self.sets:
            # the card pool is the legal sets, which only printings tell (rules/sets.py checks
            # it); the legality key does not speak of this format's pool
            return "legal"
        status = card.legalities.get(self.legality, "not_legal")
        if status == "banned" and self.lists_complete and self.lists is None:
            return "legal"  # `on`: the day's list is the whole ban list, and it does not ban it
        return status

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("name_status", "_by_name"):
                continue
            if isinstance(value, PointsList):
                summary = value.summary()
                if f.name == "lists":  # a ban list has no cap
                    summary = {k: v for k, v in summary.items() if k in _LIST_SUMMARY}
                value = summary
            elif isinstance(value, date):
                value = value.isoformat()
            elif isinstance(value, (frozenset, tuple)):
                value = sorted(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            out[f.name] = value
        return out


_UNLISTED = object()  # `FormatRules.status`: a name not looked up yet
_LIST_SUMMARY = ("version", "versions", "first_version", "last_version", "file", "sets")

#: The documented keys of a format table (data/formats.toml's header) and what each must be.
#: A house formats file is checked against this before any deck is judged by it.
_POINTS = "a points file name (relative to the formats file) or a table"
_STR, _INT, _BOOL, _NAMES = (
    "a string",
    "a whole number (0 or more)",
    "true or false",
    "a list of strings",
)
KEY_TYPES: dict[str, str] = {
    "name": _STR,
    "legality": _STR,
    "kind": _STR,
    "min_deck": _INT,
    "max_deck": _INT,
    "sideboard_max": _INT,
    "copy_limit": _INT,
    "restricted_limit": _INT,
    "companions": _BOOL,
    "commander_types": _NAMES,
    "colorless_basics": _BOOL,
    "restricted_means": _STR,
    "banned_as_commander": _NAMES,
    "banned_as_companion": _NAMES,
    "commander_rarity": _STR,
    "legendary_commander": _BOOL,
    "brackets": _BOOL,
    "citations": "a table of strings",
    "url": _STR,
    "points": _POINTS,
    "points_cap": _INT,
    "points_sideboard": _BOOL,
    "banned": _NAMES,
    "restricted": _NAMES,
    "allowed": _NAMES,
    "lists": _POINTS,
    "lists_complete": _BOOL,
    "sets": _NAMES,
}
#: Keys whose value is one of a few words.
KEY_CHOICES: dict[str, tuple[str, ...]] = {
    "kind": KINDS,
    "restricted_means": ("banned-as-commander",),
    "commander_rarity": ("common", "uncommon", "rare", "mythic"),
}
#: The checks that look up a citation (`FormatRules.cite`); a check that cites the format's
#: data adds its name here, so that a misspelt citation key is an error, not silently unused.
CITATION_KEYS = (
    "deck_size",
    "sideboard",
    "copies",
    "card_pool",
    "commander",
    "companion",
    "color_identity",
    "colorless_basics",
    "banned_as_commander",
    "points",
)


@functools.lru_cache(maxsize=1024)
def format_key(name: str) -> str:
    """The one spelling of a format name: case, spaces, hyphens, underscores and slashes do
    not matter (`standard-brawl`, `Standard_Brawl` and `standardbrawl` are one format).
    Cached (bounded): every validation names its format, and a regex costs more than the
    rest of finding it."""
    return re.sub(r"[\s_\-/]+", "", name.strip().lower())


def _type_ok(value: Any, expected: str) -> bool:
    if expected == _STR:
        return isinstance(value, str)
    if expected == _INT:  # TOML booleans are not numbers here, though Python's bool is an int
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if expected == _BOOL:
        return isinstance(value, bool)
    if expected == _NAMES:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if expected == _POINTS:
        return isinstance(value, (str, dict))
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _closest(word: str, choices: Iterable[str]) -> list[str]:
    """The one choice closest to a mistyped key, if any, for "did you mean". difflib is
    imported only on this error path, not by every run that loads the formats."""
    import difflib

    return difflib.get_close_matches(word, list(choices), n=1)


def _check_table(table: Mapping[str, Any], where: str) -> None:
    """Every key of one table is documented and has the documented type (`where` names the
    file and the table, so the error says exactly what to fix)."""
    for key, value in table.items():
        if key not in KEY_TYPES:
            close = _closest(key, KEY_TYPES)
            hint = f"did you mean {close[0]}?" if close else f"the keys are {', '.join(KEY_TYPES)}"
            raise FormatError(f"{where}: unknown key {key}; {hint}")
        expected = KEY_TYPES[key]
        if not _type_ok(value, expected):
            raise FormatError(f"{where}: {key} must be {expected}, not {value!r}")
        if key in KEY_CHOICES and value not in KEY_CHOICES[key]:
            raise FormatError(
                f"{where}: {key} must be one of {', '.join(KEY_CHOICES[key])}, not {value!r}"
            )
        if key == "citations":
            for check in value:
                if check not in CITATION_KEYS:
                    raise FormatError(
                        f"{where}: citations.{check} is not a check that cites; "
                        f"the checks are {', '.join(CITATION_KEYS)}"
                    )


def _build(
    key: str, table: Mapping[str, Any], defaults: Mapping[str, Any], source: str
) -> FormatRules:
    where = f"{source}: format [{key}]"
    _check_table(table, where)
    merged: dict[str, Any] = {**defaults, **table}
    merged["citations"] = {**defaults.get("citations", {}), **table.get("citations", {})}
    for required in ("name", "legality"):
        if required not in merged:
            raise FormatError(f"{where} needs a `{required}` ({KEY_TYPES[required]})")
    if merged.get("copy_limit", 1) < 1:
        raise FormatError(f"{where}: copy_limit must be 1 or more, not {merged['copy_limit']}")
    if merged.get("max_deck") is not None and merged["max_deck"] < merged.get("min_deck", 0):
        raise FormatError(
            f"{where}: max_deck ({merged['max_deck']}) is smaller than min_deck "
            f"({merged.get('min_deck')})"
        )
    for name in ("banned_as_commander", "banned_as_companion"):
        merged[name] = frozenset(merged.get(name, ()))
    merged["commander_types"] = tuple(merged.get("commander_types", ()))
    cap = merged.pop("points_cap", None)
    sideboard = merged.pop("points_sideboard", True)
    if "points" in merged:
        try:
            merged["points"] = load_points(
                merged["points"],
                base=Path(source).parent,
                cap=cap,
                sideboard=sideboard,
                where=where,
            )
        except PointsError as exc:
            raise FormatError(str(exc)) from exc
    elif cap is not None:
        raise FormatError(f"{where}: points_cap is given but no `points` list")
    if "lists" in merged:
        try:
            merged["lists"] = load_points(
                merged["lists"],
                base=Path(source).parent,
                cap=None,
                sideboard=True,
                where=where,
                lists=True,
            )
        except PointsError as exc:
            raise FormatError(str(exc)) from exc
    merged["name_status"] = _name_status(merged, where)
    for name in ("banned", "restricted", "allowed"):
        merged[name] = frozenset(merged.get(name, ()))
    merged["sets"] = frozenset(code.strip().lower() for code in merged.get("sets", ()))
    if "" in merged["sets"]:
        raise FormatError(f"{where}: sets has an empty set code")
    return FormatRules(key=key, **merged)


def _name_status(merged: Mapping[str, Any], where: str, strict: bool = True) -> dict[str, str]:
    """Folded card name -> "banned" / "restricted" / "legal" from a format's own lists; a name
    in two of them is an error (which one would apply is not clear), except when a dated
    list's version (`strict` False) moves a name: then the later list named wins."""
    status: dict[str, str] = {}
    written: dict[str, tuple[str, str]] = {}
    for key, value in (("banned", "banned"), ("restricted", "restricted"), ("allowed", "legal")):
        for name in merged.get(key, ()):
            folded = lookup_key(name)
            if not folded:
                raise FormatError(f"{where}: {key} has an empty card name")
            if strict and folded in status and written[folded][0] != key:
                raise FormatError(
                    f"{where}: {name!r} is in both {written[folded][0]} and {key}; keep one"
                )
            status[folded], written[folded] = value, (key, name)
    return status


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise FormatError(f"cannot read formats file {path}: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:  # TOML is UTF-8 text
        raise FormatError(
            f"{path}: not valid TOML ({exc}); a formats file is UTF-8 TOML with "
            "one [table] per format"
        ) from exc


def _tables(data: dict[str, Any], source: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The [defaults] table (checked) and the format tables by format_key, from one file."""
    defaults = data.pop("defaults", {})
    if not isinstance(defaults, dict):
        raise FormatError(f"{source}: `defaults` must be a table ([defaults])")
    _check_table(defaults, f"{source}: [defaults]")
    tables: dict[str, dict[str, Any]] = {}
    written: dict[str, str] = {}
    for name, table in data.items():
        if not isinstance(table, dict):
            raise FormatError(f"{source}: `{name}` must be a table ([{name}]) of format keys")
        key = format_key(name)
        if not key:
            raise FormatError(f"{source}: [{name}] is not a format name")
        if key in tables:
            raise FormatError(
                f"{source}: [{written[key]}] and [{name}] name the same format "
                "(case, hyphens and underscores do not matter); keep one"
            )
        tables[key], written[key] = table, name
    return defaults, tables


class Formats(MutableMapping[str, FormatRules]):
    """Formats by key, each built the first time it is asked for: its points and dated ban
    lists (data/lists/, data/points/) are files read then, so a run that judges Modern reads
    no Old School list (a cold `deckcheck validate` read them all: ~30 ms of CPU). Iterating
    every format (check-formats, `deckcheck formats`) builds them all. A caller's copy
    (`load_formats`) may be changed; the built-in formats are built once per process."""

    __slots__ = ("_builders", "_built")

    def __init__(
        self,
        builders: Mapping[str, Callable[[], FormatRules]],
        built: Mapping[str, FormatRules] | None = None,
    ) -> None:
        self._builders = dict(builders)
        self._built: dict[str, FormatRules] = dict(built or {})
        for key, rules in self._built.items():  # a built one replaces its builder, in place
            self._builders.setdefault(key, functools.partial(_given, rules))

    def __getitem__(self, key: str) -> FormatRules:
        rules = self._built.get(key)
        if rules is None:  # two threads may both build it: the same rules either way
            rules = self._built[key] = self._builders[key]()
        return rules

    def __setitem__(self, key: str, rules: FormatRules) -> None:
        self._built[key] = rules
        self._builders[key] = functools.partial(_given, rules)

    def __delitem__(self, key: str) -> None:
        del self._builders[key]
        self._built.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._builders

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)

    def __repr__(self) -> str:
        return f"Formats({sorted(self._builders)})"


def _given(rules: FormatRules) -> FormatRules:
    return rules


@functools.lru_cache(maxsize=1)
def _builtin() -> tuple[Formats, dict[str, Any]]:
    """The built-in formats, read once per process (validating many decks reuses them); each
    built on first use (`Formats`)."""
    path = resource_path("data", "formats.toml")
    defaults, tables = _tables(_read(path), str(path))
    builders = {k: functools.partial(_build, k, v, defaults, str(path)) for k, v in tables.items()}
    return Formats(builders), defaults


def load_formats(extra_file: str | Path | None = None) -> Formats:
    """The built-in formats, plus (replacing same-named ones) those of `extra_file`: a
    read-only mapping of format key to FormatRules.

    Raises FormatError naming the file, the table and the key when `extra_file` cannot be
    read or does not follow data/formats.toml's documented keys and types (its formats are
    built, and their lists read, at once)."""
    builtin, defaults = _builtin()
    # The built-in formats through the process-wide mapping, so each is built once.
    shared = {k: functools.partial(builtin.__getitem__, k) for k in builtin}
    if not extra_file:
        return Formats(shared)
    formats: dict[str, FormatRules] = {}
    path = Path(extra_file)
    if path.is_dir():
        raise FormatError(
            f"--formats-file {path} is a directory; give a TOML file with "
            "one [table] per format (keys as in data/formats.toml)"
        )
    extra_defaults, tables = _tables(_read(path), str(path))
    merged_defaults = {
        **defaults,
        **extra_defaults,
        "citations": {**defaults.get("citations", {}), **extra_defaults.get("citations", {})},
    }
    for key, table in tables.items():
        formats[key] = _build(key, table, merged_defaults, str(path))
    return Formats(shared, formats)


#: Other names players use for a format, by format_key.
ALIASES = {
    "edh": "commander",
    "duelcommander": "duel",
    "pdh": "paupercommander",
    "historicbrawl": "brawl",
    "oldschool9394": "oldschool",
}


def get_format(name: str, formats: Mapping[str, FormatRules] | None = None) -> FormatRules:
    """The format called `name` (any case; hyphens, underscores and spaces ignored; common
    aliases such as EDH). Raises FormatError listing the known formats."""
    # The built-in formats read, not copied as load_formats() copies them for its callers.
    formats = formats if formats is not None else _builtin()[0]
    key = format_key(name)
    if key not in formats:
        key = ALIASES.get(key, key)
    if key not in formats:
        close = _closest(key, formats)
        hint = f"did you mean {close[0]}? " if close else ""
        raise FormatError(
            f"unknown format {name!r}; {hint}known formats: "
            f"{', '.join(sorted(formats))} (`deckcheck formats` lists them)"
        )
    return formats[key]
