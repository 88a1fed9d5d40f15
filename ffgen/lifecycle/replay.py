"""From a record back to what ``new`` computed: names, classification, render context, manifest.

``new --answers``, ``remove``, ``update``, ``check`` and ``list`` all start here, so every one of
them sees the algorithm exactly as ``new`` would render it today from the same answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ffgen.checkout.hints import CheckoutHints, read_hints
from ffgen.checkout.view import CheckoutView
from ffgen.classify import interview
from ffgen.classify.model import Classification
from ffgen.classify.names import AlgorithmNames, parse_name
from ffgen.classify.rules import classify
from ffgen.errors import FfgenError, RefusedError
from ffgen.generate.context import RenderContext, build_context
from ffgen.generate.manifest import Manifest, manifest_for
from ffgen.store.read import flags_from
from ffgen.store.records import Record


@dataclass(frozen=True)
class Replayed:
    record: Record
    names: AlgorithmNames
    classification: Classification
    ctx: RenderContext
    manifest: Manifest


def classification_of(
    flags: Mapping[str, str | None], model_types: tuple[str, ...], where: str
) -> Classification:
    """Classify recorded answers; a bad value names the record it came from."""
    try:
        answers = interview.from_flags(dict(flags))
        answers, _ = interview.complete_non_interactive(answers, model_types)
        return classify(answers)
    except FfgenError as exc:
        raise RefusedError(f"{where}: {exc.message}") from None


def replay(
    view: CheckoutView,
    record: Record,
    model_types: tuple[str, ...],
    hints: CheckoutHints | None = None,
) -> Replayed:
    """What ``new`` computes today from ``record``'s answers, in this checkout (``hints``: the
    checkout's, when the caller replays several records)."""
    try:
        names = parse_name(record.answers["name"], record.answers.get("class_name"))
    except FfgenError as exc:
        raise RefusedError(f"{record.path}: {exc.message}") from None
    if names.key != record.key:
        raise RefusedError(
            f"{record.path}: answers.name {names.key!r} does not match key {record.key!r}; "
            "restore the record from version control"
        )
    c = classification_of(flags_from(record), model_types, record.path)
    ctx = build_context(names, c, hints if hints is not None else read_hints(view))
    if record.source is None:
        return Replayed(record, names, c, ctx, manifest_for(ctx))
    # ``--like`` / ``--extends``: the files that came from the source, recomputed from the
    # source's text at copy time (ffgen.generate.like), so that only ffgen's change shows.
    from ffgen.generate.like.files import source_files
    from ffgen.generate.like.inputs import like_context

    ctx = like_context(ctx, record.source)
    return Replayed(record, names, c, ctx, manifest_for(ctx, source_files(record.source, ctx)))
