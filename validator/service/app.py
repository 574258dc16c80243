"""The upload-check service: a JSON API under /v1 and the paste-a-deck page at /.

Routes are thin: read the request (JSON, a multipart file upload or URL-encoded form, or
text/plain), call the public library API (`validator.parse_decklist`, `validator.validate`,
`validator.check_formats`, `validator.load_formats`, `CardDB.card`,
`validator.rules.resolve.suggestions`) on the worker's current card snapshot, and answer with what
the CLI's `--json` prints for one deck (a report without the `id` and `player` that name a
deck of a run). Nothing here writes: sync stays a CLI job.
"""

from __future__ import annotations

import codecs
import inspect
import datetime as dt
import json
import os
import re
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Callable
from urllib.parse import quote

import orjson
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import Response
from starlette.datastructures import FormData
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool

import validator
from validator.rules.formats import get_format
from validator.rules.resolve import suggestions
from validator.report import card_facts, check_formats_dict

from validator.service import problems
from validator.service.bodylimit import (DECKLIST_MAX_BYTES, BodyLimitMiddleware, BodyTooLarge, MAX_BODY_BYTES,
                        too_large_detail)
from validator.service.cards import ORACLE_BULK, CardHolder, Snapshot, iso, snapshot_card, snapshot_provenance
from validator.service.fastpath import ValidateFastPath, declared_charset, is_json, is_utf8 as _is_utf8, media_type
from validator.service.problems import ProblemError

STATIC = Path(__file__).parent / "static"
#: How a multi-worker server passes its configuration to each worker process (uvicorn imports
#: the app by name in every worker).
CONFIG_ENV = "DECKCHECK_SERVE_CONFIG"


@dataclass(frozen=True)
class ServiceConfig:
    db: str | None = None  # a path or SQLAlchemy URL; None: $DECKCHECK_DB or the default
    poll_seconds: float = 5.0  # how often each worker looks for a new sync (0: never)
    cors_origins: tuple[str, ...] = ()  # CORS is off unless origins are listed
    formats_file: str | None = None  # house formats, as `--formats-file`

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls, value: str) -> "ServiceConfig":
        data = json.loads(value)
        data["cors_origins"] = tuple(data.get("cors_origins") or ())
        return cls(**data)


# ---------------------------------------------------------------------------- request bodies

#: Longer than any card name (the longest are about 140 characters): not looked up.
MAX_CARD_NAME = 200

#: A house rule's length: companion sentences are under 200 characters. The rules grammar
#: parses on the event loop's worker; 20 rules of 235 KB each held it 22 s.
MAX_RULE_CHARS = 1_000


