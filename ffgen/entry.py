"""The ``ffgen`` command's entry point: make the standard streams safe, then run the command.

``ffgen verify`` takes a short way around typer. CI runs it on every push, and importing typer
(with its bundled click) costs more than the rest of a clean run's start-up. The short way
handles only argument lists it understands completely: the options of ``verify`` and their
values. Anything else (``--help``, an unknown option, a missing value, a value that looks like an
option) goes to typer, so its parsing and its messages stay the only ones. ``ffgen --help`` is
printed from typer's own text, rendered ahead of time and held current by a test. The short way also
runs without the cyclic garbage collector and leaves without the interpreter's teardown (see
:func:`_verify_code` and :func:`_leave_now`): together a sixth of a run on a real checkout.
"""

from __future__ import annotations

import sys
from pathlib import Path

# verify's options as typer declares them (ffgen/cli.py): name -> keyword of verify_cmd
_VERIFY_VALUES = {
    "--checkout": "checkout",
    "--algorithm": "algorithm",
    "--format": "fmt",
    "--explain": "explain",
}
_VERIFY_FLAGS = {"--fix": "fix", "--dry-run": "dry_run"}
# ``ffgen --help`` is printed from text rendered ahead of time by typer itself (ffgen/top_help.py;
# tests/core/test_entry.py checks it is current): click wraps help at min(columns, 80) - 2, so
# one text serves every terminal of 80 columns or more; a narrower one goes to typer.
HELP_COLUMNS = 80
PROG = "{prog}"
TOP_HELP_DOC = '''"""typer's text for ``ffgen --help``: ``python -m ffgen.entry --write-help``
makes it (generated; do not edit). ``{prog}`` stands for the program's name.
"""
'''


def verify_options(argv: list[str]) -> dict[str, object] | None:
    """The keyword arguments typer would pass to ``verify_cmd`` for ``argv`` (the words after
    ``ffgen``), or None when typer must see ``argv`` itself."""
    if not argv or argv[0] != "verify":
        return None
    options: dict[str, object] = {
        "checkout": None, "algorithm": None, "fmt": "text", "explain": None,
        "fix": False, "dry_run": False,
    }
    words = iter(argv[1:])
    for word in words:
        name, equals, value = word.partition("=")
        if name in _VERIFY_FLAGS and not equals:
            options[_VERIFY_FLAGS[name]] = True
        elif name in _VERIFY_VALUES:
            if not equals:
                value = next(words, None)
            if not value or value.startswith("-"):
                return None  # a missing or empty value, or an option: click's own way and words
            options[_VERIFY_VALUES[name]] = value  # as click: the last one given wins
        else:
            return None
    if options["checkout"] is not None:
        options["checkout"] = Path(options["checkout"])
    return options


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
    argv = sys.argv[1:]
    options = verify_options(argv)
    if options is not None:
        code = _verify_code(options)
    elif argv == ["--help"] and _columns() >= HELP_COLUMNS:
        code = _print_top_help()
    else:
        code = _typer_code()
    lost = stdout_guard.lost_output()  # flushes stdout
    if lost is not None:
        print(lost, file=sys.stderr)
        code = stdout_guard.EXIT_PIPE
    if options is not None:
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
    import gc

    from ffgen.errors import EXIT_USAGE
    from ffgen.verify.command import verify_cmd

    # A short read-only run keeps every parsed tree to its end: looking for cycles among
    # them only costs time (a tenth of the run), and what is left is freed at exit.
    gc.disable()
    try:
        return verify_cmd(**options)
    except KeyboardInterrupt:
        return EXIT_USAGE


def _leave_now(code: int) -> None:
    """Exit without tearing the interpreter down, as mypy does: freeing every tree one object
    at a time is a sixth of a verify run and changes nothing (the run only read files, holds no
    lock and has no exit handlers; the kernel takes the memory back at once)."""
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
