"""``ffgen update``: re-render from the recorded answers and merge three ways per file.

For every file ffgen created: base = the pristine render in the record, ours = the user's file,
theirs = what today's templates render. Clean merges are planned as updates; conflicts are either
refused (the default, nothing written) or written with standard markers (``--conflict inline``).
The registry and re-export entries are re-applied, which repairs any the user lost, and the
record's pristine texts move to the new render, so the next update merges from there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ffgen.checkout.facts import read_facts
from ffgen.checkout.view import CheckoutView, Overlay
from ffgen.errors import RefusedError
from ffgen.generate.conformance.check import check_conformance
from ffgen.generate.plan import (
    FileChange,
    Plan,
    Status,
    docs_block,
    docs_markers,
    docs_section,
    record_changes,
    record_for,
    render_all,
    shared_changes,
)
from ffgen.lifecycle.merge3 import Conflict, merge3
from ffgen.lifecycle.replay import replay
from ffgen.store.read import read_record
from ffgen.store.records import Record

CONFLICT_MODES = ("refuse", "inline")
DELETED = "you deleted it; update does not bring it back (`ffgen new --force` does)"


@dataclass(frozen=True)
class FileConflict:
    path: str
    conflict: Conflict

    def describe(self) -> str:
        return f"{self.path}: {self.conflict.describe()}"

    def hunk(self) -> dict[str, object]:
        """The hunk for JSON: each side's first line, line count and text."""
        c = self.conflict
        sides = (("ours", c.ours_start, c.ours), ("base", c.base_start, c.base),
                 ("theirs", c.theirs_start, c.theirs))
        out: dict[str, object] = {"marker_line": c.marker_line}
        for name, start, lines in sides:
            out[name] = {"start": start, "count": len(lines), "text": "".join(lines)}
        return out


def conflicts_json(conflicts: tuple[FileConflict, ...]) -> list[dict[str, object]]:
    """One object per file, its hunks in order."""
    by_path: dict[str, list[dict[str, object]]] = {}
    for fc in conflicts:
        by_path.setdefault(fc.path, []).append(fc.hunk())
    return [{"path": path, "hunks": hunks} for path, hunks in by_path.items()]


@dataclass(frozen=True)
class UpdatePlan:
    plan: Plan
    conflicts: tuple[FileConflict, ...]


def plan_update(
    view: CheckoutView, key: str, record: Record | None = None, *, from_source: bool = False
) -> UpdatePlan:
    """Every change ``update`` would make, conflicts written inline (the caller decides).

    ``record``: the record to plan from instead of the checkout's (``ffgen param`` passes one
    with its params changed). ``from_source``: a ``--like`` copy also takes its source's
    changes since the copy (theirs: the copy of the source as it is now)."""
    record = record or read_record(view, key)
    if record is None:
        raise RefusedError(
            f"{key} has no ffgen record (.ffgen/answers/{key}.yml); update works on algorithms "
            "ffgen generated"
        )
    if from_source:
        from ffgen.generate.like.provenance import with_current_source

        record = with_current_source(view, record)
    replayed = _replayable(view, key, record)
    rendered = render_all(replayed.ctx, replayed.manifest)
    changes, conflicts = _merge_files(view, record, rendered.files)
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
    new_record = record_for(
        replayed.ctx, dict(record.answers), rendered.files, shared, record.source
    )
    changes += record_changes(view, new_record, True)
    # The new render must fit the checkout; merged files are the user's business.
    after = {c.path: c.new for c in shared.changes} | rendered.files
    if record.source is None:
        check_conformance(Overlay(base=view, changes=after), rendered.files)
    else:
        from ffgen.generate.like.checks import check_copy_conformance

        check_copy_conformance(
            view, Overlay(base=view, changes=after), rendered.files, record.source, replayed.ctx
        )
    with_markers = {fc.path for fc in conflicts}
    changes = [replace(c, validate=False) if c.path in with_markers else c for c in changes]
    _validate_merges(changes)
    return UpdatePlan(Plan(key, tuple(changes)), tuple(conflicts))


def _replayable(view: CheckoutView, key: str, record: Record):
    """The record replayed with today's templates, once nothing is in the way: no broken file,
    and no recorded param that the templates (or the checkout's base) now declare as well,
    which would be written twice into the arguments class."""
    from ffgen.generate.param_code import param_clash

    _refuse_broken(view, record)
    replayed = replay(view, record, read_facts(view).model_types)
    clash = param_clash(view, replayed.ctx)
    if clash is not None:
        name, why = clash
        raise RefusedError(
            f"{key}'s param {name} clashes with today's templates ({why}); nothing was written: "
            f"run `ffgen param remove {key} {name}` (the field stays, now the template's), then "
            f"`ffgen update {key}`"
        )
    return replayed


def _merge_files(
    view: CheckoutView, record: Record, rendered: dict[str, str]
) -> tuple[list[FileChange], list[FileConflict]]:
    changes: list[FileChange] = []
    conflicts: list[FileConflict] = []
    for path, theirs in rendered.items():
        change, found = _merge_file(view, record, path, theirs)
        conflicts += found
        if change is not None:
            changes.append(change)
    return changes, conflicts


def _refuse_broken(view: CheckoutView, record: Record) -> None:
    """Markers left by an earlier ``--conflict inline`` (or a file that no longer parses) would
    be merged as if they were the user's lines: the user resolves them first."""
    from ffgen.lifecycle.health import broken_files

    broken = broken_files(view, record)
    if broken:
        found = "; ".join(b.describe() for b in broken)
        raise RefusedError(f"{found}; nothing was written: then run `ffgen update {record.key}` "
                           "again")


def _validate_merges(changes: list[FileChange]) -> None:
    """What apply would refuse (a clean merge that does not compile), refused while planning,
    so that ``--dry-run`` ends as the real run would."""
    from ffgen.write.apply import validate_content

    for change in changes:
        if change.validate and change.status in (Status.CREATE, Status.UPDATE):
            validate_content(change)


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
    return _merged_change(path, ours, theirs, merged.text), found


KEPT_EDITS = "kept as you edited it; today's templates change nothing here"


def _merged_change(path: str, ours: str, theirs: str, merged: str) -> FileChange:
    """UPDATE when the merge changes the file; KEPT when it stays as the user edited it (the
    templates bring nothing new); IDENTICAL when it already is today's render."""
    if merged != ours:
        return FileChange(path, Status.UPDATE, ours, merged)
    if ours != theirs:
        return FileChange(path, Status.KEPT, ours, ours, KEPT_EDITS)
    return FileChange(path, Status.IDENTICAL, ours, ours)


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
    span = None if old is None else docs_section(old, record.key, path)
    if span is None:
        return None, []  # shared_changes re-adds a lost section; nothing to merge
    start, stop = span
    ours = old[start + len(begin) + 1 : old.index(end, start)]
    base = record.docs.section + "\n" if record.docs is not None else ""
    merged = merge3(base, ours, section + "\n")
    new = old[:start] + docs_block(record.key, merged.text) + old[stop:]
    if merged.conflicts:  # markers inside the section: keep its text as merged, not stripped
        new = old[:start] + f"{begin}\n{merged.text}{end}\n" + old[stop:]
    found = [FileConflict(path, c) for c in merged.conflicts]
    if new != old:
        return FileChange(path, Status.UPDATE, old, new), found
    if ours != section + "\n":
        return FileChange(path, Status.KEPT, old, old, KEPT_EDITS), found
    return FileChange(path, Status.IDENTICAL, old, old), found
