"""An event's inputs as deck jobs: decklist files, directories, glob patterns, `FILE:FORMAT`,
manifests and event files (the package docstring lists them), each probed on the file system
before it is read, and every input accounted for (a job, a job with an `error`, or a skip)."""

from __future__ import annotations

import csv
import glob
import io
import json
import os
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from validator.report import escape_controls

#: Extensions a decklist file may have (plus none at all); anything else found while walking a
#: directory is skipped as "not a decklist" (images, archives, documents, scripts...).
DECK_EXTENSIONS = frozenset(
    {".txt", ".dek", ".cod", ".dck", ".dec", ".deck", ".json", ".csv", ".mwdeck", ""}
)
#: A manifest's `as_of` judges its row's deck as of that date whatever --as-of says; its
#: `date` (the event's) does so unless --as-of is given (judge.py `as_of_for`).
MANIFEST_COLUMNS = ("file", "player", "format", "commander", "as_of", "date")
#: An event file holds many decks: it may be this large (each deck in it still meets the
#: per-decklist limits, since each is parsed on its own).
EVENT_MAX_BYTES = 64 * 1024 * 1024


# ---------------------------------------------------------------------------- jobs


@dataclass
class DeckJob:
    """One deck to judge (or one input that could not be read: `error`)."""

    source: str  # the path relative to its directory or manifest, as shown in reports
    data: bytes | None = None  # the decklist as read
    filename: str | None = None  # for format detection by extension
    format: str | None = None  # from FILE:FORMAT, a manifest row or the event file
    player: str | None = None
    commanders: tuple[str, ...] = ()
    as_of: str | None = None
    deck_index: int | None = None  # position in an event file
    error: str | None = None
    #: The directory or manifest folder `source` is relative to (None for a file named on the
    #: command line): with several, ids are prefixed to tell them apart (`_tell_roots_apart`).
    root: str | None = field(default=None, repr=False, compare=False)
    #: The manifest row this job comes from ("players.csv line 6"): an error in its format or
    #: commander cell names it, so that the organizer knows which cell to fix.
    listed_in: str | None = field(default=None, repr=False, compare=False)
    #: The date and name of the event the deck was registered for, when its input carries
    #: them (an MTGO or Melee event file, a manifest's `date` column): without --as-of, the
    #: deck is judged as of that date (judge.py `as_of_for`).
    event_date: str | None = field(default=None, compare=False)
    event_name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        self.source, self.player, self.error = (
            shown(self.source),
            shown(self.player),
            shown(self.error),
        )
        # The date stays as written: judged as of, or refused naming it (judge.py).
        self.event_name = shown(self.event_name)


@dataclass
class Skipped:
    source: str
    reason: str
    root: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.source, self.reason = shown(self.source), shown(self.reason)


@dataclass
class EventInputs:
    jobs: list[DeckJob] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: Every file this run reads, by identity (`file_key`) -> its path, and every directory it
    #: walks (real paths): a report must not overwrite the one nor land in the other
    #: (`report_clash`).
    files: dict[Any, str] = field(default_factory=dict)
    directories: list[str] = field(default_factory=list)


@overload
def shown(text: str) -> str: ...
@overload
def shown(text: None) -> None: ...
def shown(text: str | None) -> str | None:
    """`text` as every report can print it (strict UTF-8): the undecodable bytes of a file name
    (which Python keeps as surrogate escapes) as `\\xff`, a JSON lone surrogate as `\\ud800`."""
    if text is None or text.isascii():
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        from validator.decklist.base import printable

        return printable(text)


def file_key(st: os.stat_result, path: Path) -> Any:
    """One file's identity, whatever the path that names it (symbolic and hard links)."""
    return (st.st_dev, st.st_ino) if st.st_ino else os.path.normcase(os.path.realpath(path))


