"""Apply stage: the only module that writes to disk, all-or-nothing.

Everything is validated before the first write. Each file is written through a temporary
sibling and ``os.replace``; if any write fails, every file already touched is restored (and
every file and folder created is removed) before the error propagates.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ffgen.errors import RefusedError
from ffgen.plan import FileChange, Plan


def validate_content(change: FileChange) -> None:
    """Python must compile and YAML must parse, or nothing is written."""
    if change.path.endswith(".py"):
        try:
            compile(change.new, change.path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            raise RefusedError(
                f"{change.path}:{exc.lineno}: planned content does not compile ({exc.msg}); "
                "nothing was written"
            ) from None
    elif change.path.endswith((".yaml", ".yml")):
        import yaml

        try:
            yaml.safe_load(change.new)
        except yaml.YAMLError as exc:
            raise RefusedError(
                f"{change.path}: planned YAML does not parse ({exc}); nothing was written"
            ) from None


def _check_unchanged_since_plan(root: Path, change: FileChange) -> None:
    path = root / change.path
    current = path.read_text(encoding="utf-8") if path.exists() else None
    if current != change.old:
        raise RefusedError(
            f"{change.path} changed on disk after ffgen planned its edit; run the command again"
        )


def write_file(path: Path, text: str) -> None:
    """Write ``text`` atomically: readers see the old file or the new one, never half."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".ffgen-tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class _Journal:
    """What to undo: original contents of touched files, and paths created."""

    originals: dict[Path, str]
    created_files: list[Path]
    created_dirs: list[Path]

    def rollback(self) -> None:
        for path, text in self.originals.items():
            write_file(path, text)
        for path in reversed(self.created_files):
            path.unlink(missing_ok=True)
        for folder in reversed(self.created_dirs):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()


def _make_parents(root: Path, path: Path, journal: _Journal) -> None:
    missing = []
    parent = path.parent
    while not parent.exists() and parent != root:
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        folder.mkdir()
        journal.created_dirs.append(folder)


def apply_plan(root: Path, plan: Plan) -> tuple[FileChange, ...]:
    """Write the plan's CREATE/UPDATE changes under ``root``; return what was written."""
    if plan.conflicts:
        raise RefusedError("refusing to apply a plan with conflicts")
    writes = plan.writes
    for change in writes:
        validate_content(change)
        _check_unchanged_since_plan(root, change)
    journal = _Journal({}, [], [])
    try:
        for change in writes:
            path = root / change.path
            if path.exists():
                journal.originals[path] = path.read_text(encoding="utf-8")
            else:
                _make_parents(root, path, journal)
                journal.created_files.append(path)
            write_file(path, change.new)
    except BaseException:
        journal.rollback()
        raise
    return writes
