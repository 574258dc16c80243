"""/openapi.json tells the truth: `format` is an enum of the formats the loaded data can
judge, every 200 answer has its real schema (the report's is validator/report.schema.json),
the text/plain body's query options are described with it and not offered beside every body
type, an empty decklist is schema-invalid (and refused), and a repeated option is refused."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")

from fastapi.testclient import TestClient  # noqa: E402
from test_service import LEGAL_MODERN, assert_problem  # noqa: E402

from validator.report import json_schema  # noqa: E402
from validator.service.app import ServiceConfig, create_app  # noqa: E402


@pytest.fixture(scope="module")
def client(core_db):
    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as c:
        yield c


@pytest.fixture(scope="module")
def doc(client):
    return client.get("/openapi.json").json()


def body_schema(doc, path, media="application/json"):
    return doc["paths"][path]["post"]["requestBody"]["content"][media]["schema"]


def test_format_is_an_enum_of_the_formats_the_loaded_data_can_judge(doc, client):
    for media in ("application/json", "multipart/form-data", "application/x-www-form-urlencoded"):
        enum = body_schema(doc, "/v1/validate", media)["properties"]["format"]["enum"]
        assert "modern" in enum and "commander" in enum
        # the core test cards carry no oathbreaker legality: naming it is refused
        assert "oathbreaker" not in enum
    for key in enum:
        answer = client.post("/v1/validate", json={"decklist": LEGAL_MODERN, "format": key})
        assert answer.status_code == 200, (key, answer.text)
    refused = client.post("/v1/validate", json={"decklist": LEGAL_MODERN, "format": "oathbreaker"})
    assert refused.status_code == 400


def test_every_200_answer_has_its_real_schema(doc):
    components = doc["components"]["schemas"]
    answers = {
        ("/v1/validate", "post"): "ValidateAnswer",
        ("/v1/check-formats", "post"): "CheckFormatsAnswer",
        ("/v1/formats", "get"): "Formats",
        ("/v1/cards/{name}", "get"): "Card",
        ("/healthz", "get"): "Health",
    }
    for (path, method), name in answers.items():
        schema = doc["paths"][path][method]["responses"]["200"]["content"]["application/json"]
        assert schema["schema"] == {"$ref": f"#/components/schemas/{name}"}
        assert components[name] != {"type": "object"}
    report = json_schema()
    assert components["Report"]["required"] == report["required"]
    assert set(components["Report"]["properties"]) == set(report["properties"])
    assert "$defs" not in json.dumps(doc)  # every reference resolves within the document


def test_the_query_options_belong_to_the_text_plain_body(doc):
    for path in ("/v1/validate", "/v1/check-formats"):
        assert "parameters" not in doc["paths"][path]["post"]
        assert "query parameters" in body_schema(doc, path, "text/plain")["description"]


def test_an_empty_decklist_is_schema_invalid_and_refused(doc, client):
    assert body_schema(doc, "/v1/validate")["properties"]["decklist"]["minLength"] == 1
    assert_problem(
        client.post("/v1/validate", json={"decklist": "", "format": "modern"}), 400, "bad-decklist"
    )


@pytest.mark.parametrize("option", ["filename", "format", "as_of"])
def test_a_repeated_option_is_refused(client, option):
    values = {
        "filename": ("a.txt", "b.txt"),
        "format": ("modern", "legacy"),
        "as_of": ("2026-01-01", "2026-02-01"),
    }[option]
    query = "&".join(f"{option}={v}" for v in values)
    if option != "format":
        query += "&format=modern"
    answer = client.post(
        f"/v1/validate?{query}", content=LEGAL_MODERN, headers={"content-type": "text/plain"}
    )
    problem = assert_problem(answer, 400, "bad-input")
    assert f"`{option}` is given 2 times" in problem["detail"]
    form = client.post(
        "/v1/validate",
        data={"decklist": LEGAL_MODERN, "format": "modern", option: list(values)}
        if option != "format"
        else {"decklist": LEGAL_MODERN, "format": list(values)},
    )
    assert_problem(form, 400, "bad-input")
