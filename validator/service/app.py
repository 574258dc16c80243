"""The upload-check service: a JSON API under /v1 and the paste-a-deck page at /.

Routes are thin: read the request (JSON, a multipart file upload, or text/plain), call the
public library API (`validator.parse_decklist`, `validator.validate`, `validator.check_formats`,
`validator.load_formats`, `CardDB.card`, `validator.resolve.suggestions`) on the worker's
current card snapshot, and answer with exactly what the CLI's `--json` prints. Nothing here
writes: sync stays a CLI job.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import orjson
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool

import validator
from validator.formats import get_format
from validator.resolve import suggestions
from validator.report import card_facts, check_formats_dict

from . import problems
from .bodylimit import BodyLimitMiddleware, BodyTooLarge, MAX_BODY_BYTES, too_large_detail
from .cards import ORACLE_BULK, CardHolder, Snapshot, iso, snapshot_card, snapshot_provenance
from .fastpath import ValidateFastPath, is_json, media_type
from .problems import ProblemError

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
            from validator.history import AS_OF_FORMS

            raise ValueError(f"not a date: write it as a string, {AS_OF_FORMS}")
        return value

    @field_validator("as_of")
    @classmethod
    def _as_of_reads(cls, value: dt.date | str | None) -> dt.date | str | None:
        """A text date is read as the library reads it (`history.parse_as_of`), so the service
        takes what `--as-of` and the API take; an unreadable one is a 422 naming the field
        (its value is not echoed)."""
        if isinstance(value, str):
            from validator.history import AS_OF_FORMS, AsOfError, parse_as_of

            try:
                parse_as_of(value)
            except AsOfError:
                raise ValueError(f"not a date: write it as {AS_OF_FORMS}") from None
        return value


class ValidateRequest(DeckRequest):
    format: str = Field(max_length=64, description="format key (see GET /v1/formats)")


class CheckFormatsRequest(DeckRequest):
    pass


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
                 413: "body over 5 MB", 415: "content type not accepted",
                 422: "a field of the wrong type or value", 503: "card data not loaded yet"}
    schema = ProblemDoc.model_json_schema()
    return {status: {"description": described[status],
                     "content": {problems.MEDIA_TYPE: {"schema": schema}}} for status in statuses}


_REPORT_DOC = {"description": "the deckcheck.report/1 object `deckcheck validate --json` "
                              "prints (README \"JSON report\"); an illegal deck is a 200 too",
               "content": {"application/json": {"schema": {"type": "object"}}}}


def _body_doc(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI for a body read by hand: JSON, a multipart upload, or text/plain."""
    schema = model.model_json_schema()
    form = {"type": "object", "properties": {
        "file": {"type": "string", "format": "binary", "description": "the decklist file"},
        **{k: v for k, v in schema["properties"].items() if k != "decklist"}}}
    return {"requestBody": {"required": True, "content": {
        "application/json": {"schema": schema},
        "multipart/form-data": {"schema": form},
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
    unknown = set(multi.keys()) - set(_SCALAR_FIELDS) - {k for ks in _LIST_FIELDS.values()
                                                          for k in ks} - {"file", "decklist"}
    for key in sorted(unknown):
        data[key] = multi.get(key)  # refused by the model (extra="forbid"): a 422 naming it
    return data


def _checked(model: type[BaseModel], data: dict[str, Any]) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


def refuse_encoded(encoding: str | None) -> None:
    """A compressed body would be read as a decklist's bytes and fail as "not valid UTF-8":
    say what is wrong instead (a decklist is small; nothing here decompresses)."""
    if encoding and encoding.strip().lower() != "identity":
        raise ProblemError("unsupported-media-type", f"Content-Encoding {encoding.strip()[:40]!r} "
                           "is not accepted: send the body uncompressed")


#: The query parameters a text/plain body takes its options from (`_fields_from`).
QUERY_OPTIONS = frozenset(_SCALAR_FIELDS).union(*_LIST_FIELDS.values())

_FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


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
    if is_json(media):
        raw = await request.body()
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ProblemError("malformed-body", f"the body is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ProblemError("malformed-body", "the body must be a JSON object "
                               '({"decklist": "...", "format": "modern"})')
        options = _checked(model, data)
        return options, options.decklist  # type: ignore[attr-defined]
    if media in _FORM_TYPES:
        try:
            form = await request.form(max_files=1, max_fields=50)
        except BodyTooLarge:
            raise
        except Exception as exc:  # noqa: BLE001 - python-multipart/Starlette parse errors
            raise ProblemError("malformed-body", f"the form could not be read: "
                               f"{getattr(exc, 'detail', None) or exc}") from None
        upload = form.get("file")
        data = _fields_from(form, model)
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
    options = _checked(model, {**_fields_from(request.query_params, model), "decklist": ""})
    return options, content


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
#: names) holds the loop ~20 ms, and anything longer (up to the 5 MB limit) runs in a thread
#: so the loop keeps reading and answering other requests meanwhile.
INLINE_MAX_BYTES = 32 * 1024


#: ... and of at most this many lines: the time a list takes grows with its lines (each
#: unknown name is looked up, each card checked), and a 32 KB list of short distinct unknown
#: names held the loop ~80-100 ms. A 100-card list is about 100 lines, a .dek about 200.
INLINE_MAX_LINES = 300


async def judge(fn: Callable[..., Any], options: Any, content: str | bytes) -> Any:
    """`fn(options, content)`: inline for a short decklist, in the threadpool for a long one."""
    newline = "\n" if isinstance(content, str) else b"\n"
    if len(content) <= INLINE_MAX_BYTES and content.count(newline) < INLINE_MAX_LINES:  # type: ignore[arg-type]
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
        if options.rules or options.bracket is not None:
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
            raise ProblemError("unknown-card", f"no card has a name of {len(name)} characters "
                               f"(the longest are under {MAX_CARD_NAME})", suggestions=[])
        card = snapshot_card(snap, name)  # the snapshot validation uses, never newer data
        if card is None:
            hint = suggestions(name, snap.index, short_names=True)  # as `deckcheck card`
            did = f"; did you mean {' or '.join(hint)}?" if hint else ""
            raise ProblemError("unknown-card", f"no card named {name!r}{did}", name=name,
                               suggestions=hint)
        return card_facts(card, snap.formats)

    def health(self) -> dict[str, Any]:
        """Ready when requests can be answered: the data loaded and its database readable
        (card pages, printings and tokens are read from it)."""
        snap = self.snapshot()
        try:
            readable = snap.db.last_sync(ORACLE_BULK) is not None
        except Exception as exc:  # noqa: BLE001 - any driver error: the database is unusable
            raise validator.DatabaseError(f"the card database cannot be read: {exc}") from exc
        if not readable:
            raise validator.DatabaseError("the card database holds no sync any more "
                                          "(emptied or replaced by an unsynced file)")
        sync = snap.sync or {}
        return {"status": "ok", "version": validator.__version__, "cards": snap.card_count,
                "updated_at": snap.updated_at,
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

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> Response:
        response = FileResponse(STATIC / "index.html", media_type="text/html")
        # Every asset is local (venues are often offline): the page may load nothing else.
        response.headers["content-security-policy"] = (
            "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
            "frame-ancestors 'none'")
        response.headers["x-content-type-options"] = "nosniff"
        return response

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def app_from_env() -> FastAPI:
    """uvicorn's factory in each worker of a multi-worker server."""
    value = os.environ.get(CONFIG_ENV)
    return create_app(ServiceConfig.from_env(value) if value else ServiceConfig())
