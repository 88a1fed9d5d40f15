"""Apply stage: the only module that writes to disk, all-or-nothing.

Everything is validated before the first write: content (Python compiles, YAML parses), that no
file changed on disk since the plan, and that every path stays inside the checkout
(:mod:`ffgen.write.paths`). The checkout's lock (:mod:`ffgen.write.lock`) is held throughout. The
write-ahead journal (:mod:`ffgen.write.journal`) is on disk before the first write, so even SIGKILL
or a power cut leaves a tree the next command makes fully old or fully new. Each file is written
through a fsynced temporary sibling and ``os.replace``: a replaced file keeps its mode, encoding,
BOM and line endings (:mod:`ffgen.checkout.textfile`), a created one gets the mode the umask gives.
If
anything fails, or SIGINT / SIGTERM arrives, every file already touched is restored from the
journal (deleted ones come back, created files and folders go) before the error propagates.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ffgen import stdout_guard
from ffgen.checkout import textfile
from ffgen.checkout.view import recent_tree
from ffgen.errors import FfgenError, RefusedError
from ffgen.generate.plan import FileChange, Plan, Status
from ffgen.write import durable, journal
from ffgen.write.paths import check_spelling, safe_relative

# Test-only hook, read on every write: after the k-th write or delete, touch the marker file and
# sleep, so a test can send a signal in the middle of an apply (k = 0: once the lock is taken,
# before the first write; k = writes + 1: after the last, before the commit). Never set it
# outside tests.
PAUSE_AFTER_ENV = "FFGEN_TEST_PAUSE_AFTER_WRITE"  # k
PAUSE_MARKER_ENV = "FFGEN_TEST_PAUSE_MARKER"  # file to touch (outside the checkout)
PAUSE_SECONDS_ENV = "FFGEN_TEST_PAUSE_SECONDS"  # how long to sleep there (default 30)
PAUSE_SECONDS = 30.0


class Interrupted(FfgenError):
    """SIGINT or SIGTERM during apply: raised from the handler so the journal rolls back."""

    def __init__(self, signum: int) -> None:
        name = signal.Signals(signum).name
        super().__init__(
            f"interrupted by {name} while writing; every file was put back as it was, "
            "nothing was written",
            exit_code=128 + signum,
        )


class InterruptedAfterWrites(FfgenError):
    """SIGINT or SIGTERM after the last write: the apply is complete, and the line says so."""

    def __init__(self, signum: int, count: int, root: Path) -> None:
        name = signal.Signals(signum).name
        super().__init__(
            f"interrupted by {name} after the last write: the command had finished, "
            f"{count} file(s) written under {root}",
            exit_code=128 + signum,
        )


def validate_content(change: FileChange) -> None:
    """Python must compile and YAML must parse, or nothing is written."""
    if change.path.endswith(".py"):
        tree = recent_tree(change.path, change.new)  # compiles to the same code, and errors
        try:
            compile(change.new if tree is None else tree, change.path, "exec", dont_inherit=True)
        except (RecursionError, MemoryError):
            raise RefusedError(
                f"{change.path}: planned content is nested too deeply to compile; "
                "nothing was written"
            ) from None
        except SyntaxError as exc:
            raise RefusedError(
                f"{change.path}:{exc.lineno}: planned content does not compile ({exc.msg}); "
                "nothing was written"
            ) from None
    elif change.path.endswith((".yaml", ".yml")):
        import yaml

        try:
            yaml.load(change.new, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as exc:
            raise RefusedError(
                f"{change.path}: planned YAML does not parse ({exc}); nothing was written"
            ) from None


def _current(path: Path, rel: str) -> tuple[bytes | None, str | None]:
    """The file's bytes and its text as ffgen plans on it (None, None: absent)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except PermissionError:
        raise RefusedError(f"{rel} cannot be read (permission denied); make it readable and "
                           "re-run; nothing was written") from None
    try:
        return data, textfile.decode(data, rel)
    except (UnicodeDecodeError, RefusedError):
        return data, None


def _check_unchanged_since_plan(change: FileChange, text: str | None) -> None:
    if text != change.old:
        raise RefusedError(
            f"{change.path} changed on disk after ffgen planned its edit; run the command again"
        )


def _target(root: Path, change: FileChange) -> Path:
    """Where ``change`` lands, refused if that is outside the checkout or not a file."""
    path = safe_relative(root, change.path)
    if path.is_dir():
        raise RefusedError(f"{change.path} is a folder where ffgen expects a file; move it away")
    if change.status is Status.DELETE:
        parts = check_spelling(change.path).parts
        link = safe_relative(root, "/".join(parts[:-1])) if len(parts) > 1 else root.resolve()
        if (link / parts[-1]).is_symlink():
            raise RefusedError(
                f"{change.path} is a symlink, not the file ffgen created; remove it by hand"
            )
    elif change.validate:  # off only for conflict markers written on purpose
        validate_content(change)
    return path


@dataclasses.dataclass(frozen=True, slots=True)
class _Write:
    """One change, ready: where it lands, the bytes it writes (None: a delete), the file's old
    bytes and mode (None: absent)."""

    change: FileChange
    path: Path
    data: bytes | None
    old: bytes | None
    mode: int | None


def _validate(root: Path, writes: tuple[FileChange, ...]) -> list[_Write]:
    targets: list[_Write] = []
    seen: dict[Path, str] = {}
    for change in writes:
        path = _target(root, change)
        if path in seen:
            raise RefusedError(
                f"{change.path} and {seen[path]} are the same file on disk (a symlink); "
                "nothing was written"
            )
        seen[path] = change.path
        old, text = _current(path, change.path)
        _check_unchanged_since_plan(change, text)
        mode = None if old is None else path.stat().st_mode & 0o7777
        targets.append(_Write(change, path, _bytes_for(change, old), old, mode))
    return targets


