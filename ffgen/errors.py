"""The one error type users see.

The CLI catches :class:`FfgenError` once, prints its message as a single line and exits with its
code; tracebacks appear only with ``--debug``.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2

# A 50,000-term expression parses in CPython's C parser but overflows any recursive analysis
# (reading facts, verify's index, the libcst edits all say so in these words).
TOO_DEEP = "nested too deeply to analyse (an expression of thousands of terms)"


class FfgenError(Exception):
    """A problem the user can fix: the message names it and says how."""

    exit_code = EXIT_REFUSED

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self) -> str:
        return str(self.args[0])


# The error line quotes what it was given (a name, a spec, a path): a 100,000-character argument
# came back whole, twice. A word is cut in its middle past WORD characters, the line past LINE
# (the head names the problem, the tail says the fix, so both stay).
WORD, LINE = 300, 4000


def bounded(message: str) -> str:
    """``message`` for the one error line: no word over ``WORD``, at most ``LINE`` characters."""
    import re

    def cut(match: re.Match) -> str:
        word = match.group(0)
        return f"{word[: WORD // 2]}...({len(word)} characters)...{word[-WORD // 4:]}"

    text = re.sub(rf"\S{{{WORD + 1},}}", cut, message)
    if len(text) <= LINE:
        return text
    return f"{text[: LINE // 2]} ...({len(text)} characters)... {text[-LINE // 4:]}"


class UsageError(FfgenError):
    """Bad flags or answers (exit 2)."""

    exit_code = EXIT_USAGE


class RefusedError(FfgenError):
    """A request ffgen understood but will not carry out (exit 1)."""

    exit_code = EXIT_REFUSED


def quoted(value: object, limit: int = 80) -> str:
    """``repr(value)`` for a message, bounded: nested or aliased data (a YAML alias bomb) is
    cut at a few levels and items, a long text at ``limit`` characters."""
    import reprlib

    shorten = reprlib.Repr()
    shorten.maxlevel, shorten.maxlist, shorten.maxtuple, shorten.maxdict = 3, 4, 4, 4
    shorten.maxset = shorten.maxfrozenset = shorten.maxdeque = shorten.maxarray = 4
    shorten.maxstring = shorten.maxother = shorten.maxlong = limit
    text = shorten.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
