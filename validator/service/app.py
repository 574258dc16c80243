"""The upload-check service: a JSON API under /v1 and the paste-a-deck page at /.

Routes are thin: read the request (JSON, a multipart file upload or URL-encoded form, or
text/plain), call the public library API (`validator.parse_decklist`, `validator.validate`,
`validator.check_formats`, `validator.load_formats`, `CardDB.card`,
`validator.rules.resolve.suggestions`) on the worker's current card snapshot, and answer with what
the CLI's `--json` prints for one deck (a report without the `id` and `player` that name a
deck of a run). Nothing here writes: sync stays a CLI job. The request models are in
validator/service/models.py, the reading of a body in validator/service/bodies.py.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

import validator
from validator.decklist.detect import FILE_EXTENSIONS
from validator.report import card_facts, check_formats_dict
from validator.rules.formats import get_format
from validator.rules.other_names import cards_by_other_name, printed_names_of
from validator.rules.points import card_points
from validator.rules.resolve import suggestions

# The routes call bodies.read_deck_request through its module, so that a patch of it (a
# test counting the bodies the framework's route reads) takes effect here.
from validator.service import bodies, problems
from validator.service.admission import HeavyGate
from validator.service.bodies import (
    _LIST_FIELDS,
    _SCALAR_FIELDS,
    INLINE_MAX_BYTES,
    INLINE_MAX_LINES,
    INLINE_MAX_RULE_CHARS,
    QUERY_OPTIONS,
    check_as_of,
)
from validator.service.bodylimit import (
    DECKLIST_MAX_BYTES,
    MAX_BODY_BYTES,
    BodyLimitMiddleware,
    BodyTooLarge,
    too_large_detail,
)
from validator.service.cards import (
    ORACLE_BULK,
    CardHolder,
    Snapshot,
    iso,
    snapshot_card,
    snapshot_provenance,
)
from validator.service.fastpath import ValidateFastPath
from validator.service.models import (
    _ONE_FORMAT_OPTIONS,
    MAX_CARD_NAME,
    CheckFormatsRequest,
    DeckRequest,
    ValidateRequest,
)
from validator.service.openapi import describe
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
    def from_env(cls, value: str) -> ServiceConfig:
        data = json.loads(value)
        data["cors_origins"] = tuple(data.get("cors_origins") or ())
        return cls(**data)


# ---------------------------------------------------------------------------- OpenAPI


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
    described = {
        400: "unknown format, malformed body, unreadable decklist or house rule",
        404: "no card by that name (`suggestions` lists close names)",
        413: f"body over {MAX_BODY_BYTES:,} bytes (a decklist: at most {DECKLIST_MAX_BYTES:,})",
        415: "content type not accepted",
        422: "a field of the wrong type or value",
        429: "this address has its share of expensive requests being judged (Retry-After)",
        503: "card data not loaded yet, the database unavailable, or the server's share of "
        "expensive requests taken (Retry-After)",
    }
    schema = ProblemDoc.model_json_schema()
    return {
        status: {
            "description": described[status],
            "content": {problems.MEDIA_TYPE: {"schema": schema}},
        }
        for status in statuses
    }


_REPORT_DOC = {
    "description": "the deckcheck.report/1 object `deckcheck validate --json` "
    'prints (README "JSON report"); an illegal deck is a 200 too',
    "content": {"application/json": {"schema": {"type": "object"}}},
}


def _query_doc(model: type[BaseModel]) -> list[dict[str, Any]]:
    """The query parameters a text/plain body takes its options from (`_fields_from`): each
    option the model has, lists as repeated keys (`?commander=A&commander=B`)."""
    props = model.model_json_schema()["properties"]
    # check-formats refuses the options of one format (bad-input): not offered
    offered = [
        name for name in props if not (model is CheckFormatsRequest and name in _ONE_FORMAT_OPTIONS)
    ]
    params = []
    for name in _SCALAR_FIELDS:
        if name in offered:
            schema = {k: v for k, v in props[name].items() if k not in ("title", "description")}
            params.append(
                {
                    "name": name,
                    "in": "query",
                    "required": False,
                    "schema": schema,
                    "description": f"text/plain body only: {props[name].get('description', name)}",
                }
            )
    for name, (plural, single) in _LIST_FIELDS.items():
        if name in offered:
            params.append(
                {
                    "name": single,
                    "in": "query",
                    "required": False,
                    "schema": {"type": "array", "items": {"type": "string"}},
                    "style": "form",
                    "explode": True,
                    "description": f"text/plain body only: {props[name].get('description')} "
                    f"(repeat the key for each; `{plural}` is taken too)",
                }
            )
    return params


def _body_doc(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI for a body read by hand: JSON, a multipart upload, a URL-encoded form, or
    text/plain (its options as query parameters)."""
    schema = model.model_json_schema()
    form = {
        "type": "object",
        "properties": {
            "file": {"type": "string", "format": "binary", "description": "the decklist file"},
            **{k: v for k, v in schema["properties"].items() if k != "decklist"},
        },
    }
    return {
        "parameters": _query_doc(model),
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": schema},
                "multipart/form-data": {"schema": form},
                # an HTML form's default: the decklist in a `decklist` field, each value percent-encoded
                "application/x-www-form-urlencoded": {
                    "schema": {
                        "type": "object",
                        "properties": {k: v for k, v in schema["properties"].items()},
                    }
                },
                "text/plain": {
                    "schema": {
                        "type": "string",
                        "description": "the decklist; options as query parameters (?format=modern)",
                    }
                },
            },
        },
    }


