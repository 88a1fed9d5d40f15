"""``ffgen sandbox DIR``: lay down the miniature Flow-Factory checkout shipped as package data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ffgen.errors import EXIT_OK, RefusedError, UsageError
from ffgen.generate.render import templates_root

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
FORMATS = ("text", "json")


def sandbox_source() -> Path:
    return templates_root() / "sandbox"


def create_sandbox(target: Path) -> Path:
    """Copy the sandbox into ``target`` (which must not exist or be empty)."""
    target = Path(target)
    if target.is_symlink() and not target.exists():
        raise RefusedError(f"{target} is a dangling symlink; remove it or choose a new directory")
    existed = True  # until known otherwise: never remove what may have been there
    try:
        existed = target.exists()
        if existed and (not target.is_dir() or any(target.iterdir())):
            raise RefusedError(f"{target} exists and is not empty; choose a new directory")
        shutil.copytree(sandbox_source(), target, ignore=_IGNORE, dirs_exist_ok=True)
    except OSError as exc:  # a file on the way, a read-only parent, a full disk
        if not existed:
            shutil.rmtree(target, ignore_errors=True)
        raise RefusedError(
            f"cannot create the sandbox at {target} ({_why(exc)}); choose a folder you can "
            "write to"
        ) from None
    return target


def _why(exc: OSError) -> str:
    if isinstance(exc, shutil.Error):  # copytree's list of (source, target, reason)
        return str(exc.args[0][0][2]) if exc.args and exc.args[0] else "copy failed"
    return exc.strerror or str(exc)


def run_sandbox(target: Path, fmt: str) -> int:
    """The command: check the format first (a bad one creates nothing), create, report."""
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r} is not valid; choose text or json")
    created = create_sandbox(target)
    if fmt == "json":
        # The absolute root, so a caller can pass it on as --checkout from anywhere.
        print(json.dumps({"checkout": str(created.resolve())}, indent=2))
    else:
        print(f"sandbox checkout created at {created}")
    return EXIT_OK
