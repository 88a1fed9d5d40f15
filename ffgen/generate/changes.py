"""What every command plans: file changes, each with its status, for one algorithm."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ffgen.checkout.view import CheckoutView
    from ffgen.store.record_source import RecordedSource


class Status(str, Enum):
    CREATE = "CREATE"
    UPDATE = "UPDATE"
    IDENTICAL = "IDENTICAL"
    CONFLICT = "CONFLICT"
    DELETE = "DELETE"  # ``remove``: the file goes; ``old`` is its current text, ``new`` is ""
    # A file left as the user edited it: ``remove`` keeps it instead of deleting it, ``update``
    # when the merge brings nothing new into it. Never written.
    KEPT = "KEPT"


@dataclasses.dataclass(frozen=True, slots=True)
class FileChange:
    """One file the plan creates, updates, deletes or leaves."""
    path: str  # relative to the checkout root
    status: Status
    old: str | None  # current content (None: the file does not exist)
    new: str  # content after the change
    note: str = ""  # why, where the status needs a reason (a KEPT file)
    # False only for a file ``update --conflict inline`` writes with conflict markers on
    # purpose: it does not compile until the user resolves them.
    validate: bool = True

    def diff(self) -> str:
        deleted = self.status is Status.DELETE
        import difflib  # only for a diff or a suggestion: most runs need neither

        lines = difflib.unified_diff(
            (self.old or "").splitlines(keepends=True),
            self.new.splitlines(keepends=True),
            fromfile=f"a/{self.path}" if self.old is not None else "/dev/null",
            tofile="/dev/null" if deleted else f"b/{self.path}",
        )
        return "".join(lines)


@dataclasses.dataclass(frozen=True, slots=True)
class Plan:
    """Every change of one command, for one algorithm."""
    key: str
    changes: tuple[FileChange, ...]
    source: RecordedSource | None = None  # ``new --like`` / ``--extends``: where it started

    @property
    def conflicts(self) -> tuple[FileChange, ...]:
        return tuple(c for c in self.changes if c.status is Status.CONFLICT)

    @property
    def writes(self) -> tuple[FileChange, ...]:
        return tuple(
            c for c in self.changes if c.status in (Status.CREATE, Status.UPDATE, Status.DELETE)
        )


def owned_file(view: CheckoutView, path: str, new: str, force: bool) -> FileChange:
    """A file ffgen owns outright: create it, or compare with what is there."""
    old = view.read(path)
    if old is None:
        return FileChange(path, Status.CREATE, None, new)
    if old == new:
        return FileChange(path, Status.IDENTICAL, old, new)
    return FileChange(path, Status.UPDATE if force else Status.CONFLICT, old, new)
