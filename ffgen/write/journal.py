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
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ffgen.errors import RefusedError, quoted
from ffgen.write import JOURNAL_PATH
from ffgen.write.durable import (
    current_umask,
    digest,
    durable_write,
    fsync_dirs,
    remove_strays,
    umask_mode,
)
from ffgen.write.lock import checkout_lock, not_a_plain_file
from ffgen.write.paths import own_file, safe_relative

FORMAT = 2  # 2: the writer's machine, boot and process start are recorded


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """One path the apply changes, with what to put back on a rollback."""
    path: str  # relative to the checkout root
    old: bytes | None  # None: the path did not exist
    mode: int | None  # the old file's permission bits
    new_sha256: str | None  # None: the apply deletes the path


@dataclasses.dataclass(frozen=True, slots=True)
class Writer:
    """The process that wrote a journal: a journal is only ever settled on the machine that
    wrote it (never one committed and checked out elsewhere), and never while that process
    still runs."""
    host: str  # the machine's name and, where the OS has one, its machine id
    boot: str  # the kernel's boot id ("" where the OS has none): a reboot since means it died
    pid: int
    start: str  # the process's start time in clock ticks since boot ("" where unknown)


@dataclasses.dataclass(frozen=True, slots=True)
class Journal:
    """What an apply is about to change, written before its first write."""
    key: str
    writer: Writer
    time: str
    entries: tuple[Entry, ...]
    created_dirs: tuple[str, ...]  # folders the apply creates, outermost first


def new_journal(key: str, entries: Iterable[Entry], created_dirs: Iterable[str]) -> Journal:
    from datetime import datetime, timezone  # here: a command that only reads never needs it

    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return Journal(key, this_writer(), now, tuple(entries), tuple(created_dirs))


def this_writer(pid: int | None = None) -> Writer:
    pid = os.getpid() if pid is None else pid
    return Writer(_host(), _first_line("/proc/sys/kernel/random/boot_id"), pid, _start(pid))


def _host() -> str:
    machine = _first_line("/etc/machine-id")
    name = os.uname().nodename
    return f"{name} ({machine})" if machine else name


