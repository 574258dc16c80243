"""A whole event in one run: collect inputs into deck jobs, validate them with one card source
(optionally in N processes), and keep every input accounted for.

Inputs (README "Events"): decklist files, directories (recursive; hidden files, what is no
regular file and files that are clearly not decklists are skipped, each skip reported), glob
patterns the shell did not expand, `FILE:FORMAT`, manifests (a CSV with a `file` column and
optional `player`, `format`, `commander`, `as_of` columns; paths relative to the manifest) and
event files (`{"Decks": [{"Player", "Mainboard", "Sideboard", ...}]}`: one deck per player).

Each deck gets a stable id: its path relative to the directory or manifest (with several,
after each one's path relative to their common parent), then `#player` where known, then
`#deck name` where the decklist names itself. Results come back in input order whatever the
number of processes, so reports are identical with `--jobs 1` and `--jobs N`.

The package's public face; the work is split by concern: `inputs` (probing and collecting
inputs, reading manifests and event files), `judge` (one deck), `pool` (a batch, its worker
processes and their signals), `run` (`run_event`), `reports` (the renderings). The judging
function itself is `validator.event.judge.judge`: not re-exported here, where its name would
hide the `judge` module.
"""

from validator.event.inputs import DeckJob, EventInputs, Skipped, collect, report_clash
from validator.event.judge import DeckResult, RunOptions
from validator.event.pool import EventTerminated, processes_for, run_jobs, start_method
from validator.event.run import EventResult, run_event, use_index

__all__ = [
    "DeckJob",
    "DeckResult",
    "EventInputs",
    "EventResult",
    "EventTerminated",
    "RunOptions",
    "Skipped",
    "collect",
    "report_clash",
    "run_event",
    "run_jobs",
    "use_index",
    "processes_for",
    "start_method",
]
