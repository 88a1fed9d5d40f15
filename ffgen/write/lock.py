"""One ffgen process at a time per checkout: an OS lock (``flock``) on ``.ffgen/lock``.

The kernel holds the lock for as long as the process keeps the file open and drops it when the
process ends, however it ends (``kill -9`` included), so a lock can never go stale: a file left
behind by a killed process is simply locked again by the next command. What the file says (pid,
host, start time, command line) is only information for the message a waiting command shows; it
never decides who holds the lock.

A second process retries for a short while (``FFGEN_LOCK_WAIT`` seconds, default 2) and then
refuses in one line, naming the file and its holder. The holder removes the file (while it still
holds it) and ``.ffgen/`` when the lock was all that was left in it, so holding the lock never
shows as a change of the checkout. A waiter that opened the file just before it was removed sees
that its file is no longer the one at the path and starts over.

The lock is re-entrant within one process, so a command may hold it around planning and
``apply_plan`` can still take it. The descriptor is not inherited by programs ffgen starts.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ffgen.errors import RefusedError
from ffgen.write.paths import own_file

LOCK_PATH = ".ffgen/lock"
WAIT_ENV = "FFGEN_LOCK_WAIT"
DEFAULT_WAIT = 2.0
_POLL = 0.05
_BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)

_held: dict[Path, int] = {}  # lock path -> nesting depth, for this process


@contextmanager
def checkout_lock(root: Path, wait: float | None = None) -> Iterator[Path]:
    """Hold the checkout's lock for the ``with`` block; refuse if another process keeps it."""
    path = own_file(root, LOCK_PATH)
    if path in _held:
        _held[path] += 1
        try:
            yield path
        finally:
            _held[path] -= 1
        return
    folder = path.parent
    folder_was_empty = folder.is_dir() and not any(folder.iterdir())
    made_folder = not folder.exists()
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise _cannot_lock(path, exc) from None
    try:
        fd, recreated = _acquire(path, _wait_seconds(wait))
    except BaseException:
        _remove_folder_if_ours(folder, made_folder, folder_was_empty)
        raise
    _held[path] = 1
    try:
        yield path
    finally:
        del _held[path]
        _release(path, fd)
        # a folder the previous holder removed and we made again is ours to remove too
        _remove_folder_if_ours(folder, made_folder or recreated, folder_was_empty)


def _wait_seconds(wait: float | None) -> float:
    if wait is not None:
        return wait
    raw = os.environ.get(WAIT_ENV)
    if raw is None:
        return DEFAULT_WAIT
    try:
        return max(0.0, float(raw))
    except ValueError:
        raise RefusedError(f"{WAIT_ENV}={raw!r} is not a number of seconds") from None


def _acquire(path: Path, wait: float) -> tuple[int, bool]:
    """Lock the file at ``path``; return its descriptor (held open until release) and whether
    ``.ffgen/`` had to be made again on the way."""
    deadline = time.monotonic() + wait
    recreated = False
    while True:
        fd = _open(path)
        if fd is None:  # a releasing process removed .ffgen/ just now
            path.parent.mkdir(exist_ok=True)
            recreated = True
            continue
        if _try_lock(path, fd):
            if _is_current(path, fd):
                _write_info(fd)
                return fd, recreated
            os.close(fd)  # locked a file its holder removed as we opened it: start over
            continue
        holder = _read_info(fd)
        os.close(fd)
        if time.monotonic() >= deadline:
            raise RefusedError(_busy_message(path, holder))
        time.sleep(_POLL)


def _open(path: Path) -> int | None:
    try:
        # O_NOFOLLOW: never lock (or write) through a symlink someone put there; O_NONBLOCK: a
        # FIFO in its place opens at once (and is refused below) instead of waiting for a reader.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise RefusedError(
            f"{path} is a folder, not ffgen's lock file; remove it and run ffgen again"
        ) from None
    except OSError as exc:  # a read-only checkout, permission denied, a symlink
        if exc.errno == errno.ELOOP:
            raise not_a_plain_file(path, "a symlink") from None
        raise _cannot_lock(path, exc) from None
    what = _not_ours(os.fstat(fd))
    if what is not None:  # checked on the open file: nothing can swap it in between
        os.close(fd)
        raise not_a_plain_file(path, what)
    return fd


def _not_ours(info: os.stat_result) -> str | None:
    """Why a file at the lock's path cannot be ffgen's lock (None: it can). ffgen truncates and
    deletes its lock, so it must be a plain file with no other name (a hard link to a file of
    the checkout would be emptied and deleted with it)."""
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file (a FIFO, socket or device)"
    if info.st_nlink > 1:
        return f"a hard link ({info.st_nlink} names for one file)"
    return None


def not_a_plain_file(path: Path, what: str) -> RefusedError:
    return RefusedError(
        f"{path} is {what}, not a file ffgen made; ffgen never writes through it: move it "
        "away, then run ffgen again"
    )


def _try_lock(path: Path, fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in _BUSY:
            return False
        os.close(fd)
        raise _cannot_lock(path, exc) from None  # a file system without locks (ENOLCK)
    return True


def _is_current(path: Path, fd: int) -> bool:
    """Whether ``fd`` is still the file at ``path`` (not one its holder removed meanwhile)."""
    try:
        on_disk = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (on_disk.st_dev, on_disk.st_ino) == (mine.st_dev, mine.st_ino)


def _write_info(fd: int) -> None:
    import shlex  # only the holder needs it, and only here

    info = {
        "pid": os.getpid(),
        "host": os.uname().nodename,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": shlex.join(["ffgen", *sys.argv[1:]]),
    }
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(info) + "\n").encode("utf-8"), 0)


def _read_info(fd: int) -> dict:
    """What the holder wrote about itself ({} while it has not written yet, or when garbled)."""
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8", errors="replace"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _cannot_lock(path: Path, exc: OSError) -> RefusedError:
    return RefusedError(
        f"cannot create the lock {path} ({exc.strerror or exc}); ffgen writes only into a "
        "checkout it can write to: check the folder's permissions"
    )


def _busy_message(path: Path, holder: dict) -> str:
    who = ""
    if "pid" in holder:
        who = f" (pid {holder['pid']} on {holder.get('host', '?')}"
        who += f" since {holder['time']}" if "time" in holder else ""
        who += f", running `{holder['command']}`" if "command" in holder else ""
        who += ")"
    return (
        f"another ffgen process{who} holds the lock {path}; the lock goes when that process "
        "ends: wait for it and run ffgen again"
    )


def _release(path: Path, fd: int) -> None:
    """Remove the file while still holding it (so no one can lock it in between), then drop the
    lock by closing it."""
    try:
        if _is_current(path, fd) and _not_ours(os.fstat(fd)) is None:
            path.unlink()
    except OSError:
        pass  # a lock file left behind is harmless: the next command locks it again
    finally:
        os.close(fd)


def _remove_folder_if_ours(folder: Path, made: bool, was_empty: bool) -> None:
    """Drop ``.ffgen/`` when only the lock kept it, unless it was already there and empty."""
    if was_empty and not made:
        return
    try:
        folder.rmdir()  # only succeeds when empty
    except OSError:
        pass
