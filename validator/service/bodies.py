"""Reading a request body into the options and the decklist: JSON, a multipart upload, a
URL-encoded form or text/plain (its options in the query string), in the charset the
Content-Type declares; every body that cannot be read is a problem saying what to send."""

from __future__ import annotations

import codecs
import datetime as dt
import inspect
import re
from collections.abc import Callable
from typing import Any

import orjson
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from validator.service.bodylimit import MAX_BODY_BYTES, BodyTooLarge
from validator.service.fastpath import declared_charset, is_json, media_type
from validator.service.fastpath import is_utf8 as _is_utf8
from validator.service.problems import ProblemError

_LIST_FIELDS = {"commanders": ("commanders", "commander"), "rules": ("rules", "rule")}
_SCALAR_FIELDS = ("format", "filename", "input_format", "bracket", "as_of")


def _fields_from(multi: Any, model: type[BaseModel]) -> dict[str, Any]:
    """Options from form fields or query parameters (lists repeat the key)."""
    data: dict[str, Any] = {}
    for name in _SCALAR_FIELDS:
        given = len(multi.getlist(name))
        if given > 1:  # which one was meant? Not the last one silently
            raise ProblemError(
                "bad-input",
                f"`{name}` is given {given} times; give it once (only `commander` and `rule` "
                "repeat, one for each)",
            )
        if multi.get(name) not in (None, ""):  # one the model lacks is refused (422)
            data[name] = multi.get(name)
    for name, keys in _LIST_FIELDS.items():
        values = [v for k in keys for v in multi.getlist(k) if isinstance(v, str) and v.strip()]
        if values:
            data[name] = values
    unknown = set(multi.keys()) - _FORM_KEYS
    for key in sorted(unknown):
        data[key] = multi.get(key)  # refused by the model (extra="forbid"): a 422 naming it
    return data


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _checked(model: type[BaseModel], data: dict[str, Any]) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


def check_as_of(value: dt.date | str | None) -> None:
    """An `as_of` string is read as the library reads it (`history.parse_as_of`), so the
    service takes what `--as-of` and the API take. One it cannot read ("hello", "2026-02-30",
    "") is a 400 `bad-as-of` (README "Error types"), worded for an HTTP client; its value is
    not echoed (the client has it). A value of the wrong JSON type stays a 422 (the model refuses it)."""
    if not isinstance(value, str):
        return
    from validator.dates import AS_OF_FORMS, AsOfError, parse_as_of

    try:
        if value.strip() and parse_as_of(value) is not None:
            return
    except AsOfError:
        pass
    raise ProblemError(
        "bad-as-of",
        f"as_of is not a date: write it as {AS_OF_FORMS}; "
        "or leave as_of out (or send null) to judge by current legality",
    )


_NAME_A_CHARSET = (
    "send the body as UTF-8 (charset=utf-8) or name a known charset "
    "(e.g. charset=iso-8859-1, windows-1252, utf-16)"
)


def check_charset(charset: str) -> None:
    """A declared charset no decoder knows, or that is no text encoding, is a 415."""
    try:
        info = codecs.lookup(charset)
    except LookupError:
        raise ProblemError(
            "unsupported-media-type", f"charset {charset[:40]!r} is not known: {_NAME_A_CHARSET}"
        ) from None
    # rot13, base64, bz2, zlib, hex, uu, quopri, undefined...: Python codecs, no text encodings
    if not getattr(info, "_is_text_encoding", True):
        raise ProblemError(
            "unsupported-media-type",
            f"charset {charset[:40]!r} is no text encoding: {_NAME_A_CHARSET}",
        )


def _decode(raw: bytes, charset: str, invalid: Callable[[int], str]) -> str:
    """`raw` read in `charset`: bytes it cannot decode are a 400 `invalid(byte offset)`, a
    codec that refuses to decode at all a 415."""
    try:
        return raw.decode(charset)
    except UnicodeDecodeError as exc:
        raise ProblemError("malformed-body", invalid(exc.start)) from None
    except (UnicodeError, LookupError, ValueError, TypeError):  # a codec that refuses to decode
        raise ProblemError(
            "unsupported-media-type",
            f"charset {charset[:40]!r} cannot decode a body: {_NAME_A_CHARSET}",
        ) from None


