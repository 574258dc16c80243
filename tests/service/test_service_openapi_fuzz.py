"""A bounded schemathesis run against the service's own OpenAPI document (in process, ASGI
transport: no socket): a fixed number of examples per operation, derandomized, every answer
checked against the document (status, content type, headers, the schema of 200 answers and of
problems) and no 5xx. The document must let a generated client reach 200s: `format` is an
enum of the loaded formats."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="the test extra: pip install '.[test]'")
pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")

from hypothesis import HealthCheck, settings  # noqa: E402

SEMANTIC = [
    schemathesis.checks.positive_data_acceptance,
    schemathesis.specs.openapi.checks.positive_data_acceptance,
]
#: Examples per operation: the run stays under ~60 s on a loaded 2-core machine.
EXAMPLES = 80


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory):
    from support import FIXTURES

    from validator.service.app import ServiceConfig, create_app
    from validator.service.cards import CardHolder
    from validator.sync import import_file

    db = str(tmp_path_factory.mktemp("fuzz") / "cards.sqlite3")
    import_file(FIXTURES / "cards_core.json", db)
    holder = CardHolder(db, poll_seconds=0)
    holder.load()  # loaded before any request: the transport need not run the lifespan
    app = create_app(ServiceConfig(db=db, poll_seconds=0), holder=holder)
    return schemathesis.openapi.from_asgi("/openapi.json", app)


OPERATIONS = [
    ("/v1/validate", "POST"),
    ("/v1/check-formats", "POST"),
    ("/v1/formats", "GET"),
    ("/v1/cards/{name}", "GET"),
    ("/healthz", "GET"),
    ("/v1/changes", "GET"),
]


def test_the_document_has_no_other_operation(api_schema):
    found = {(r.ok().path, r.ok().method.upper()) for r in api_schema.get_all_operations()}
    assert found == set(OPERATIONS)


# The GETs: /v1/formats, /v1/cards/{name} and /healthz take no input to get wrong, and
# schemathesis generates no negative query for /v1/changes (tests/service test its 400s).
@pytest.mark.parametrize(("path", "method"), OPERATIONS[:2])
def test_requests_outside_the_document_are_refused_as_it_says(api_schema, path, method):
    """Negative examples (a field of the wrong type, an unknown format, an empty decklist,
    a missing body...): each refused with a 4xx the document lists, as problem+json."""
    from hypothesis import given
    from schemathesis import GenerationMode

    operation = api_schema[path][method]

    @settings(
        max_examples=EXAMPLES // 2,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(case=operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    def refused_as_documented(case) -> None:
        case.call_and_validate(excluded_checks=SEMANTIC)

    refused_as_documented()


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_every_answer_conforms_to_the_openapi_document(api_schema, path, method):
    from hypothesis import given

    operation = api_schema[path][method]
    statuses: list[int] = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(case=operation.as_strategy())
    def answers_conform(case) -> None:
        # Every check but positive_data_acceptance: a 400 to a schema-valid body is right
        # when the decklist's text is no decklist, a house rule is no rule or a commander no
        # card (no schema can say which text is a decklist); each such 400 is still checked
        # against the document (status, content type, problem schema).
        response = case.call_and_validate(excluded_checks=SEMANTIC)
        statuses.append(response.status_code)

    answers_conform()
    if path == "/v1/cards/{name}":  # a random name is no card: one that is, checked the same
        card = operation.Case(path_parameters={"name": "Lightning Bolt"})
        statuses.append(card.call_and_validate(excluded_checks=SEMANTIC).status_code)
    # the document lets a generated client make a valid request (format: an enum)
    assert 200 in statuses, statuses
