"""The OpenAPI document told true: what each operation takes and answers, as the server does.

FastAPI's generated document described the 200 answers as `{"type": "object"}` (or not at
all), `format` as any string (a generated client or a fuzzer could not find a valid request:
schemathesis reached no 200 on /v1/validate in 6,568 requests), offered the text/plain
body's query options beside every body type (refused beside a JSON or form body), and took
`"decklist": ""` as valid (answered 400). `describe` rewrites the generated document:

* `format` is an enum of the formats this server loaded (its `--formats-file` too);
* each answer has its real schema: the deckcheck.report/1 object (validator/report.schema.json,
  published in docs/report.md), the check-formats answer, the formats, a card, /healthz;
* the text/plain body's options are described with that body (query parameters beside it
  only), not as parameters of the operation, which any body type would be sent with;
* a decklist is not empty; an `input_format` is one of the decklist formats; an `as_of` a
  date or a month.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

from validator.report import json_schema

REF = "#/components/schemas/"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


def report_components() -> dict[str, Any]:
    """The report schema and its $defs as OpenAPI components (`Report`, `Problem`,
    `Provenance`, `NotCounted`, `NameRead`), their references rewritten to the document's
    components."""
    schema = json_schema()
    defs = schema.pop("$defs")
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    names = {k: "".join(w.capitalize() for w in k.split("_")) for k in defs}
    text = json.dumps({"Report": schema, **{names[k]: v for k, v in defs.items()}})
    for key, name in names.items():
        text = text.replace(f'"#/$defs/{key}"', f'"{REF}{name}"')
    return dict(json.loads(text))


def answer_components(formats: Iterable[str]) -> dict[str, Any]:
    """Every 200 answer's schema, by component name."""
    known = sorted(formats)
    string_or_null = {"type": ["string", "null"]}
    return {
        **report_components(),
        "ValidateAnswer": {
            "allOf": [_ref("Report")],
            "required": ["provenance"],
            "description": "the deckcheck.report/1 object with its provenance, as "
            "`deckcheck validate --json` prints it; an illegal deck is a 200 too",
        },
        "CheckFormatsAnswer": {
            "type": "object",
            "description": "what `deckcheck check-formats --json` prints, plus `reports`: the "
            "report of every format (each format's problems capped, `problems_omitted` counts "
            "the rest)",
            "required": ["schema", "source", "legal_in", "formats", "provenance", "reports"],
            "properties": {
                "schema": {"const": "deckcheck.check-formats/1"},
                "source": string_or_null,
                "legal_in": {"type": "array", "items": {"enum": known}},
                "unconfirmed_in": {"type": "array", "items": {"enum": known}},
                "formats": {
                    "type": "object",
                    "propertyNames": {"enum": known},
                    "additionalProperties": {
                        "type": "object",
                        "required": [
                            "format_name",
                            "legal",
                            "problems",
                            "warnings",
                            "problems_omitted",
                        ],
                        "properties": {
                            "format_name": {"type": "string"},
                            "legal": {"type": "boolean"},
                            "problems": {"type": "array", "items": _ref("Problem")},
                            "warnings": {"type": "array", "items": _ref("Problem")},
                            "problems_omitted": {"type": "integer", "minimum": 0},
                            "verdict": {"enum": ["legal", "illegal", "unconfirmed"]},
                        },
                    },
                },
                "provenance": _ref("Provenance"),
                "reports": {
                    "type": "array",
                    "items": {"allOf": [_ref("Report")], "required": ["problems_omitted"]},
                },
            },
        },
        "Formats": {
            "type": "object",
            "description": "every format by its key, with its deck rules (as `deckcheck "
            "formats --json`)",
            "propertyNames": {"enum": known},
            "additionalProperties": {
                "type": "object",
                "required": ["key", "name", "legality", "kind"],
                "properties": {
                    "key": {"type": "string"},
                    "name": {"type": "string"},
                    "legality": {"type": "string"},
                    "kind": {"type": "string"},
                },
            },
        },
        "Card": {
            "type": "object",
            "description": "a card as the validator sees it (as `deckcheck card --json`)",
            "required": ["name", "oracle_id", "legalities", "points"],
            "properties": {
                "name": {"type": "string"},
                "oracle_id": {"type": "string"},
                "legalities": {"type": "object", "additionalProperties": {"type": "string"}},
                "points": {"type": "object"},
            },
        },
        "Health": {
            "type": "object",
            "required": [
                "status",
                "version",
                "cards",
                "updated_at",
                "scryfall_updated_at",
                "sync",
                "loaded_at",
                "load_seconds",
                "swaps",
            ],
            "properties": {
                "status": {"const": "ok"},
                "version": {"type": "string"},
                "cards": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "every card in the database (as `deckcheck info`)",
                },
                "deck_cards": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "those a deck can hold (tokens, emblems and art cards aside)",
                },
                "updated_at": string_or_null,
                "scryfall_updated_at": string_or_null,
                "sync": {
                    "type": "object",
                    "required": ["id", "sha256", "finished_at"],
                    "properties": {
                        "id": {"type": ["integer", "null"]},
                        "sha256": string_or_null,
                        "finished_at": string_or_null,
                    },
                },
                "loaded_at": {"type": "string"},
                "load_seconds": {"type": "number", "minimum": 0},
                "swaps": {"type": "integer", "minimum": 0},
            },
        },
        "ChangeFeed": {
            "type": "object",
            "description": "the legality change feed: what each sync changed, oldest first "
            "(docs/recheck.md)",
            "required": ["schema", "sync_id", "card_data", "changes"],
            "properties": {
                "schema": {"const": "deckcheck.change-feed/1"},
                "sync_id": {
                    "type": ["integer", "null"],
                    "description": "the last sync: the `since` to poll from next time",
                },
                "card_data": string_or_null,
                "changes": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": [
                            "sync_id",
                            "card_data",
                            "oracle_id",
                            "name",
                            "legality",
                            "old_status",
                            "new_status",
                        ],
                        "properties": {
                            "sync_id": {"type": "integer"},
                            "card_data": string_or_null,
                            "oracle_id": string_or_null,
                            "name": {"type": "string"},
                            "legality": {
                                "type": "string",
                                "description": "the legality key; `*`: a card the card data "
                                "no longer has",
                            },
                            "old_status": string_or_null,
                            "new_status": string_or_null,
                        },
                    },
                },
            },
        },
    }


