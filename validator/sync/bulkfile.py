"""Reading Scryfall bulk files as a stream of card objects, whatever their shape.

Two shapes exist: the 2026 one (a gzip file of JSON Lines, `jsonl_download_uri`) and the older
one (one JSON array, `download_uri`, often already un-gzipped by the HTTP client). Gzip is
detected by its magic bytes, the shape by the first non-space byte; memory stays flat because
nothing is read whole (JSON Lines are read in blocks of at most 1 MiB, a JSON array through
ijson's parse events). What no bulk file holds is refused early, so a hostile file ends
quickly: a device, JSON nested past `MAX_DEPTH`, `MAX_SPACE` of whitespace, a line over
`MAX_LINE`.

A Scryfall card object is mostly URLs, prices and image links: a reader that names the `keys`
it reads gets objects holding only those, and JSON Lines are then decoded by msgspec into just
those keys (the others are checked and skipped, never built as Python objects).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import os
import re
import stat
import zlib
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, TypedDict

import orjson

from validator.errors import DeckcheckError

GZIP_MAGIC = b"\x1f\x8b"
BLOCK = 1 << 20
#: The block `iter_bulk_blocks` reads: its objects are built by one msgspec call and then read
#: by the caller, and a quarter of `BLOCK` keeps them in the CPU's cache until they are (on
#: the shared ten-language file, 0.05-0.12 s less CPU than 1 MiB blocks for the sync's
#: 190,000 objects; 64 KiB and 128 KiB measured the same as 256 KiB).
OBJECT_BLOCK = 1 << 18


class BulkFileError(DeckcheckError, ValueError):
    """The bulk file is truncated, corrupt or not a list of card objects."""

    code = "bad-bulk-file"


class _HashingReader:
    """Passes reads through while computing the sha256 and size of the raw bytes."""

    def __init__(self, raw: IO[bytes], on_read: Callable[[int], None] | None = None):
        self.raw: Any = raw  # a file object: readinto too
        self.on_read = on_read
        self.sha256 = hashlib.sha256()
        self.size = 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.sha256.update(data)
        self.size += len(data)
        if self.on_read and data:
            self.on_read(len(data))
        return data

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer)
        if n:
            self.sha256.update(memoryview(buffer)[:n])
            self.size += n
            if self.on_read:
                self.on_read(n)
        return n

    def readable(self) -> bool:
        return True


@dataclass
class BulkStats:
    sha256: str = ""
    size: int = 0
    shape: str = ""  # "jsonl" or "json-array"
    gzip: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def iter_bulk_file(
    path: Path,
    stats: BulkStats | None = None,
    on_read: Callable[[int], None] | None = None,
    *,
    name: str | None = None,
    keys: Collection[str] | None = None,
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (position, card object) for every object in a bulk file.

    `position` names where the object came from ("line 12", "item 12") so errors can point at
    it. `stats` is filled in as the file is read (sha256 and size once the end is reached).
    Errors are `BulkFileError`s whose message starts with `name` (default: the file name).
    `keys`: the keys the caller reads; each object then holds only those of them it has.
    """
    path = Path(path)
    name = name or path.name

    def lines(first: bytes, stream: IO[bytes], number: int) -> Iterator[tuple[str, Any]]:
        if keys is not None:
            return _iter_lines_keys(first, stream, name, number, keys)
        return _iter_lines(first, stream, name, number)

    def array(stream: _Prepend) -> Iterator[tuple[str, Any]]:
        return _iter_array(stream, name, keys)

    return _read_bulk_file(path, name, stats, on_read, lines, array)


