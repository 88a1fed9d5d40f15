"""The write-ahead journal of an apply, ``.ffgen/journal.json``: all or nothing, even on SIGKILL.

Before its first write, apply records every path it will touch: the bytes and mode the path had
(or that it did not exist) and the hash of what it will hold, and the folders it will create.
The journal is written through a temporary file, fsynced and renamed into place, so it is either
complete or absent. The files follow (each fsynced before its rename); the journal is removed
last, once their folders are fsynced too: its removal is the commit.

A process killed in between (SIGKILL, an OOM kill, a power cut) leaves the journal behind, and the
next ffgen command on the checkout settles it before it reads anything (:func:`settle`, under the
lock): when every path already holds its new content the transaction is finished, otherwise
every path that changed is put back as it was, and the command says which in one line. A path
that holds neither (edited by hand since) is not touched: the command refuses, naming it.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ffgen.errors import RefusedError
from ffgen.write import JOURNAL_PATH
from ffgen.write.lock import checkout_lock
from ffgen.write.paths import safe_relative

FORMAT = 1
TMP_SUFFIX = ".ffgen-tmp"


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """One path the apply changes, with what to put back on a rollback."""
    path: str  # relative to the checkout root
    old: bytes | None  # None: the path did not exist
    mode: int | None  # the old file's permission bits
    new_sha256: str | None  # None: the apply deletes the path


@dataclasses.dataclass(frozen=True, slots=True)
class Journal:
    """What an apply is about to change, written before its first write."""
    key: str
    pid: int
    time: str
    entries: tuple[Entry, ...]
    created_dirs: tuple[str, ...]  # folders the apply creates, outermost first


def new_journal(key: str, entries: Iterable[Entry], created_dirs: Iterable[str]) -> Journal:
    from datetime import datetime, timezone  # here: a command that only reads never needs it

    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return Journal(key, os.getpid(), now, tuple(entries), tuple(created_dirs))


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


# -- the journal file ----------------------------------------------------------------------------


def begin(root: Path, journal: Journal, mode: int) -> None:
    """Write the journal before the first file: from now on a kill is recoverable."""
    data = {
        "format": FORMAT,
        "key": journal.key,
        "pid": journal.pid,
        "time": journal.time,
        "created_dirs": list(journal.created_dirs),
        "entries": [
            {
                "path": e.path,
                "old": None if e.old is None else base64.b64encode(e.old).decode("ascii"),
                "mode": e.mode,
                "new_sha256": e.new_sha256,
            }
            for e in journal.entries
        ],
    }
    path = safe_relative(root, JOURNAL_PATH)
    path.parent.mkdir(exist_ok=True)  # the lock made it; a caller without the lock may not have
    durable_write(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"), mode)
    fsync_dirs([path.parent])


def end(root: Path) -> None:
    """The commit (or the end of a rollback): the journal goes."""
    path = safe_relative(root, JOURNAL_PATH)
    path.unlink(missing_ok=True)
    fsync_dirs([path.parent])


def load(root: Path) -> Journal | None:
    path = safe_relative(root, JOURNAL_PATH)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(f"cannot read it: {exc.strerror}") from None
    try:
        return _parse(json.loads(raw.decode("utf-8")))
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise _unreadable(f"{type(exc).__name__}: {exc}") from None


def _parse(data: dict) -> Journal:
    if data["format"] != FORMAT:
        raise ValueError(f"format {data['format']!r} is not {FORMAT}")
    entries = tuple(
        Entry(
            path=_text(e["path"]),
            old=None if e["old"] is None else base64.b64decode(e["old"], validate=True),
            mode=None if e["mode"] is None else int(e["mode"]),
            new_sha256=None if e["new_sha256"] is None else _text(e["new_sha256"]),
        )
        for e in data["entries"]
    )
    dirs = tuple(_text(d) for d in data["created_dirs"])
    return Journal(_text(data["key"]), int(data["pid"]), _text(data["time"]), entries, dirs)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _unreadable(why: str) -> RefusedError:
    return RefusedError(
        f"{JOURNAL_PATH} is not a journal ffgen can read ({why}); an earlier ffgen run may have "
        "stopped half-way: check `git status`, then delete the file"
    )


# -- settling an unfinished journal ---------------------------------------------------------------


def settle(root: Path) -> str | None:
    """Finish or undo the transaction an earlier, killed run left; the one line to show."""
    top = root.resolve()
    folder = top / JOURNAL_PATH.rpartition("/")[0]
    remove_strays(folder, Path(JOURNAL_PATH).name)  # killed while writing the journal itself
    journal = load(top)
    if journal is None:
        return None
    states = [_state(top, e) for e in journal.entries]
    stopped = f"an earlier ffgen run (pid {journal.pid}, {journal.time}) stopped while writing"
    for entry, (is_old, is_new) in zip(journal.entries, states, strict=True):
        if not (is_old or is_new):
            raise RefusedError(
                f"{stopped} {journal.key}, and {entry.path} changed since: ffgen leaves it to "
                f"you; compare it with {JOURNAL_PATH}, then delete the journal"
            )
    if all(is_new for _, is_new in states):
        finish(top, journal)
        end(top)
        return f"{stopped} {journal.key} after its last write: finished it, every file is new"
    restored = sum(not is_old for is_old, _ in states)
    undo(top, journal)
    end(top)
    return f"{stopped} {journal.key}: put {restored} file(s) back as they were, as if it never ran"


def _state(root: Path, entry: Entry) -> tuple[bool, bool]:
    """Whether ``entry``'s path holds its old content, and whether it holds its new one."""
    path = safe_relative(root, entry.path)
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        current = None
    except IsADirectoryError:
        return False, False
    if current is None:
        return entry.old is None, entry.new_sha256 is None
    is_new = entry.new_sha256 is not None and digest(current) == entry.new_sha256
    return current == entry.old, is_new


