"""Reading Scryfall bulk files as a stream of card objects, whatever their shape.

Two shapes exist: the 2026 one (a gzip file of JSON Lines, `jsonl_download_uri`) and the older
one (one JSON array, `download_uri`, often already un-gzipped by the HTTP client). Gzip is
detected by its magic bytes, the shape by the first non-space byte; memory stays flat because
nothing is read whole (JSON Lines are read in 1 MiB blocks, a JSON array through ijson).

A Scryfall card object is mostly URLs, prices and image links: a reader that names the `keys`
it reads gets objects holding only those, and JSON Lines are then decoded by msgspec into just
those keys (the others are checked and skipped, never built as Python objects).
"""

from __future__ import annotations

from .errors import DeckcheckError

import gzip
import hashlib
import io
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, Callable, Collection, Iterator, TypedDict

import orjson

GZIP_MAGIC = b"\x1f\x8b"
BLOCK = 1 << 20


class BulkFileError(DeckcheckError, ValueError):
    """The bulk file is truncated, corrupt or not a list of card objects."""

    code = "bad-bulk-file"


class _HashingReader:
    """Passes reads through while computing the sha256 and size of the raw bytes."""

    def __init__(self, raw: IO[bytes], on_read: Callable[[int], None] | None = None):
        self.raw, self.on_read = raw, on_read
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


