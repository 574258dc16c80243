"""Fixtures of the service tests: a database of their own (for tests that change it) and the
service under uvicorn with short deadlines."""

from __future__ import annotations

import pytest
from support import FIXTURES


@pytest.fixture
def own_db(tmp_path) -> str:
    from validator.sync import import_file

    db = str(tmp_path / "cards.sqlite3")
    import_file(FIXTURES / "cards_core.json", db)
    return db


@pytest.fixture
def quick_deadline_server(own_db):
    """The service under uvicorn in a thread on a free loopback port, with the deadline
    protocol `deckcheck serve` uses, its deadlines cut to 0.5 s (head) and 1 s (body)."""
    import importlib
    import socket
    import threading
    import time

    uvicorn = pytest.importorskip("uvicorn")
    from validator.service.app import ServiceConfig, create_app
    from validator.service.server import bounds

    options = bounds()
    module, name = options.pop("http").split(":")
    quick = type(
        "Quick",
        (getattr(importlib.import_module(module), name),),
        {"head_seconds": 0.5, "body_seconds": 1.0},
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(
        create_app(ServiceConfig(db=own_db, poll_seconds=0)),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        http=quick,
        **options,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