# ---------------------------------------------------------------------------- answers


def _json(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(data), status_code=status, media_type="application/json")


async def judge(
    fn: Callable[..., Any],
    options: Any,
    content: str | bytes,
    gate: HeavyGate | None = None,
    client: str | None = None,
) -> Any:
    """`fn(options, content)`: inline for a small request (a short decklist and short house
    rules), in the threadpool for a larger one (admitted by `gate` for `client`)."""
    newline = "\n" if isinstance(content, str) else b"\n"
    rule_chars = sum(len(rule) for rule in getattr(options, "rules", ()))
    if (
        len(content) <= INLINE_MAX_BYTES
        and content.count(newline) < INLINE_MAX_LINES  # type: ignore[arg-type]
        and rule_chars <= INLINE_MAX_RULE_CHARS
    ):
        return fn(options, content)
    if gate is not None:
        return await gate.run(client, fn, options, content)
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


def check_formats_answer(
    reports: list[Any], source: str | None, provenance: dict[str, Any] | None = None
) -> dict[str, Any]:
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
        self.gate = HeavyGate()  # expensive requests: a bounded share per client (admission.py)

    def judgeable_formats(self) -> list[str]:
        """The formats a request can name now: each whose legality key the loaded card data
        has (api._check_legality_key refuses the others); all of them before a load."""
        snap = self.holder.current
        keys = set(snap.formats) if snap is not None else set()
        return [k for k, f in self.formats.items() if not keys or f.legality in keys]

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
        return validator.parse_decklist(
            content, input_format=options.input_format, filename=options.filename
        )

    def validate(self, options: ValidateRequest, content: str | bytes) -> dict[str, Any]:
        snap = self.snapshot()  # this request's data, start to finish, even across a swap
        if options.bracket is not None or options.commanders:  # in the request's words
            try:  # api.check_bracket's rule (CR 903.3), worded with the request's fields
                validator.api.check_bracket(
                    get_format(options.format, self.formats),
                    options.bracket,
                    options.commanders,
                    spelled=("`bracket`", "`commanders`"),
                    instead='send "format": "commander"',
                )
            except validator.UsageError as exc:
                raise ProblemError("bad-input", str(exc)) from None
        extra = self._options(options, snap)
        deck = self._deck(options, content)
        report = validator.validate(
            deck,
            options.format,
            cards=snap.index,
            commanders=options.commanders,
            rules=options.rules,
            bracket=options.bracket,
            formats=self.formats,
            source=options.filename,
            **extra,
        )
        # As `deckcheck validate --json`: the report and where its verdict came from.
        return dict(report.to_dict(), provenance=self._provenance(snap, options, deck))

    @staticmethod
    def _provenance(snap: Snapshot, options: DeckRequest, deck: Any) -> dict[str, Any]:
        return snapshot_provenance(snap, options.as_of if options.as_of is not None else deck.as_of)

    def check_formats(self, options: CheckFormatsRequest, content: str | bytes) -> dict[str, Any]:
        if any(getattr(options, name) not in (None, []) for name in _ONE_FORMAT_OPTIONS):
            raise ProblemError(
                "bad-input", "`rules` and `bracket` apply to one format: use POST /v1/validate"
            )
        snap = self.snapshot()
        extra = self._options(options, snap)
        deck = self._deck(options, content)
        reports = validator.check_formats(
            deck,
            cards=snap.index,
            formats=self.formats,
            commanders=options.commanders,
            source=options.filename,
            **extra,
        )
        return check_formats_answer(
            reports, options.filename, self._provenance(snap, options, deck)
        )

    def card(self, name: str) -> dict[str, Any]:
        snap = self.snapshot()
        if len(name) > MAX_CARD_NAME:
            # Named (cut short) and placed like any other 404: the path is too long to echo.
            shown = name[:MAX_CARD_NAME] + "…"
            raise ProblemError(
                "unknown-card",
                f"no card has a name of {len(name)} characters "
                f"(the longest are under {MAX_CARD_NAME})",
                name=shown,
                suggestions=[],
                instance=f"/v1/cards/{quote(shown)}",
            )
        card = snapshot_card(snap, name)  # the snapshot validation uses, never newer data
        if card is None:  # a printed name (稲妻), an MTGO/Arena name: as validation reads it
            found, ambiguous = cards_by_other_name(name, snap.index)
            if ambiguous:
                raise ProblemError(
                    "ambiguous-printed-name",
                    ambiguous[0].message,
                    name=name,
                    suggestions=list(ambiguous[0].cards),
                )
            card = found[0] if found else None
        if card is None:
            hint = suggestions(name, snap.index, short_names=True)  # as `deckcheck card`
            did = f"; did you mean {' or '.join(hint)}?" if hint else ""
            raise ProblemError(
                "unknown-card", f"no card named {name!r}{did}", name=name, suggestions=hint
            )
        facts = card_facts(card, snap.formats)
        facts["points"] = card_points(card.name, self.formats)
        printed = printed_names_of(card, snap.index)
        if printed:  # only cards printed under other names: other cards' answers are unchanged
            facts["printed_names"] = printed
        return facts

    def changes(self, since: str | None, format_key: str | None) -> dict[str, Any]:
        """The legality change feed of the loaded card data (`history.changes.change_feed`)."""
        from validator.errors import UsageError
        from validator.history.changes import change_feed

        snap = self.snapshot()
        legality = get_format(format_key, self.formats).legality if format_key else None
        try:
            return change_feed(snap.db, since, legality)
        except UsageError as exc:
            raise ProblemError("bad-input", str(exc)) from None

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
            raise validator.DatabaseError(
                "the card database holds no sync any more (emptied or replaced by an unsynced file)"
            )
        sync = snap.sync or {}
        return {
            "status": "ok",
            "version": validator.__version__,
            # The sync's card count, as `deckcheck info` and every report's provenance say;
            # `deck_cards`: those of them a deck can hold (what the loaded index answers
            # from: no tokens, art cards, schemes...).
            "cards": sync.get("card_count", snap.card_count),
            "deck_cards": snap.card_count,
            # Scryfall's updated_at of the bulk file loaded, else (a `sync --from` file:
            # Scryfall's time unknown) when that sync finished: never null once synced.
            # `scryfall_updated_at` is Scryfall's alone (null when unknown), as `deckcheck
            # info`'s updated_at and a report's provenance.card_data.scryfall_updated_at.
            "updated_at": snap.updated_at,
            "scryfall_updated_at": iso(sync.get("updated_at")),
            "sync": {
                "id": sync.get("id"),
                "sha256": sync.get("sha256"),
                "finished_at": iso(sync.get("finished_at")),
            },
            "loaded_at": dt.datetime.fromtimestamp(snap.loaded_at, dt.UTC).isoformat(),
            "load_seconds": round(snap.load_seconds, 3),
            "swaps": self.holder.swaps,
        }


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

    app = FastAPIOffline(
        title="deckcheck",
        version=validator.__version__,
        lifespan=lifespan,
        description="Magic: The Gathering deck legality: the `deckcheck validate "
        "--json` report over HTTP. Errors are RFC 9457 problem details.",
        # Swagger UI at /docs with its assets served from here (fastapi-offline), not a CDN:
        # a venue is often offline. No online spec validator badge either.
        docs_url="/docs",
        redoc_url=None,
        swagger_ui_parameters={"validatorUrl": None},
        # A redirect to the path with(out) its slash is built from the client's Host header
        # (`GET /static` with `Host: evil.example` sent Location: http://evil.example/static/):
        # no redirects; every route has one spelling.
        redirect_slashes=False,
    )
    app.state.service = service
    problems.install(app)

    @app.exception_handler(BodyTooLarge)
    async def _too_large(request: Request, exc: BodyTooLarge) -> Response:
        return problems.problem_response(
            "body-too-large",
            too_large_detail(MAX_BODY_BYTES),
            request.url.path,
            headers={"connection": "close"},
        )

    app.add_middleware(BodyLimitMiddleware, max_bytes=MAX_BODY_BYTES)

    async def validate_answer(options: ValidateRequest, scope: dict[str, Any]) -> dict[str, Any]:
        client = scope.get("client")
        return await judge(
            service.validate, options, options.decklist, service.gate, client and client[0]
        )

    # Outside the body limit (it enforces the same limit itself), inside CORS (its answers
    # get the CORS headers too): JSON validate requests skip the framework's per-request layers.
    app.add_middleware(
        ValidateFastPath, model=ValidateRequest, answer=validate_answer, query_options=QUERY_OPTIONS
    )
    if config.cors_origins:
        app.add_middleware(
            problems.ProblemCORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Content-Type"],
        )

    @app.post(
        "/v1/validate",
        openapi_extra=_body_doc(ValidateRequest),
        responses={200: _REPORT_DOC, **_problems_doc(400, 413, 415, 422, 429, 503)},
        summary="Validate a deck against one format: the deckcheck.report/1 object",
    )
    async def post_validate(request: Request) -> Response:
        options, content = await bodies.read_deck_request(request, ValidateRequest)
        client = request.client and request.client.host
        return _json(await judge(service.validate, options, content, service.gate, client))

    @app.post(
        "/v1/check-formats",
        openapi_extra=_body_doc(CheckFormatsRequest),
        responses=_problems_doc(400, 413, 415, 422, 429, 503),
        summary="Validate a deck against every format",
    )
    async def post_check_formats(request: Request) -> Response:
        options, content = await bodies.read_deck_request(request, CheckFormatsRequest)
        client = request.client and request.client.host
        return _json(await service.gate.run(client, service.check_formats, options, content))

    @app.get(
        "/v1/formats", summary="The formats and their deck rules (as `deckcheck formats --json`)"
    )
    async def get_formats() -> Response:
        return _json({k: f.to_dict() for k, f in service.formats.items()})

    @app.get(
        "/v1/changes",
        summary="The legality change feed: what each sync changed (bans, unbans, rotations)",
        description="The card database's change log, oldest first: each change with its "
        "sync and the date of that sync's card data (schema deckcheck.change-feed/1). "
        "`since`: a sync id (that sync's changes and later ones) or a date YYYY-MM-DD "
        "(changes of card data of that day or later); `format`: a format key (its legality "
        "key's changes, and cards removed from the card data). Poll it after the daily sync, "
        "remembering `sync_id`, to learn of an announcement without running the CLI.",
        responses=_problems_doc(400, 503),
    )
    async def get_changes(since: str | None = None, format: str | None = None) -> Response:
        return _json(await run_in_threadpool(service.changes, since, format))

    @app.get(
        "/v1/cards/{name:path}",
        summary="A card as the validator sees it",
        responses=_problems_doc(404, 503),
    )
    async def get_card(name: str) -> Response:
        return _json(await run_in_threadpool(service.card, name))

    # HEAD answers too (load balancers probe with it), kept out of the schema: one documented
    # operation, not two with the same id.
    @app.head("/healthz", include_in_schema=False)
    @app.get(
        "/healthz",
        summary="Ready: card count, the sync's updated_at, version",
        responses=_problems_doc(503),
    )
    async def healthz() -> Response:
        return _json(await run_in_threadpool(service.health))

    # The page checks a decklist's size before sending it, against the library's own limit.
    page_html = (
        (STATIC / "index.html")
        .read_text(encoding="utf-8")
        .replace("{{MAX_BYTES}}", str(DECKLIST_MAX_BYTES))
        .replace("{{FILE_TYPES}}", ",".join((*FILE_EXTENSIONS, "text/plain", "text/csv")))
    )

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> Response:
        response = Response(page_html, media_type="text/html")
        # Every asset is local (venues are often offline): the page may load nothing else.
        response.headers["content-security-policy"] = (
            "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
            "frame-ancestors 'none'"
        )
        response.headers["x-content-type-options"] = "nosniff"
        return response

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _document_errors_only_as_answered(app)
    return app