def _is_stream(path: Path) -> bool:
    """`path` names a stream (`_stream_mode`)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # reading it says why
    return _stream_mode(mode)


def _stream_mode(mode: int) -> bool:
    """A pipe or a character device (what `<(...)` and /dev/stdin name): readable only once."""
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _not_regular(st: os.stat_result) -> str | None:
    """Why a file that exists cannot be read as a decklist file, or None for a regular file:
    reading a FIFO would wait for a writer forever, a device (/dev/zero) never ends."""
    if stat.S_ISREG(st.st_mode):
        return None
    what = (
        "a directory"
        if stat.S_ISDIR(st.st_mode)
        else "a named pipe"
        if stat.S_ISFIFO(st.st_mode)
        else "a character device"
        if stat.S_ISCHR(st.st_mode)
        else "a block device"
        if stat.S_ISBLK(st.st_mode)
        else "a socket"
        if stat.S_ISSOCK(st.st_mode)
        else "a special file"
    )
    return f"not a regular file ({what})"


class NotRegularFile(OSError):
    """An input path names something other than a regular file (see `_not_regular`)."""


def _json_kind(obj: Any) -> tuple[str, str]:
    """("event", "") for many decks, ("deck", "") for a JSON deck shape the parsers read, or
    ("neither", why), as the decklist detector decides (validator/decklist/detect.py)."""
    from validator.decklist import DecklistError, is_event_file, json_shape

    if is_event_file(obj):
        return "event", ""
    try:
        json_shape(obj)
    except DecklistError as exc:
        return "neither", str(exc)
    return "deck", ""


def _event_format_key(label: Any, formats: Mapping[str, Any] | None) -> str | None:
    """An event file's own format label ("Modern", "Duel Commander") as a format key."""
    if not isinstance(label, str) or not label.strip():
        return None
    from validator.rules.formats import FormatError, get_format

    try:
        return get_format(label, formats).key
    except FormatError:
        return None


def _format_from_event_name(name: Any, formats: Mapping[str, Any] | None) -> str | None:
    """The format an event's name starts with ("Duel Commander Trial 16" -> duel), the longest
    format name that matches, or None."""
    if not isinstance(name, str):
        return None
    from validator.rules.formats import format_key, load_formats

    words = format_key(name)
    known = formats if formats is not None else load_formats()
    best = None
    for fmt in known.values():
        for label in (fmt.name, fmt.key):
            folded = format_key(label)
            if folded and words.startswith(folded) and (best is None or len(folded) > best[0]):
                best = (len(folded), fmt.key)
    return best[1] if best else None


def _as_text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _read_stream(fd: int, limit: int) -> bytes:
    """At most `limit` + 1 bytes of a pipe or device opened without blocking: each read waits
    (poll) for data, or for the end of the input. A FIFO whose writer has not come yet is not
    at its end (Linux reports the hang-up only once a writer opened and left), so this waits
    for the writer, never reads "empty" too early."""
    import select

    poller = select.poll()
    poller.register(fd, select.POLLIN)
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        poller.poll()
        try:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
        except BlockingIOError:  # woken with nothing to read yet
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


