"""Re-checking stored decks after a sync: judge again only the decks a legality change, an
edit or newly known card data touches, and report the verdicts that changed.

`state` (STATE: what was concluded per deck, with the card-to-decks index), `rows` (the decks
as rows from files, SQL or the event inputs), `plan` (which decks need judging again),
`judging` (one deck for STATE), `records` (the changed decks, failures, summary), `notify`
(the webhook), `run` (`recheck`, tying them together).
"""

from __future__ import annotations

from validator.rechecking.run import recheck

__all__ = ["recheck"]
