"""The ``ffgen`` command's entry point: make the standard streams safe, then run typer's app
(:mod:`ffgen.cli`)."""

from __future__ import annotations

import sys


def main() -> None:
    """The ``ffgen`` command: one ``error:`` line for every problem, a closed stdout included."""
    import signal

    handler = signal.getsignal(signal.SIGINT)
    if getattr(handler, "__name__", "") == "exit_quietly":  # see ffgen._quiet_ctrl_c
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _streams_that_exist()
    _escaping_output()
    from ffgen import stdout_guard

    stdout_guard.install()  # a closed pipe on stdout is reported, never a traceback
    from ffgen.cli import app_code

    code = app_code()
    lost = stdout_guard.lost_output()  # flushes stdout
    if lost is not None:
        print(lost, file=sys.stderr)
        code = stdout_guard.EXIT_PIPE
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