class _Collector:
    def __init__(
        self,
        *,
        formats: Mapping[str, Any] | None,
        default_as_of: str | None,
        read_stdin: Callable[[], bytes] | None,
        max_bytes: int,
    ):
        self.formats = formats
        self.out = EventInputs()
        self.read_stdin = read_stdin
        self.max_bytes = max_bytes
        self.root: str | None = None  # the directory or manifest folder being read

    # -- helpers
    def error(self, source: str, reason: str, **row: Any) -> None:
        self.out.jobs.append(DeckJob(source=source, error=reason, root=self.root, **row))

    def skip(self, source: str, reason: str) -> None:
        self.out.skipped.append(Skipped(source, reason, root=self.root))

    def read(self, path: Path, limit: int, *, streams: bool = False) -> bytes:
        """At most `limit` + 1 bytes of a regular file (one byte over the limit: the parser's
        size check names the limit). Opened without blocking and checked once open, so that a
        FIFO or a device is refused (NotRegularFile), never waited on or read forever. With
        `streams` (a path the user named, as `deckcheck validate <(curl ...)` names a pipe)
        a pipe or character device is read like standard input: up to the limit."""
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as f:
            st = os.fstat(fd)
            why = _not_regular(st)
            stream = streams and _stream_mode(st.st_mode)
            if why and not stream:
                raise NotRegularFile(why)
            self.out.files.setdefault(file_key(st, path), shown(str(path)))
            if not stream:
                return f.read(limit + 1)
            # The user named it: read through this same descriptor, waiting for the writer as
            # cat does. Opening it again instead lost a writer that came between the two opens
            # (its data went with the first descriptor, and the second waited for ever).
            return _read_stream(fd, limit)

    @contextmanager
    def _expecting_jobs(
        self, source: str, nothing: Callable[[list[Skipped]], str], root: str | None = None
    ) -> Iterator[None]:
        """Read an input (under `root`, when given, for the ids); when it gave nothing to
        judge (only skips, or nothing at all), an error on `source`: `nothing(skips)`."""
        before, skipped_before = len(self.out.jobs), len(self.out.skipped)
        saved = self.root
        if root is not None:
            self.root = root
        try:
            yield
        finally:
            self.root = saved
        if len(self.out.jobs) == before:
            self.error(source, nothing(self.out.skipped[skipped_before:]))

    # -- inputs
    def argument(self, arg: str) -> None:
        def nothing(skipped: list[Skipped]) -> str:
            why = "; ".join(f"{s.source}: {s.reason}" for s in skipped[:3])
            return (
                "nothing to judge in this input (expected a decklist, an event file, a "
                "manifest or a directory of decklists)" + (f"; skipped {why}" if why else "")
            )

        with self._expecting_jobs(arg, nothing):
            self._argument(arg)

    def _argument(self, arg: str) -> None:
        if arg == "-":
            from validator.decklist import DecklistError

            try:  # read_stdin reads at most the size limit + 1 bytes (an endless pipe fails)
                data = self.read_stdin() if self.read_stdin else b""
            except DecklistError as exc:
                self.error("-", f"cannot read: {exc}")
                return
            self.content(data, "-", None, explicit=True, row={})
            return
        path = Path(arg)
        if path.is_dir():
            self.directory(path)
            return
        if path.is_file():
            self.file(path, arg, explicit=True)
            return
        name, sep, fmt = arg.rpartition(":")
        if (
            sep
            and name
            and fmt
            and not fmt.startswith(("\\", "/"))
            and (Path(name).exists() or glob.has_magic(name))
        ):
            for source, p in self._expand(name):
                if p.is_dir():
                    self.directory(p, fmt)
                else:
                    self.file(p, source, explicit=True, row={"format": fmt})
            return
        if glob.has_magic(arg):
            matches = self._expand(arg)
            if not matches:
                self.error(arg, "no file matches this pattern")
            for source, p in matches:
                if p.is_dir():
                    self.directory(p)
                else:
                    self.file(p, source, explicit=True)
            return
        if path.exists():  # a FIFO, a device: reading it says what it is
            self.file(path, arg, explicit=True)
            return
        self.error(arg, "no such file or directory" + self._format_hint(arg))

    def _format_hint(self, arg: str) -> str:
        """`validate bolt.txt modern`: the missing "file" is a format name."""
        from validator.rules.formats import FormatError, get_format

        try:
            key = get_format(arg, self.formats).key
        except (FormatError, ValueError):
            return ""
        return f"; did you mean --format {key}?"

    def _expand(self, pattern: str) -> list[tuple[str, Path]]:
        if not glob.has_magic(pattern):
            return [(pattern, Path(pattern))]
        # Patterns the shell did not expand (Windows cmd, quoted): sorted, hidden excluded.
        return [(m, Path(m)) for m in sorted(glob.glob(pattern, recursive=True))]

    def directory(self, root: Path, fmt: str | None = None, prefix: str | None = None) -> None:
        """Every decklist under `root`, named by its path relative to `root` (after `prefix`,
        the directory as a manifest names it)."""

        def nothing(skipped: list[Skipped]) -> str:
            return "no decklist files in this directory" + (
                f" ({len(skipped)} file(s) skipped as not decklists)" if skipped else ""
            )

        with self._expecting_jobs(
            prefix or str(root), nothing, str(root) if prefix is None else None
        ):
            self._walk(root, {"format": fmt} if fmt else {}, prefix)

    def _walk(self, root: Path, row: dict[str, Any], prefix: str | None) -> None:
        self.out.directories.append(os.path.realpath(root))
        found, unwalked = [], set()
        for dirpath, dirnames, filenames in os.walk(root):
            # Hidden directories (.git, .cache) are reported, not walked; so are links to
            # directories (os.walk does not follow them: a link to a parent would loop).
            for d in dirnames:
                if d.startswith(".") or os.path.islink(os.path.join(dirpath, d)):
                    found.append(Path(dirpath) / d)
                    unwalked.add(found[-1])
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            found += [Path(dirpath) / name for name in filenames]
        # One order whatever the file system's: by relative path.
        for rel, path in sorted((p.relative_to(root).as_posix(), p) for p in found):
            source = f"{prefix}/{rel}" if prefix else rel
            if path.name.startswith("."):
                self.skip(source, "hidden directory" if path.is_dir() else "hidden file")
                continue
            if path in unwalked:
                self.skip(source, "link to a directory (not followed)")
                continue
            try:
                why = _not_regular(path.stat())
            except OSError:
                why = None  # a broken link: reading it says why
            if why:  # a FIFO would hang the run, a device never end
                self.skip(source, why)
                continue
            ext = path.suffix.lower()
            if ext not in DECK_EXTENSIONS:
                self.skip(source, f"not a decklist ({ext} file)")
                continue
            self.file(path, source, explicit=False, row=row)

    def file(
        self, path: Path, source: str, *, explicit: bool, row: Mapping[str, Any] | None = None
    ) -> None:
        row = dict(row or {})
        # A pipe the user named can be read only once: as far as an event file may go (the
        # decklist limit still applies below); a regular file is read again if it is one.
        once = explicit and _is_stream(path)
        try:
            data = self.read(path, EVENT_MAX_BYTES if once else self.max_bytes, streams=explicit)
        except NotRegularFile as exc:
            self.error(
                source,
                f"{exc}: give a decklist file, or - to read standard input",
                **_job_fields(row),
            )
            return
        except OSError as exc:
            why = exc.strerror or str(exc)
            if isinstance(exc, FileNotFoundError) and path.is_symlink():
                why = f"a link to {os.readlink(path)}, which does not exist"
            self.error(source, f"cannot read: {why}", **_job_fields(row))
            return
        ext = path.suffix.lower()
        if ext == ".csv" and _manifest_header(data):
            if explicit and not row:
                self.manifest(path, source, data)
            else:
                self.skip(source, "a manifest (name it on the command line to use it)")
            return
        head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        if head == b"{" and len(data) > self.max_bytes and b'"Decks"' in data[:65536]:
            try:  # an event file larger than one decklist may be: read it whole
                data = data if once else self.read(path, EVENT_MAX_BYTES)
            except OSError as exc:
                self.error(source, f"cannot read: {exc.strerror or exc}", **_job_fields(row))
                return
            if len(data) > EVENT_MAX_BYTES:
                self.error(
                    source, f"event file larger than {EVENT_MAX_BYTES:,} bytes", **_job_fields(row)
                )
                return
        elif len(data) > self.max_bytes:
            from validator.decklist import DecklistError, read_limited

            try:  # the decklist readers' own words for an input over the limit
                read_limited(io.BytesIO(data), self.max_bytes)
            except DecklistError as exc:
                self.error(source, str(exc), **_job_fields(row))
                return
        self.content(data, source, path.name, explicit=explicit, row=row)

    def content(
        self,
        data: bytes,
        source: str,
        filename: str | None,
        *,
        explicit: bool,
        row: Mapping[str, Any],
    ) -> None:
        """A decklist, or an event file (one job per player), or JSON that is neither."""
        head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        if head in (b"{", b"["):
            try:
                obj = json.loads(data.decode("utf-8-sig"))
            except RecursionError:  # this input only: the parser's words for it (jsondeck.py)
                self.error(source, "malformed JSON: nested too deeply", **_job_fields(row))
                return
            except (ValueError, UnicodeDecodeError):
                obj = None  # malformed JSON: the parser says what is wrong with it
            kind, why = _json_kind(obj) if obj is not None else ("deck", "")
            if kind == "event":
                self.event_file(obj, source, row)
                return
            if kind == "neither":
                if explicit:  # the detector's message: the shapes it tried, how to force one
                    self.error(
                        source, f"neither a decklist nor an event file: {why}", **_job_fields(row)
                    )
                else:
                    self.skip(source, "JSON that is neither a decklist nor an event file")
                return
        self.out.jobs.append(
            DeckJob(source=source, data=data, filename=filename, root=self.root, **_job_fields(row))
        )

    def manifest(self, path: Path, source: str, data: bytes) -> None:
        from validator.decklist import DecklistError, decode_text

        base = path.parent
        try:  # as a CSV decklist is read: UTF-8 (BOM optional) or UTF-16 with its BOM
            text = decode_text(data)
        except DecklistError as exc:
            self.error(source, f"manifest: {exc}")
            return

        def nothing(skipped: list[Skipped]) -> str:
            return (
                "no decklist to judge in this manifest (expected rows whose `file` names a "
                "decklist, a directory or an event file"
                + (f"; {len(skipped)} skipped, --verbose lists them)" if skipped else ")")
            )

        with self._expecting_jobs(source, nothing, str(base)):
            self._rows(path, base, text)

    def _rows(self, path: Path, base: Path, text: str) -> None:
        from validator.decklist.csvdeck import sniff_delimiter  # `;` from a European Excel, tabs

        lines = text.splitlines()
        skipped = _header_index(lines)  # still counted in the row numbers the messages give
        reader = csv.DictReader(
            io.StringIO("\n".join(lines[skipped:])),
            delimiter=sniff_delimiter(lines[skipped] if lines else ""),
        )
        columns = {(c or "").strip().lower(): c for c in reader.fieldnames or []}
        for n, raw in enumerate(reader, start=2 + skipped):
            row: dict[str, Any] = {
                key: _as_text(raw.get(columns[key])) for key in MANIFEST_COLUMNS if key in columns
            }
            file = row.pop("file", None)
            if row.get("date"):
                row["event_date"] = row.pop("date")[:10]
            where = f"{path.name} line {n}"
            row["listed_in"] = where
            if not file:
                self.error(where, "manifest row without a file")
                continue
            target = Path(file) if Path(file).is_absolute() else base / file
            name = Path(file).as_posix()
            if row.get("commander"):
                row["commanders"] = tuple(
                    c.strip() for c in row.pop("commander").split(";") if c.strip()
                )
            if target.is_dir():
                self.directory(target, row.get("format"), prefix=name)
            elif target.exists():
                self.file(target, name, explicit=True, row=row)
            else:
                self.error(name, f"no such file (listed in {where})", **_job_fields(row))

    def event_file(self, obj: dict, source: str, row: Mapping[str, Any]) -> None:
        from validator.decklist.base import json_object

        tournament = json_object(obj.get("Tournament"))
        own_format = _event_format_key(
            tournament.get("Formats") or tournament.get("Format"), self.formats
        )
        named = _format_from_event_name(tournament.get("Name"), self.formats)
        # The event's name decides where the label is missing ("Premodern Challenge 32" has no
        # Formats) or coarser than the name: MTGO labels its Duel Commander events "Commander",
        # and judged by multiplayer Commander's ban list their decks would fail.
        if own_format is None or (own_format == "commander" and named == "duel"):
            own_format = named or own_format
        want_player = row.get("player")
        players: dict[str, int] = {}
        decks = obj.get("Decks", obj.get("decks"))
        # The MTGO/Melee shape (`Player`, `Mainboard`/`Sideboard` of `Count`/`CardName`) and
        # python-mtg's (`decks` of `name`, `format`, `date`, `cards` {name: count}).
        for i, d in enumerate(decks or ()):  # the detector saw a list
            if not isinstance(d, dict):  # the detector looks at the first few only
                if not want_player:
                    self.error(
                        source,
                        f"deck {i + 1} of this event file is not an object with "
                        "Player, Mainboard and Sideboard",
                        deck_index=i,
                        **_job_fields(row),
                    )
                continue
            player = _as_text(d.get("Player")) or _as_text(d.get("player"))
            if want_player and player != want_player:
                continue
            deck = {
                "main": _cards(d.get("Mainboard", d.get("cards"))),
                "sideboard": _cards(d.get("Sideboard")),
            }
            if _as_text(d.get("name")):
                deck["name"] = d["name"]
            # python-mtg's `commander` list (a name or a list): the deck's commanders, passed
            # as the JSON deck's own key so that its parser reads (and reports) them.
            leaders = d.get("commander", d.get("commanders"))
            if leaders is not None:
                deck["commanders"] = leaders
            fields = _job_fields(row)
            fields["player"] = player
            fields["format"] = (
                row.get("format") or own_format or _event_format_key(d.get("format"), self.formats)
            )
            # The event's date, judged as of unless --as-of says otherwise (judge.py).
            fields["event_date"] = (
                _as_text(d.get("Date"))
                or _as_text(d.get("date"))
                or _as_text(tournament.get("Date"))
                or fields.get("event_date")
                or ""
            )[:10] or None
            fields["event_name"] = shown(_as_text(tournament.get("Name")))
            players[player or ""] = players.get(player or "", 0) + 1
            # ASCII: a lone surrogate in a name ("\ud800") stays an escape that the JSON
            # parser reports on its item; as UTF-8 it could not be encoded at all.
            self.out.jobs.append(
                DeckJob(
                    source=source,
                    data=json.dumps(deck).encode("ascii"),
                    filename="event.json",
                    deck_index=i,
                    root=self.root,
                    **fields,
                )
            )
        if want_player and not players:
            self.error(
                source, f"no deck of player {want_player!r} in this event file", **_job_fields(row)
            )
        elif not decks:
            self.error(
                source,
                'no decks in this event file (its "Decks" list is empty; '
                "expected one deck per player)",
                **_job_fields(row),
            )


