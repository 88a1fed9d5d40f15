"""Piped output without rich: the PlainConsole prints byte for byte what the rich Console the
commands use would print, and hands rich everything it cannot print the same way."""

from __future__ import annotations

import contextlib
import io

import pytest
from rich.console import Console
from rich.text import Text

from ffgen.output import PlainConsole, output_console

# What the commands print, and what a path or a note could bring into it.
CASES = [
    "  [green]CREATE   [/green] src/flow_factory/trainers/offline/my_sft.py",
    "  [bold red]CONFLICT [/bold red] a.py [dim](edited since ffgen wrote it)[/dim]",
    "[bold]my-sft[/bold]: OFFLINE_EXECUTION_CONTRACT (dataset + none), decoupled",
    "[dim]forced: feedback = none (dataset acquisition has no runtime reward)[/dim]",
    "16 file(s) written under /tmp/x y/checkout",
    "",
    "trailing spaces   ",
    "two\nlines",
    "a very long line " * 20,
    "unicode: é ü 中文 ✓",
    # rich treats these its own way: the PlainConsole must hand them over
    "a [link] in a note",
    "an escaped \\[dim] tag",
    "[italic]an unknown style[/italic]",
    "[dim]closed by[/] the last",
    "[bold][dim]nested[/dim] and not[/bold]",
    "an emoji :smile: code",
    "not an emoji :nosuchemoji: code",
    "a\ttab",
    "a carriage\rreturn",
    "a bell\x07",
    "an escape \x1b[31m code",
    "[bold]unclosed",
]


def _printed(console_factory, *args, **kwargs) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        console_factory().print(*args, **kwargs)
    return out.getvalue()


def _rich() -> Console:
    return Console(highlight=False, soft_wrap=True)


@pytest.mark.parametrize("text", CASES)
@pytest.mark.parametrize("options", [{}, {"highlight": False}, {"end": ""}])
def test_plain_console_prints_what_rich_prints(text, options):
    assert _printed(PlainConsole, text, **options) == _printed(_rich, text, **options)


@pytest.mark.parametrize("args", [("a", "b"), (Text("x [dim]y[/dim]", style="bold"),)])
def test_other_arguments_print_as_rich_prints_them(args):
    assert _printed(PlainConsole, *args) == _printed(_rich, *args)


@pytest.mark.parametrize("text", ["[/dim] closes nothing", "[dim]closed by another[/bold]"])
def test_markup_errors_are_riches_too(text):
    with pytest.raises(Exception) as plain:
        _printed(PlainConsole, text)
    with pytest.raises(Exception) as rich:
        _printed(_rich, text)
    assert type(plain.value) is type(rich.value) and str(plain.value) == str(rich.value)


def test_known_markup_needs_no_rich_console():
    console = PlainConsole()
    with contextlib.redirect_stdout(io.StringIO()):
        for text in CASES[:10]:
            console.print(text)
    assert console._rich is None
    with contextlib.redirect_stdout(io.StringIO()):
        console.print("a [link]")
    assert console._rich is not None


def test_piped_output_gets_the_plain_console_unless_rich_is_told_otherwise(monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    with contextlib.redirect_stdout(io.StringIO()):
        assert isinstance(output_console(), PlainConsole)
        monkeypatch.setenv("FORCE_COLOR", "1")
        assert isinstance(output_console(), Console)
        monkeypatch.delenv("FORCE_COLOR")
        monkeypatch.setenv("TTY_COMPATIBLE", "1")
        assert isinstance(output_console(), Console)