def _document_errors_only_as_answered(app: FastAPI) -> None:
    """FastAPI documents a 422 `HTTPValidationError` on every route with a path parameter;
    `GET /v1/cards/{name}` never answers it (any text is a name) and every error is
    problem+json: the schema lists only what is answered. The rest of the document is told
    true by openapi.describe, for the card data loaded now (the formats it can judge): built
    again after a swap."""
    build = app.openapi
    built_for: list[Any] = [None]

    def openapi() -> dict[str, Any]:
        service = app.state.service
        snap = service.holder.current
        if built_for[0] is not snap:
            app.openapi_schema, built_for[0] = None, snap
        if app.openapi_schema is None:
            schema = build()
            for path in schema.get("paths", {}).values():
                for operation in path.values():
                    responses = operation.get("responses", {})
                    default = responses.get("422", {}).get("content", {}).get("application/json")
                    if default is not None:
                        del responses["422"]
            components = schema.get("components", {}).get("schemas", {})
            if (
                "HTTPValidationError" in components
                and "#/components/schemas/HTTPValidationError"
                not in json.dumps(schema.get("paths"))
            ):
                components.pop("HTTPValidationError", None)
                components.pop("ValidationError", None)
            app.openapi_schema = describe(
                schema, service.formats.keys(), service.judgeable_formats()
            )
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def app_from_env() -> FastAPI:
    """uvicorn's factory in each worker of a multi-worker server."""
    value = os.environ.get(CONFIG_ENV)
    return create_app(ServiceConfig.from_env(value) if value else ServiceConfig())