#: Each operation's 200 answer: (path, method) -> component.
ANSWERS = {
    ("/v1/validate", "post"): "ValidateAnswer",
    ("/v1/check-formats", "post"): "CheckFormatsAnswer",
    ("/v1/formats", "get"): "Formats",
    ("/v1/cards/{name}", "get"): "Card",
    ("/healthz", "get"): "Health",
    ("/v1/changes", "get"): "ChangeFeed",
}


def _body_fields(schema: dict[str, Any], formats: list[str]) -> None:
    """The constraints the server checks on a body's fields, in the body's schema."""
    from validator.decklist import INPUT_FORMATS

    props = schema.get("properties", {})
    if "format" in props:
        props["format"] = {
            "enum": formats,
            "description": "format key (GET /v1/formats): one of the formats this server loaded",
        }
    if "decklist" in props and props["decklist"].get("type") == "string":
        props["decklist"]["minLength"] = 1  # an empty one is refused (400 bad-decklist)
    if "input_format" in props:
        props["input_format"] = {
            "anyOf": [{"enum": list(INPUT_FORMATS)}, {"type": "null"}],
            "description": "force a decklist format (default: detected)",
        }
    if "as_of" in props:
        props["as_of"] = {
            "anyOf": [
                {"type": "string", "pattern": r"^\d{4}-\d{2}(-\d{2})?$"},
                {"type": "null"},
            ],
            "description": props["as_of"].get("description", ""),
        }


def _text_plain_options(operation: dict[str, Any]) -> None:
    """The query options move from the operation into the text/plain body's description."""
    if "text/plain" not in operation.get("requestBody", {}).get("content", {}):
        return  # a GET's query parameters are its own
    parameters = operation.pop("parameters", [])
    options = [p for p in parameters if p.get("in") == "query"]
    rest = [p for p in parameters if p.get("in") != "query"]
    if rest:
        operation["parameters"] = rest
    content = operation.get("requestBody", {}).get("content", {})
    plain = content.get("text/plain")
    if plain is None or not options:
        return
    listed = ", ".join(f"`{p['name']}`" for p in options)
    plain["schema"]["description"] = (
        "the decklist; its options only as query parameters beside it "
        f"(?format=modern&commander=A&commander=B): {listed}; a list's key is repeated for "
        "each item, any other is given at most once. Beside a JSON or form body the options "
        "go in the body, and one in the query string is refused (400)"
    )


def describe(
    document: dict[str, Any], formats: Iterable[str], judgeable: Iterable[str]
) -> dict[str, Any]:
    """`document` (FastAPI's) with every answer's schema, the formats enum and each body
    type's options, as the server answers and takes them: `formats` every format loaded (a
    check-formats answer has each), `judgeable` those a request may name (their legality
    key is in the card data)."""
    known = sorted(formats)
    requestable = sorted(judgeable)
    document = copy.deepcopy(document)
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components.update(answer_components(known))
    for (path, method), name in ANSWERS.items():
        operation = document.get("paths", {}).get(path, {}).get(method)
        if operation is None:
            continue
        answer = operation.setdefault("responses", {}).setdefault("200", {})
        answer.setdefault("description", "the answer")
        answer["content"] = {"application/json": {"schema": _ref(name)}}
        body = operation.get("requestBody", {}).get("content", {})
        for media, described in body.items():
            if media != "text/plain":
                _body_fields(described["schema"], requestable)
        _text_plain_options(operation)
        _query_fields(operation, known)
    return document


def _query_fields(operation: dict[str, Any], formats: list[str]) -> None:
    """The constraints the server checks on the change feed's query parameters."""
    for parameter in operation.get("parameters", []):
        if parameter.get("in") != "query":
            continue
        if parameter["name"] == "format":
            parameter["schema"] = {"enum": formats}
            parameter["description"] = "a format key (GET /v1/formats)"
        elif parameter["name"] == "since":
            parameter["schema"] = {"type": "string", "pattern": r"^(\d+|\d{4}-\d{2}-\d{2})$"}
            parameter["description"] = "a sync id, or a date YYYY-MM-DD"