def iter_bulk_blocks(
    path: Path,
    shape: type[Any],
    stats: BulkStats | None = None,
    on_read: Callable[[int], None] | None = None,
    *,
    name: str | None = None,
) -> Iterator[tuple[list[Any], Callable[[int], str]]]:
    """`iter_bulk_file` for a reader of many small objects: yields (objects, where) a block of
    the file at a time, each object a `shape` (a `msgspec.Struct` whose fields are the keys
    read, each with a default: the other keys are checked and skipped), `where(i)` the position
    of `objects[i]` for error messages.

    A block of JSON Lines is decoded by one msgspec call (`decode_lines`) when it holds one
    object on each line: a Python call per line costs more than decoding the line. A block
    that does not (blank lines, a line msgspec refuses or reads as more than one value) is read
    line by line as `iter_bulk_file(keys=...)` reads it, with its messages and choices."""
    path = Path(path)
    name = name or path.name
    fields = shape.__struct_fields__

    def lines(first: bytes, stream: IO[bytes], number: int) -> Iterator[Any]:
        return _iter_line_blocks(first, stream, name, number, shape)

    def array(stream: _Prepend) -> Iterator[Any]:
        import msgspec

        convert, batch, where = msgspec.convert, [], []
        for position, obj in _iter_array(stream, name, fields):
            batch.append(convert(obj, shape))
            where.append(position)
            if len(batch) >= _ARRAY_BATCH:
                yield batch, where.__getitem__
                batch, where = [], []
        if batch:
            yield batch, where.__getitem__

    return _read_bulk_file(path, name, stats, on_read, lines, array)


#: Objects of a JSON array bulk file given at a time by `iter_bulk_blocks`.
_ARRAY_BATCH = 4096


def _read_bulk_file(
    path: Path,
    name: str,
    stats: BulkStats | None,
    on_read: Callable[[int], None] | None,
    lines: Callable[[bytes, IO[bytes], int], Iterator[Any]],
    array: Callable[[_Prepend], Iterator[Any]],
) -> Iterator[Any]:
    """Open a bulk file, sniff gzip and its shape, and yield what `lines(first bytes, stream,
    line breaks skipped)` or `array(stream)` yields of it."""
    stats = stats if stats is not None else BulkStats()
    raw_file = _open(path, name)
    with raw_file:
        raw = _HashingReader(raw_file, on_read)
        head = raw.read(2)  # read, not peeked: a pipe cannot seek back
        stats.gzip = head == GZIP_MAGIC
        gzip_file, gzip_errors = _gzip()
        stream: Any = (
            gzip_file(fileobj=_Prepend(head, raw), mode="rb") if stats.gzip else _Prepend(head, raw)
        )
        try:
            first, skipped_lines = _skip_leading_space(stream, name)
            if first[:1] == b"[":
                stats.shape = "json-array"
                yield from array(_Prepend(first, stream))
            else:
                stats.shape = "jsonl"
                yield from lines(first, stream, skipped_lines)
            while raw.read(BLOCK):  # hash whatever trails the last object
                pass
        except gzip_errors as exc:
            raise BulkFileError(f"{name}: the gzip data is truncated or corrupt ({exc})") from exc
        stats.sha256, stats.size = raw.sha256.hexdigest(), raw.size


