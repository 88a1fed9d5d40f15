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
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a program Ctrl+C ended


class GuardedStdout:
    """Stands in for ``sys.stdout``: a write to a closed pipe is recorded, never raised."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.lost = False  # some output could not be delivered
        self.why: OSError | None = None  # what stopped it: a closed pipe, a full disk, ...
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
        # A closed pipe (EPIPE), a full disk (ENOSPC, ``> /dev/full``), an I/O error: the output
        # is lost either way, and the outcome is told on stderr in one line.
        self.lost = True
        self.why = exc
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
        if not _is_pipe(guard.why):
            raise FfgenError(f"cannot write the output ({_reason(guard.why)}); nothing was "
                             "written: re-run with stdout somewhere it can be written")
        raise FfgenError(
            "stdout was closed (SIGPIPE: the reader of the pipe exited) before ffgen finished "
            "its output; nothing was written: re-run with the whole output read",
            exit_code=EXIT_PIPE,
        )


def _is_pipe(exc: OSError | None) -> bool:
    return exc is None or isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE


def _reason(exc: OSError | None) -> str:
    return (exc.strerror if exc is not None else None) or str(exc)


def exit_code() -> int:
    """The exit code of output lost without an error saying so: SIGPIPE's for a closed pipe,
    1 for output that could not be written (the command did not do its job: say it)."""
    guard = _guard()
    return EXIT_PIPE if guard is None or _is_pipe(guard.why) else 1


_ERROR_LINE = [False]  # an ``error:`` line was printed in this run


def error_reported() -> None:
    """An ``error:`` line is on its way to stderr: it is the one line, and its exit code
    stands (a refusal wrote nothing, whatever became of stdout)."""
    _ERROR_LINE[0] = True
    guard = _guard()
    if guard is not None:
        guard.reported = True


def error_line_printed() -> bool:
    return _ERROR_LINE[0]


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
    what = ("stdout was closed (SIGPIPE)" if _is_pipe(guard.why)
            else f"cannot write the output ({_reason(guard.why)})")
    if guard.written is not None:
        root, count = guard.written
        return (f"error: {what} after the last write: the command had finished, {count} "
                f"file(s) written under {root}; only its output was cut short")
    if _is_pipe(guard.why):
        return f"error: {what} before ffgen finished its output; nothing was written"
    return f"error: {what}; nothing was written"


def print_error(exc) -> int:
    """The one ``error:`` line for an :class:`~ffgen.errors.FfgenError`; its exit code."""
    from rich.console import Console
    from rich.markup import escape

    from ffgen.errors import bounded

    error_reported()  # the error line is the one line, lost output or not
    # escaped: the message quotes names and paths, which may hold what reads as a style tag
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[bold red]error:[/bold red] {escape(bounded(exc.message))}", markup=True
    )
    return exc.exit_code


def interrupted() -> int:
    """Ctrl+C outside the writes (``apply`` answers it itself while it writes, rolling back):
    one line, and the exit code a shell gives a program SIGINT ended."""
    error_reported()
    try:
        print("error: interrupted (Ctrl+C)", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return INTERRUPTED
