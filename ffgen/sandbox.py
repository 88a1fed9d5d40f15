"""``ffgen sandbox DIR``: lay down the miniature Flow-Factory checkout shipped as package data."""

from __future__ import annotations

import shutil
from pathlib import Path

from ffgen.errors import RefusedError
from ffgen.render import templates_root

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")


def sandbox_source() -> Path:
    return templates_root() / "sandbox"


def create_sandbox(target: Path) -> Path:
    """Copy the sandbox into ``target`` (which must not exist or be empty)."""
    target = Path(target)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise RefusedError(f"{target} exists and is not empty; choose a new directory")
    shutil.copytree(sandbox_source(), target, ignore=_IGNORE, dirs_exist_ok=True)
    return target
