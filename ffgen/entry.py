"""The ``ffgen`` command's entry point: make the standard streams safe, then run the command.

The commands run most take short ways around typer, whose import (with its bundled click) costs
more than the rest of ``verify``'s start-up: ``verify`` and ``new`` when :mod:`ffgen.argv` reads
their arguments completely (anything else goes to typer, so its parsing and messages stay the only
ones; both ways share one body), and ``ffgen --help``, printed from typer's own text rendered
ahead of time and held current by a test. Both short ways run without the cyclic garbage
collector and leave without the interpreter's teardown (see :func:`main` and
:func:`_leave_now`): for ``verify`` together a sixth of a run on a real checkout.
"""

from __future__ import annotations

import sys
from pathlib import Path

# ``ffgen --help`` is printed from text rendered ahead of time by typer itself (ffgen/top_help.py;
# tests/core/test_entry.py checks it is current): click wraps help at min(columns, 80) - 2, so
# one text serves every terminal of 80 columns or more; a narrower one goes to typer.
HELP_COLUMNS = 80
PROG = "{prog}"
TOP_HELP_DOC = '''"""typer's text for ``ffgen --help``: ``python -m ffgen.entry --write-help``
makes it (generated; do not edit). ``{prog}`` stands for the program's name.
"""
'''


INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a program Ctrl+C ended


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


def interrupted() -> int:
    """Ctrl+C outside the writes (``apply`` answers it itself while it writes, rolling back):
    one line, and the exit code a shell gives a program SIGINT ended."""
    _SEEN["error_line"] = True
    try:
        print("error: interrupted (Ctrl+C)", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return INTERRUPTED


# What this run has seen: a Ctrl+C, an ``error:`` line printed (so one more is not needed).
_SEEN = {"ctrl_c": False, "error_line": False}


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
    from ffgen import argv as short_way

    argv = sys.argv[1:]
    read = short_way.options(argv)
    if read is not None:
        import gc

        # A short run keeps every parsed tree to its end: looking for cycles among them only
        # costs time (a tenth of a verify run), and what is left is freed at exit. Off before
        # the commands' imports too.
        gc.disable()
        code = _verify_code(read[1]) if read[0] == "verify" else _new_code(read[1])
    elif argv == ["--help"] and _columns() >= HELP_COLUMNS:
        code = _print_top_help()
    else:
        code = _typer_code()
    if code == INTERRUPTED and _SEEN["ctrl_c"] and not _SEEN["error_line"]:
        code = interrupted()  # typer turns Ctrl+C into a silent exit 130
    lost = stdout_guard.lost_output()  # flushes stdout
    if lost is not None:
        print(lost, file=sys.stderr)
        code = stdout_guard.exit_code()
    if read is not None:
        _leave_now(code)
    sys.exit(code)


def _print_top_help() -> int:
    from ffgen.top_help import TEXT

    print(TEXT.replace(PROG, _program_name()), end="")
    return 0


def _columns() -> int:
    """The terminal width click formats help for (``shutil.get_terminal_size``'s answer)."""
    import os

    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 80


def _program_name() -> str:
    """How the usage line names the program, as click works it out (``ffgen``, or ``python -m
    ffgen`` when run as a module)."""
    import os

    main_module = sys.modules.get("__main__")
    if getattr(main_module, "__package__", None) in (None, ""):
        return os.path.basename(sys.argv[0])
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    package = main_module.__package__ if name == "__main__" else f"{main_module.__package__}.{name}"
    return f"python -m {package.lstrip('.')}"


def render_top_help() -> str:
    """typer's own ``ffgen --help`` at a terminal of ``HELP_COLUMNS`` or more, with ``PROG``
    for the program's name (what ``ffgen/top_help.py`` holds), from a fresh interpreter as the
    program prints it (typer's test runner shortens command help differently)."""
    import os
    import subprocess

    child = f"import sys; sys.argv = [{PROG!r}, '--help']; from ffgen.entry import _typer_code; " \
        "sys.exit(_typer_code())"
    env = {**os.environ, "COLUMNS": str(HELP_COLUMNS)}
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          env=env, check=True)
    return done.stdout


def _write_top_help() -> None:
    from pathlib import Path

    lines = "".join(f"    {line!r}\n" for line in render_top_help().splitlines(keepends=True))
    path = Path(__file__).with_name("top_help.py")
    path.write_text(f"{TOP_HELP_DOC}\nTEXT = (\n{lines})\n", encoding="utf-8")
    print(f"wrote {path}")


def _typer_code() -> int:
    from ffgen.cli import app_code

    return app_code()


def _verify_code(options: dict[str, object]) -> int:
    from ffgen.verify.command import verify_cmd

    try:
        return verify_cmd(**options)
    except KeyboardInterrupt:
        return interrupted()


def _new_code(options: dict[str, object]) -> int:
    try:
        return new_code(**options)
    except KeyboardInterrupt:
        return interrupted()


def new_code(*, name: str, param: list[str] | None, yes: bool, answers: Path | None,
             like: str | None, extends: str | None, class_name: str | None,
             checkout: Path | None, dry_run: bool, force: bool, fmt: str, debug: bool,
             **flags: str | None) -> int:
    """``ffgen new``, from the keyword arguments of its typer command (either way)."""
    from ffgen.argv import CLASSIFY_FLAGS
    from ffgen.classify.params import params_text
    from ffgen.errors import FfgenError
    from ffgen.generate.new import NewRequest, run_new

    if set(flags) != set(CLASSIFY_FLAGS):  # the typer command and the short way disagree
        raise TypeError(f"new: unexpected options {sorted(set(flags) ^ set(CLASSIFY_FLAGS))}")

    request = NewRequest(
        name=name, class_name=class_name, checkout=checkout,
        flags={**flags, "params": params_text(param)},
        interactive=not yes and answers is None and _is_terminal(sys.stdin),
        dry_run=dry_run, force=force, fmt=fmt, answers_file=answers, like=like, extends=extends,
    )
    try:
        return run_new(request)
    except FfgenError as exc:
        if debug:
            raise
        return print_error(exc)


def print_error(exc) -> int:
    """The one ``error:`` line for an :class:`~ffgen.errors.FfgenError`; its exit code."""
    from rich.console import Console

    from ffgen import stdout_guard

    stdout_guard.error_reported()  # the error line is the one line, lost output or not
    _SEEN["error_line"] = True
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[bold red]error:[/bold red] {exc.message}", markup=True
    )
    return exc.exit_code


def _is_terminal(stream) -> bool:
    return stream is not None and not stream.closed and stream.isatty()


def _leave_now(code: int) -> None:
    """Exit without tearing the interpreter down, as mypy does: freeing every tree and module
    one object at a time is a sixth of a verify run and 30-80 ms of a new, and changes nothing.
    Both have finished: every file written is closed, the checkout lock is a file lock the kernel
    drops with the process, and ffgen registers no exit handler; the streams are flushed here."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed stream: what could be said is said, the code says the rest
    os._exit(code)


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


if __name__ == "__main__" and sys.argv[1:] == ["--write-help"]:
    _write_top_help()
