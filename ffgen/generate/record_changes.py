"""The file changes that keep one record: its YAML, its base files, and unused shared bases.

``new`` and ``update`` write a record through here (``remove`` deletes one with
:func:`ffgen.store.record_store.released`); the texts' storage is
:mod:`ffgen.store.record_store`.
"""

from __future__ import annotations

from dataclasses import replace

from ffgen import __version__
from ffgen.checkout.view import CheckoutView
from ffgen.errors import RefusedError
from ffgen.generate.changes import FileChange, Status, owned_file
from ffgen.store import record_store
from ffgen.store.records import Record, parse_record, stored_files


def record_changes(view: CheckoutView, record: Record, force: bool) -> list[FileChange]:
    """The record, the base files holding its pristine texts, and the shared bases no record
    names any more (:mod:`ffgen.store.record_store`)."""
    files = stored_files(record, __version__)
    changes = [_record_change(view, record, files.pop(record.path), force)]
    for path, text in files.items():
        old = view.read(path)
        if old is None:
            changes.append(FileChange(path, Status.CREATE, None, text))
        elif path == record_store.ATTRIBUTES or record_store.same_base(old, text):
            changes.append(FileChange(path, Status.IDENTICAL, old, old))  # (attributes: theirs)
        else:
            changes.append(FileChange(path, Status.UPDATE, old, text))
    for path in record_store.unused_blobs(view, set(files), record.path):
        changes.append(FileChange(path, Status.DELETE, view.read(path) or "", ""))
    return changes


def _record_change(view: CheckoutView, record: Record, text: str, force: bool) -> FileChange:
    """The record as an owned file; one an older ffgen wrote that says the same (format 2: the
    texts inline) is migrated, not a conflict."""
    change = owned_file(view, record.path, text, force)
    if change.status is Status.CONFLICT:
        try:
            old = parse_record(change.old or "", record.path, view.read)
        except RefusedError:
            return change
        if replace(old, ffgen_version=record.ffgen_version) == record:
            return replace(change, status=Status.UPDATE)
    return change
