"""The ``ffgen`` command's entry point: make the standard streams safe, then run typer's app
(:mod:`ffgen.cli`)."""

from __future__ import annotations

import sys

from ffgen.stdout_guard import INTERRUPTED, interrupted


def main() -> None:
    """The ``ffgen`` command: one ``error:`` line for every problem, a closed stdout and Ctrl+C
    included."""
    try:
        _main()
    except KeyboardInterrupt:
        sys.exit(interrupted())
    except Exception as exc:
        if _SEEN["ctrl_c"] and _from_ctrl_c(exc):  # e.g. a RuntimeError wrapping it in an import
            sys.exit(interrupted())
        raise


def _from_ctrl_c(exc: BaseException | None) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


# What this run has seen: a Ctrl+C (an ``error:`` line printed is stdout_guard's to know).
_SEEN = {"ctrl_c": False}


def _on_ctrl_c(signum: int, frame: object) -> None:
    """Python's own SIGINT handler, remembering that it ran."""
    _SEEN["ctrl_c"] = True
    raise KeyboardInterrupt


def _main() -> None:
    import signal

    handler = signal.getsignal(signal.SIGINT)
    if getattr(handler, "__name__", "") == "exit_quietly":  # see ffgen._quiet_ctrl_c
        signal.signal(signal.SIGINT, _on_ctrl_c)
    _streams_that_exist()
    _escaping_output()
    from ffgen import stdout_guard

    stdout_guard.install()  # a closed pipe on stdout is reported, never a traceback
    from ffgen.cli import app_code

    code = app_code()
    if code == INTERRUPTED and _SEEN["ctrl_c"] and not stdout_guard.error_line_printed():
        code = interrupted()  # typer turns Ctrl+C into a silent exit 130
    lost = stdout_guard.lost_output()  # flushes stdout
    if lost is not None:
        print(lost, file=sys.stderr)
        code = stdout_guard.exit_code()
    sys.exit(code)


def _streams_that_exist() -> None:
    """Started with stdin, stdout or stderr closed (``<&-``, ``>&-``): Python gives None, and
    every print would crash. Closed output goes nowhere; closed input reads as empty."""
    import os

    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115


def _escaping_output() -> None:
    """Never crash on encoding: text an ASCII (or other narrow) stream cannot carry is written
    as backslash escapes."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        # Also over the C locale's surrogateescape, which fails on any non-ASCII character.
        if reconfigure is not None and stream.errors in ("strict", "surrogateescape"):
            reconfigure(errors="backslashreplace")
