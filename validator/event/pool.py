"""The worker processes of `--jobs N`: how many (`processes_for`), how they start
(`start_method`), the state each inherits, and the SIGTERM handling that stops them with the
run (`_run_pool`)."""

from __future__ import annotations

import functools
import os
import sys
from typing import Any

from validator.event.inputs import DeckJob
from validator.event.judge import DeckResult, RunOptions, judge

#: Fewer decks than this per extra process do not repay starting it.
MIN_DECKS_PER_PROCESS = 150


# The state a forked worker inherits (set by the parent just before the pool starts).
_WORKER: dict[str, Any] = {}


def _work(job: DeckJob) -> DeckResult:
    return judge(job, _WORKER["cards"], _WORKER["options"], _WORKER["history"])


def _init_spawned(db: str | None, options: RunOptions, history_wanted: bool) -> None:
    """Worker start where fork is unavailable (Windows, macOS's default, or chosen with
    DECKCHECK_START_METHOD): the worker opens the database and loads its own index once."""
    from validator.api import open_db
    from validator.rules.resolve import CardIndex

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

            raise UsageError(f"{START_METHOD_ENV}={wanted!r}: this platform starts processes "
                             f"with one of {', '.join(available)}")
        return wanted
    return "fork" if "fork" in available else "spawn"


def processes_for(jobs: int | None, decks: int) -> int:
    """How many processes to use: at most `jobs` (default: the cores), and only as many as
    the batch repays (MIN_DECKS_PER_PROCESS decks each)."""
    wanted = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
    return max(1, min(wanted, decks // MIN_DECKS_PER_PROCESS or 1))


class EventTerminated(KeyboardInterrupt):
    """SIGTERM arrived while worker processes judged decks: raised like Ctrl-C, so that the
    workers are stopped with the run instead of outliving it."""


#: The SIGTERM received during this run's pool: its exception can be lost, so it is also noted
#: here and checked after each result (`_run_pool`).
_SIGNALLED: list[int] = []


def _terminated(signum: int, _frame: Any) -> None:
    _SIGNALLED.append(signum)
    raise EventTerminated(f"signal {signum}")


def _quiet_when_terminated(previous: Any, unraisable: Any) -> None:
    """`sys.unraisablehook` while a pool runs: an EventTerminated that could not be raised
    (its signal arrived in a fork callback) is already noted for the run to raise; anything
    else goes to the `previous` hook."""
    if isinstance(unraisable.exc_value, EventTerminated) and _SIGNALLED:
        return
    previous(unraisable)


def _init_forked() -> None:
    """A forked worker dies of SIGTERM (the parent's handler, inherited, would only raise)."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _run_pool(jobs: list[DeckJob], cards: Any, options: RunOptions, processes: int,
              history: Any, db: str | None) -> list[DeckResult]:
    import multiprocessing
    import signal
    import threading
    from concurrent.futures import ProcessPoolExecutor

    chunk = max(1, len(jobs) // (processes * 8))
    method = start_method()
    if method == "fork":
        _WORKER.update(cards=cards, options=options, history=history)
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_init_forked)
    else:  # each worker loads the index from the database (nothing large is pickled)
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context(method),
                                   initializer=_init_spawned,
                                   initargs=(db, options, history is not None))
    # SIGTERM (a service manager, `timeout`, `kill`) would end this process alone and leave
    # the workers running: while they run it is raised as EventTerminated (in the main thread,
    # unless the program set its own handler), as Ctrl-C is.
    on_term = (threading.current_thread() is threading.main_thread()
               and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
    unraisable = sys.unraisablehook
    if on_term:
        _SIGNALLED.clear()
        signal.signal(signal.SIGTERM, _terminated)
        # The handler's exception lost in a fork callback: noted in _SIGNALLED and raised
        # below, so not also printed as "Exception ignored" with its traceback.
        sys.unraisablehook = functools.partial(_quiet_when_terminated, unraisable)
    try:
        with pool:
            try:
                results = []
                for result in pool.map(_work, jobs, chunksize=chunk):
                    results.append(result)
                    # A handler's exception raised while a fork callback runs (logging's, as a
                    # worker starts) is printed as "Exception ignored" and lost: the run would
                    # go on and exit 0. The note it left stops the run here instead.
                    if _SIGNALLED:
                        raise EventTerminated(f"signal {_SIGNALLED[0]}")
                if _SIGNALLED:  # lost while the last result came in
                    raise EventTerminated(f"signal {_SIGNALLED[0]}")
                return results
            except BaseException:
                _stop_workers(pool)
                raise
    finally:
        _WORKER.clear()
        if on_term:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            sys.unraisablehook = unraisable


def _stop_workers(pool: Any) -> None:
    """End a pool's workers now, whatever they are doing (leaving the pool would wait for them
    to finish every queued deck)."""
    pool.shutdown(wait=False, cancel_futures=True)
    if hasattr(pool, "terminate_workers"):  # Python 3.14
        pool.terminate_workers()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