def iter_bulk_file(path: Path, stats: BulkStats | None = None,
                   on_read: Callable[[int], None] | None = None, *,
                   name: str | None = None,
                   keys: Collection[str] | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (position, card object) for every object in a bulk file.

    `position` names where the object came from ("line 12", "item 12") so errors can point at
    it. `stats` is filled in as the file is read (sha256 and size once the end is reached).
    Errors are `BulkFileError`s whose message starts with `name` (default: the file name).
    `keys`: the keys the caller reads; each object then holds only those of them it has.
    """
    path = Path(path)
    name = name or path.name
    stats = stats if stats is not None else BulkStats()
    with open(path, "rb") as raw_file:
        head = raw_file.read(2)
        raw_file.seek(0)
        raw = _HashingReader(raw_file, on_read)
        stats.gzip = head == GZIP_MAGIC
        gzip_file, gzip_errors = _gzip()
        stream: Any = gzip_file(fileobj=raw, mode="rb") if stats.gzip else raw  # type: ignore[arg-type]
        try:
            first, skipped_lines = _peek_first_byte(stream, name)
            if first == b"[":
                stats.shape = "json-array"
                yield from _iter_array(_Prepend(first, stream), name, keys)
            elif keys is not None:
                stats.shape = "jsonl"
                yield from _iter_lines_keys(first, stream, name, skipped_lines, keys)
            else:
                stats.shape = "jsonl"
                yield from _iter_lines(first, stream, name, skipped_lines)
            while raw.read(BLOCK):  # hash whatever trails the last object
                pass
        except gzip_errors as exc:
            raise BulkFileError(f"{name}: the gzip data is truncated or corrupt ({exc})") from exc
        stats.sha256, stats.size = raw.sha256.hexdigest(), raw.size


#: What the standard library's gzip reader raises on a truncated or corrupt stream.
_STDLIB_GZIP = (gzip.GzipFile, (EOFError, zlib.error, gzip.BadGzipFile))


def _gzip() -> tuple[Any, tuple[type[BaseException], ...]]:
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

    def __init__(self, head: bytes, stream: IO[bytes]):
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


#: What a bulk file holds, for the messages that refuse one (a pretty-printed JSON document
#: such as an event file is valid JSON but neither shape).
CARD_OBJECTS = ("a bulk file holds Scryfall card objects (with \"name\" and \"oracle_id\"), "
                "one per line (JSON Lines) or in one JSON array, as Scryfall's bulk data does")


def _peek_first_byte(stream: IO[bytes], name: str) -> tuple[bytes, int]:
    """The first byte after leading whitespace and a UTF-8 byte-order mark, and how many
    line breaks were skipped to get there."""
    newlines = 0
    while True:
        ch = stream.read(1)
        if not ch:
            raise BulkFileError(f"{name}: the bulk file is empty")
        if ch == b"\xef":
            if stream.read(2) == b"\xbb\xbf":
                continue
            raise BulkFileError(f"{name}: the bulk file does not start with JSON")
        if ch == b"\n":
            newlines += 1
        elif ch not in b" \t\r":
            return ch, newlines


def _iter_lines(first: bytes, stream: IO[bytes], name: str,
                number: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    """JSON Lines, read in blocks and split here: much faster than readline() on a GzipFile.
    `number` is the count of lines before `first`."""
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    rest = first
    while True:
        block = stream.read(BLOCK)
        if block:
            lines = (rest + block).split(b"\n")
            rest = lines.pop()
        else:
            lines, rest = [rest], b""
        for line in lines:
            number += 1
            try:
                obj = loads(line)
            except decode_error as exc:
                if not line.strip():
                    continue
                raise BulkFileError(f"{name}, line {number}: not valid JSON as one line ({exc}); "
                                    f"{CARD_OBJECTS}") from exc
            if type(obj) is not dict:
                raise BulkFileError(f"{name}, line {number}: expected a card object, got "
                                    f"{type(obj).__name__}; {CARD_OBJECTS}")
            yield f"line {number}", obj
        if not block:
            return


def _only(obj: dict[str, Any], keys: Collection[str]) -> dict[str, Any]:
    return {k: obj[k] for k in keys if k in obj}


_DECODERS: dict[frozenset[str], Any] = {}

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

        shape = TypedDict("BulkObject", {  # type: ignore[misc]
            k: msgspec.Raw if k in SHARED_VALUE_KEYS else Any for k in sorted(key)}, total=False)
        found = _DECODERS[key] = msgspec.json.Decoder(shape)
    return found


def _shared_values(obj: dict[str, Any], keys: Collection[str], seen: dict[bytes, Any],
                   loads: Callable[[bytes], Any]) -> None:
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


def _iter_lines_keys(first: bytes, stream: IO[bytes], name: str, number: int,
                     keys: Collection[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """`_iter_lines`, each object holding only `keys`. msgspec checks the JSON syntax of the
    skipped values too; what it refuses (not JSON, not an object, a number out of range, a
    blank line) goes through `_iter_lines`, whose messages and choices stand. Two things only
    the full read refuses, in values of keys not read: bytes that are not UTF-8, and numbers
    out of a double's range (checking every byte would cost more than the decoding saves;
    kept values are checked). A number beyond 64 bits in a kept value stays an int (orjson
    reads a float)."""
    import msgspec

    # msgspec raises RecursionError past its depth limit (~1,000): refused too, so that
    # orjson's reading names the line, as for any other line that is not JSON.
    decode, refused = _decoder(keys).decode, (msgspec.MsgspecError, RecursionError)
    shared = [k for k in SHARED_VALUE_KEYS if k in keys]
    seen: dict[bytes, Any] = {}
    loads = msgspec.json.decode
    rest = first
    while True:
        block = stream.read(BLOCK)
        if block:
            data = rest + block
            end = data.rfind(b"\n") + 1  # the lines before it are whole
            rest = data[end:]
        else:
            data, end, rest = rest, len(rest), b""
        # Each line is decoded from a view of the block, not copied out of it first; the last
        # block's last line may lack its newline (or be empty, as split would give it).
        view, find, start = memoryview(data), data.find, 0
        while True:
            cut = find(b"\n", start, end)
            if cut < 0:
                if block or start > end:
                    break
                cut = end
            line = view[start:cut]
            start = cut + 1
            number += 1
            try:
                obj = decode(line)
                if shared:
                    _shared_values(obj, shared, seen, loads)
            except refused:
                # the line as orjson reads it: its error, a blank line skipped, or the object
                line = bytes(line)
                found = list(_iter_lines(line[:1], io.BytesIO(line[1:]), name, number - 1))
                if not found:
                    continue
                obj = _only(found[0][1], keys)
            yield f"line {number}", obj
        if not block:
            return


def _iter_array(stream: _Prepend, name: str,
                keys: Collection[str] | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    import ijson  # streaming parser for the legacy single-array shape


    number = 0
    try:
        for obj in ijson.items(stream, "item", use_float=True):
            number += 1
            if not isinstance(obj, dict):
                raise BulkFileError(f"{name}, item {number}: expected a card object; "
                                    f"{CARD_OBJECTS}")
            yield f"item {number}", obj if keys is None else _only(obj, keys)
    except ijson.JSONError as exc:
        raise BulkFileError(f"{name}, after item {number}: not valid JSON ({exc})") from exc