class DeckRequest(BaseModel):
    """A deck to check. Unknown fields are refused (422): a misspelt option is never ignored."""

    model_config = ConfigDict(extra="forbid")

    decklist: str = Field(description="the decklist as pasted or exported (any supported format)")
    filename: str | None = Field(None, max_length=255,
                                 description="the file's name: helps detection, becomes `source`")
    input_format: str | None = Field(None, max_length=32,
                                     description="force a decklist format (default: detected)")
    commanders: list[str] = Field(default_factory=list, max_length=4,
                                  description="designate commanders (partners: two names)")
    rules: list[str] = Field(default_factory=list, max_length=20,
                             description="house rules in companion English")
    bracket: int | None = Field(None, ge=1, le=5, description="Commander Brackets: check bracket N")
    as_of: dt.date | str | None = Field(
        None, description="legality as of this date (YYYY-MM-DD), or of a month (YYYY-MM, for "
                          "a deck known only to its month: judged as of the month's last day, "
                          "and the report's `as_of_precision` is \"month\")")

    @field_validator("commanders")
    @classmethod
    def _commanders_read(cls, names: list[str]) -> list[str]:
        """A commander is a card name: not blank, and no longer than any card name (a name is
        echoed back in errors, so a 200 KB one would be answered with 200 KB)."""
        for name in names:
            if not name.strip():
                raise ValueError("a commander name is empty: give the card's name, or leave "
                                 "the commander out")
            if len(name) > MAX_CARD_NAME:
                raise ValueError(f"a commander name of {len(name)} characters is no card name "
                                 f"(the longest are under {MAX_CARD_NAME})")
        return names

    @field_validator("rules")
    @classmethod
    def _rules_short(cls, rules: list[str]) -> list[str]:
        """A house rule is a sentence in companion English (the longest companion condition
        is under 200 characters): a longer one is refused before the grammar reads it."""
        for rule in rules:
            if len(rule) > MAX_RULE_CHARS:
                raise ValueError(f"a house rule of {len(rule):,} characters: a rule is one "
                                 f"sentence of at most {MAX_RULE_CHARS:,} characters (companion "
                                 "conditions are under 200)")
        return rules

    @field_validator("input_format")
    @classmethod
    def _input_format_known(cls, value: str | None) -> str | None:
        """A decklist format the library reads (as `--input-format`): another is a wrong
        field value (422 `invalid-field` naming it and the names taken), not a bad decklist."""
        from validator.decklist import INPUT_FORMATS

        if value is not None and value.strip().lower() not in INPUT_FORMATS:
            raise ValueError(f"unknown input format {value!r}: use one of "
                             f"{', '.join(INPUT_FORMATS)} (or leave it out: detected)")
        return value

    @field_validator("bracket", mode="before")
    @classmethod
    def _bracket_is_a_number(cls, value: Any) -> Any:
        if isinstance(value, bool):  # JSON true is no bracket (pydantic would read it as 1)
            raise ValueError("a bracket is a number from 1 to 5, not true or false")
        return value

    @field_validator("as_of", mode="before")
    @classmethod
    def _as_of_is_text(cls, value: Any) -> Any:
        """A date is text (JSON has no dates): a number such as 20260101 is refused saying the
        forms taken, not with pydantic's words about datetimes."""
        if value is not None and not isinstance(value, (str, dt.date)):
            from validator.dates import AS_OF_FORMS

            raise ValueError(f"not a date: write it as a string, {AS_OF_FORMS}")
        return value

class ValidateRequest(DeckRequest):
    format: str = Field(max_length=64, description="format key (see GET /v1/formats)")


class CheckFormatsRequest(DeckRequest):
    pass


#: The options of one format that POST /v1/check-formats refuses (`Service.check_formats`).
_ONE_FORMAT_OPTIONS = frozenset({"rules", "bracket"})


class ProblemDoc(BaseModel):
    """An RFC 9457 problem (`application/problem+json`); `errors` only on 422."""

    type: str = Field(examples=["urn:deckcheck:problem:unknown-format"])
    title: str
    status: int
    detail: str
    code: str = Field(description="the stable code the type ends with")
    instance: str | None = None
    errors: list[dict[str, str]] | None = None


def _problems_doc(*statuses: int) -> dict[int | str, dict[str, Any]]:
    described = {400: "unknown format, malformed body, unreadable decklist or house rule",
                 404: "no card by that name (`suggestions` lists close names)",
                 413: f"body over {MAX_BODY_BYTES:,} bytes (a decklist: at most "
                      f"{DECKLIST_MAX_BYTES:,})", 415: "content type not accepted",
                 422: "a field of the wrong type or value", 503: "card data not loaded yet"}
    schema = ProblemDoc.model_json_schema()
    return {status: {"description": described[status],
                     "content": {problems.MEDIA_TYPE: {"schema": schema}}} for status in statuses}


_REPORT_DOC = {"description": "the deckcheck.report/1 object `deckcheck validate --json` "
                              "prints (README \"JSON report\"); an illegal deck is a 200 too",
               "content": {"application/json": {"schema": {"type": "object"}}}}


def _query_doc(model: type[BaseModel]) -> list[dict[str, Any]]:
    """The query parameters a text/plain body takes its options from (`_fields_from`): each
    option the model has, lists as repeated keys (`?commander=A&commander=B`)."""
    props = model.model_json_schema()["properties"]
    # check-formats refuses the options of one format (bad-input): not offered
    offered = [name for name in props
               if not (model is CheckFormatsRequest and name in _ONE_FORMAT_OPTIONS)]
    params = []
    for name in _SCALAR_FIELDS:
        if name in offered:
            schema = {k: v for k, v in props[name].items() if k not in ("title", "description")}
            params.append({"name": name, "in": "query", "required": False, "schema": schema,
                           "description": f"text/plain body only: {props[name].get('description', name)}"})
    for name, (plural, single) in _LIST_FIELDS.items():
        if name in offered:
            params.append({"name": single, "in": "query", "required": False,
                           "schema": {"type": "array", "items": {"type": "string"}},
                           "style": "form", "explode": True,
                           "description": f"text/plain body only: {props[name].get('description')} "
                                          f"(repeat the key for each; `{plural}` is taken too)"})
    return params


