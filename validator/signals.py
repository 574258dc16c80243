"""Stop signals as exceptions: the one way deckcheck handles SIGTERM (and, when asked, SIGINT).

A long job (a sync, an event's pool of worker processes) must clean up when a service manager,
`timeout` or `kill` sends SIGTERM, as it does on Ctrl-C: remove its partial download, roll its
transaction back, stop its worker processes. Python raises KeyboardInterrupt on SIGINT but dies
of SIGTERM at once, so while such a job runs, `stop_signals_as` turns SIGTERM into an exception
(a KeyboardInterrupt subclass, so the same clean-up runs) and notes it: a handler that runs
inside a fork callback raises where the exception is only printed ("Exception ignored"), and
the note still stops the job (`Received.check`). Worker processes call `in_child`, which leaves
the signals to their parent.

The bottom layer: the standard library only.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: Handlers a program has not replaced: the operating system's default (SIGTERM's), and
#: Python's own for SIGINT (which raises KeyboardInterrupt).
_DEFAULT_HANDLERS = (signal.SIG_DFL, signal.default_int_handler)


class Received:
    """The stop signals that arrived while `stop_signals_as` was active, in the order they came."""

    def __init__(self, exc_type: type[BaseException]) -> None:
        self.exc_type = exc_type
        self.signals: list[int] = []

    def __bool__(self) -> bool:
        return bool(self.signals)

    def check(self) -> None:
        """Raise the exception of the first signal noted, if one arrived: the handler's own
        exception can have been lost (see the module docstring), its note cannot."""
        if self.signals:
            raise self.exc_type(f"signal {self.signals[0]}")


@contextmanager
def stop_signals_as(
    exc_type: type[BaseException],
    signums: tuple[int, ...] = (signal.SIGTERM,),
    *,
    quiet_lost: bool = False,
) -> Iterator[Received]:
    """While the block runs, each signal of `signums` is noted in the `Received` yielded and
    raises `exc_type(f"signal {signum}")`; on leaving, the previous handlers are restored.

    A handler is installed only in the main thread (Python runs signal handlers there alone,
    and `signal.signal` refuses any other thread) and only in place of a default one (a
    program that set its own handler keeps it); otherwise the block runs with the handlers as
    they are, and `Received` stays empty.

    `quiet_lost`: while the block runs, an `exc_type` exception that could not be raised (it
    reaches `sys.unraisablehook`) once a signal was noted is not printed, since the note stops
    the job (`Received.check`); anything else goes to the previous hook."""
    received = Received(exc_type)
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def on_signal(signum: int, _frame: Any) -> None:
        received.signals.append(signum)
        raise exc_type(f"signal {signum}")

    previous = {}
    for signum in signums:
        if signal.getsignal(signum) in _DEFAULT_HANDLERS:
            previous[signum] = signal.signal(signum, on_signal)
    unraisable = sys.unraisablehook
    quiet = quiet_lost and bool(previous)
    if quiet:
        sys.unraisablehook = functools.partial(_quiet_when_received, received, unraisable)
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if quiet:
            sys.unraisablehook = unraisable


def _quiet_when_received(received: Received, previous: Any, unraisable: Any) -> None:
    """`sys.unraisablehook` under `stop_signals_as(quiet_lost=True)`: a lost exception of
    the signal's type is already noted for the job to raise; anything else is `previous`'s."""
    if isinstance(unraisable.exc_value, received.exc_type) and received:
        return
    previous(unraisable)


def in_child(*, ignore_interrupt: bool = False) -> None:
    """In a worker process: SIGTERM kills it (a handler inherited through fork would only
    raise in it), and with `ignore_interrupt` Ctrl-C is left to the parent, which gets it too
    (the terminal signals the whole process group) and stops the worker itself."""
    if ignore_interrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