def decode_declared(raw: bytes, charset: str) -> str:
    """A body in its declared (not UTF-8) charset, as text: an unknown charset is a 415, bytes
    the charset cannot decode a 400 naming it."""
    check_charset(charset)
    return _decode(
        raw,
        charset,
        lambda start: (
            f"the body is not valid {charset} (byte {start}), the charset its Content-Type "
            "declares: send it in that charset, or as UTF-8"
        ),
    )


NOT_UTF8 = (
    "the body is not UTF-8: send it as UTF-8, or declare its charset in the "
    "Content-Type (e.g. text/plain; charset=utf-16)"
)


def refuse_encoded(encoding: str | None) -> None:
    """A compressed body would be read as a decklist's bytes and fail as "not valid UTF-8":
    say what is wrong instead (a decklist is small; nothing here decompresses)."""
    if encoding and encoding.strip().lower() != "identity":
        raise ProblemError(
            "unsupported-media-type",
            f"Content-Encoding {encoding.strip()[:40]!r} "
            "is not accepted: send the body uncompressed",
        )


#: The query parameters a text/plain body takes its options from (`_fields_from`).
QUERY_OPTIONS = frozenset(_SCALAR_FIELDS).union(*_LIST_FIELDS.values())
#: The fields a form may have: the options and the decklist (a `file` or a `decklist` field).
_FORM_KEYS = QUERY_OPTIONS | {"decklist", "file"}

_FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")  # README: both

#: A `decklist` text field as large as the body limit allows (Starlette's own default, 1 MB,
#: would refuse a decklist the library takes when its limit is higher); older Starlette
#: versions have no such limit.
_PART_LIMIT = (
    {"max_part_size": MAX_BODY_BYTES}
    if "max_part_size" in inspect.signature(Request.form).parameters
    else {}
)


_URLENCODED = "application/x-www-form-urlencoded"


def refuse_no_form(raw: bytes, form: Any) -> None:
    """A URL-encoded body is a form (an HTML form's default, `curl --data-urlencode
    decklist@deck.txt -d format=modern`). `curl -d` without `-H` sends that Content-Type with
    whatever it is given: JSON, or a decklist file with its line breaks dropped (`-d @file`),
    or a decklist whose `&` (Minsc & Boo) cuts the field in two. Each is refused saying what
    to send, not as a form missing its `decklist` field."""
    text = raw.lstrip()
    if text[:1] in (b"{", b"["):
        raise ProblemError(
            "malformed-body",
            "the body is JSON but its Content-Type is "
            "application/x-www-form-urlencoded (what curl -d sends without -H): "
            "send it with Content-Type: application/json (curl -H "
            "'content-type: application/json' -d ...)",
        )
    if text and b"=" not in text:
        raise ProblemError(
            "malformed-body",
            "the body is not a form (name=value&...) though "
            "its Content-Type is application/x-www-form-urlencoded (what curl "
            "-d sends without -H; curl -d @file also drops the line breaks): "
            "send the decklist as text/plain with the options in the query "
            "string (curl -H 'content-type: text/plain' --data-binary @deck.txt "
            "'...?format=modern'), or percent-encode a form (curl "
            "--data-urlencode decklist@deck.txt -d format=modern)",
        )
    cut = [key for key in form.keys() if key not in _FORM_KEYS and any(c.isspace() for c in key)]
    if cut:
        raise ProblemError(
            "malformed-body",
            "the form's values are not percent-encoded: a "
            "`&` in the decklist (as in Minsc & Boo) cut it, leaving a field "
            "named like a decklist line: percent-encode each value (curl --data-urlencode "
            "decklist@deck.txt -d format=modern), or send the decklist as "
            "text/plain with the options in the query string",
        )


#: A form has a handful of fields (the decklist and the options: at most 4 commanders and 20
#: rules): more is no form of ours.
MAX_FORM_FIELDS = 50

#: A URL-encoded body's limit. A real deck needs far less (a 5,000-line list, the library's
#: line limit, is ~200 KB; percent-encoded ~300 KB), and percent-decoding costs memory and
#: CPU with each `%`: Starlette's parser, on the event loop, took ~1 GB and 3-5 s for a 5 MB
#: body of `%`. Larger lists go as multipart/form-data or JSON (up to the body limit).
URLENCODED_MAX_BYTES = 1_000_000

