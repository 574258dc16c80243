"""iter_bulk_file: every shape Scryfall has served, sniffed from bytes; errors that point at the
line; sha256 of the raw bytes; flat memory."""

from __future__ import annotations

import gzip
import hashlib
import json
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest

from validator.sync.bulkfile import BulkFileError, BulkStats, iter_bulk_blocks, iter_bulk_file

OBJS = [
    {
        "object": "card",
        "oracle_id": f"id-{i}",
        "name": f"Card {i}",
        "legalities": {"modern": "legal"},
        "cmc": 1.5,
    }
    for i in range(5)
]


def make(path: Path, data: bytes, gz: bool) -> Path:
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def jsonl(objs=OBJS) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in objs)


@pytest.mark.parametrize("gz", [True, False], ids=["gzip", "plain"])
@pytest.mark.parametrize("shape", ["jsonl", "json-array"])
def test_shapes(tmp_path: Path, gz: bool, shape: str) -> None:
    data = jsonl() if shape == "jsonl" else json.dumps(OBJS, indent=1).encode()
    # the name says nothing true: gzip and shape come from the bytes
    path = make(tmp_path / "misleading.txt.gz", data, gz)
    stats = BulkStats()
    items = list(iter_bulk_file(path, stats))
    assert [obj for _, obj in items] == OBJS
    assert items[0][0] == ("line 1" if shape == "jsonl" else "item 1")
    assert (stats.shape, stats.gzip) == (shape, gz)
    assert stats.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert stats.size == path.stat().st_size
    assert isinstance(items[0][1]["cmc"], float)  # not Decimal (ijson use_float)


