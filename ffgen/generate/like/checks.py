"""Conformance of a copy: it may use nothing its source does not already use.

The conformance check proves rendered files against the checkout. A ``--like`` copy is the
source's own code, renamed: where the source itself does something the check refuses (a real
override that drops a base parameter it never receives, an import of a module the checkout
holds outside what ffgen can read), the copy inherits it and is refused for nothing it added.
So a copy is held to the source's findings as its baseline: a finding the source has too (after
the renames are undone) is the source's, any other refuses the plan as usual.
"""

from __future__ import annotations

from collections.abc import Mapping

from ffgen.checkout.view import CheckoutView
from ffgen.errors import RefusedError
from ffgen.generate.conformance.check import conformance_findings
from ffgen.generate.context import RenderContext
from ffgen.store.records import RecordedSource


def _undone(text: str, ctx: RenderContext, src: RecordedSource) -> str:
    """``text`` with the copy's names put back to the source's."""
    from ffgen.generate.like.files import dotted_of

    pairs = (
        (dotted_of(ctx.trainer_path), dotted_of(src.trainer_path)),
        (dotted_of(ctx.args_path), dotted_of(src.args_path)),
        (ctx.trainer_class, src.trainer_class),
        (ctx.args_class, src.args_class),
    )
    for new, old in pairs:
        text = text.replace(new, old)
    return text


def source_baseline(view: CheckoutView, src: RecordedSource) -> set[tuple[str, str]]:
    """``(member, problem)`` of every conformance finding of the source's own modules."""
    files = {p: t for p in (src.trainer_path, src.args_path) if (t := view.read(p)) is not None}
    return {(f.member, f.problem) for f in conformance_findings(view, files)}


def check_copy_conformance(
    before: CheckoutView,
    after: CheckoutView,
    files: Mapping[str, str],
    src: RecordedSource | None,
    ctx: RenderContext,
) -> None:
    """Refuse the first finding of ``files`` (in the checkout as it would be, ``after``) that
    the source's own code does not have in ``before``; every finding without a source."""
    findings = conformance_findings(after, files)
    if not findings:
        return
    if src is None or src.mode != "like":
        raise RefusedError(findings[0].message)
    baseline = source_baseline(before, src)
    for f in findings:
        if (_undone(f.member, ctx, src), _undone(f.problem, ctx, src)) not in baseline:
            raise RefusedError(f.message)
