"""Paths ffgen writes or deletes must stay inside the checkout.

A relative path from a plan or a record is checked twice: by its spelling (no absolute path, no
``..``), then on disk, one component at a time, so that a symlink inside the checkout cannot carry
a write outside it and a dangling symlink or a file in the way is a one-line refusal instead of a
traceback from ``mkdir``.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from ffgen.errors import RefusedError


def check_spelling(rel: str) -> PurePosixPath:
    """The path as ffgen spells it (POSIX, relative, no ``..``); pure, reads nothing."""
    if not rel or rel.strip() != rel:
        raise RefusedError(f"path {rel!r} is empty or padded; ffgen paths are relative to the root")
    if "\\" in rel or "\x00" in rel:
        raise RefusedError(f"path {rel!r} has a backslash or NUL; use a POSIX relative path")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or PureWindowsPath(rel).drive:
        raise RefusedError(
            f"path {rel!r} is absolute; ffgen only writes paths relative to the checkout root"
        )
    if ".." in pure.parts:
        raise RefusedError(f"path {rel!r} contains '..'; ffgen never writes outside the checkout")
    if pure.parts in ((), (".",)):
        raise RefusedError(f"path {rel!r} names the checkout root itself, not a file")
    return pure


def safe_relative(root: Path, rel: str) -> Path:
    """The absolute, resolved path of ``rel`` under ``root``, or a :class:`RefusedError`.

    Refused: a bad spelling (see :func:`check_spelling`), a symlink on the way that points
    outside the checkout or to nothing, and a file where a folder would have to be.
    """
    pure = check_spelling(rel)
    top = root.resolve()
    here = top
    for i, part in enumerate(pure.parts):
        here = here / part
        shown = "/".join(pure.parts[: i + 1])
        if here.is_symlink():
            target = Path(os.path.realpath(here))
            if not _inside(target, top):
                raise RefusedError(
                    f"{shown} is a symlink to {target}, outside the checkout; ffgen will not "
                    "write through it: replace the link with a folder or file of the checkout"
                )
            if not target.exists():
                raise RefusedError(
                    f"{shown} is a dangling symlink (to {os.readlink(here)}); remove it or "
                    "create its target, then run ffgen again"
                )
            here = target
        elif not here.exists():
            break  # the rest is created by ffgen: nothing there can be a link
        if i < len(pure.parts) - 1 and not here.is_dir():
            raise RefusedError(f"{shown} is a file where ffgen needs a folder; move it away")
    resolved = (top / pure).resolve()
    if not _inside(resolved, top):  # belt and braces: the walk above should have caught it
        raise RefusedError(f"{rel} resolves to {resolved}, outside the checkout {top}")
    return resolved


def _inside(path: Path, top: Path) -> bool:
    return path == top or top in path.parents


def own_file(root: Path, rel: str) -> Path:
    """The path of one of ffgen's own files (its lock, its journal) under ``root``: its folder
    checked as :func:`safe_relative` checks it, the file itself not resolved, so that a link put
    in its place is seen (and refused by the caller) instead of followed to another file."""
    folder, _, name = check_spelling(rel).as_posix().rpartition("/")
    return safe_relative(root, folder) / name if folder else root.resolve() / name