def test_jsonl_tolerates_bom_blank_lines_crlf_and_no_final_newline(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf\n" + jsonl().replace(b"\n", b"\r\n\r\n").rstrip()
    items = list(iter_bulk_file(make(tmp_path / "x.jsonl", data, False)))
    assert [obj for _, obj in items] == OBJS
    # positions count physical lines (the BOM line is line 1)
    assert items[0][0] == "line 2"


def test_lines_longer_than_a_block(tmp_path: Path) -> None:
    big = [{"name": "Big", "oracle_text": "x" * 3_000_000}, {"name": "Small"}]
    items = list(iter_bulk_file(make(tmp_path / "big.jsonl.gz", jsonl(big), True)))
    assert [o["name"] for _, o in items] == ["Big", "Small"]
    assert len(items[0][1]["oracle_text"]) == 3_000_000


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    data = jsonl()[:-1] + b'\n{"name": "Broken"\n' + jsonl()
    with pytest.raises(BulkFileError, match=r"^cards.jsonl.gz, line 6: not valid JSON"):
        list(iter_bulk_file(make(tmp_path / "cards.jsonl.gz", data, True)))


def test_name_overrides_file_name_in_messages(tmp_path: Path) -> None:
    with pytest.raises(
        BulkFileError,
        match=r"^oracle-cards-1.jsonl.gz, line 1: expected a card "
        r"object, got str",
    ):
        list(
            iter_bulk_file(
                make(tmp_path / "bulk.part", b'"text"\n', False), name="oracle-cards-1.jsonl.gz"
            )
        )


def test_array_of_non_objects(tmp_path: Path) -> None:
    with pytest.raises(BulkFileError, match="item 2: expected a card object"):
        list(iter_bulk_file(make(tmp_path / "a.json", b'[{"a": 1}, 2]', False)))


def test_truncated_array(tmp_path: Path) -> None:
    data = json.dumps(OBJS).encode()[:-30]
    with pytest.raises(BulkFileError, match=r"a.json, after item \d: not valid JSON"):
        list(iter_bulk_file(make(tmp_path / "a.json", data, False)))


@pytest.fixture(params=["isal", "stdlib"])
def gzip_reader(request, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both gzip readers: python-isal's where installed, and the standard library's (the
    fallback without it)."""
    import validator.sync.bulkfile as bulkfile

    if request.param == "isal":
        pytest.importorskip("isal")
    else:
        monkeypatch.setattr(bulkfile, "_gzip", lambda: bulkfile._STDLIB_GZIP)
    return request.param


def test_both_gzip_readers_give_the_objects_and_hash(tmp_path: Path, gzip_reader: str) -> None:
    path = make(tmp_path / "g.jsonl.gz", jsonl(OBJS * 300), True)
    stats = BulkStats()
    assert [o for _, o in iter_bulk_file(path, stats)] == OBJS * 300
    assert stats.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("cut", [10, 200])
def test_truncated_gzip(tmp_path: Path, cut: int, gzip_reader: str) -> None:
    path = make(tmp_path / "t.jsonl.gz", jsonl(OBJS * 50), True)
    path.write_bytes(path.read_bytes()[:-cut])
    with pytest.raises(BulkFileError, match="t.jsonl.gz: the gzip data is truncated or corrupt"):
        list(iter_bulk_file(path))


def test_corrupt_gzip(tmp_path: Path, gzip_reader: str) -> None:
    raw = bytearray(gzip.compress(jsonl(OBJS * 50)))
    raw[40:60] = b"\x00" * 20
    path = tmp_path / "c.jsonl.gz"
    path.write_bytes(bytes(raw))
    with pytest.raises(BulkFileError, match="truncated or corrupt"):
        list(iter_bulk_file(path))


@pytest.mark.parametrize("data, gz", [(b"", False), (b"  \n", False), (b"", True)])
def test_empty(tmp_path: Path, data: bytes, gz: bool) -> None:
    with pytest.raises(BulkFileError, match="e.json: the bulk file is empty"):
        list(iter_bulk_file(make(tmp_path / "e.json", data, gz)))


def test_on_read_reports_raw_bytes(tmp_path: Path) -> None:
    path = make(tmp_path / "p.jsonl.gz", jsonl(OBJS * 100), True)
    seen: list[int] = []
    list(iter_bulk_file(path, on_read=seen.append))
    assert sum(seen) == path.stat().st_size


@pytest.mark.parametrize("shape", ["jsonl", "json-array"])
def test_memory_stays_flat(tmp_path: Path, shape: str) -> None:
    """Reading a ~25 MB file never holds more than a few MB: the file is streamed."""
    card = {
        "object": "card",
        "name": "Filler",
        "oracle_text": "y" * 2000,
        "legalities": {f"format{i}": "legal" for i in range(20)},
    }
    n = 10_000
    path = tmp_path / "big.gz"
    with gzip.open(path, "wb", compresslevel=1) as out:
        if shape == "jsonl":
            for i in range(n):
                out.write(orjson.dumps(dict(card, oracle_id=str(i))) + b"\n")
        else:
            out.write(b"[")
            for i in range(n):
                out.write((b"," if i else b"") + orjson.dumps(dict(card, oracle_id=str(i))))
            out.write(b"]")
    tracemalloc.start()
    try:
        count = sum(1 for _ in iter_bulk_file(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == n
    assert peak < 8 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB for a {n * 2.6 / 1e3:.0f} MB file"


# ---------------------------------------------------------------------------- only the keys read

KEYS = ("oracle_id", "name", "legalities")


def _both(path: Path) -> tuple[object, object]:
    """What the full read and the keys-only read give: the filtered items, or the error."""

    def run(keys):
        try:
            items = list(iter_bulk_file(path, keys=keys))
        except BulkFileError as exc:
            return ("error", str(exc))
        if keys is None:
            items = [(p, {k: o[k] for k in KEYS if k in o}) for p, o in items]
        return items

    return run(None), run(KEYS)


@pytest.mark.parametrize("gz", [True, False], ids=["gzip", "plain"])
def test_keys_read_gives_the_objects_of_the_full_read(tmp_path: Path, gz: bool) -> None:
    objs = [
        dict(
            o,
            image_uris={"png": f"https://x/{i}.png"},
            prices={"usd": None},
            card_faces=[{"name": "A", "extra": [1, 2.5, True]}],
        )
        for i, o in enumerate(OBJS)
    ]
    data = b"\xef\xbb\xbf\n" + jsonl(objs).replace(b"\n", b"\r\n\r\n").rstrip()
    full, only = _both(make(tmp_path / "x.jsonl", data, gz))
    assert full == only and len(only) == len(OBJS) and only[0][0] == "line 2"
    assert set(only[0][1]) == set(KEYS)
    array = make(tmp_path / "a.json", json.dumps(objs).encode(), gz)
    full, only = _both(array)
    assert full == only and only[0][0] == "item 1"


@pytest.mark.parametrize(
    "bad",
    [
        b'{"name": "x", "extra": tru}',  # not JSON, in a key not read
        b"[1, 2]",  # not an object
        b'"text"',
        b'{"name": "x", "extra": "\\ud800"}',  # a lone surrogate, in a key not read
        b'{"name": "x\xc3"}',
        b'{"name": 1e999}',  # out of range, in a key read
        b'{"name": "x"} {"name": "y"}',
        b'{"name": "x", "extra": ' + b"[" * 1100 + b"]" * 1100 + b"}",  # nested past both limits
        b'{"name": "x", "legalities": {"modern": tru}}',  # not JSON, in a shared value
        b'{"name": "x", "legalities": {"a": ' + b"[" * 1100 + b"]" * 1100 + b"}}",
    ],
)
def test_keys_read_refuses_what_the_full_read_refuses(tmp_path: Path, bad: bytes) -> None:
    lines = jsonl().splitlines()
    data = b"\n".join(lines[:3] + [bad] + lines[3:]) + b"\n"
    full, only = _both(make(tmp_path / "bad.jsonl", data, False))
    assert full[0] == "error" and full == only
    assert "line 4" in only[1]


def test_keys_read_does_not_check_the_bytes_of_keys_it_does_not_read(tmp_path: Path) -> None:
    """Documented: a value deckcheck never reads is checked for JSON syntax, not for UTF-8 (the
    full read refuses the line); the values read are checked."""
    lines = jsonl().splitlines()
    data = b"\n".join(lines[:3] + [b'{"name": "x", "extra": "\xff"}'] + lines[3:]) + b"\n"
    full, only = _both(make(tmp_path / "skipped.jsonl", data, False))
    assert full[0] == "error" and "line 4" in full[1]
    assert [o for p, o in only if p == "line 4"] == [{"name": "x"}]


def test_keys_read_of_lines_longer_than_a_block(tmp_path: Path) -> None:
    big = [
        {"name": "Big", "oracle_text": "x" * 3_000_000, "extra": "y" * 2_000_000},
        {"name": "Small"},
    ]
    items = list(
        iter_bulk_file(
            make(tmp_path / "big.jsonl.gz", jsonl(big), True), keys=("name", "oracle_text")
        )
    )
    assert [o["name"] for _, o in items] == ["Big", "Small"]
    assert len(items[0][1]["oracle_text"]) == 3_000_000 and "extra" not in items[0][1]
    assert [p for p, _ in items] == ["line 1", "line 2"]


@pytest.mark.parametrize("block", [None, 1000])
def test_keys_read_shares_equal_legalities_as_one_read_only_mapping(
    tmp_path: Path, block: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync's 35,000 cards hold a few hundred distinct legalities: each distinct JSON text is
    decoded once and handed out as one object nobody can change (cardfacts knows it by id),
    across the whole file, not one block of it."""
    from types import MappingProxyType

    import validator.sync.bulkfile as bulkfile
    from validator.cards.facts import SCRYFALL_KEYS, card_from_scryfall

    if block:
        monkeypatch.setattr(bulkfile, "BLOCK", block)

    objs = [
        dict(
            o,
            legalities={"modern": "legal", "vintage": "legal"} if i % 2 else {"modern": "banned"},
            layout="normal",
            type_line="Instant",
        )
        for i, o in enumerate(OBJS)
    ]
    items = [
        o
        for _, o in iter_bulk_file(
            make(tmp_path / "s.jsonl", jsonl(objs), False), keys=SCRYFALL_KEYS
        )
    ]
    assert items[1]["legalities"] is items[3]["legalities"]
    assert items[0]["legalities"] is items[2]["legalities"] is items[4]["legalities"]
    assert type(items[0]["legalities"]) is MappingProxyType
    assert items[0]["legalities"] == {"modern": "banned"}
    # a file past the first read (64 KiB) and many blocks: still one object per text
    many = [
        o
        for _, o in iter_bulk_file(
            make(tmp_path / "m.jsonl", jsonl(objs * 200), False), keys=SCRYFALL_KEYS
        )
    ]
    assert len({id(o["legalities"]) for o in many}) == 2
    with pytest.raises(TypeError):
        items[0]["legalities"]["modern"] = "legal"  # type: ignore[index]
    for obj, item in zip(objs, items):  # the same cards as from plain dicts
        assert card_from_scryfall(item) == card_from_scryfall(obj)


@pytest.mark.parametrize("block", [1, 2, 3, 7, 40])
def test_keys_read_splits_lines_across_any_block_boundary(
    tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import validator.sync.bulkfile as bulkfile

    data = b"\n\n" + jsonl().replace(b"\n", b"\r\n\n  \n", 2) + b"\n" + jsonl()[:-1]
    expected = _both(make(tmp_path / "b.jsonl", data, False))
    monkeypatch.setattr(bulkfile, "BLOCK", block)
    assert _both(tmp_path / "b.jsonl") == expected
    assert [p for p, _ in expected[1]][:2] == ["line 3", "line 6"] and len(expected[1]) == 10


# ---------------------------------------------------------------------------- hostile input


def _card(i: int, **extra: object) -> bytes:
    return orjson.dumps({"object": "card", "oracle_id": f"id-{i}", "name": f"Card {i}", **extra})


def _counting_reads(path: Path, **kw: object) -> tuple[list[int], object]:
    """(sizes of every raw read, what reading the file gave: the objects, or the error)."""
    reads: list[int] = []
    try:
        got: object = list(iter_bulk_file(path, on_read=reads.append, **kw))
    except BulkFileError as exc:
        got = exc
    return reads, got


@pytest.mark.parametrize("keys", [None, {"name", "oracle_id"}], ids=["full", "keys"])
@pytest.mark.parametrize("where", ["junk", "name"])
def test_array_nested_too_deep_is_refused_where_it_starts(tmp_path: Path, keys, where) -> None:
    """ijson.items built a path string per level ("item.item..."): memory grew with the square of
    the depth (a 40 KB file took 1 GB). The depth is counted and refused past MAX_DEPTH, in a
    key deckcheck does not read too, before the rest of the file is read."""
    from validator.sync.bulkfile import MAX_DEPTH

    deep = b"[" * 5000 + b"]" * 5000
    data = (
        b"["
        + _card(1)
        + b",\n"
        + _card(2)[:-1]
        + b', "'
        + where.encode()
        + b'": '
        + deep
        + b"}"
        + b"".join(b",\n" + _card(i) for i in range(3, 40_000))
        + b"]"
    )
    path = make(tmp_path / "deep.json", data, False)
    reads, got = _counting_reads(path, keys=keys)
    assert isinstance(got, BulkFileError)
    assert str(got).startswith(f"deep.json, item 2: JSON nested more than {MAX_DEPTH} levels deep")
    assert sum(reads) < len(data) / 4  # stopped where it starts, not at the end


def test_array_at_the_depth_limit_is_read(tmp_path: Path) -> None:
    from validator.sync.bulkfile import MAX_DEPTH

    nested = b"[" * (MAX_DEPTH - 2) + b"1" + b"]" * (MAX_DEPTH - 2)  # array, card, then these
    data = b"[" + _card(1)[:-1] + b', "junk": ' + nested + b"}]"
    items = list(iter_bulk_file(make(tmp_path / "ok.json", data, False)))
    assert items[0][1]["junk"] == json.loads(nested)


@pytest.mark.parametrize("keys", [None, {"name", "oracle_id"}], ids=["full", "keys"])
def test_jsonl_line_nested_too_deep_says_so(tmp_path: Path, keys) -> None:
    data = _card(1) + b"\n" + _card(2)[:-1] + b', "junk": ' + b"[" * 3000 + b"]" * 3000 + b"}\n"
    with pytest.raises(BulkFileError, match=r"^d\.jsonl, line 2: JSON nested too deep to read"):
        list(iter_bulk_file(make(tmp_path / "d.jsonl", data, False), keys=keys))


def test_leading_whitespace_is_read_in_blocks(tmp_path: Path) -> None:
    """It was read one byte at a time (50 MB of spaces: 31 s)."""
    data = b" \r\n\t" * 100_000 + jsonl()
    reads, got = _counting_reads(make(tmp_path / "ws.jsonl", data, False))
    assert [obj for _, obj in got] == OBJS  # type: ignore[union-attr]
    assert len(reads) < 50


@pytest.mark.parametrize("gz", [True, False], ids=["gzip", "plain"])
def test_a_bulk_file_of_whitespace_ends_early(tmp_path: Path, gz: bool) -> None:
    """A gzip of 600 MB of spaces is 600 KB: refused once MAX_SPACE is read, not inflated whole."""
    from validator.sync.bulkfile import MAX_SPACE

    data = b" " * (8 * MAX_SPACE) + jsonl()
    path = make(tmp_path / "ws.jsonl.gz", data, gz)
    reads, got = _counting_reads(path)
    assert isinstance(got, BulkFileError)
    assert str(got).startswith("ws.jsonl.gz: more than 1 MiB of whitespace before any JSON")
    if not gz:  # (a gzip of spaces is a few KB: read whole)
        assert sum(reads) < 2 * MAX_SPACE


@pytest.mark.parametrize("keys", [None, {"name", "oracle_id"}], ids=["full", "keys"])
@pytest.mark.parametrize("blank", [b"\n", b" \r\n"], ids=["empty", "spaces"])
def test_runs_of_blank_lines_are_bounded(tmp_path: Path, keys, blank: bytes) -> None:
    from validator.sync.bulkfile import MAX_SPACE

    data = jsonl() + blank * (MAX_SPACE // len(blank) + 10) + _card(9) + b"\n"
    with pytest.raises(BulkFileError, match=r"^b\.jsonl, line \d+: more than 1 MiB of blank lines"):
        list(iter_bulk_file(make(tmp_path / "b.jsonl", data, False), keys=keys))
    # a few blank lines anywhere stay fine
    data = jsonl() + blank * 1000 + _card(9) + b"\n"
    assert len(list(iter_bulk_file(make(tmp_path / "b.jsonl", data, False), keys=keys))) == 6


@pytest.mark.parametrize("keys", [None, {"name", "oracle_id"}], ids=["full", "keys"])
def test_a_line_without_end_is_refused_once_too_long(tmp_path: Path, keys) -> None:
    from validator.sync.bulkfile import MAX_LINE

    data = jsonl() + b'{"name": "' + b"x" * (MAX_LINE + 10)
    path = make(tmp_path / "long.jsonl.gz", data, True)
    with pytest.raises(BulkFileError, match=r"^long\.jsonl\.gz, line 6: longer than 16 MiB"):
        list(iter_bulk_file(path, keys=keys))


@pytest.mark.parametrize("keys", [None, {"name", "oracle_id", "object"}], ids=["full", "keys"])
def test_a_scryfall_api_page_is_named(tmp_path: Path, keys) -> None:
    page = {"object": "list", "total_cards": 5, "has_more": False, "data": OBJS}
    path = make(tmp_path / "page.json", orjson.dumps(page), False)
    with pytest.raises(
        BulkFileError,
        match=r"^page\.json, line 1: the file is one JSON object "
        r"with a \"data\" list \(a Scryfall API page",
    ):
        list(iter_bulk_file(path, keys=keys))


def test_reads_a_pipe(tmp_path: Path) -> None:
    """`curl ... | deckcheck sync --from /dev/stdin`: a pipe cannot seek; it is read once."""
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = gzip.compress(jsonl())

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    stats = BulkStats()
    items = list(iter_bulk_file(fifo, stats, keys={"name", "oracle_id"}))
    writer.join(timeout=10)
    assert [obj["name"] for _, obj in items] == [o["name"] for o in OBJS]
    assert stats.gzip and stats.sha256 == hashlib.sha256(data).hexdigest()


def test_a_device_is_refused_at_once() -> None:
    with pytest.raises(
        BulkFileError,
        match=r"^zero: /dev/zero is not a regular file or a pipe "
        r"\(a device\): save the bulk file first",
    ):
        list(iter_bulk_file(Path("/dev/zero")))


@pytest.mark.parametrize("keys", [None, {"name", "oracle_id", "object"}], ids=["full", "keys"])
def test_a_pretty_printed_object_is_named(tmp_path: Path, keys) -> None:
    page = {"object": "list", "has_more": False, "data": OBJS}
    path = make(tmp_path / "page.json", json.dumps(page, indent=2).encode(), False)
    with pytest.raises(
        BulkFileError,
        match=r"^page\.json, line 1: a JSON object spread over "
        r"several lines \(pretty-printed JSON",
    ):
        list(iter_bulk_file(path, keys=keys))


# ---------------------------------------------------------------------------- blocks of objects


class _Shape(msgspec.Struct):
    """What `_blocks` reads: the keys of `KEYS`."""

    oracle_id: Any = None
    name: Any = None
    legalities: Any = None


def _blocks(path: Path) -> object:
    """What iter_bulk_blocks gives, as `_both` gives the keys read: (position, the keys read
    that are not null), or the error."""
    try:
        return [
            (where(i), {k: getattr(o, k) for k in KEYS if getattr(o, k) is not None})
            for objs, where in iter_bulk_blocks(path, _Shape)
            for i, o in enumerate(objs)
        ]
    except BulkFileError as exc:
        return ("error", str(exc))


def _keys_read(path: Path) -> object:
    only = _both(path)[1]
    if isinstance(only, tuple):
        return only
    return [(p, {k: v for k, v in o.items() if v is not None}) for p, o in only]


BLOCK_FILES = {
    "lines": jsonl(OBJS * 40),
    "crlf, no final newline": jsonl(OBJS * 40).replace(b"\n", b"\r\n")[:-2],
    "blank lines": b"\n\n" + jsonl(OBJS).replace(b"\n", b"\r\n\n  \n", 2) + b"\n" + jsonl()[:-1],
    "a line starting with spaces": jsonl(OBJS[:2]) + b"  " + jsonl(OBJS[2:]),
    "a null value": jsonl([*OBJS, {"name": None, "oracle_id": "x"}]),
    "two objects on a line": jsonl(OBJS[:3]) + b'{"name": "x"} {"name": "y"}\n' + jsonl(OBJS),
    "an array on a line": jsonl(OBJS[:3]) + b"[1, 2]\n" + jsonl(OBJS),
    "not JSON": jsonl(OBJS * 3) + b'{"name": "x", "extra": tru}\n' + jsonl(OBJS),
    "an array spread over lines": jsonl(OBJS[:3]) + b'{"name": ["x"\n, "y"]}\n',
    "not UTF-8 in a key not read": jsonl(OBJS) + b'{"name": "x", "extra": "\xff"}\n',
    "an API page": b'{"object": "list", "data": [{"name": "x"}]}\n',
}


@pytest.mark.parametrize("block", [None, 7, 100])
@pytest.mark.parametrize("case", list(BLOCK_FILES))
def test_block_read_gives_what_the_keys_read_gives(
    tmp_path: Path, case: str, block: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A block is decoded by one call only where that reads it as line by line: the same
    objects at the same lines, or the same error."""
    import validator.sync.bulkfile as bulkfile

    path = make(tmp_path / "b.jsonl.gz", BLOCK_FILES[case], True)
    if block:
        monkeypatch.setattr(bulkfile, "BLOCK", block)
        monkeypatch.setattr(bulkfile, "OBJECT_BLOCK", block)
    expected = _keys_read(path)
    assert _blocks(path) == expected
    if case == "lines":
        assert len(expected) == 200 and expected[-1][0] == "line 200"  # type: ignore[index]
    if case in ("two objects on a line", "an array on a line", "not JSON"):
        assert expected[0] == "error"  # type: ignore[index]


def test_block_read_of_a_json_array(tmp_path: Path) -> None:
    objs = [dict(o, oracle_id=f"id-{i}") for i, o in enumerate(OBJS * 1000)]
    path = make(tmp_path / "a.json.gz", json.dumps(objs).encode(), True)
    got = _blocks(path)
    assert got == _keys_read(path) and len(got) == 5000  # type: ignore[arg-type]
    assert got[4999][0] == "item 5000"  # type: ignore[index]


def test_block_read_decodes_a_block_of_lines_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The point of reading blocks: a Python call per block, not per line, where the lines
    are one object each."""
    import validator.sync.bulkfile as bulkfile

    calls: list[int] = []
    real = bulkfile._LineObjects.region

    def counting(self, data, end, more):
        calls.append(1)
        return real(self, data, end, more)

    monkeypatch.setattr(bulkfile._LineObjects, "region", counting)
    path = make(tmp_path / "many.jsonl", jsonl(OBJS * 2000), False)
    blocks = list(iter_bulk_blocks(path, _Shape))
    assert sum(len(objs) for objs, _ in blocks) == 10_000 and not calls
    assert len(blocks) < 10


@pytest.mark.parametrize("blank", [b"\n", b" \r\n"], ids=["empty", "spaces"])
def test_block_read_bounds_runs_of_blank_lines_across_blocks(tmp_path: Path, blank: bytes) -> None:
    from validator.sync.bulkfile import MAX_SPACE

    data = jsonl() + blank * (MAX_SPACE // len(blank) + 10) + _card(9) + b"\n"
    with pytest.raises(BulkFileError, match=r"^b\.jsonl, line \d+: more than 1 MiB of blank lines"):
        list(iter_bulk_blocks(make(tmp_path / "b.jsonl", data, False), _Shape))
    data = jsonl() + blank * 1000 + _card(9) + b"\n"
    assert len(_blocks(make(tmp_path / "b.jsonl", data, False))) == 6  # type: ignore[arg-type]


def test_block_read_refuses_a_line_without_end_once_too_long(tmp_path: Path) -> None:
    from validator.sync.bulkfile import MAX_LINE

    data = jsonl() + b'{"name": "' + b"x" * (MAX_LINE + 10)
    path = make(tmp_path / "long.jsonl.gz", data, True)
    with pytest.raises(BulkFileError, match=r"^long\.jsonl\.gz, line 6: longer than 16 MiB"):
        list(iter_bulk_blocks(path, _Shape))
