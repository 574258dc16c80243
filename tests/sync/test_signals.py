"""validator.signals: SIGTERM as an exception while a job runs, the previous handler back after
it, nothing installed where Python cannot (another thread) or should not (a program's own
handler)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from types import SimpleNamespace

import pytest

from validator.signals import in_child, stop_signals_as


class Stopped(KeyboardInterrupt):
    pass


def _wait() -> None:
    """Python runs the handler between bytecodes, at once after os.kill; never hang if not."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        time.sleep(0.01)
    raise AssertionError("the signal's handler did not raise")


def test_sigterm_raises_the_exception_and_is_noted() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Stopped, match=f"signal {int(signal.SIGTERM)}"):
        with stop_signals_as(Stopped) as received:
            assert not received
            os.kill(os.getpid(), signal.SIGTERM)
            _wait()
    assert received.signals == [signal.SIGTERM]
    assert signal.getsignal(signal.SIGTERM) is before
    with pytest.raises(Stopped, match="signal"):
        received.check()  # the note raises again, for a handler exception that was lost


def test_the_handler_is_restored_when_no_signal_came() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with stop_signals_as(Stopped) as received:
        assert signal.getsignal(signal.SIGTERM) is not before
    received.check()  # nothing arrived: does not raise
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_handler_the_program_set_is_kept() -> None:
    seen: list[int] = []
    own = lambda signum, frame: seen.append(signum)  # noqa: E731
    previous = signal.signal(signal.SIGTERM, own)
    try:
        with stop_signals_as(Stopped) as received:
            assert signal.getsignal(signal.SIGTERM) is own
            os.kill(os.getpid(), signal.SIGTERM)
        assert seen == [signal.SIGTERM] and not received
        assert signal.getsignal(signal.SIGTERM) is own
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_sigint_only_when_asked() -> None:
    with stop_signals_as(Stopped):
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(Stopped):
        with stop_signals_as(Stopped, (signal.SIGTERM, signal.SIGINT)):
            os.kill(os.getpid(), signal.SIGINT)
            _wait()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_outside_the_main_thread_nothing_is_installed() -> None:
    before = signal.getsignal(signal.SIGTERM)
    outcome: list[object] = []

    def job() -> None:
        try:
            with stop_signals_as(Stopped) as received:
                outcome.append((signal.getsignal(signal.SIGTERM) is before, bool(received)))
        except Exception as exc:  # noqa: BLE001 - the test reports it
            outcome.append(exc)

    thread = threading.Thread(target=job)
    thread.start()
    thread.join()
    assert outcome == [(True, False)]


def test_quiet_lost_drops_only_the_noted_signals_exception(monkeypatch) -> None:
    printed: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", printed.append)
    with pytest.raises(Stopped):
        with stop_signals_as(Stopped, quiet_lost=True) as received:
            lost = SimpleNamespace(exc_value=Stopped("signal 15"))
            sys.unraisablehook(lost)  # before any signal: still printed
            os.kill(os.getpid(), signal.SIGTERM)
            _wait()
    assert printed == [lost]
    assert received
    # While a pool runs the hook is ours; it drops a lost Stopped once one was noted.
    with stop_signals_as(Stopped, quiet_lost=True) as again:
        again.signals.append(signal.SIGTERM)
        other = SimpleNamespace(exc_value=ValueError("x"))
        sys.unraisablehook(SimpleNamespace(exc_value=Stopped("signal 15")))
        sys.unraisablehook(other)
    assert printed == [lost, other]
    assert sys.unraisablehook == printed.append  # the previous hook is back


def test_in_child_leaves_the_signals_to_the_parent() -> None:
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        signal.signal(signal.SIGTERM, lambda *a: None)
        in_child()
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        assert signal.getsignal(signal.SIGINT) is saved[signal.SIGINT]
        in_child(ignore_interrupt=True)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