def _first_line(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.readline(200).strip()
    except OSError:
        return ""


def _start(pid: int) -> str:
    """The start time of process ``pid`` (field 22 of ``/proc/PID/stat``), "" where unknown."""
    line = _first_line(f"/proc/{pid}/stat")
    fields = line.rpartition(")")[2].split()  # the command name may hold spaces
    return fields[19] if len(fields) > 19 else ""


# -- the journal file ----------------------------------------------------------------------------


def begin(root: Path, journal: Journal, mode: int) -> None:
    """Write the journal before the first file: from now on a kill is recoverable."""
    data = {
        "format": FORMAT,
        "key": journal.key,
        "writer": dataclasses.asdict(journal.writer),
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
    path = own_file(root, JOURNAL_PATH)
    path.parent.mkdir(exist_ok=True)  # the lock made it; a caller without the lock may not have
    _refuse_a_stranger(path)
    durable_write(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"), mode)
    fsync_dirs([path.parent])


def end(root: Path) -> None:
    """The commit (or the end of a rollback): the journal goes."""
    path = own_file(root, JOURNAL_PATH)
    _refuse_a_stranger(path)
    path.unlink(missing_ok=True)
    fsync_dirs([path.parent])


def _refuse_a_stranger(path: Path) -> None:
    """A link, a FIFO or a hard link at the journal's path is not ffgen's: never read, replace
    or delete through it."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise not_a_plain_file(path, "a symlink")
    if not stat.S_ISREG(info.st_mode):
        raise not_a_plain_file(path, "not a regular file")
    if info.st_nlink > 1:
        raise not_a_plain_file(path, f"a hard link ({info.st_nlink} names for one file)")


def load(root: Path) -> Journal | None:
    path = own_file(root, JOURNAL_PATH)
    _refuse_a_stranger(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(f"cannot read it: {exc.strerror}") from None
    try:
        return _parse(json.loads(raw.decode("utf-8")))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise _unreadable(f"{type(exc).__name__}: {quoted(str(exc))}") from None


def _parse(data: dict) -> Journal:
    if data["format"] != FORMAT:
        raise ValueError(f"format {data['format']!r} is not {FORMAT}")
    entries = tuple(
        Entry(
            path=_text(e["path"]),
            old=None if e["old"] is None else base64.b64decode(e["old"], validate=True),
            mode=None if e["mode"] is None else _mode(e["mode"]),
            new_sha256=None if e["new_sha256"] is None else _text(e["new_sha256"]),
        )
        for e in data["entries"]
    )
    dirs = tuple(_text(d) for d in data["created_dirs"])
    who = data["writer"]
    writer = Writer(_text(who["host"]), _text(who["boot"]), int(who["pid"]), _text(who["start"]))
    return Journal(_text(data["key"]), writer, _text(data["time"]), entries, dirs)


def _mode(value: object) -> int:
    if not isinstance(value, int) or not 0 <= value <= 0o7777:
        raise ValueError(f"mode {value!r} is not a file mode")
    return value


def allowed_mode(mode: int) -> int:
    """Only permission bits (never setuid, setgid or sticky), and only those the umask allows:
    a journal can put a file back, never hand it more rights than a new file gets."""
    return mode & 0o777 & ~current_umask()


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    raise TypeError(f"{value!r} is not text")


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
    _refuse_anothers(journal)
    states = [_state(top, e) for e in journal.entries]
    stopped = _stopped(journal)
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


def _stopped(journal: Journal) -> str:
    return (f"an earlier ffgen run (pid {journal.writer.pid}, {journal.time}) stopped while "
            "writing")


def _refuse_anothers(journal: Journal) -> None:
    """Settle only what a dead process of this machine left: a journal is no file to commit,
    and one from elsewhere (a clone, a malicious commit) must never rewrite files here."""
    if journal.writer.host != _host():
        raise RefusedError(
            f"{JOURNAL_PATH} was written on another machine ({quoted(journal.writer.host)}), "
            "not this one; ffgen settles only its own journals, which are never committed: "
            "delete it (and take it out of version control)"
        )
    if _still_writing(journal):
        raise RefusedError(
            f"{JOURNAL_PATH} belongs to ffgen process {journal.writer.pid}, which still runs: "
            "wait for it to end, then run ffgen again"
        )


def _still_writing(journal: Journal) -> bool:  # (another process of this machine, running)
    here, writer = this_writer(journal.writer.pid), journal.writer
    alive = (here.host, here.boot, here.start) == (writer.host, writer.boot, writer.start)
    return alive and writer.start != "" and writer.pid != os.getpid()


def pending_refusal(root: Path) -> RefusedError | None:
    """What a read-only command (or a dry run) says about an unfinished journal instead of
    settling it: it never writes, so it neither finishes nor undoes anyone's transaction."""
    journal = load(root.resolve())
    if journal is None:
        return None
    if _still_writing(journal):  # not "stopped": it is writing as this command reads
        return RefusedError(f"ffgen process {journal.writer.pid} is writing "
                            f"{quoted(journal.key)} now; run this again when it has finished")
    return RefusedError(
        f"{_stopped(journal)} {quoted(journal.key)} (its journal {JOURNAL_PATH} is still "
        "there); a read-only command or dry run never settles it: the next ffgen command "
        "that writes (new, update, remove, param, skill, verify --fix) finishes or undoes it "
        "first"
    )


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
    mode = umask_mode() if entry.mode is None else allowed_mode(entry.mode)
    if current == entry.old:
        if entry.mode is not None and path.stat().st_mode & 0o7777 != mode:
            os.chmod(path, mode)
        return
    path.parent.mkdir(parents=True, exist_ok=True)  # a folder the apply emptied and removed
    durable_write(path, entry.old, mode)


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
        # Gone already (a sibling's walk, or a killed run that got this far): its parent may
        # still be left empty, so start from the nearest folder still there.
        while folder != root and root in folder.parents and not folder.is_dir():
            folder = folder.parent
        while (
            folder != root
            and root in folder.parents
            and not folder.is_symlink()
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
    """For commands that only read: refuse to read a half-written tree, never settle it (see
    :func:`pending_refusal`); take no lock. A journal half-written itself is no journal yet."""
    if os.path.lexists(root / JOURNAL_PATH):
        refusal = pending_refusal(root)
        if refusal is not None:
            raise refusal