def _job_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("format", "player", "as_of", "listed_in", "event_date"):
        if row.get(key):
            out[key] = row[key]
    if row.get("commanders"):
        out["commanders"] = tuple(row["commanders"])
    return out


def _cards(items: Any) -> list:
    """An event file's [{"Count", "CardName"}] (or {name: count}) as JSON-deck items; anything
    else is passed through so that the JSON deck parser reports it."""
    if isinstance(items, dict):
        return [[count, name] for name, count in items.items()]
    if not isinstance(items, list):
        return []
    out = []
    for item in items:
        if isinstance(item, dict) and "CardName" in item:
            out.append([item.get("Count", 1), item["CardName"]])
        else:
            out.append(item)
    return out


def _header_index(lines: Sequence[str]) -> int:
    """Where a manifest's header is: its first line with text (blank lines before it are
    skipped), 0 when there is none."""
    return next((i for i, line in enumerate(lines) if line.strip()), 0)


def _manifest_header(data: bytes) -> bool:
    """A CSV whose header names a `file` column, read as a CSV decklist is: decoded by
    `decode_text` (UTF-8, BOM optional, or UTF-16 with its BOM, as Excel's "Unicode text"
    saves it), separated by `,`, `;` (a European Excel) or tabs (csvdeck's `sniff_delimiter`)."""
    from validator.decklist import DecklistError, decode_text
    from validator.decklist.csvdeck import sniff_delimiter

    try:
        text = decode_text(data)
    except DecklistError:  # still a manifest when it says so: `manifest` says what is wrong
        text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    first = lines[_header_index(lines)] if lines else ""
    columns = {c.strip().strip('"').lower() for c in first.split(sniff_delimiter(first))}
    # A deck CSV may carry a "File" column of its own: with a quantity and a name column
    # (what a CSV decklist needs) it is a deck, not a manifest.
    from validator.decklist.detect import CSV_NAME, CSV_QUANTITY, csv_header_key

    keys = {csv_header_key(c) for c in columns}
    is_deck = bool(keys & set(CSV_QUANTITY)) and bool(keys & set(CSV_NAME))
    return "file" in columns and not is_deck