_PERCENT = re.compile(rb"%([0-9A-Fa-f]{2})")


def _unquote_plus(raw: bytes, charset: str | None = None) -> str:
    """A form name or value: `+` a space, each valid `%XX` its byte (an invalid `%` is kept,
    as urllib's unquote keeps it), the bytes read in the declared charset (a byte it cannot
    decode is a 400, as for any body in a declared charset) or, none declared, as UTF-8
    (undecodable bytes become U+FFFD, as Starlette read them). One regex pass: no list of
    pieces per `%`."""
    raw = raw.replace(b"+", b" ")
    if b"%" in raw:
        raw = _PERCENT.sub(lambda m: bytes((int(m.group(1), 16),)), raw)
    if _is_utf8(charset):
        return raw.decode("utf-8", "replace")
    return _decode(
        raw,
        charset,  # type: ignore[arg-type]  # not None: _is_utf8(None) is true
        lambda start: (
            f"the form is not valid {charset}, the charset its Content-Type declares (a name or "
            f"value's byte {start}, percent-decoded): send it in that charset, or as UTF-8"
        ),
    )


def parse_urlencoded(raw: bytes, charset: str | None = None) -> FormData:
    """An application/x-www-form-urlencoded body as a form (fields split on `&`, an empty one
    skipped, a name without `=` has the empty value), each name and value read in `charset`
    (`_unquote_plus`); more than MAX_FORM_FIELDS fields is a 400 `malformed-body`. Work and
    memory grow with the body's length only."""
    fields: list[tuple[str, str]] = []
    for match in re.finditer(rb"[^&]+", raw):
        if len(fields) == MAX_FORM_FIELDS:
            raise ProblemError(
                "malformed-body",
                f"the form has more than {MAX_FORM_FIELDS} "
                "fields: send the decklist in one `decklist` field and each "
                "option once (commander and rule may repeat)",
            )
        name, _, value = match.group().partition(b"=")
        fields.append((_unquote_plus(name, charset), _unquote_plus(value, charset)))
    return FormData(fields)  # type: ignore[arg-type]  # str values are form values


_FORM_ASCII = "decklist=4+A%41&format=b"


def form_bytes(raw: bytes, charset: str | None) -> tuple[bytes, str | None]:
    """A URL-encoded body and the charset its names and values are read in. The declared
    charset is honoured as for any body (`decode_declared`'s rules: unknown or no text
    encoding, 415). One that does not write `&`, `=`, `%` and `+` as their ASCII bytes
    (utf-16, utf-32) is decoded whole and read as a UTF-8 form: the WHATWG URL Standard's
    "get an output encoding" has such a form percent-encoded as UTF-8."""
    if _is_utf8(charset):
        return raw, None
    check_charset(charset)  # type: ignore[arg-type]
    try:
        ascii_compatible = _FORM_ASCII.encode(charset) == _FORM_ASCII.encode()  # type: ignore[arg-type]
    except (UnicodeError, LookupError, ValueError, TypeError):
        ascii_compatible = False
    if ascii_compatible:
        return raw, charset
    return decode_declared(raw, charset).removeprefix("\ufeff").encode(), None  # type: ignore[arg-type]


async def read_urlencoded(request: Request, charset: str | None = None) -> FormData:
    """A URL-encoded form, at most URLENCODED_MAX_BYTES (413), read in its declared charset
    (`form_bytes`), parsed off the event loop when it is not small. The body is read whole
    first (the body limit bounds it), so the client, still sending, reads the 413 rather
    than a connection reset."""
    raw = await request.body()
    if len(raw) > URLENCODED_MAX_BYTES:
        raise _urlencoded_too_large(len(raw))
    raw, charset = form_bytes(raw, charset)
    form = (
        parse_urlencoded(raw, charset)
        if len(raw) <= INLINE_MAX_BYTES
        else await run_in_threadpool(parse_urlencoded, raw, charset)
    )
    refuse_no_form(raw, form)
    return form


