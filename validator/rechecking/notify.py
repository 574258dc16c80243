"""The notice a re-check sends when verdicts changed: a versioned JSON document POSTed to a
URL, signed with HMAC-SHA256 of the body when a secret is set (as webhook senders commonly
do), retried with backoff (urllib3's Retry, honouring Retry-After) within a deadline."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from typing import Any

from validator.errors import DeckcheckError
from validator.rechecking.records import RecheckResult

#: The notice's schema; bumped only on an incompatible change.
NOTICE_SCHEMA = "deckcheck.recheck-notice/1"
#: The secret the signature is made with.
SECRET_ENV = "DECKCHECK_NOTIFY_SECRET"
#: The header carrying `sha256=<hex HMAC-SHA256 of the body>`.
SIGNATURE_HEADER = "X-Deckcheck-Signature"
#: More changed decks than this: the notice links to the report file instead of listing them.
MAX_LISTED = 500
#: Seconds the notice may take, its retries included.
DEFAULT_DEADLINE = 60.0
#: Statuses worth retrying: the receiver is busy or failing, not refusing the notice.
RETRY_STATUSES = (408, 425, 429, 500, 502, 503, 504)


class NotifyError(DeckcheckError):
    """The notice could not be delivered (after its retries)."""

    code = "notify-failed"


def notice(result: RecheckResult, report: str | None = None) -> dict[str, Any]:
    """The notice's document: the summary, and the changed decks (or, when there are more than
    `MAX_LISTED` and a report was written, how many and where the report is)."""
    doc: dict[str, Any] = {
        "schema": NOTICE_SCHEMA,
        "sent_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sync_id": result.sync_id,
        "card_data": result.card_data,
        "summary": {k: v.to_dict() for k, v in sorted(result.summary.items())},
        "changed_count": len(result.changed),
        "failures_count": len(result.failures),
    }
    if report is not None and len(result.changed) > MAX_LISTED:
        doc["report"] = report
    else:
        doc["changed"] = [c.to_dict() for c in result.changed]
    return doc


def signature(body: bytes, secret: str) -> str:
    """The signature header's value: `sha256=` and the HMAC-SHA256 of the body, in hex."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def send(
    url: str,
    document: dict[str, Any],
    *,
    secret: str | None = None,
    deadline: float | None = None,
    backoff: float = 0.5,
) -> None:
    """POST `document` to `url`; NotifyError when it is not accepted (a 2xx) within the
    deadline (default `DEFAULT_DEADLINE` seconds: the backoff between tries is capped at a
    quarter of it, each try at a sixth). `secret` (default $DECKCHECK_NOTIFY_SECRET) signs
    the body."""
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    if not url.lower().startswith(("http://", "https://")):
        raise NotifyError(f"--notify {url!r}: give an http:// or https:// URL")
    deadline = DEFAULT_DEADLINE if deadline is None else deadline
    secret = secret if secret is not None else os.environ.get(SECRET_ENV) or None
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    headers = {"Content-Type": "application/json", "User-Agent": "deckcheck-recheck"}
    if secret:
        headers[SIGNATURE_HEADER] = signature(body, secret)
    retry = Retry(
        total=5,
        backoff_factor=backoff,
        backoff_max=max(deadline / 4, 0.0),
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"POST"}),  # the receiver de-duplicates by body if it must
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    started = time.monotonic()
    with requests.Session() as session:
        session.mount("http://", HTTPAdapter(max_retries=retry))
        session.mount("https://", HTTPAdapter(max_retries=retry))
        try:
            response = session.post(url, data=body, headers=headers, timeout=max(deadline / 6, 1.0))
        except requests.RequestException as exc:
            raise NotifyError(
                f"the notice to {url} could not be delivered after "
                f"{time.monotonic() - started:.0f} s of retries: {_reason(exc)}"
            ) from exc
    if not 200 <= response.status_code < 300:
        raise NotifyError(
            f"the notice to {url} was refused: HTTP {response.status_code} "
            f"{response.reason or ''}".rstrip()
            + " (after retries)" * (response.status_code in RETRY_STATUSES)
        )


def _reason(exc: BaseException) -> str:
    """The innermost cause of a transport error, in one line."""
    while exc.__context__ is not None and exc.args and "Max retries" in str(exc.args[0]):
        exc = exc.__context__
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
