"""A closed stdout (``ffgen new ... | head -1``) never changes an outcome silently.

Python ignores SIGPIPE, so a write to a pipe whose reader has gone raises ``BrokenPipeError``
wherever the next print happens: before the writes it would skip them with a traceback, after
them it would hide that they were made. The ``ffgen`` command wraps stdout instead
(:func:`install`): output that cannot be delivered is dropped and remembered. Before the first
write :func:`before_writes` refuses to go on once the output is lost (nothing is written); after
the last one :func:`after_writes` notes what was written, and :func:`lost_output` gives the one
stderr line that says so. Either way the command exits 128 + SIGPIPE, as a program killed by the
signal would, and as ffgen does for a signal after the last write.

Only the ``ffgen`` command installs the guard; used as a library (or under a test runner that
captures stdout) ffgen leaves stdout alone and these functions do nothing.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import sys
from pathlib import Path

EXIT_PIPE = 128 + getattr(signal, "SIGPIPE", 13)


class GuardedStdout:
    """Stands in for ``sys.stdout``: a write to a closed pipe is recorded, never raised."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.lost = False  # some output could not be delivered
        self.reported = False  # an error line already said so
        self.written: tuple[Path, int] | None = None  # (root, files) once a plan was applied

    def write(self, text: str) -> int:
        if not self.lost:
            try:
                return self._stream.write(text)
            except OSError as exc:
                self._lose(exc)
        return len(text)

    def flush(self) -> None:
        if not self.lost:
            try:
                self._stream.flush()
            except OSError as exc:
                self._lose(exc)

    def _lose(self, exc: OSError) -> None:
        if not isinstance(exc, BrokenPipeError) and exc.errno != errno.EPIPE:
            raise exc
        self.lost = True
        # Later flushes (the interpreter's own at exit among them) go to /dev/null instead of
        # failing again with "Exception ignored ... BrokenPipeError".
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass

    def check_reader(self) -> None:
        """Count a pipe whose reader has gone as lost output, before anything is written to it
        (poll reports POLLERR on the write end of a pipe nobody reads)."""
        if self.lost or not _reader_gone(self._stream):
            return
        self._lose(BrokenPipeError(errno.EPIPE, "reader gone"))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _reader_gone(stream) -> bool:
    try:
        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        import select

        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def install() -> None:
    if not isinstance(sys.stdout, GuardedStdout):
        sys.stdout = GuardedStdout(sys.stdout)


def _guard() -> GuardedStdout | None:
    return sys.stdout if isinstance(sys.stdout, GuardedStdout) else None


def before_writes() -> None:
    """Called before a plan's first write: refuse once stdout is lost (nothing is written)."""
    from ffgen.errors import FfgenError

    guard = _guard()
    if guard is None:
        return
    guard.flush()
    guard.check_reader()
    if guard.lost:
        guard.reported = True
        raise FfgenError(
            "stdout was closed (SIGPIPE: the reader of the pipe exited) before ffgen finished "
            "its output; nothing was written: re-run with the whole output read",
            exit_code=EXIT_PIPE,
        )


def error_reported() -> None:
    """An ``error:`` line is on its way to stderr: it is the one line, and its exit code
    stands (a refusal wrote nothing, whatever became of stdout)."""
    guard = _guard()
    if guard is not None:
        guard.reported = True


def after_writes(root: Path, count: int) -> None:
    guard = _guard()
    if guard is not None:
        guard.written = (root, count)


def lost_output() -> str | None:
    """The stderr line for output lost without an error saying so (None when none was)."""
    guard = _guard()
    if guard is None:
        return None
    guard.flush()
    if not guard.lost or guard.reported:
        return None
    if guard.written is not None:
        root, count = guard.written
        return (f"error: stdout was closed (SIGPIPE) after the last write: the command had "
                f"finished, {count} file(s) written under {root}; only its output was cut short")
    return ("error: stdout was closed (SIGPIPE) before ffgen finished its output; nothing was "
            "written")


def print_error(exc) -> int:
    """The one ``error:`` line for an :class:`~ffgen.errors.FfgenError`; its exit code."""
    from rich.console import Console

    error_reported()  # the error line is the one line, lost output or not
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[bold red]error:[/bold red] {exc.message}", markup=True
    )
    return exc.exit_code