def _urlencoded_too_large(size: int) -> ProblemError:
    return ProblemError(
        "body-too-large",
        f"a URL-encoded form is at most "
        f"{URLENCODED_MAX_BYTES:,} bytes (this one is {size:,}; a 5,000-line "
        "decklist percent-encoded is ~300 KB): send a larger decklist as "
        "multipart/form-data (a `file` field) or JSON, which take up to "
        f"{MAX_BODY_BYTES:,} bytes",
    )


def refuse_incomplete_multipart(raw: bytes, content_type: str) -> None:
    """A multipart body ends with its closing delimiter (`--BOUNDARY--`, RFC 2046 5.1.1):
    one without it was cut short (a dropped connection, a client that stopped writing) and
    is refused as such, not parsed into a form that seems to lack its `file` field."""
    try:
        from python_multipart.multipart import parse_options_header
    except ImportError:  # python-multipart before 0.0.13
        from multipart.multipart import parse_options_header  # type: ignore[no-redef]

    _, params = parse_options_header(content_type)
    boundary = params.get(b"boundary")
    if not boundary:
        return  # the form parser refuses it (malformed-body, no boundary)
    if b"--" + boundary.strip(b'"') + b"--" not in raw:
        raise ProblemError(
            "malformed-body",
            "the multipart body is incomplete: it ends "
            f"without its closing boundary (--{boundary.decode('latin-1')[:70]}--),"
            " so it was cut short: send the whole body again",
        )


def refuse_unsupported(media: str) -> None:
    """A body of no accepted type (no Content-Type at all, as `requests.post(url, data=text)`
    sends, or application/octet-stream) is a 415 saying what to send, whatever the query."""
    if not (is_json(media) or media in _FORM_TYPES or media == "text/plain"):
        raise ProblemError(
            "unsupported-media-type",
            f"content type {media or '(none)'!r} is not "
            "accepted; send application/json (the options in the JSON object), "
            "multipart/form-data (a `file` field, the options as form fields) or "
            "text/plain (the decklist as the body, the options in the query "
            "string: ?format=modern)",
        )


def refuse_query_beside_body(request: Request, media: str) -> None:
    """Options come from the body, or (text/plain only) from the query string: an option in
    the query beside a JSON or form body would be ignored, so it is refused instead. Other
    query parameters (a cache-buster `?_=...`, an API gateway's `?api_key=...`) are none of
    the service's business and pass untouched."""
    if media == "text/plain":
        return
    named = sorted(QUERY_OPTIONS.intersection(request.query_params.keys()))
    if named:
        it = "them" if len(named) > 1 else "it"
        raise ProblemError(
            "bad-input",
            f"option{'s' if len(named) > 1 else ''} "
            f"{', '.join(named)} in the query string beside a JSON or form "
            f"body: put {it} in the body (only a text/plain body takes its "
            "options from the query string)",
        )