def _body_doc(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI for a body read by hand: JSON, a multipart upload, a URL-encoded form, or
    text/plain (its options as query parameters)."""
    schema = model.model_json_schema()
    form = {"type": "object", "properties": {
        "file": {"type": "string", "format": "binary", "description": "the decklist file"},
        **{k: v for k, v in schema["properties"].items() if k != "decklist"}}}
    return {"parameters": _query_doc(model), "requestBody": {"required": True, "content": {
        "application/json": {"schema": schema},
        "multipart/form-data": {"schema": form},
        # an HTML form's default: the decklist in a `decklist` field, each value percent-encoded
        "application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
            k: v for k, v in schema["properties"].items()}}},
        "text/plain": {"schema": {"type": "string", "description":
                                  "the decklist; options as query parameters (?format=modern)"}},
    }}}


_LIST_FIELDS = {"commanders": ("commanders", "commander"), "rules": ("rules", "rule")}
_SCALAR_FIELDS = ("format", "filename", "input_format", "bracket", "as_of")


def _fields_from(multi: Any, model: type[BaseModel]) -> dict[str, Any]:
    """Options from form fields or query parameters (lists repeat the key)."""
    data: dict[str, Any] = {}
    for name in _SCALAR_FIELDS:
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
    raise ProblemError("bad-as-of", f"as_of is not a date: write it as {AS_OF_FORMS}; "
                       "or leave as_of out (or send null) to judge by current legality")


_NAME_A_CHARSET = ("send the body as UTF-8 (charset=utf-8) or name a known charset "
                   "(e.g. charset=iso-8859-1, windows-1252, utf-16)")


def check_charset(charset: str) -> None:
    """A declared charset no decoder knows, or that is no text encoding, is a 415."""
    try:
        info = codecs.lookup(charset)
    except LookupError:
        raise ProblemError("unsupported-media-type", f"charset {charset[:40]!r} is not known: "
                           f"{_NAME_A_CHARSET}") from None
    # rot13, base64, bz2, zlib, hex, uu, quopri, undefined...: Python codecs, no text encodings
    if not getattr(info, "_is_text_encoding", True):
        raise ProblemError("unsupported-media-type", f"charset {charset[:40]!r} is no text "
                           f"encoding: {_NAME_A_CHARSET}")


def _decode(raw: bytes, charset: str, invalid: Callable[[int], str]) -> str:
    """`raw` read in `charset`: bytes it cannot decode are a 400 `invalid(byte offset)`, a
    codec that refuses to decode at all a 415."""
    try:
        return raw.decode(charset)
    except UnicodeDecodeError as exc:
        raise ProblemError("malformed-body", invalid(exc.start)) from None
    except (UnicodeError, LookupError, ValueError, TypeError):  # a codec that refuses to decode
        raise ProblemError("unsupported-media-type", f"charset {charset[:40]!r} cannot decode "
                           f"a body: {_NAME_A_CHARSET}") from None


def decode_declared(raw: bytes, charset: str) -> str:
    """A body in its declared (not UTF-8) charset, as text: an unknown charset is a 415, bytes
    the charset cannot decode a 400 naming it."""
    check_charset(charset)
    return _decode(raw, charset, lambda start: (
        f"the body is not valid {charset} (byte {start}), the charset its Content-Type "
        "declares: send it in that charset, or as UTF-8"))


NOT_UTF8 = ("the body is not UTF-8: send it as UTF-8, or declare its charset in the "
            "Content-Type (e.g. text/plain; charset=utf-16)")


def refuse_encoded(encoding: str | None) -> None:
    """A compressed body would be read as a decklist's bytes and fail as "not valid UTF-8":
    say what is wrong instead (a decklist is small; nothing here decompresses)."""
    if encoding and encoding.strip().lower() != "identity":
        raise ProblemError("unsupported-media-type", f"Content-Encoding {encoding.strip()[:40]!r} "
                           "is not accepted: send the body uncompressed")


#: The query parameters a text/plain body takes its options from (`_fields_from`).
QUERY_OPTIONS = frozenset(_SCALAR_FIELDS).union(*_LIST_FIELDS.values())
#: The fields a form may have: the options and the decklist (a `file` or a `decklist` field).
_FORM_KEYS = QUERY_OPTIONS | {"decklist", "file"}

_FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")  # README: both

#: A `decklist` text field as large as the body limit allows (Starlette's own default, 1 MB,
#: would refuse a decklist the library takes when its limit is higher); older Starlette
#: versions have no such limit.
_PART_LIMIT = ({"max_part_size": MAX_BODY_BYTES}
               if "max_part_size" in inspect.signature(Request.form).parameters else {})


_URLENCODED = "application/x-www-form-urlencoded"


def refuse_no_form(raw: bytes, form: Any) -> None:
    """A URL-encoded body is a form (an HTML form's default, `curl --data-urlencode
    decklist@deck.txt -d format=modern`). `curl -d` without `-H` sends that Content-Type with
    whatever it is given: JSON, or a decklist file with its line breaks dropped (`-d @file`),
    or a decklist whose `&` (Minsc & Boo) cuts the field in two. Each is refused saying what
    to send, not as a form missing its `decklist` field."""
    text = raw.lstrip()
    if text[:1] in (b"{", b"["):
        raise ProblemError("malformed-body", "the body is JSON but its Content-Type is "
                           "application/x-www-form-urlencoded (what curl -d sends without -H): "
                           "send it with Content-Type: application/json (curl -H "
                           "'content-type: application/json' -d ...)")
    if text and b"=" not in text:
        raise ProblemError("malformed-body", "the body is not a form (name=value&...) though "
                           "its Content-Type is application/x-www-form-urlencoded (what curl "
                           "-d sends without -H; curl -d @file also drops the line breaks): "
                           "send the decklist as text/plain with the options in the query "
                           "string (curl -H 'content-type: text/plain' --data-binary @deck.txt "
                           "'...?format=modern'), or percent-encode a form (curl "
                           "--data-urlencode decklist@deck.txt -d format=modern)")
    cut = [key for key in form.keys() if key not in _FORM_KEYS
           and any(c.isspace() for c in key)]
    if cut:
        raise ProblemError("malformed-body", "the form's values are not percent-encoded: a "
                           "`&` in the decklist (as in Minsc & Boo) cut it, leaving a field "
                           "named like a decklist line: percent-encode each value (curl --data-urlencode "
                           "decklist@deck.txt -d format=modern), or send the decklist as "
                           "text/plain with the options in the query string")


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
    return _decode(raw, charset, lambda start: (  # type: ignore[arg-type]
        f"the form is not valid {charset}, the charset its Content-Type declares (a name or "
        f"value's byte {start}, percent-decoded): send it in that charset, or as UTF-8"))


def parse_urlencoded(raw: bytes, charset: str | None = None) -> FormData:
    """An application/x-www-form-urlencoded body as a form (fields split on `&`, an empty one
    skipped, a name without `=` has the empty value), each name and value read in `charset`
    (`_unquote_plus`); more than MAX_FORM_FIELDS fields is a 400 `malformed-body`. Work and
    memory grow with the body's length only."""
    fields: list[tuple[str, str]] = []
    for match in re.finditer(rb"[^&]+", raw):
        if len(fields) == MAX_FORM_FIELDS:
            raise ProblemError("malformed-body", f"the form has more than {MAX_FORM_FIELDS} "
                               "fields: send the decklist in one `decklist` field and each "
                               "option once (commander and rule may repeat)")
        name, _, value = match.group().partition(b"=")
        fields.append((_unquote_plus(name, charset), _unquote_plus(value, charset)))
    return FormData(fields)


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
    form = (parse_urlencoded(raw, charset) if len(raw) <= INLINE_MAX_BYTES
            else await run_in_threadpool(parse_urlencoded, raw, charset))
    refuse_no_form(raw, form)
    return form


def _urlencoded_too_large(size: int) -> ProblemError:
    return ProblemError("body-too-large", f"a URL-encoded form is at most "
                        f"{URLENCODED_MAX_BYTES:,} bytes (this one is {size:,}; a 5,000-line "
                        "decklist percent-encoded is ~300 KB): send a larger decklist as "
                        "multipart/form-data (a `file` field) or JSON, which take up to "
                        f"{MAX_BODY_BYTES:,} bytes")


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
        raise ProblemError("malformed-body", "the multipart body is incomplete: it ends "
                           f"without its closing boundary (--{boundary.decode('latin-1')[:70]}--),"
                           " so it was cut short: send the whole body again")


def refuse_unsupported(media: str) -> None:
    """A body of no accepted type (no Content-Type at all, as `requests.post(url, data=text)`
    sends, or application/octet-stream) is a 415 saying what to send, whatever the query."""
    if not (is_json(media) or media in _FORM_TYPES or media == "text/plain"):
        raise ProblemError("unsupported-media-type", f"content type {media or '(none)'!r} is not "
                           "accepted; send application/json (the options in the JSON object), "
                           "multipart/form-data (a `file` field, the options as form fields) or "
                           "text/plain (the decklist as the body, the options in the query "
                           "string: ?format=modern)")


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
        raise ProblemError("bad-input", f"option{'s' if len(named) > 1 else ''} "
                           f"{', '.join(named)} in the query string beside a JSON or form "
                           f"body: put {it} in the body (only a text/plain body takes its "
                           "options from the query string)")


async def read_deck_request(request: Request, model: type[BaseModel]) -> tuple[BaseModel, str | bytes]:
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
            raw = raw[len(codecs.BOM_UTF8):]  # RFC 8259 8.1: a parser may ignore a BOM
        elif isinstance(raw, str):
            raw = raw.removeprefix("\ufeff")
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            if isinstance(raw, bytes) and not _utf8(raw):
                raise ProblemError("malformed-body", NOT_UTF8.replace("text/plain",
                                   "application/json")) from None
            raise ProblemError("malformed-body", f"the body is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ProblemError("malformed-body", "the body must be a JSON object "
                               '({"decklist": "...", "format": "modern"})')
        options = _checked(model, data)
        return options, options.decklist  # type: ignore[attr-defined]
    if media in _FORM_TYPES:
        if media == _URLENCODED:
            form = await read_urlencoded(request, charset)
        else:
            # Read whole first (the body limit bounds it; form() then parses the bytes read):
            # a body cut short is told apart from a form lacking its `file` field.
            refuse_incomplete_multipart(await request.body(),
                                        request.headers.get("content-type", ""))
            try:
                form = await request.form(max_files=1, max_fields=MAX_FORM_FIELDS, **_PART_LIMIT)
            except BodyTooLarge:
                raise
            except Exception as exc:  # noqa: BLE001 - python-multipart/Starlette parse errors
                raise ProblemError("malformed-body", f"the form could not be read: "
                                   f"{getattr(exc, 'detail', None) or exc}") from None
        upload = form.get("file")
        data = _fields_from(form, model)
        if upload is not None and form.get("decklist") is not None:
            # Which one to judge? Neither is dropped in silence.
            raise RequestValidationError([{"type": "value_error", "loc": ("body", field),
                                           "msg": "send either a `file` or a `decklist` field, "
                                                  "not both", "input": None}
                                          for field in ("file", "decklist")])
        if upload is not None and not isinstance(upload, str):
            content: str | bytes = await upload.read()
            data.setdefault("filename", upload.filename or None)
        elif isinstance(form.get("decklist"), str):
            content = form.get("decklist")  # type: ignore[assignment]
        else:
            raise RequestValidationError([{"type": "missing", "loc": ("body", "file"),
                                           "msg": "a `file` field (or a `decklist` text field) "
                                                  "is required", "input": None}])
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
    return {**error, "msg": f"{error.get('msg', 'Field required')}: pass ?{name}=NAME in the "
                            "query string (the body is the decklist)"}


# ---------------------------------------------------------------------------- answers

def _json(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(data), status_code=status, media_type="application/json")


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


async def judge(fn: Callable[..., Any], options: Any, content: str | bytes) -> Any:
    """`fn(options, content)`: inline for a small request (a short decklist and short house
    rules), in the threadpool for a larger one."""
    newline = "\n" if isinstance(content, str) else b"\n"
    rule_chars = sum(len(rule) for rule in getattr(options, "rules", ()))
    if (len(content) <= INLINE_MAX_BYTES and content.count(newline) < INLINE_MAX_LINES  # type: ignore[arg-type]
            and rule_chars <= INLINE_MAX_RULE_CHARS):
        return fn(options, content)
    return await run_in_threadpool(fn, options, content)


#: Problems listed per format by POST /v1/check-formats (in `formats` and in `reports`), the
#: rest counted in `problems_omitted`. A deck's input problems (each unknown name, each
#: unreadable line) are found in every format: 4,999 unknown lines made a 114 MB answer
#: (22 formats, each listing all of them twice). Capped, the answer stays under a few MB
#: whatever the list; POST /v1/validate gives one format's report whole.
MAX_PROBLEMS_PER_FORMAT = 50


def _capped(entry: dict[str, Any]) -> dict[str, Any]:
    """`entry` with its `problems` cut to the first MAX_PROBLEMS_PER_FORMAT (they come most
    severe first) and `problems_omitted`: how many were left out (0: none)."""
    listed = entry["problems"]
    entry["problems_omitted"] = max(0, len(listed) - MAX_PROBLEMS_PER_FORMAT)
    del listed[MAX_PROBLEMS_PER_FORMAT:]
    return entry


def check_formats_answer(reports: list[Any], source: str | None,
                         provenance: dict[str, Any] | None = None) -> dict[str, Any]:
    """What `deckcheck check-formats --json` prints (`legal_in`, per format its errors, the
    `provenance`), plus `reports`: the deckcheck.report/1 object of every format; each
    format's problems capped at MAX_PROBLEMS_PER_FORMAT (README "check-formats over HTTP")."""
    answer = check_formats_dict(reports, source, limit=MAX_PROBLEMS_PER_FORMAT)
    if provenance is not None:
        answer["provenance"] = provenance
    answer["reports"] = [_capped(r.to_dict()) for r in reports]
    return answer


class Service:
    """One worker's state: the configuration, the formats, the card holder."""

    def __init__(self, config: ServiceConfig, holder: CardHolder | None = None) -> None:
        self.config = config
        self.formats = validator.load_formats(config.formats_file)
        self.holder = holder or CardHolder(config.db, poll_seconds=config.poll_seconds)

    def snapshot(self) -> Snapshot:
        snap = self.holder.current
        if snap is None:
            raise ProblemError("not-ready", "the card data is still loading; retry shortly")
        return snap

    @staticmethod
    def _options(options: DeckRequest, snap: Snapshot) -> dict[str, Any]:
        """Legality as of a date: the snapshot's history (shipped history + the change log of
        the database the snapshot was loaded from), so the index and the history agree."""
        if options.as_of is None:
            return {}
        check_as_of(options.as_of)
        return {"as_of": options.as_of, "history": snap.history}

    def _deck(self, options: DeckRequest, content: str | bytes) -> Any:
        return validator.parse_decklist(content, input_format=options.input_format,
                                        filename=options.filename)

    def validate(self, options: ValidateRequest, content: str | bytes) -> dict[str, Any]:
        snap = self.snapshot()  # this request's data, start to finish, even across a swap
        if options.bracket is not None or options.commanders:  # in the request's words
            try:  # api.check_bracket's rule (CR 903.3), worded with the request's fields
                validator.api.check_bracket(
                    get_format(options.format, self.formats), options.bracket,
                    options.commanders, spelled=("`bracket`", "`commanders`"),
                    instead='send "format": "commander"')
            except validator.UsageError as exc:
                raise ProblemError("bad-input", str(exc)) from None
        extra = self._options(options, snap)
        deck = self._deck(options, content)
        report = validator.validate(deck, options.format, cards=snap.index,
                                    commanders=options.commanders, rules=options.rules,
                                    bracket=options.bracket, formats=self.formats,
                                    source=options.filename, **extra)
        # As `deckcheck validate --json`: the report and where its verdict came from.
        return dict(report.to_dict(), provenance=self._provenance(snap, options, deck))

    @staticmethod
    def _provenance(snap: Snapshot, options: DeckRequest, deck: Any) -> dict[str, Any]:
        return snapshot_provenance(snap, options.as_of if options.as_of is not None
                                   else deck.as_of)

    def check_formats(self, options: CheckFormatsRequest, content: str | bytes) -> dict[str, Any]:
        if any(getattr(options, name) not in (None, []) for name in _ONE_FORMAT_OPTIONS):
            raise ProblemError("bad-input", "`rules` and `bracket` apply to one format: "
                               "use POST /v1/validate")
        snap = self.snapshot()
        extra = self._options(options, snap)
        deck = self._deck(options, content)
        reports = validator.check_formats(deck, cards=snap.index, formats=self.formats,
                                          commanders=options.commanders,
                                          source=options.filename, **extra)
        return check_formats_answer(reports, options.filename,
                                    self._provenance(snap, options, deck))

    def card(self, name: str) -> dict[str, Any]:
        snap = self.snapshot()
        if len(name) > MAX_CARD_NAME:
            # Named (cut short) and placed like any other 404: the path is too long to echo.
            shown = name[:MAX_CARD_NAME] + "…"
            raise ProblemError("unknown-card", f"no card has a name of {len(name)} characters "
                               f"(the longest are under {MAX_CARD_NAME})", name=shown,
                               suggestions=[], instance=f"/v1/cards/{quote(shown)}")
        card = snapshot_card(snap, name)  # the snapshot validation uses, never newer data
        if card is None:
            hint = suggestions(name, snap.index, short_names=True)  # as `deckcheck card`
            did = f"; did you mean {' or '.join(hint)}?" if hint else ""
            raise ProblemError("unknown-card", f"no card named {name!r}{did}", name=name,
                               suggestions=hint)
        return card_facts(card, snap.formats)

    def health(self) -> dict[str, Any]:
        """Ready when requests can be answered: the data loaded and its database readable
        (card pages, printings and tokens are read from it), and the last poll could read it
        and load its new data (a database file replaced by one that is no card database is
        not healthy, though the loaded data keeps being served: README "Scheduling the sync").
        The poller has logged why, once: a load balancer's probes add nothing to the log."""
        snap = self.snapshot()
        if self.holder.failure is not None:
            raise ProblemError("database-unavailable", problems.DATABASE_UNAVAILABLE)
        try:
            readable = snap.db.last_sync(ORACLE_BULK) is not None
        except Exception as exc:  # noqa: BLE001 - any driver error: the database is unusable
            raise validator.DatabaseError(f"the card database cannot be read: {exc}") from exc
        if not readable:
            raise validator.DatabaseError("the card database holds no sync any more "
                                          "(emptied or replaced by an unsynced file)")
        sync = snap.sync or {}
        return {"status": "ok", "version": validator.__version__, "cards": snap.card_count,
                # Scryfall's updated_at of the bulk file loaded, else (a `sync --from` file:
                # Scryfall's time unknown) when that sync finished: never null once synced.
                # `scryfall_updated_at` is Scryfall's alone (null when unknown), as `deckcheck
                # info`'s updated_at and a report's provenance.card_data.scryfall_updated_at.
                "updated_at": snap.updated_at,
                "scryfall_updated_at": iso(sync.get("updated_at")),
                "sync": {"id": sync.get("id"), "sha256": sync.get("sha256"),
                         "finished_at": iso(sync.get("finished_at"))},
                "loaded_at": dt.datetime.fromtimestamp(snap.loaded_at, dt.timezone.utc).isoformat(),
                "load_seconds": round(snap.load_seconds, 3), "swaps": self.holder.swaps}


# ---------------------------------------------------------------------------- the app

def create_app(config: ServiceConfig | None = None, *, holder: CardHolder | None = None) -> FastAPI:
    """The ASGI app. The card index is loaded once per worker at start-up (lifespan): the
    server accepts no request before it is ready."""
    config = config or ServiceConfig()
    service = Service(config, holder)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if service.holder.current is None:
            await run_in_threadpool(service.holder.load)
        service.holder.start_polling()
        try:
            yield
        finally:
            service.holder.stop()

    app = FastAPI(title="deckcheck", version=validator.__version__, lifespan=lifespan,
                  description="Magic: The Gathering deck legality: the `deckcheck validate "
                              "--json` report over HTTP. Errors are RFC 9457 problem details.",
                  # /docs would load Swagger UI from a CDN: nothing served may need the network.
                  docs_url=None, redoc_url=None)
    app.state.service = service
    problems.install(app)

    @app.exception_handler(BodyTooLarge)
    async def _too_large(request: Request, exc: BodyTooLarge) -> Response:
        return problems.problem_response("body-too-large", too_large_detail(MAX_BODY_BYTES),
                                         request.url.path, headers={"connection": "close"})

    app.add_middleware(BodyLimitMiddleware, max_bytes=MAX_BODY_BYTES)

    async def validate_answer(options: ValidateRequest) -> dict[str, Any]:
        return await judge(service.validate, options, options.decklist)

    # Outside the body limit (it enforces the same limit itself), inside CORS (its answers
    # get the CORS headers too): JSON validate requests skip the framework's per-request layers.
    app.add_middleware(ValidateFastPath, model=ValidateRequest, answer=validate_answer,
                       query_options=QUERY_OPTIONS)
    if config.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(config.cors_origins),
                           allow_methods=["GET", "POST"], allow_headers=["Content-Type"])

    @app.post("/v1/validate", openapi_extra=_body_doc(ValidateRequest),
              responses={200: _REPORT_DOC, **_problems_doc(400, 413, 415, 422, 503)},
              summary="Validate a deck against one format: the deckcheck.report/1 object")
    async def post_validate(request: Request) -> Response:
        options, content = await read_deck_request(request, ValidateRequest)
        return _json(await judge(service.validate, options, content))

    @app.post("/v1/check-formats", openapi_extra=_body_doc(CheckFormatsRequest),
              responses=_problems_doc(400, 413, 415, 422, 503),
              summary="Validate a deck against every format")
    async def post_check_formats(request: Request) -> Response:
        options, content = await read_deck_request(request, CheckFormatsRequest)
        return _json(await run_in_threadpool(service.check_formats, options, content))

    @app.get("/v1/formats", summary="The formats and their deck rules (as `deckcheck formats --json`)")
    async def get_formats() -> Response:
        return _json({k: f.to_dict() for k, f in service.formats.items()})

    @app.get("/v1/cards/{name:path}", summary="A card as the validator sees it",
             responses=_problems_doc(404, 503))
    async def get_card(name: str) -> Response:
        return _json(await run_in_threadpool(service.card, name))

    # HEAD answers too (load balancers probe with it), kept out of the schema: one documented
    # operation, not two with the same id.
    @app.head("/healthz", include_in_schema=False)
    @app.get("/healthz", summary="Ready: card count, the sync's updated_at, version",
             responses=_problems_doc(503))
    async def healthz() -> Response:
        return _json(await run_in_threadpool(service.health))

    # The page checks a decklist's size before sending it, against the library's own limit.
    page_html = (STATIC / "index.html").read_text(encoding="utf-8").replace(
        "{{MAX_BYTES}}", str(DECKLIST_MAX_BYTES))

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> Response:
        response = Response(page_html, media_type="text/html")
        # Every asset is local (venues are often offline): the page may load nothing else.
        response.headers["content-security-policy"] = (
            "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
            "frame-ancestors 'none'")
        response.headers["x-content-type-options"] = "nosniff"
        return response

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _document_errors_only_as_answered(app)
    return app


def _document_errors_only_as_answered(app: FastAPI) -> None:
    """FastAPI documents a 422 `HTTPValidationError` on every route with a path parameter;
    `GET /v1/cards/{name}` never answers it (any text is a name) and every error is
    problem+json: the schema lists only what is answered."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            for path in schema.get("paths", {}).values():
                for operation in path.values():
                    responses = operation.get("responses", {})
                    default = responses.get("422", {}).get("content", {}).get("application/json")
                    if default is not None:
                        del responses["422"]
            components = schema.get("components", {}).get("schemas", {})
            if "HTTPValidationError" in components and "#/components/schemas/HTTPValidationError" \
                    not in json.dumps(schema.get("paths")):
                components.pop("HTTPValidationError", None)
                components.pop("ValidationError", None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def app_from_env() -> FastAPI:
    """uvicorn's factory in each worker of a multi-worker server."""
    value = os.environ.get(CONFIG_ENV)
    return create_app(ServiceConfig.from_env(value) if value else ServiceConfig())
