"""Typer-free reading of the two commands run most, ``verify`` (CI, every push) and ``new``.

Importing typer costs about 50 ms, more than the rest of ``verify``'s start-up. :func:`options`
reads an argument list the way typer would for these two commands, but only a list it
understands completely: their declared options and values, and ``new``'s one NAME. It answers
None for anything else (``--help``, an unknown or misspelt option, a missing or empty value, a
value that looks like an option, ``--``, a second NAME), and the program then hands the list to
typer, so parsing errors and their messages stay typer's alone. tests/core/test_entry.py checks
each spec against the options typer declares and the keyword arguments it passes.
"""

from __future__ import annotations

from pathlib import Path

VALUE, FLAG, LIST = "value", "flag", "list"


class Spec:
    """A command's options: ``--name`` -> (keyword, kind, default); and its positional."""

    def __init__(self, options: dict[str, tuple[str, str, object]], argument: str | None,
                 paths: tuple[str, ...] = ()) -> None:
        self.options = options
        self.argument = argument  # the keyword of its one positional, if it takes one
        self.paths = paths  # keywords typer turns into a Path


def _values(*names: str) -> dict[str, tuple[str, str, object]]:
    return {f"--{n.replace('_', '-')}": (n, VALUE, None) for n in names}


VERIFY = Spec(
    {**_values("checkout", "algorithm", "explain"), "--format": ("fmt", VALUE, "text"),
     "--fix": ("fix", FLAG, False), "--dry-run": ("dry_run", FLAG, False)},
    None, ("checkout",),
)
# ``new``'s answers to the classification and its other questions, handed on as NewRequest.flags
CLASSIFY_FLAGS = (
    "acquisition", "feedback", "paradigm", "dynamics", "supervision", "state", "ownership",
    "roles", "role_cadence", "model_type", "finetune_type", "category", "direction",
)
NEW = Spec(
    {**_values("checkout", *CLASSIFY_FLAGS, "class_name", "like", "extends", "answers"),
     "--param": ("param", LIST, None), "--format": ("fmt", VALUE, "text"),
     "--yes": ("yes", FLAG, False), "-y": ("yes", FLAG, False),
     "--dry-run": ("dry_run", FLAG, False), "--force": ("force", FLAG, False),
     "--debug": ("debug", FLAG, False)},
    "name", ("checkout", "answers"),
)
SPECS = {"verify": VERIFY, "new": NEW}


def options(argv: list[str]) -> tuple[str, dict[str, object]] | None:
    """(command, the keyword arguments typer would pass its function) for ``argv`` (the words
    after ``ffgen``), or None when typer must read ``argv`` itself."""
    if not argv or argv[0] not in SPECS:
        return None
    spec = SPECS[argv[0]]
    found = _read(spec, argv[1:])
    if found is None or (spec.argument is not None and spec.argument not in found):
        return None  # typer names the missing argument
    for key in spec.paths:
        if found[key] is not None:
            found[key] = Path(found[key])
    return argv[0], found


def _read(spec: Spec, words: list[str]) -> dict[str, object] | None:
    found = {key: default for key, _, default in spec.options.values()}
    rest = iter(words)
    for word in rest:
        name, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if not word.startswith("-"):
            if spec.argument is None or spec.argument in found:
                return None  # an extra argument: typer's message
            found[spec.argument] = word
            continue
        if name not in spec.options:
            return None
        key, kind, _ = spec.options[name]
        if kind == FLAG:
            if equals:
                return None
            found[key] = True
            continue
        if not equals:
            value = next(rest, None)
        if not value or value.startswith("-"):
            return None  # a missing or empty value, or an option: click's own way and words
        found[key] = [*(found[key] or []), value] if kind == LIST else value  # last one wins
    return found