async def read_deck_request(
    request: Request, model: type[BaseModel]
) -> tuple[BaseModel, str | bytes]:
    """The options and the decklist (text, or a file's raw bytes: .dek files may be UTF-16)."""
    media = media_type(request.headers.get("content-type", ""))
    refuse_encoded(request.headers.get("content-encoding"))
    refuse_unsupported(media)
    refuse_query_beside_body(request, media)
    charset = declared_charset(request.headers.get("content-type", ""))
    if is_json(media):
        raw: str | bytes = await request.body()
        if not _is_utf8(charset):
            raw = decode_declared(raw, charset)  # type: ignore[arg-type]
        if isinstance(raw, bytes) and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]  # RFC 8259 8.1: a parser may ignore a BOM
        elif isinstance(raw, str):
            raw = raw.removeprefix("\ufeff")
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            if isinstance(raw, bytes) and not _utf8(raw):
                raise ProblemError(
                    "malformed-body", NOT_UTF8.replace("text/plain", "application/json")
                ) from None
            raise ProblemError("malformed-body", f"the body is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ProblemError(
                "malformed-body",
                'the body must be a JSON object ({"decklist": "...", "format": "modern"})',
            )
        options = _checked(model, data)
        return options, options.decklist  # type: ignore[attr-defined]
    if media in _FORM_TYPES:
        if media == _URLENCODED:
            form = await read_urlencoded(request, charset)
        else:
            # Read whole first (the body limit bounds it; form() then parses the bytes read):
            # a body cut short is told apart from a form lacking its `file` field.
            refuse_incomplete_multipart(
                await request.body(), request.headers.get("content-type", "")
            )
            try:
                form = await request.form(max_files=1, max_fields=MAX_FORM_FIELDS, **_PART_LIMIT)
            except BodyTooLarge:
                raise
            except Exception as exc:  # noqa: BLE001 - python-multipart/Starlette parse errors
                raise ProblemError(
                    "malformed-body",
                    f"the form could not be read: {getattr(exc, 'detail', None) or exc}",
                ) from None
        upload = form.get("file")
        data = _fields_from(form, model)
        if upload is not None and form.get("decklist") is not None:
            # Which one to judge? Neither is dropped in silence.
            raise RequestValidationError(
                [
                    {
                        "type": "value_error",
                        "loc": ("body", field),
                        "msg": "send either a `file` or a `decklist` field, not both",
                        "input": None,
                    }
                    for field in ("file", "decklist")
                ]
            )
        if upload is not None and not isinstance(upload, str):
            content: str | bytes = await upload.read()
            data.setdefault("filename", upload.filename or None)
        elif isinstance(form.get("decklist"), str):
            content = form.get("decklist")  # type: ignore[assignment]
        else:
            raise RequestValidationError(
                [
                    {
                        "type": "missing",
                        "loc": ("body", "file"),
                        "msg": "a `file` field (or a `decklist` text field) is required",
                        "input": None,
                    }
                ]
            )
        options = _checked(model, {**data, "decklist": ""})
        return options, content
    # text/plain (refuse_unsupported let nothing else through)
    content = await request.body()
    if not _is_utf8(charset):
        content = decode_declared(content, charset)  # type: ignore[arg-type]
    elif not content.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not _utf8(content):
        # (UTF-16 with its BOM, as .dek files may be, is read as the CLI reads a file)
        raise ProblemError("bad-decklist", NOT_UTF8)
    try:
        options = _checked(model, {**_fields_from(request.query_params, model), "decklist": ""})
    except RequestValidationError as exc:
        raise RequestValidationError([_query_hint(e) for e in exc.errors()]) from None
    return options, content


def _query_hint(error: dict[str, Any]) -> dict[str, Any]:
    """A required option missing beside a text/plain body says where it goes: pydantic's
    "Field required" alone sent the client looking for a JSON field."""
    if error.get("type") != "missing" or not error.get("loc"):
        return error
    name = error["loc"][-1]
    return {
        **error,
        "msg": f"{error.get('msg', 'Field required')}: pass ?{name}=NAME in the "
        "query string (the body is the decklist)",
    }


#: A decklist up to this length (characters of a JSON field, or bytes of an upload) is judged
#: on the event loop itself; a longer one in the threadpool. A deck of a few hundred lines
#: takes under a millisecond of CPU, and handing it to a thread and back cost ~0.2 ms of CPU
#: more per request (the queue, the wake-ups, the GIL passing between the loop and the
#: thread: the ASGI app measured with the judging stubbed out) while buying no parallelism:
#: the GIL lets one thread judge at a time. A real deck (a 100-card .dek is ~10 KB) stays
#: under the limit; at the limit the slowest list measured (900 lines of distinct unknown
#: names) holds the loop ~20 ms, and anything longer (up to the body limit) runs in a thread
#: so the loop keeps reading and answering other requests meanwhile.
INLINE_MAX_BYTES = 32 * 1024


#: ... and of at most this many lines: the time a list takes grows with its lines (each
#: unknown name is looked up, each card checked), and a 32 KB list of short distinct unknown
#: names held the loop ~80-100 ms. A 100-card list is about 100 lines, a .dek about 200.
INLINE_MAX_LINES = 300


#: ... and house rules of at most this many characters in all: the rules grammar reads ~4 ms
#: of CPU per 1,000 characters (20 rules of 1,000 characters, the most a request may send,
#: ~85 ms), so a request is judged inline only when its rules are short too (a companion
#: sentence is under 200 characters: a few of them stay inline).
INLINE_MAX_RULE_CHARS = 2_000