def source_problem(path: Path) -> str | None:
    """Why `path` cannot be read as a bulk file, or None. A regular file or a pipe
    (`--from /dev/stdin`, `<(...)`) can: a pipe is read once as a stream. A device (/dev/zero,
    a terminal) or a directory is refused at once: it is never a bulk file, and /dev/zero
    would never end."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"no such file: {path}"
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return f"is a directory, not a bulk file: {path}"
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return f"{path} is not a regular file or a pipe (a device): {NOT_A_FILE}"
    return None


def _open(path: Path, name: str) -> IO[bytes]:
    problem = source_problem(path)
    if problem:
        raise BulkFileError(f"{name}: {problem}")
    return open(path, "rb")


#: What to do with something that is not a bulk file on disk or in a pipe.
NOT_A_FILE = (
    "save the bulk file first (or pipe it in: `curl ... | deckcheck sync --from "
    "/dev/stdin`), then sync --from FILE"
)


#: What the standard library's gzip reader raises on a truncated or corrupt stream.
_STDLIB_GZIP = (gzip.GzipFile, (EOFError, zlib.error, gzip.BadGzipFile))


def _gzip() -> tuple[Any, tuple[Any, ...]]:
    """The gzip reader and what it raises on a truncated or corrupt stream: python-isal's
    (Intel's ISA-L inflate, about 4x faster than zlib on a 170 MB bulk file) where installed,
    else the standard library's. Both check the CRC and the length."""
    try:
        from isal import igzip, isal_zlib
    except ImportError:
        return _STDLIB_GZIP
    return igzip.IGzipFile, _STDLIB_GZIP[1] + (isal_zlib.error,)


class _Prepend:
    """A byte stream with some already-read bytes put back in front."""

    def __init__(self, head: bytes, stream: Any):  # a binary file object
        self.head, self.stream = head, stream

    def read(self, n: int = -1) -> bytes:
        if self.head:
            if n < 0:
                data, self.head = self.head + self.stream.read(), b""
                return data
            data, self.head = self.head[:n], self.head[n:]
            if len(data) < n:
                data += self.stream.read(n - len(data))
            return data
        return self.stream.read(n)

    def readinto(self, buffer: Any) -> int:  # what a gzip reader calls
        if self.head:
            data = self.read(len(buffer))
            memoryview(buffer)[: len(data)] = data
            return len(data)
        return self.stream.readinto(buffer)

    def readable(self) -> bool:
        return True


#: What a bulk file holds, for the messages that refuse one (a pretty-printed JSON document
#: such as an event file is valid JSON but neither shape).
CARD_OBJECTS = (
    'a bulk file holds Scryfall card objects (with "name" and "oracle_id"), '
    "one per line (JSON Lines) or in one JSON array, as Scryfall's bulk data does"
)


#: Whitespace accepted before the first JSON value, or in a row between JSON Lines: a bulk
#: file has a few bytes of it; a gzip of nothing but spaces (600 MB inflate from 600 KB) is
#: refused once this much is read, not read to its end.
MAX_SPACE = 1 << 20
_SPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"


def _skip_leading_space(stream: IO[bytes], name: str) -> tuple[bytes, int]:
    """The data from the first byte after leading whitespace and UTF-8 byte-order marks (read
    in blocks; what follows that byte in the block comes along), and how many line breaks were
    skipped to get there."""
    newlines = skipped = 0
    data = b""
    while True:
        block = stream.read(1 << 16)
        if not block:
            if data:  # only a part of a byte-order mark
                raise BulkFileError(f"{name}: the bulk file does not start with JSON")
            raise BulkFileError(f"{name}: the bulk file is empty")
        data += block
        while True:
            rest = data.lstrip(_SPACE)
            newlines += data.count(b"\n", 0, len(data) - len(rest))
            skipped += len(data) - len(rest)
            data = rest
            if data.startswith(_BOM):
                data = data[3:]
                continue
            break
        if skipped > MAX_SPACE:
            raise BulkFileError(
                f"{name}: more than {MAX_SPACE >> 20} MiB of whitespace before "
                f"any JSON: not a bulk file; {CARD_OBJECTS}"
            )
        if data and not (len(data) < 3 and _BOM.startswith(data)):
            if data[:1] == b"\xef":
                raise BulkFileError(f"{name}: the bulk file does not start with JSON")
            return data, newlines


#: The longest line JSON Lines may hold: a Scryfall card object is a few KB. A longer one (a
#: stream with no line break, such as `cat /dev/zero |`) is refused once this much is read.
MAX_LINE = 16 << 20


def _line_too_long(name: str, number: int) -> BulkFileError:
    return BulkFileError(
        f"{name}, line {number}: longer than {MAX_LINE >> 20} MiB with no line "
        f"break (a card object is a few KB): not a bulk file; {CARD_OBJECTS}"
    )


def _too_much_space(name: str, number: int) -> BulkFileError:
    return BulkFileError(
        f"{name}, line {number}: more than {MAX_SPACE >> 20} MiB of blank lines "
        f"in a row: not a bulk file; {CARD_OBJECTS}"
    )


def _not_json(name: str, number: int, exc: Exception, line: bytes) -> BulkFileError:
    """Why orjson refused `line` (msgspec's refusals, a RecursionError too, are read again
    by orjson first: `_iter_lines_keys`)."""
    if line.strip() == b"{":
        return BulkFileError(
            f"{name}, line {number}: a JSON object spread over several lines "
            f"(pretty-printed JSON, such as a saved Scryfall API page?), not one "
            f"card object per line; {CARD_OBJECTS}"
        )
    if "depth" in str(exc):  # orjson's "depth limit exceeded"
        return BulkFileError(
            f"{name}, line {number}: JSON nested too deep to read (a Scryfall "
            f"card object nests about 5 levels): not a Scryfall bulk file; "
            f"download the bulk file again, or check what wrote this one"
        )
    return BulkFileError(
        f"{name}, line {number}: not valid JSON as one line ({exc}); {CARD_OBJECTS}"
    )


def _api_page(obj: dict[str, Any]) -> bool:
    """Whether a file's first object is a Scryfall API response (`"object": "list"` with its
    cards in "data", as /cards/search pages are), not a card."""
    return obj.get("object") == "list" or (
        type(obj.get("data")) is list and "oracle_id" not in obj and "name" not in obj
    )


def _api_page_error(name: str, number: int) -> BulkFileError:
    return BulkFileError(
        f'{name}, line {number}: the file is one JSON object with a "data" list (a '
        f"Scryfall API page, such as a /cards/search result?), not a bulk file: sync --from "
        f"wants a Scryfall bulk file (JSON Lines or one JSON array of card objects, e.g. "
        f"oracle_cards from https://api.scryfall.com/bulk-data)"
    )


def _refuse_api_page(name: str, number: int, line: bytes) -> None:
    """For a first object read with only the named keys (whose "object" and "data" were not
    built): the whole line, parsed again."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return
    if type(obj) is dict and _api_page(obj):
        raise _api_page_error(name, number)


def _iter_lines(
    first: bytes, stream: IO[bytes], name: str, number: int = 0
) -> Iterator[tuple[str, dict[str, Any]]]:
    """JSON Lines, read in blocks and split here: much faster than readline() on a GzipFile.
    `number` is the count of lines before `first`."""
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    rest = first
    blank = 0  # bytes of blank lines since the last object
    first_object = True
    while True:
        block = stream.read(BLOCK)
        if block:
            lines = (rest + block).split(b"\n")
            rest = lines.pop()
        else:  # `first` may hold whole lines
            lines, rest = rest.split(b"\n"), b""
        for line in lines:
            number += 1
            try:
                obj = loads(line)
            except decode_error as exc:
                if not line.strip():
                    blank += len(line) + 1
                    if blank > MAX_SPACE:
                        raise _too_much_space(name, number) from None
                    continue
                raise _not_json(name, number, exc, line) from exc
            if type(obj) is not dict:
                raise BulkFileError(
                    f"{name}, line {number}: expected a card object, got "
                    f"{type(obj).__name__}; {CARD_OBJECTS}"
                )
            if first_object:
                first_object = False
                if _api_page(obj):  # the whole object is here: no need to parse it again
                    raise _api_page_error(name, number)
            blank = 0
            yield f"line {number}", obj
        if not block:
            return
        if len(rest) > MAX_LINE:
            raise _line_too_long(name, number + 1)


def _only(obj: dict[str, Any], keys: Collection[str]) -> dict[str, Any]:
    return {k: obj[k] for k in keys if k in obj}


_DECODERS: dict[Any, Any] = {}  # by the keys read, or the shape read

#: Keys whose values repeat across objects: a card's legalities (a few hundred distinct ones
#: among 35,000 cards). msgspec keeps their JSON text (checked, not built); each distinct text
#: is decoded once and equal ones are one read-only object (an object becomes a
#: `MappingProxyType`, which `cardfacts` then knows by its identity).
SHARED_VALUE_KEYS = frozenset({"legalities"})
_SHARED_MAX = 1 << 14


def _decoder(keys: Collection[str]) -> Any:
    """A msgspec decoder of JSON objects into dicts of `keys` only (values as any JSON;
    `SHARED_VALUE_KEYS` as their raw JSON text, for `_shared_values`)."""
    key = frozenset(keys)
    found = _DECODERS.get(key)
    if found is None:
        import msgspec

        shape = TypedDict(  # type: ignore[misc]  # the keys are known only at run time
            "BulkObject",
            {k: msgspec.Raw if k in SHARED_VALUE_KEYS else Any for k in sorted(key)},
            total=False,
        )
        found = _DECODERS[key] = msgspec.json.Decoder(shape)
    return found


def _shared_values(
    obj: dict[str, Any],
    keys: Collection[str],
    seen: dict[bytes, Any],
    loads: Callable[[bytes], Any],
) -> None:
    """Replace the raw JSON of `obj`'s shared-value keys by its value, decoded once per
    distinct text (`seen`). `loads` is msgspec's, as for every other kept value."""
    for k in keys:
        raw = obj.get(k)
        if raw is not None:
            text = bytes(raw)
            value = seen.get(text)
            if value is None:
                value = loads(text)
                if type(value) is dict:  # read-only: one object serves every card holding it
                    value = MappingProxyType(value)
                if len(seen) < _SHARED_MAX:
                    seen[text] = value
            obj[k] = value


def _iter_lines_keys(
    first: bytes, stream: IO[bytes], name: str, number: int, keys: Collection[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """`_iter_lines`, each object holding only `keys`. msgspec checks the JSON syntax of the
    skipped values too; what it refuses (not JSON, not an object, a number out of range, a
    blank line) goes through `_iter_lines`, whose messages and choices stand. Two things only
    the full read refuses, in values of keys not read: bytes that are not UTF-8, and numbers
    out of a double's range (checking every byte would cost more than the decoding saves;
    kept values are checked). A number beyond 64 bits in a kept value stays an int (orjson
    reads a float)."""
    lines = _LineObjects(name, number, keys)
    for data, end, more in _line_blocks(first, stream, name, lines, BLOCK):
        yield from lines.region(data, end, more)


def _line_blocks(
    first: bytes, stream: IO[bytes], name: str, lines: _LineObjects, size: int
) -> Iterator[tuple[bytes, int, bool]]:
    """(data, end, more) for each block of JSON Lines read (`size` bytes at a time):
    `data[:end]` holds whole lines (and, when not `more`, the last line, with or without its
    newline); read in blocks and split here, much faster than readline() on a GzipFile."""
    rest = first
    while True:
        block = stream.read(size)
        if block:
            data = rest + block
            end = data.rfind(b"\n") + 1  # the lines before it are whole
            rest = data[end:]
        else:
            data, end, rest = rest, len(rest), b""
        yield data, end, bool(block)
        if not block:
            return
        if len(rest) > MAX_LINE:
            raise _line_too_long(name, lines.number + 1)


class _LineObjects:
    """Reads JSON Lines one line at a time, each object holding only `keys`: a dict, or a
    `shape` (a msgspec.Struct of those keys). Keeps the count of lines read and of blank bytes
    since the last object across blocks (`MAX_SPACE`)."""

    def __init__(self, name: str, number: int, keys: Collection[str], shape: Any = None):
        import msgspec

        self.name, self.number, self.keys, self.shape = name, number, keys, shape
        self.blank = 0  # bytes of blank lines since the last object
        self.first_object = True
        # msgspec raises RecursionError past its depth limit (~1,000): refused too, so that
        # orjson's reading names the line, as for any other line that is not JSON.
        self.refused = (msgspec.MsgspecError, RecursionError)
        self.decoder = _decoder(keys) if shape is None else _struct_decoder(shape)
        self.shared = [k for k in SHARED_VALUE_KEYS if k in keys] if shape is None else []
        self.seen: dict[bytes, Any] = {}  # each distinct shared value, decoded once per file

    def region(self, data: bytes, end: int, more: bool) -> Iterator[tuple[str, Any]]:
        """The objects of the lines of `data[:end]` (`_line_blocks`)."""
        import msgspec

        name, keys, shape, shared, refused = (
            self.name,
            self.keys,
            self.shape,
            self.shared,
            self.refused,
        )
        decode, loads, seen = self.decoder.decode, msgspec.json.decode, self.seen
        number, blank = self.number, self.blank
        # Each line is decoded from a view of the block, not copied out of it first; the last
        # block's last line may lack its newline (or be empty, as split would give it).
        view, find, start = memoryview(data), data.find, 0
        while True:
            cut = find(b"\n", start, end)
            if cut < 0:
                if more or start > end:
                    break
                cut = end
            number += 1
            if cut == start:  # an empty line (runs of them are skipped one compare each)
                start = cut + 1
                blank += 1
                if blank > MAX_SPACE:
                    raise _too_much_space(name, number)
                continue
            line = view[start:cut]
            start = cut + 1
            try:
                obj = decode(line)
                if shared:
                    _shared_values(obj, shared, seen, loads)
            except refused:
                # A line of spaces is counted as blank; any other, as orjson reads it: its
                # error, or the object (a line that is not blank always yields one).
                whole = bytes(line)
                if not whole.strip():
                    blank += len(whole) + 1
                    if blank > MAX_SPACE:
                        raise _too_much_space(name, number) from None
                    continue
                found = list(_iter_lines(whole[:1], io.BytesIO(whole[1:]), name, number - 1))
                obj = _only(found[0][1], keys)
                if shape is not None:
                    obj = msgspec.convert(obj, shape)
            if self.first_object:  # a Scryfall API page is one object: its "data" is not read
                self.first_object = False
                _refuse_api_page(name, number, bytes(line))
            blank = 0
            self.number, self.blank = number, blank
            yield f"line {number}", obj
        self.number, self.blank = number, blank


def _struct_decoder(shape: Any) -> Any:
    found = _DECODERS.get(shape)
    if found is None:
        import msgspec

        found = _DECODERS[shape] = msgspec.json.Decoder(shape)
    return found


#: A line that starts with JSON whitespace (so may hold nothing else) after the first.
_LINE_STARTS_WITH_SPACE = re.compile(rb"\n[\n \t\r]").search


def _iter_line_blocks(
    first: bytes, stream: IO[bytes], name: str, number: int, shape: Any
) -> Iterator[tuple[list[Any], Callable[[int], str]]]:
    """`iter_bulk_blocks` of JSON Lines."""
    lines = _LineObjects(name, number, shape.__struct_fields__, shape)
    decode_lines, refused = lines.decoder.decode_lines, lines.refused
    for data, end, more in _line_blocks(first, stream, name, lines, OBJECT_BLOCK):
        if not end:  # no whole line yet (or nothing after the last one)
            continue
        body = data[: end - 1] if data[end - 1 : end] == b"\n" else data[:end]
        objs = None
        # One msgspec call reads the block when each of its lines holds one object: it skips
        # blank lines and reads `{} {}` as two values, so a block that may hold a line of
        # nothing but spaces is read line by line, as is one whose count of values is not its
        # count of lines (`[1` and `2]` are refused: a value never spans lines).
        if not (
            body[:1] in b" \t\r\n"  # also an empty body
            or body[-1:] == b"\n"
            or _LINE_STARTS_WITH_SPACE(body)
        ):
            try:
                objs = decode_lines(body)
            except refused:
                pass
            if objs is not None and len(objs) != body.count(b"\n") + 1:
                objs = None
        if objs is None:
            positions, objs = [], []
            for position, obj in lines.region(data, end, more):
                positions.append(position)
                objs.append(obj)
            if objs:
                yield objs, positions.__getitem__
            continue
        if lines.first_object:  # a Scryfall API page is one object: its "data" is not read
            lines.first_object = False
            cut = body.find(b"\n")
            _refuse_api_page(name, lines.number + 1, body[: cut if cut >= 0 else len(body)])
        start = lines.number + 1
        lines.number += len(objs)
        lines.blank = 0
        yield objs, functools.partial(_line_position, start)


def _line_position(first: int, i: int) -> str:
    return f"line {first + i}"


#: How deep a JSON array bulk file may nest (the array itself is level 1; a Scryfall card
#: object's deepest values, a face's image URLs, are at level 4). Deeper is refused before it
#: is built: a file of 40 KB can nest 20,000 levels.
MAX_DEPTH = 64
_START = frozenset({"start_map", "start_array"})
_END = frozenset({"end_map", "end_array"})


def _too_deep(name: str, where: str) -> BulkFileError:
    return BulkFileError(
        f"{name}, {where}: JSON nested more than {MAX_DEPTH} levels deep (a "
        f"Scryfall card object nests about 5): not a Scryfall bulk file; "
        f"download the bulk file again, or check what wrote this one"
    )


def _iter_array(
    stream: _Prepend, name: str, keys: Collection[str] | None = None
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The objects of one JSON array, built from ijson's parse events.

    Not `ijson.items`: its events carry each value's path ("item.item.item..."), which costs
    memory growing with the square of the depth (a 40 KB file of nested arrays took 1 GB);
    here the depth is counted and refused past `MAX_DEPTH`. With `keys`, the values of other
    keys are parsed (and their depth counted) but not built."""
    import ijson  # streaming parser for the legacy single-array shape

    number = 0
    stack: list[Any] = []  # the containers being built; the array itself is not kept
    depth = 0  # nesting of the event just read; the array is level 1
    skip = False  # inside the value of a card's key not read (`keys`)
    key: Any = None
    start, end, max_depth = _START, _END, MAX_DEPTH
    try:
        for event, value in ijson.basic_parse(stream, use_float=True):
            if skip:  # most events, with `keys`: the card's URLs, prices and image links
                if event in start:
                    depth += 1
                    if depth > max_depth:
                        raise _too_deep(name, f"item {number}")
                    continue
                if event in end:
                    depth -= 1
                if depth == 2:  # the value ended: a scalar, or its closing bracket
                    skip = False
                continue
            if event == "map_key":
                if depth == 2 and keys is not None and value not in keys:
                    skip = True
                else:
                    key = value
                continue
            if event in start:
                depth += 1
                if depth > 2:
                    if depth > max_depth:
                        raise _too_deep(name, f"item {number}")
                    made: Any = {} if event == "start_map" else []
                    top = stack[-1]
                    if type(top) is list:
                        top.append(made)
                    else:
                        top[key] = made
                    stack.append(made)
                elif depth == 2:
                    number += 1
                    if event != "start_map":
                        raise BulkFileError(
                            f"{name}, item {number}: expected a card object; {CARD_OBJECTS}"
                        )
                    stack.append({})
                continue
            if event in end:
                depth -= 1
                if depth == 1:
                    yield f"item {number}", stack.pop()
                elif depth > 1:
                    stack.pop()
                continue
            if depth == 1:  # a scalar item
                number += 1
                raise BulkFileError(
                    f"{name}, item {number}: expected a card object; {CARD_OBJECTS}"
                )
            top = stack[-1]
            if type(top) is list:
                top.append(value)
            else:
                top[key] = value
    except ijson.JSONError as exc:
        raise BulkFileError(f"{name}, after item {number}: not valid JSON ({exc})") from exc
