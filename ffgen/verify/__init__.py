"""``ffgen verify``: a static consistency check of every training algorithm in a checkout.

Reads the checkout with ``ast`` and PyYAML only (never imports checkout code or torch) and runs
on a :class:`~ffgen.checkout.view.CheckoutView`, so ``ffgen new`` can verify an :class:`Overlay` of
the files it is about to write. Rules are listed, as data, in :mod:`ffgen.verify.catalogue`.
The engine is imported on first use so that importing the command module stays cheap.
"""

from __future__ import annotations

from ffgen.checkout.view import CheckoutView
from ffgen.verify.model import ERROR, WARNING, Finding, Report


def run_verify(view: CheckoutView, *, algorithm: str | None = None) -> Report:
    """Check every algorithm in ``view`` (or only ``algorithm``), applying accepted exceptions.

    Raises :class:`ffgen.errors.UsageError` when the view has no readable registries or
    ``algorithm`` is not registered.
    """
    from ffgen.verify.engine import run_verify as _run

    return _run(view, algorithm=algorithm)


def introduced_errors(before: Report, after: Report) -> tuple[Finding, ...]:
    """Errors in ``after`` that ``before`` did not have (compared without line numbers, which
    shift when a plan edits a file). ``ffgen new`` refuses a plan when this is non-empty."""
    seen = {(f.rule_id, f.algorithm, f.path, f.message) for f in before.errors}
    return tuple(f for f in after.errors if (f.rule_id, f.algorithm, f.path, f.message) not in seen)


__all__ = ["ERROR", "WARNING", "Finding", "Report", "introduced_errors", "run_verify"]