def undo(root: Path, journal: Journal) -> None:
    """Put every path back as the journal says it was; drop the folders the apply created."""
    touched = []
    for entry in reversed(journal.entries):
        path = safe_relative(root, entry.path)
        remove_strays(path.parent, path.name)
        _restore(path, entry)
        touched.append(path.parent)
    for rel in reversed(journal.created_dirs):  # innermost first
        folder = safe_relative(root, rel)
        if folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
            folder.rmdir()
            touched.append(folder.parent)
    fsync_dirs(touched)


def _restore(path: Path, entry: Entry) -> None:
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        current = None
    if entry.old is None:
        if current is not None:
            path.unlink()
        return
    if current == entry.old:
        if entry.mode is not None and path.stat().st_mode & 0o7777 != entry.mode:
            os.chmod(path, entry.mode)
        return
    path.parent.mkdir(parents=True, exist_ok=True)  # a folder the apply emptied and removed
    durable_write(path, entry.old, 0o644 if entry.mode is None else entry.mode)


def finish(root: Path, journal: Journal) -> None:
    """Every file is new: what is left of the apply is tidying up after its deletes."""
    for entry in journal.entries:
        path = safe_relative(root, entry.path)
        remove_strays(path.parent, path.name)
    deleted = [safe_relative(root, e.path) for e in journal.entries if e.new_sha256 is None]
    remove_emptied_folders(root, deleted)


def remove_emptied_folders(root: Path, deleted: list[Path]) -> None:
    """Folders that held a deleted file and are empty now go, up to (not including) the root.

    Every folder on the way held a file before the apply, so none of them was empty before.
    """
    gone = []
    for path in deleted:
        _drop_bytecode(path)
        folder = path.parent
        # ``folder.is_dir()``: a sibling deleted earlier may already have taken it away.
        while (
            folder != root
            and root in folder.parents
            and folder.is_dir()
            and not any(folder.iterdir())
        ):
            folder.rmdir()
            gone.append(folder.parent)
            folder = folder.parent
    fsync_dirs(gone)


def _drop_bytecode(path: Path) -> None:
    """A deleted module's cached bytecode goes with it (a cache, so never journaled), and its
    ``__pycache__`` when that held nothing else."""
    cache = path.parent / "__pycache__"
    if path.suffix != ".py" or not cache.is_dir() or cache.is_symlink():
        return
    stale = list(cache.glob(f"{path.stem}.*.pyc"))
    for pyc in stale:
        pyc.unlink(missing_ok=True)
    if stale and not any(cache.iterdir()):
        cache.rmdir()


# -- what commands use ---------------------------------------------------------------------------


@contextmanager
def exclusive(root: Path) -> Iterator[Path]:
    """The checkout's lock for the ``with`` block, an unfinished journal settled first."""
    with checkout_lock(root) as lock:
        note = settle(root)
        if note:
            print(f"note: {note}", file=sys.stderr)
        yield lock


@contextmanager
def holding(root: Path, *, writes: bool) -> Iterator[None]:
    """A command that writes holds the checkout's lock from its first read to its end (an
    unfinished journal settled first), so a second ffgen never plans against a tree this one is
    writing; one that only reads settles a journal if there is one and takes no lock, so reads
    (verify in CI, dry runs) never wait for each other."""
    if writes:
        with exclusive(root):
            yield
    else:
        settle_before_reading(root)
        yield


def settle_before_reading(root: Path) -> None:
    """For commands that only read: settle a journal if one is there (taking the lock for
    that alone), so nothing reads a half-written tree; else take no lock at all."""
    folder = root / JOURNAL_PATH.rpartition("/")[0]
    if (root / JOURNAL_PATH).exists() or any(folder.glob(f".journal.json.*{TMP_SUFFIX}")):
        with exclusive(root):
            pass


def umask_mode() -> int:
    """The mode a file created now gets (0o666 less the umask), as ``open`` would give it."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask
