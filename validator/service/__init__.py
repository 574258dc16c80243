"""The upload-check service (`deckcheck serve`, install the extra: `pip install '.[serve]'`): a JSON API under
/v1 and a paste-a-deck page at /, on FastAPI + uvicorn, answering from an in-memory card index
that is swapped when a sync lands.

    from validator.service.app import ServiceConfig, create_app   # the ASGI app
    from validator.service.server import serve                     # run it under uvicorn
"""
