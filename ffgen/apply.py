"""Apply stage: the only module that writes to disk, all-or-nothing.

Everything is validated before the first write: content (Python compiles, YAML parses), that no
file changed on disk since the plan, and that every path stays inside the checkout
(:mod:`ffgen.paths`). The checkout's lock (:mod:`ffgen.lock`) is held throughout. Each file is
written through a temporary sibling and ``os.replace``; deleted files are kept in a journal. If
anything fails, or SIGINT / SIGTERM arrives, every file already touched is restored (deleted ones
come back, created files and folders go) before the error propagates.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ffgen.errors import FfgenError, RefusedError
from ffgen.lock import checkout_lock
from ffgen.paths import check_spelling, safe_relative
from ffgen.plan import FileChange, Plan, Status

# Test-only hook, read on every write: after the k-th write or delete, touch the marker file and
# sleep, so a test can send a signal in the middle of an apply. Never set it outside tests.
PAUSE_AFTER_ENV = "FFGEN_TEST_PAUSE_AFTER_WRITE"  # k (1-based)
PAUSE_MARKER_ENV = "FFGEN_TEST_PAUSE_MARKER"  # file to touch (outside the checkout)
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


def _check_unchanged_since_plan(path: Path, change: FileChange) -> None:
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    if current != change.old:
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


def _validate(root: Path, writes: tuple[FileChange, ...]) -> list[tuple[FileChange, Path]]:
    targets: list[tuple[FileChange, Path]] = []
    seen: dict[Path, str] = {}
    for change in writes:
        path = _target(root, change)
        if path in seen:
            raise RefusedError(
                f"{change.path} and {seen[path]} are the same file on disk (a symlink); "
                "nothing was written"
            )
        seen[path] = change.path
        _check_unchanged_since_plan(path, change)
        targets.append((change, path))
    return targets


def write_file(path: Path, text: str) -> None:
    """Write ``text`` atomically: readers see the old file or the new one, never half."""
    _replace(path, text.encode("utf-8"), mode=None)


def _replace(path: Path, data: bytes, mode: int | None) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".ffgen-tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        elif path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class _Journal:
    """What to undo: original bytes (and modes) of touched files, paths created and removed."""

    originals: dict[Path, tuple[bytes, int]] = field(default_factory=dict)
    deleted: dict[Path, tuple[bytes, int]] = field(default_factory=dict)
    created_files: list[Path] = field(default_factory=list)
    created_dirs: list[Path] = field(default_factory=list)
    removed_dirs: list[Path] = field(default_factory=list)

    def keep(self, path: Path, into: dict[Path, tuple[bytes, int]]) -> None:
        into[path] = (path.read_bytes(), path.stat().st_mode & 0o7777)

    def rollback(self) -> None:
        for folder in reversed(self.removed_dirs):  # outermost first
            folder.mkdir(exist_ok=True)
        for path, (data, mode) in {**self.deleted, **self.originals}.items():
            _replace(path, data, mode)
        for path in reversed(self.created_files):
            path.unlink(missing_ok=True)
        touched = [*self.originals, *self.deleted, *self.created_files]
        for path in touched:  # a signal between mkstemp and its bookkeeping leaves a temp file
            if path.parent.is_dir():
                for stray in path.parent.glob(f".{path.name}.*.ffgen-tmp"):
                    stray.unlink(missing_ok=True)
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
        journal.created_dirs.append(folder)  # before mkdir: an interrupt may come in between
        folder.mkdir()


def _delete(path: Path, journal: _Journal) -> None:
    journal.keep(path, journal.deleted)
    path.unlink()


def _drop_bytecode(path: Path, journal: _Journal) -> None:
    """A deleted module's cached bytecode goes with it (a cache, so not journaled), and its
    ``__pycache__`` when that held nothing else."""
    cache = path.parent / "__pycache__"
    if path.suffix != ".py" or not cache.is_dir() or cache.is_symlink():
        return
    stale = list(cache.glob(f"{path.stem}.*.pyc"))
    for pyc in stale:
        pyc.unlink(missing_ok=True)
    if stale and not any(cache.iterdir()):
        journal.removed_dirs.append(cache)
        cache.rmdir()


def _remove_emptied_folders(root: Path, deleted: list[Path], journal: _Journal) -> None:
    """Folders that held a deleted file and are empty now go, up to (not including) the root.

    Every folder on the way held a file before this apply, so none of them was empty before.
    """
    for path in deleted:
        _drop_bytecode(path, journal)
        folder = path.parent
        # ``folder.is_dir()``: a sibling deleted earlier may already have taken it away.
        while (
            folder != root
            and root in folder.parents
            and folder.is_dir()
            and not any(folder.iterdir())
        ):
            journal.removed_dirs.append(folder)
            folder.rmdir()
            folder = folder.parent


def _test_pause(count: int) -> None:
    """The test-only hook (see ``PAUSE_AFTER_ENV``)."""
    raw = os.environ.get(PAUSE_AFTER_ENV, "")
    if not raw.isdigit() or int(raw) != count:
        return
    marker = os.environ.get(PAUSE_MARKER_ENV)
    if marker:
        Path(marker).touch()
    time.sleep(PAUSE_SECONDS)


def _carry_out(root: Path, targets: list[tuple[FileChange, Path]], journal: _Journal) -> None:
    deleted = []
    for count, (change, path) in enumerate(targets, start=1):
        if change.status is Status.DELETE:
            _delete(path, journal)
            deleted.append(path)
        elif path.exists():
            journal.keep(path, journal.originals)
            write_file(path, change.new)
        else:
            _make_parents(root, path, journal)
            journal.created_files.append(path)
            write_file(path, change.new)
        _test_pause(count)
    _remove_emptied_folders(root, deleted, journal)


class _SignalGuard:
    """While armed, SIGINT/SIGTERM raise :class:`Interrupted`; otherwise they wait.

    A signal that arrives while not armed (taking the lock, validating, rolling back, releasing
    the lock) is held back: re-delivered with the previous handler once the guard exits
    normally, dropped when an error is already on its way out.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.pending: int | None = None
        self.is_armed = False
        self.previous: dict[int, object] = {}

    def __enter__(self) -> _SignalGuard:
        if threading.current_thread() is not threading.main_thread():
            return self  # only the main thread receives signals in Python
        for signum in self.SIGNALS:
            if signal.getsignal(signum) is signal.SIG_IGN:
                continue  # started with the signal ignored (nohup, background job): keep it so
            self.previous[signum] = signal.signal(signum, self._handle)
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
            signal.raise_signal(self.pending)


def apply_plan(root: Path, plan: Plan) -> tuple[FileChange, ...]:
    """Carry out the plan's CREATE/UPDATE/DELETE changes under ``root``; return them."""
    if plan.conflicts:
        raise RefusedError("refusing to apply a plan with conflicts")
    writes = plan.writes
    top = root.resolve()
    with _SignalGuard() as guard, checkout_lock(top):
        targets = _validate(top, writes)
        journal = _Journal()
        try:
            with guard.armed():
                _carry_out(top, targets, journal)
        except BaseException:
            journal.rollback()
            raise
    return writes
