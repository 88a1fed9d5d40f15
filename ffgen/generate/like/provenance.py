"""Provenance of a ``--like`` copy: has its source changed since, and bringing those changes in.

The record keeps the source's files as they were at copy time (``RecordedSource.texts``).
``check`` compares them with the checkout's; ``update --from-source`` re-computes the copy from
the source as it is now and merges it three ways like any update (base: the copy of the source
at copy time, which is the recorded pristine; ours: the user's file; theirs: the new copy).
An ``--extends`` child inherits its parent, so nothing of the parent is copied to keep up with.
"""

from __future__ import annotations

from dataclasses import replace

from ffgen.checkout.view import CheckoutView
from ffgen.errors import RefusedError
from ffgen.generate.like.files import with_texts
from ffgen.generate.like.source import LIKE
from ffgen.store.records import Record


def source_changes(view: CheckoutView, record: Record) -> tuple[str, ...]:
    """The source files of a ``--like`` copy that differ from what was copied (gone ones too)."""
    src = record.source
    if src is None or src.mode != LIKE:
        return ()
    return tuple(f.path for f in src.texts if view.read(f.path) != f.pristine)


def with_current_source(view: CheckoutView, record: Record) -> Record:
    """The record with its source's files as they are now (for ``update --from-source``)."""
    src = record.source
    if src is None or src.mode != LIKE:
        how = "subclasses its parent, so it inherits" if src else "was not copied from a source:"
        raise RefusedError(
            f"{record.key} {how} nothing to merge with --from-source; run `ffgen update "
            f"{record.key}` without it"
        )
    gone = [f.path for f in src.texts if view.read(f.path) is None]
    if gone:
        raise RefusedError(
            f"{record.key}: its source {src.key} no longer has {', '.join(gone)}; there is "
            "nothing to merge from (the copy is yours now)"
        )
    return replace(record, source=with_texts(src, view))


def recorded_start(path) -> tuple[str, str] | None:
    """``(mode, key)`` of the source a record file names (``new --answers FILE``: its texts stay
    in its own checkout, so the record is read for these two only)."""
    from pathlib import Path

    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    source = data.get("source") if isinstance(data, dict) else None
    if not isinstance(source, dict):
        return None
    mode, key = source.get("mode"), source.get("key")
    if mode in ("like", "extends") and isinstance(key, str):
        return mode, key
    return None
