"""A batch of deck jobs judged in input order (`run_jobs`), here or in the worker processes of
`--jobs N`: how many (`processes_for`), how they start (`start_method`), the state each
inherits, and the SIGTERM handling that stops them with the run (`_run_pool`)."""

from __future__ import annotations

import os
from typing import Any

from validator.event.inputs import DeckJob
from validator.event.judge import DeckResult, RunOptions, _ids, judge
from validator.signals import in_child, stop_signals_as

#: Fewer decks than this per extra process do not repay starting it.
MIN_DECKS_PER_PROCESS = 150

#: The default --jobs: what processes cost, CPU seconds measured by bench/bench_event.py on
#: the tournament folder (2,236 decks, the full card file; rerun it when judging changes).
#: Judging a deck with the in-memory index costs JUDGE_DECK_S; in worker processes every deck
#: costs PARALLEL_CPU times that (its result is pickled there and unpickled here: 1.22-1.45x
#: measured, the worst taken), and each worker WORKER_START_S to start.
JUDGE_DECK_S = 0.0006
PARALLEL_CPU = 1.45
WORKER_START_S = 0.03
#: More processes are taken only when they are expected to finish this much sooner: the
#: estimate is rough, and a run that ends up slower than one process is the thing to avoid.
MIN_SPEEDUP = 1.1


# The state a forked worker inherits (set by the parent just before the pool starts).
_WORKER: dict[str, Any] = {}


def _work(job: DeckJob) -> DeckResult:
    return judge(job, _WORKER["cards"], _WORKER["options"], _WORKER["history"])


def _init_spawned(db: str | None, options: RunOptions, history_wanted: bool) -> None:
    """Worker start where fork is unavailable (Windows, macOS's default, or chosen with
    DECKCHECK_START_METHOD): the worker opens the database and loads its own index once."""
    from validator.api import open_db
    from validator.store.index import CardIndex

    database = open_db(db)
    _WORKER["cards"] = CardIndex.from_db(database)
    _WORKER["options"] = options
    _WORKER["history"] = None
    if history_wanted:
        from validator.history.legality import history_for

        _WORKER["history"] = history_for(database)


#: Names the start method of `--jobs` worker processes ("fork", "spawn", "forkserver");
#: default fork where the platform has it (the workers share the loaded index), else spawn.
START_METHOD_ENV = "DECKCHECK_START_METHOD"


def start_method() -> str:
    """The start method `run_jobs` uses for its worker processes."""
    import multiprocessing

    available = multiprocessing.get_all_start_methods()
    wanted = os.environ.get(START_METHOD_ENV, "").strip().lower()
    if wanted:
        if wanted not in available:
            from validator.errors import UsageError

            raise UsageError(
                f"{START_METHOD_ENV}={wanted!r}: this platform starts processes "
                f"with one of {', '.join(available)}"
            )
        return wanted
    return "fork" if "fork" in available else "spawn"


def processes_for(jobs: int | None, decks: int) -> int:
    """How many processes to use: `jobs` when given, as many as the batch repays
    (MIN_DECKS_PER_PROCESS decks each); by default (None) what `default_processes` expects
    to finish soonest on the cores free now."""
    if jobs and jobs > 0:
        return max(1, min(jobs, decks // MIN_DECKS_PER_PROCESS or 1))
    return default_processes(decks, usable_cores(), other_load())


def default_processes(decks: int, cores: int, load: float) -> int:
    """The default --jobs, by the batch's estimated wall time: one process judges `decks` in
    decks x JUDGE_DECK_S; P processes in decks x JUDGE_DECK_S x PARALLEL_CPU / P, plus
    P x WORKER_START_S, if P cores are free: `cores` less `load`, the work of other processes
    (a busy machine gives workers no core of their own: they would only take turns, at
    PARALLEL_CPU the cost). P is taken when it is expected MIN_SPEEDUP times sooner than one
    process, and is at most one per MIN_DECKS_PER_PROCESS decks."""
    free = int(cores - max(load, 0.0) + 0.5)  # a core at least half free counts
    most = min(free, decks // MIN_DECKS_PER_PROCESS)
    one = decks * JUDGE_DECK_S
    best, best_wall = 1, one / MIN_SPEEDUP
    for processes in range(2, most + 1):
        wall = one * PARALLEL_CPU / processes + processes * WORKER_START_S
        if wall < best_wall:
            best, best_wall = processes, wall
    return best


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the platform tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def other_load() -> float:
    """How many cores other processes keep busy: the 1-minute load average (this process,
    collecting the inputs for a moment, adds little to it); 0 where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows; an unreadable /proc/loadavg
        return 0.0


def run_jobs(
    jobs: list[DeckJob],
    cards: Any,
    options: RunOptions,
    *,
    processes: int = 1,
    history: Any = None,
    db: str | None = None,
) -> list[DeckResult]:
    """Judge every job, in input order; with processes > 1 in a process pool (forked from this
    process, so the card index loaded here is shared, not reloaded or pickled)."""
    if processes <= 1 or len(jobs) < 2:
        results = [judge(job, cards, options, history) for job in jobs]
    else:
        results = _run_pool(jobs, cards, options, processes, history, db)
    _ids(results, jobs)
    return results


class EventTerminated(KeyboardInterrupt):
    """SIGTERM arrived while worker processes judged decks: raised like Ctrl-C, so that the
    workers are stopped with the run instead of outliving it."""


def _run_pool(
    jobs: list[DeckJob],
    cards: Any,
    options: RunOptions,
    processes: int,
    history: Any,
    db: str | None,
) -> list[DeckResult]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunk = max(1, len(jobs) // (processes * 8))
    method = start_method()
    if method == "fork":
        _WORKER.update(cards=cards, options=options, history=history)
        pool = ProcessPoolExecutor(
            processes, mp_context=multiprocessing.get_context("fork"), initializer=in_child
        )
    else:  # each worker loads the index from the database (nothing large is pickled)
        pool = ProcessPoolExecutor(
            processes,
            mp_context=multiprocessing.get_context(method),
            initializer=_init_spawned,
            initargs=(db, options, history is not None),
        )
    # SIGTERM (a service manager, `timeout`, `kill`) would end this process alone and leave
    # the workers running: while they run it is raised as EventTerminated, as Ctrl-C is.
    try:
        with stop_signals_as(EventTerminated, quiet_lost=True) as received, pool:
            try:
                results = []
                for result in pool.map(_work, jobs, chunksize=chunk):
                    results.append(result)
                    # The handler's exception can be lost in a fork callback (logging's, as a
                    # worker starts): the run would go on and exit 0. Its note stops it here.
                    received.check()
                received.check()  # lost while the last result came in
                return results
            except BaseException:
                _stop_workers(pool)
                raise
    finally:
        _WORKER.clear()


def _stop_workers(pool: Any) -> None:
    """End a pool's workers now, whatever they are doing (leaving the pool would wait for them
    to finish every queued deck)."""
    pool.shutdown(wait=False, cancel_futures=True)
    if hasattr(pool, "terminate_workers"):  # Python 3.14
        pool.terminate_workers()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