def _bytes_for(change: FileChange, old: bytes | None) -> bytes | None:
    """What lands on disk: a replaced file keeps its encoding, BOM and line endings."""
    if change.status is Status.DELETE:
        return None
    if old is None:
        return change.new.encode("utf-8")
    return textfile.encode_like(old, change.new, change.path)


def write_file(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` atomically and durably (see :func:`ffgen.write.durable.durable_write`)."""
    durable.durable_write(path, data, mode)


def _missing_parents(root: Path, path: Path) -> list[Path]:
    """Folders to create for ``path``, outermost first."""
    missing = []
    parent = path.parent
    while not parent.exists() and parent != root:
        missing.append(parent)
        parent = parent.parent
    return missing[::-1]


def _journal_for(root: Path, key: str, targets: list[_Write]) -> journal.Journal:
    entries = [
        journal.Entry(
            path=w.change.path,
            old=w.old,
            mode=w.mode,
            new_sha256=None if w.data is None else durable.digest(w.data),
        )
        for w in targets
    ]
    folders: dict[Path, None] = {}
    for w in targets:
        if w.old is None:
            folders.update(dict.fromkeys(_missing_parents(root, w.path)))
    dirs = [f.relative_to(root).as_posix() for f in folders]
    return journal.new_journal(key, entries, dirs)


def _test_pause(count: int) -> None:
    """The test-only hook (see ``PAUSE_AFTER_ENV``)."""
    raw = os.environ.get(PAUSE_AFTER_ENV, "")
    if not raw.isdigit() or int(raw) != count:
        return
    marker = os.environ.get(PAUSE_MARKER_ENV)
    if marker:
        Path(marker).touch()
    time.sleep(float(os.environ.get(PAUSE_SECONDS_ENV, PAUSE_SECONDS)))


def _carry_out(root: Path, targets: list[_Write], new_mode: int) -> None:
    deleted = []
    for count, w in enumerate(targets, start=1):
        try:
            if w.data is None:
                w.path.unlink()
                deleted.append(w.path)
            else:
                for folder in _missing_parents(root, w.path):
                    folder.mkdir()
                write_file(w.path, w.data, new_mode if w.mode is None else w.mode)
        except OSError as exc:
            raise _write_failed(w.change.path, exc) from exc
        _test_pause(count)
    try:
        _remove_emptied_folders(root, deleted)
        durable.fsync_dirs(w.path.parent for w in targets)
    except OSError as exc:
        raise _write_failed("a folder", exc) from exc


def _remove_emptied_folders(root: Path, deleted: list[Path]) -> None:
    journal.remove_emptied_folders(root, deleted)


def _write_failed(where: str, exc: OSError) -> RefusedError:
    why = exc.strerror or str(exc)
    return RefusedError(
        f"cannot write {where} ({why}); every file was put back as it was, nothing was written"
    )


class _SignalGuard:
    """While armed, SIGINT/SIGTERM raise :class:`Interrupted`; otherwise they wait.

    A signal that arrives while not armed is held back: before the writes it stops the apply
    before the first one; after the last it ends the command with
    :class:`InterruptedAfterWrites` (the tree is fully new, and the line reports what was
    written); it is dropped when an error is already on its way out.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, count: int, root: Path) -> None:
        self.count, self.root = count, root
        self.pending: int | None = None
        self.is_armed = False
        self.previous: dict[int, object] = {}

    def __enter__(self) -> _SignalGuard:
        for signum in self.SIGNALS:
            if signal.getsignal(signum) is signal.SIG_IGN:
                continue  # started with the signal ignored (nohup, background job): keep it so
            try:
                self.previous[signum] = signal.signal(signum, self._handle)
            except ValueError:  # not the main thread: only the main one receives signals
                return self
        return self

    def _handle(self, signum: int, frame: object) -> None:
        if self.is_armed:
            self.is_armed = False  # raise once; a second signal must not cut the rollback short
            raise Interrupted(signum)
        self.pending = signum

    @contextmanager
    def armed(self) -> Iterator[None]:
        if self.pending is not None:
            signum, self.pending = self.pending, None
            raise Interrupted(signum)
        self.is_armed = True
        try:
            yield
        finally:
            self.is_armed = False

    def __exit__(self, exc_type, exc, tb) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if self.pending is not None and exc_type is None:
            raise InterruptedAfterWrites(self.pending, self.count, self.root)


def apply_plan(root: Path, plan: Plan) -> tuple[FileChange, ...]:
    """Carry out the plan's CREATE/UPDATE/DELETE changes under ``root``; return them."""
    if plan.conflicts:
        raise RefusedError("refusing to apply a plan with conflicts")
    stdout_guard.before_writes()  # output already lost: write nothing, and say so
    writes = plan.writes
    top = root.resolve()
    with _SignalGuard(len(writes), top) as guard, journal.exclusive(top):
        _test_pause(0)  # the plan is made, nothing is written yet
        targets = _validate(top, writes)
        record = _journal_for(top, plan.key, targets)
        new_mode = durable.umask_mode()
        try:
            journal.begin(top, record, new_mode)
        except OSError as exc:
            raise _write_failed(journal.JOURNAL_PATH, exc) from exc
        try:
            with guard.armed():
                _carry_out(top, targets, new_mode)
            _test_pause(len(targets) + 1)  # every file written, the journal not yet removed
        except BaseException:
            journal.undo(top, record)
            journal.end(top)
            raise
        journal.end(top)
    stdout_guard.after_writes(top, len(writes))
    return writes
