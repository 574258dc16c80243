"""Reading Scryfall bulk files as a stream of card objects, whatever their shape.

Two shapes exist: the 2026 one (a gzip file of JSON Lines, `jsonl_download_uri`) and the older
one (one JSON array, `download_uri`, often already un-gzipped by the HTTP client). Gzip is
detected by its magic bytes, the shape by the first non-space byte; memory stays flat because
nothing is read whole.
"""

from __future__ import annotations

import gzip
import hashlib
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator

import orjson

GZIP_MAGIC = b"\x1f\x8b"


class BulkFileError(ValueError):
    """The bulk file is truncated, corrupt or not a list of card objects."""


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
                   on_read: Callable[[int], None] | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (position, card object) for every object in a bulk file.

    `position` names where the object came from ("line 12", "item 12") so errors can point at
    it. `stats` is filled in as the file is read (sha256 and size once the end is reached).
    """
    stats = stats if stats is not None else BulkStats()
    with open(path, "rb") as raw_file:
        raw = _HashingReader(raw_file, on_read)
        head = raw_file.read(2)
        raw_file.seek(0)
        stats.gzip = head == GZIP_MAGIC
        stream: IO[bytes] = gzip.GzipFile(fileobj=raw, mode="rb") if stats.gzip else raw  # type: ignore[arg-type]
        try:
            first = _peek_first_byte(stream)
            stream = _Prepend(first, stream)
            if first == b"[":
                stats.shape = "json-array"
                yield from _iter_array(stream)
            else:
                stats.shape = "jsonl"
                yield from _iter_lines(stream)
            while raw.read(1 << 20):  # hash whatever trails the last object
                pass
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise BulkFileError(f"{path.name}: the gzip data is truncated or corrupt ({exc})") from exc
        stats.sha256, stats.size = raw.sha256.hexdigest(), raw.size


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

    def readline(self) -> bytes:
        if self.head:
            data, self.head = self.head, b""
            return data if data.endswith(b"\n") else data + self.stream.readline()
        return self.stream.readline()


def _peek_first_byte(stream: IO[bytes]) -> bytes:
    """The first byte after leading whitespace and a UTF-8 byte-order mark."""
    while True:
        ch = stream.read(1)
        if not ch:
            raise BulkFileError("the bulk file is empty")
        if ch == b"\xef":
            if stream.read(2) == b"\xbb\xbf":
                continue
            raise BulkFileError("the bulk file does not start with JSON")
        if ch not in b" \t\r\n":
            return ch


def _iter_lines(stream: _Prepend) -> Iterator[tuple[str, dict[str, Any]]]:
    number = 0
    while True:
        line = stream.readline()
        if not line:
            return
        number += 1
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise BulkFileError(f"line {number}: not valid JSON ({exc})") from exc
        if not isinstance(obj, dict):
            raise BulkFileError(f"line {number}: expected a card object, got {type(obj).__name__}")
        yield f"line {number}", obj


def _iter_array(stream: _Prepend) -> Iterator[tuple[str, dict[str, Any]]]:
    import ijson  # streaming parser for the legacy single-array shape

    number = 0
    try:
        for obj in ijson.items(stream, "item", use_float=True):
            number += 1
            if not isinstance(obj, dict):
                raise BulkFileError(f"item {number}: expected a card object")
            yield f"item {number}", obj
    except ijson.JSONError as exc:
        raise BulkFileError(f"after item {number}: not valid JSON ({exc})") from exc
