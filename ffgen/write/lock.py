"""One ffgen process at a time per checkout: ``.ffgen/lock``.

The lock file is created with ``O_CREAT | O_EXCL`` (atomic: of two processes exactly one creates
it) and holds the owner's pid, host and start time as JSON. A second process retries for a short
while (``FFGEN_LOCK_WAIT`` seconds, default 2) and then refuses, naming the file and the pid. A
lock whose pid is no longer alive on this host is stale (its process was killed) and is taken
over. The lock file, and ``.ffgen/`` itself when the lock was all that was left in it, are
removed on release, so holding the lock never shows as a change of the checkout.

The lock is re-entrant within one process, so a command may hold it around planning and
``apply_plan`` can still take it.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from ffgen.errors import RefusedError
from ffgen.write.paths import safe_relative

LOCK_PATH = ".ffgen/lock"
WAIT_ENV = "FFGEN_LOCK_WAIT"
DEFAULT_WAIT = 2.0
_POLL = 0.05
_GARBLED_GRACE = 5.0  # a lock without readable content younger than this is being written

_held: dict[Path, int] = {}  # lock path -> nesting depth, for this process


@contextmanager
def checkout_lock(root: Path, wait: float | None = None) -> Iterator[Path]:
    """Hold the checkout's lock for the ``with`` block; refuse if another process keeps it."""
    path = safe_relative(root, LOCK_PATH)
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
        mine, recreated = _acquire(path, _wait_seconds(wait))
    except BaseException:
        _remove_folder_if_ours(folder, made_folder, folder_was_empty)
        raise
    _held[path] = 1
    try:
        yield path
    finally:
        del _held[path]
        _release(path, mine)
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


def _acquire(path: Path, wait: float) -> tuple[str, bool]:
    """Create the lock file; return the text written (to recognise our own lock on release)."""
    deadline = time.monotonic() + wait
    text = json.dumps(
        {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
    )
    recreated = False
    while True:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            pass
        except FileNotFoundError:  # a releasing process removed .ffgen/ just now
            path.parent.mkdir(exist_ok=True)
            recreated = True
            continue
        except OSError as exc:  # a read-only checkout, permission denied
            raise _cannot_lock(path, exc) from None
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
            return text + "\n", recreated
        if path.is_dir():
            raise RefusedError(
                f"{path} is a folder, not ffgen's lock file; remove it and run ffgen again"
            )
        holder = _read_holder(path)
        if holder is None:
            continue  # released between our open and our read: try again at once
        if _is_stale(holder):
            _take_over(path, holder)
            continue
        if time.monotonic() >= deadline:
            raise RefusedError(_busy_message(path, holder))
        time.sleep(_POLL)


# What a lock file says: its parsed content (may be {} when unreadable), inode and age.
_Holder = tuple[dict, int, float]


def _read_holder(path: Path) -> _Holder | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as handle:
        stat = os.fstat(handle.fileno())
        raw = handle.read()
    try:
        data = json.loads(raw)
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    return data, stat.st_ino, time.time() - stat.st_mtime


def _is_stale(holder: _Holder) -> bool:
    data, _, age = holder
    pid = data.get("pid")
    if not isinstance(pid, int) or data.get("host") is None:
        # A killed process may leave an empty lock (created, never written): stale once old.
        return age > _GARBLED_GRACE
    if data["host"] != socket.gethostname():
        return False  # cannot see processes on another host: treat as held
    return not _pid_alive(pid)


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError as exc:
        return exc.errno != errno.ESRCH
    return True


def _take_over(path: Path, holder: _Holder) -> None:
    """Move the stale lock aside; if a live lock was moved by a race, put it back."""
    aside = path.with_name(f"{path.name}.stale.{os.getpid()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return  # someone else took it over first
    try:
        if os.stat(aside).st_ino != holder[1]:
            # Between our read and the rename another process replaced the stale lock with
            # its own live one: restore it (link fails if a third one exists already).
            try:
                os.link(aside, path)
            except FileExistsError:
                pass
    finally:
        aside.unlink(missing_ok=True)


def _cannot_lock(path: Path, exc: OSError) -> RefusedError:
    return RefusedError(
        f"cannot create the lock {path} ({exc.strerror or exc}); ffgen writes only into a "
        "checkout it can write to: check the folder's permissions"
    )


def _busy_message(path: Path, holder: _Holder) -> str:
    data = holder[0]
    who = f"pid {data.get('pid', '?')} on {data.get('host', '?')}"
    since = f" since {data['time']}" if "time" in data else ""
    return (
        f"another ffgen process ({who}{since}) holds the lock {path}; wait for it to finish, "
        "or delete the file if that process is gone"
    )


def _release(path: Path, mine: str) -> None:
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    if current == mine:  # never remove a lock that another process has taken over
        path.unlink(missing_ok=True)


def _remove_folder_if_ours(folder: Path, made: bool, was_empty: bool) -> None:
    """Drop ``.ffgen/`` when only the lock kept it, unless it was already there and empty."""
    if was_empty and not made:
        return
    try:
        folder.rmdir()  # only succeeds when empty
    except OSError:
        pass
