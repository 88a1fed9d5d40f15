"""Durable writes: a file replaced atomically and synced to disk, and the folders synced after
their renames; the building blocks of the journal's all-or-nothing apply."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

TMP_SUFFIX = ".ffgen-tmp"


def digest(data: bytes) -> str:
    from hashlib import sha256  # here: a command that only reads never needs it

    return sha256(data).hexdigest()


# -- durable writes ------------------------------------------------------------------------------


def durable_write(path: Path, data: bytes, mode: int) -> None:
    """Replace ``path`` with ``data`` atomically and durably: a temporary sibling, written and
    synced to disk, given ``mode``, renamed over the path. Readers see the old file or the new
    one."""
    fd, tmp = _temporary_sibling(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            _sync_data(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# Created only if absent, never through a link, binary where the OS tells text apart: what
# tempfile.mkstemp opens with, without its random names (the checkout lock already keeps other
# ffgen runs out; a name a killed run left is skipped, and removed when its journal settles).
_NEW_FILE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_TRIES = 100


def _temporary_sibling(path: Path) -> tuple[int, str]:
    """A new, empty ``.<name>.<pid>-<n>.ffgen-tmp`` beside ``path``, open for writing (mode
    0o600 until the content is in)."""
    for n in range(_TRIES):
        tmp = os.path.join(path.parent, f".{path.name}.{os.getpid()}-{n}{TMP_SUFFIX}")
        try:
            return os.open(tmp, _NEW_FILE, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{_TRIES} temporary names beside {path} are taken")


# fdatasync: the data and what reading it back needs (its size), not the times fsync adds; the
# rename is made durable by fsyncing the folder. Where the OS has no fdatasync, fsync.
_sync_data = getattr(os, "fdatasync", os.fsync)


def fsync_dirs(folders: Iterable[Path]) -> None:
    """Make renames and unlinks in ``folders`` durable (a no-op where the OS cannot)."""
    for folder in dict.fromkeys(folders):
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            continue  # gone (an emptied folder removed) or not openable: nothing to sync
        try:
            os.fsync(fd)
        except OSError:
            pass  # some file systems refuse fsync on a folder
        finally:
            os.close(fd)


def remove_strays(folder: Path, name: str) -> None:
    """Temporary siblings of ``folder/name`` a killed write left behind."""
    if folder.is_dir():
        for stray in folder.glob(f".{name}.*{TMP_SUFFIX}"):
            stray.unlink(missing_ok=True)


def umask_mode() -> int:
    """The mode a file created now gets (0o666 less the umask), as ``open`` would give it."""
    return 0o666 & ~current_umask()


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
