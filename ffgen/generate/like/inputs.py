"""``ffgen new NAME --like KEY`` / ``--extends KEY``: start from an algorithm of the checkout.

``new`` calls :func:`requested_source` (None without the flags), :func:`like_classification`
instead of the interview, and :func:`like_inputs` for the render context and the files computed
from the source; the plan stage takes them like any other render (ffgen.generate.plan).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ffgen.checkout.view import CheckoutView
from ffgen.classify import interview
from ffgen.classify.model import Answers
from ffgen.errors import UsageError
from ffgen.generate.context import RenderContext
from ffgen.generate.like.answers import like_answers, source_example
from ffgen.generate.like.files import source_files, source_record
from ffgen.generate.like.source import EXTENDS, LIKE, SourceAlgorithm, read_source
from ffgen.store.records import RecordedSource

__all__ = [
    "EXTENDS",
    "LIKE",
    "LikeInputs",
    "like_answers_for",
    "like_context",
    "like_inputs",
    "requested_source",
    "source_line",
]


@dataclass(frozen=True)
class LikeInputs:
    ctx: RenderContext  # the context with the source's fields
    source: RecordedSource  # what the record keeps
    files: dict[str, str]  # path -> text computed from the source


def requested_source(
    view: CheckoutView, like: str | None, extends: str | None
) -> SourceAlgorithm | None:
    """The source of ``--like`` / ``--extends`` (refused when both are given, or when
    ``--extends`` names a parent Flow-Factory does not sanction)."""
    if like and extends:
        raise UsageError("--like and --extends exclude each other; give one")
    if not like and not extends:
        return None
    if extends:
        check_sanctioned(view, extends)
    return read_source(view, (like or extends).strip(), LIKE if like else EXTENDS)


def check_sanctioned(view: CheckoutView, key: str) -> None:
    from ffgen.verify.extensions import sanctioned_parents

    parents = sanctioned_parents(view)
    if key.strip() not in parents:
        raise UsageError(
            f"--extends {key}: Flow-Factory sanctions strict extensions of "
            f"{' and '.join(parents)} only (every other trainer inherits BaseTrainer directly and "
            f"shares code through helpers); use --like {key} to start from a copy instead"
        )


def like_answers_for(
    source: SourceAlgorithm,
    flags: Mapping[str, str | None],
    model_types: tuple[str, ...],
    sources: interview.Sources | None = None,
) -> Answers:
    """The answers of a ``--like`` / ``--extends`` run: the source's, under the free flags,
    completed as ``--yes`` completes them (what the code fixes counts as forced)."""
    if flags.get("params") and source.mode == EXTENDS:
        raise UsageError(
            f"--param does not apply with --extends: the arguments class differs from "
            f"{source.key}'s only in the key; use --like {source.key} to copy it with the param"
        )
    answers = like_answers(source, flags)
    completed, _ = interview.complete_non_interactive(answers, model_types, sources)
    if sources is not None:
        given = interview.from_flags(dict(flags))
        for name in sources:
            if getattr(given, name, None) in (None, ()):
                sources[name] = interview.FORCED
    return completed


def like_context(ctx: RenderContext, src: RecordedSource) -> RenderContext:
    from ffgen.generate.like.extension_doc import parent_trainer

    parent = parent_trainer(src.text(src.trainer_path) or "", src.trainer_class)
    return replace(
        ctx,
        source_key=src.key,
        source_mode=src.mode,
        source_kind=src.kind,
        source_trainer=src.trainer_class,
        source_hook=src.hook,
        source_parent=parent if src.mode == LIKE else "",
    )


def like_inputs(view: CheckoutView, source: SourceAlgorithm, ctx: RenderContext) -> LikeInputs:
    example = source_example(source, ctx.model_type, ctx.finetune_type)
    src = source_record(view, source, example.path if example is not None else None)
    ctx = like_context(ctx, src)
    return LikeInputs(ctx, src, source_files(src, ctx))


def source_line(source: SourceAlgorithm, answers: Answers) -> str:
    """What ffgen read from the source's code, in one line (shown before the plan)."""
    a = answers
    roles = f" ({','.join(a.roles)})" if a.roles else ""
    origin = "its ffgen record" if source.generated else "its code"
    return (
        f"--{source.mode} {source.key}: {source.trainer.name} + {source.args.name}; "
        f"{a.acquisition.value} + {a.feedback.value}, {a.paradigm.value}, dynamics "
        f"{a.dynamics.value}, supervision {a.supervision}, state {a.state.value}, ownership "
        f"{a.ownership.value}{roles} (from {origin})"
    )
