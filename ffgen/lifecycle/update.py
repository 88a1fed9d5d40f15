"""``ffgen update``: re-render from the recorded answers and merge three ways per file.

For every file ffgen created: base = the pristine render in the record, ours = the user's file,
theirs = what today's templates render. Clean merges are planned as updates; conflicts are either
refused (the default, nothing written) or written with standard markers (``--conflict inline``).
The registry and re-export entries are re-applied, which repairs any the user lost, and the
record's pristine texts move to the new render, so the next update merges from there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ffgen import __version__
from ffgen.checkout.facts import read_facts
from ffgen.checkout.view import CheckoutView, Overlay
from ffgen.errors import RefusedError
from ffgen.generate.conformance import check_conformance
from ffgen.generate.plan import (
    FileChange,
    Plan,
    Status,
    docs_block,
    docs_markers,
    owned_file,
    record_for,
    render_all,
    shared_changes,
)
from ffgen.lifecycle.merge3 import Conflict, merge3
from ffgen.lifecycle.records import Record, record_text
from ffgen.lifecycle.replay import read_record, replay

CONFLICT_MODES = ("refuse", "inline")
DELETED = "you deleted it; update does not bring it back (`ffgen new --force` does)"


@dataclass(frozen=True)
class FileConflict:
    path: str
    conflict: Conflict

    def describe(self) -> str:
        return f"{self.path}: {self.conflict.describe()}"


@dataclass(frozen=True)
class UpdatePlan:
    plan: Plan
    conflicts: tuple[FileConflict, ...]


def plan_update(view: CheckoutView, key: str) -> UpdatePlan:
    """Every change ``update`` would make, conflicts written inline (the caller decides)."""
    record = read_record(view, key)
    if record is None:
        raise RefusedError(
            f"{key} has no ffgen record (.ffgen/answers/{key}.yml); update works on algorithms "
            "ffgen generated"
        )
    replayed = replay(view, record, read_facts(view).model_types)
    rendered = render_all(replayed.ctx, replayed.manifest)
    changes: list[FileChange] = []
    conflicts: list[FileConflict] = []
    for path, theirs in rendered.files.items():
        change, found = _merge_file(view, record, path, theirs)
        conflicts += found
        if change is not None:
            changes.append(change)
    changes += _dropped_files(view, record, rendered.files)
    shared = shared_changes(
        view, replayed.manifest, replayed.ctx, rendered.section, record, force=True
    )
    docs_path = shared.docs.path
    changes += [c for c in shared.changes if c.path != docs_path]
    docs, found = _merge_docs(view, record, docs_path, rendered.section)
    conflicts += found
    # A section the user deleted is added back the way ``new`` adds it.
    changes += [docs] if docs is not None else [c for c in shared.changes if c.path == docs_path]
    new_record = record_for(replayed.ctx, dict(record.answers), rendered.files, shared)
    changes.append(owned_file(view, record.path, record_text(new_record, __version__), True))
    # The new render must fit the checkout; merged files are the user's business.
    after = {c.path: c.new for c in shared.changes} | rendered.files
    check_conformance(Overlay(base=view, changes=after), rendered.files)
    with_markers = {fc.path for fc in conflicts}
    changes = [replace(c, validate=False) if c.path in with_markers else c for c in changes]
    return UpdatePlan(Plan(key, tuple(changes)), tuple(conflicts))


def _merge_file(
    view: CheckoutView, record: Record, path: str, theirs: str
) -> tuple[FileChange | None, list[FileConflict]]:
    ours = view.read(path)
    recorded = record.file(path)
    if ours is None:
        if recorded is None:  # a file today's templates add
            return FileChange(path, Status.CREATE, None, theirs), []
        return FileChange(path, Status.KEPT, None, "", DELETED), []
    base = recorded.pristine if recorded is not None else ""
    merged = merge3(base, ours, theirs)
    found = [FileConflict(path, c) for c in merged.conflicts]
    if merged.text == ours:
        return FileChange(path, Status.IDENTICAL, ours, ours), found
    return FileChange(path, Status.UPDATE, ours, merged.text), found


def _dropped_files(
    view: CheckoutView, record: Record, rendered: dict[str, str]
) -> list[FileChange]:
    """Files an older template created and today's does not: deleted while unedited."""
    out = []
    for f in record.files:
        if f.path in rendered:
            continue
        current = view.read(f.path)
        if current == f.pristine:
            out.append(FileChange(f.path, Status.DELETE, current, ""))
        elif current is not None:
            out.append(FileChange(f.path, Status.KEPT, current, current, "edited; no longer "
                                  "generated, so ffgen leaves it to you"))
    return out


def _merge_docs(
    view: CheckoutView, record: Record, path: str, section: str
) -> tuple[FileChange | None, list[FileConflict]]:
    """The docs section merges like a file: the user's edits inside the markers survive."""
    old = view.read(path)
    begin, end = docs_markers(record.key)
    if old is None or begin not in old or end not in old:
        return None, []  # shared_changes re-adds a lost section; nothing to merge
    start = old.index(begin)
    stop = old.index(end, start) + len(end) + 1
    ours = old[start + len(begin) + 1 : old.index(end, start)]
    base = record.docs.section + "\n" if record.docs is not None else ""
    merged = merge3(base, ours, section + "\n")
    new = old[:start] + docs_block(record.key, merged.text) + old[stop:]
    if merged.conflicts:  # markers inside the section: keep its text as merged, not stripped
        new = old[:start] + f"{begin}\n{merged.text}{end}\n" + old[stop:]
    found = [FileConflict(path, c) for c in merged.conflicts]
    status = Status.IDENTICAL if new == old else Status.UPDATE
    return FileChange(path, status, old, new), found
