"""Sort keys that reproduce how Flow-Factory's isort (``profile = "black"``) orders imports."""

from __future__ import annotations

from collections.abc import Sequence


def module_key(module: str) -> str:
    """isort compares module names case-insensitively."""
    return module.lower()


def name_key(name: str) -> str:
    """isort's key for a name inside ``from x import (...)`` (``order_by_type``, no case).

    CONSTANTS first, then Classes, then functions; within a group case-insensitive, so
    ``DiffusionOPDTrainingArguments`` sorts before ``DMD2TrainingArguments``.
    """
    if name.isupper() and len(name) > 1:
        group = "A"
    elif name[:1].isupper():
        group = "B"
    else:
        group = "C"
    return group + name.lower()


def position(keys: Sequence[str | None], new_key: str) -> int:
    """Index right after the last key below ``new_key`` (0 when none is): sorted lists stay sorted,
    hand-shuffled ones still get a stable, nearby place."""
    below = [i for i, key in enumerate(keys) if key is not None and key < new_key]
    return below[-1] + 1 if below else 0
