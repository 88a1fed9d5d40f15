"""Conformance: prove the rendered files use only what the user's Flow-Factory checkout has.

Runs in the plan stage, before anything is written, statically (``ast``; no checkout code runs,
no torch). For every rendered Python file it checks, against the checkout as it would be:

1. each ``flow_factory`` import (absolute or relative) names a module and a name the checkout
   defines or re-exports;
2. each ``self.<member>`` a generated class reads is defined by the class itself or by the
   checkout class it derives from (body, bases, or what they assign on ``self``);
3. each ``self.adapter.<member>`` (or a local alias of the adapter) exists on ``BaseAdapter``;
4. each call of those members, and of imported flow_factory functions and classes, fits the
   checkout's signature;
5. each method a generated class overrides keeps the parameters of the checkout's method,
   because the framework calls it that way;
6. types from the checkout's own annotations: a value whose type is known (a local bound from a
   call whose callee has a return annotation, a class constructor, an annotated parameter, an
   annotated field or property of a typed value, tuple unpacking, a loop over a typed list) is
   held to its class: every member read on it exists there (``LatentState.detach``), every call
   of a method on it fits, and it is not passed where the callee's annotation excludes it (a
   ``LatentState`` for ``values: Mapping[str, torch.Tensor]``). A private helper of a rendered
   file takes, for a parameter its annotation leaves open, the type all its callers pass.

Each checkout module is parsed once per run and classes are resolved only when asked for, so a run
costs a handful of parses however many members the rendered files touch; each rendered file is
walked once for every check.

Rule 6 refuses only what is certain: a type is known only when every binding of the name agrees
(a name tested with ``isinstance`` is left alone), an annotation that is not clearly a checkout
class (``Any``, a protocol, a ``TypeVar``, a name that does not resolve) makes nothing known and
admits anything, and a class deriving from outside the checkout (``dict``, ``torch.nn.Module``)
or defining ``__getattr__`` may be or have anything. A value typed as a base may be a subclass:
a member a rendered ``src/`` subclass has is accepted, a base's method returning the base called
on a subclass gives the subclass, and a base-typed value passed where its subclass is expected is
accepted. Calls into the rendered files' own defs are not checked against ffgen's annotations.

What it cannot see: types beyond what the annotations say (``self.training_args.x`` when the
attribute is assigned on ``self`` unannotated, ``batch["x"]``, mapping values); members behind
``getattr``/``hasattr`` probes (trusted, since the code handles their absence); the members of a
base from another library (torch, a builtin), which may define anything; signatures behind
decorators other than the well-known ones; whether a base parameter an override takes only by
name (``**kwargs``) is ever passed positionally.
"""

from __future__ import annotations

from collections.abc import Mapping

from ffgen.checkout.view import CheckoutView
from ffgen.errors import RefusedError
from ffgen.generate.conformance.file_check import FileCheck
from ffgen.generate.conformance.findings import Finding
from ffgen.generate.conformance.index import Index


def conformance_findings(view: CheckoutView, files: Mapping[str, str]) -> list[Finding]:
    """Every conformance miss of the rendered ``files`` (path -> code) against ``view``.

    ``view`` should already contain the rendered files (an ``Overlay``), so that generated modules
    importing each other resolve. Findings are sorted by file, then position.
    """
    index = Index(view)
    sources = {p: view.python_tree(p, code) for p, code in sorted(files.items()) if _is_py(p)}
    for path, tree in sources.items():
        index.seed(path, tree)
    generated = frozenset(sources)
    checks = [FileCheck(index, path, tree, generated) for path, tree in sources.items()]
    index.rendered = [cls for check in checks if check.dotted for cls in check.classes()]
    index.rendered_texts = dict(files)
    found: dict[tuple[str, str, str], Finding] = {}
    for check in checks:
        for f in check.run():
            key = (f.path, f.member, f.problem)
            if key not in found or f.line < found[key].line:  # the first place it happens
                found[key] = f
    return sorted(found.values(), key=lambda f: (f.path, f.line, f.member, f.problem))


def check_conformance(view: CheckoutView, files: Mapping[str, str]) -> None:
    """Refuse (one line, the first miss) unless the rendered files fit the checkout."""
    findings = conformance_findings(view, files)
    if findings:
        raise RefusedError(findings[0].message)


def _is_py(path: str) -> bool:
    return path.endswith(".py")
