"""What the `deckcheck` command line prints and how it ends: the exit codes, one-line errors on
stderr, JSON and human values on stdout, and the guard that keeps a closed pipe from changing a
verdict's exit code."""

from __future__ import annotations

import os
import sys

EXIT_OK, EXIT_ILLEGAL, EXIT_USAGE, EXIT_UNCONFIRMED = 0, 1, 2, 3
#: Set to print the traceback of an internal error (a bug) after its one-line message.
DEBUG_ENV = "DECKCHECK_DEBUG"
#: The schema of the JSON `info --json` prints (`changes --json`: validator.history.changes).
INFO_SCHEMA = "deckcheck.info/1"


def err(message: str) -> None:
    from validator.report import escape_controls  # a file or player name can carry controls

    print(f"deckcheck: {escape_controls(message)}", file=sys.stderr)


def one_line(message: str) -> str:
    """Errors are one line on stderr, whatever the layer below put in the message."""
    return "; ".join(part.strip() for part in message.splitlines() if part.strip())


def human(value: object) -> str:
    """A fact as text: yes for True, a whole mana value without its ".0", a list by commas."""
    if value is True:
        return "yes"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def print_json(data: object) -> None:
    import json

    def encode(value: object) -> str:  # dates from the database
        if hasattr(value, "isoformat"):
            return value.isoformat()
        raise TypeError(f"not JSON: {type(value).__name__}")

    print(json.dumps(data, indent=2, ensure_ascii=False, default=encode))


class Output:
    """sys.stdout or sys.stderr during a command. A reader that stops reading (`| head -1`)
    ends the output, not the run: the verdict was reached, so the exit code stays the run's
    own (1 for an illegal deck, 2 for an input that could not be read; never 0 because the
    pipe closed), `--report` files are still written, and nothing more is printed. The
    stream's descriptor is pointed at os.devnull, so Python's flush at exit does not print
    "Exception ignored ... BrokenPipeError" either (Python docs, "Note on SIGPIPE")."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_gone()

    def _reader_gone(self) -> None:
        self.gone = True
        try:
            fd = self._stream.fileno()
        except (AttributeError, OSError, ValueError):
            return  # no file behind it (a test's capture): nothing is flushed at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