def collect(
    inputs: Sequence[str],
    *,
    formats: Mapping[str, Any] | None = None,
    default_as_of: str | None = None,
    read_stdin: Callable[[], bytes] | None = None,
) -> EventInputs:
    """Turn command-line inputs into deck jobs, in input order; each event-file deck carries
    its event's date (`DeckJob.event_date`: judge.py decides whether it is used;
    `default_as_of` is kept for callers, unused). Nothing here raises for a bad input: it
    becomes a job with an `error`, or a skip."""
    from validator.decklist import MAX_BYTES

    if isinstance(inputs, (str, os.PathLike)):
        inputs = [os.fspath(inputs)]  # one path, not its characters
    collector = _Collector(
        formats=formats, default_as_of=default_as_of, read_stdin=read_stdin, max_bytes=MAX_BYTES
    )
    for arg in inputs:
        collector.argument(arg)
    _tell_roots_apart(collector.out)
    return collector.out


def report_clash(inputs: EventInputs, path: Path) -> str | None:
    """Why a report written to `path` would harm this run's inputs, or None: it is one of the
    files read (writing would replace it), or a file that the walk of an input directory would
    read as a decklist next time."""
    try:
        key = file_key(path.stat(), path)
    except OSError:
        key = None  # no such file yet
    if key is not None and key in inputs.files:
        return f"it is one of the inputs ({inputs.files[key]}): writing the report would replace it"
    real = os.path.realpath(path)
    if Path(real).suffix.lower() not in DECK_EXTENSIONS or Path(real).suffix.lower() == ".json":
        # Walks skip it: an .html report, and a .json one (JSON that is neither a deck nor an
        # event file is skipped and listed); a .csv report would read as a CSV decklist.
        return None
    for directory in inputs.directories:
        try:
            rel = Path(os.path.relpath(real, directory))
        except ValueError:  # another drive
            continue
        if rel.parts[0] != os.pardir and not any(p.startswith(".") for p in rel.parts):
            return (
                f"it is in the input directory {escape_controls(shown(directory))}, whose walk would "
                "read the report as a decklist"
            )
    return None


def _tell_roots_apart(out: EventInputs) -> None:
    """Ids are relative to their directory or manifest; with several of those (two folders
    each holding `c.txt`), each is prefixed with its folder's path relative to the folders'
    common parent (`east/c.txt`, `west/c.txt`), so that the organizer can tell them apart."""
    everything: list[DeckJob | Skipped] = [*out.jobs, *out.skipped]
    items = [(x, x.root) for x in everything if x.root is not None]
    roots = {os.path.abspath(root) for _, root in items}
    if len(roots) < 2:
        return
    try:
        common: str | None = os.path.commonpath(sorted(roots))
    except ValueError:  # different drives
        common = None
    for x, root in items:
        prefix = Path(os.path.relpath(os.path.abspath(root), common) if common else root)
        if prefix != Path("."):
            x.source = f"{shown(prefix.as_posix())}/{x.source}"
