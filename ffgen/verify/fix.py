"""``ffgen verify --fix``: repair the mechanical findings with the libcst edits ``ffgen new`` uses.

Only findings whose repair follows from the checkout itself are touched: a class that exists but
is not imported, re-exported or listed in ``__all__``, and a key that one registry has and the
other lacks when the class the other one needs exists (found by Flow-Factory's naming convention,
and only when exactly one class fits). Everything else needs a human decision and is left, with
the reason.

Each fix is tried on an in-memory :class:`~ffgen.checkout.view.Overlay` and kept only if verify then
no longer reports the finding and reports no new error, so a fix can never make a checkout worse.
Fixes that enable others (an import that makes a class resolve, which verify can then check for
its re-exports) are found by repeating until nothing more can be fixed. The result is a
:class:`~ffgen.generate.plan.Plan` of UPDATE changes; writing it is
 :func:`ffgen.write.apply.apply_plan`'s job.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView, Overlay
from ffgen.edits import registries as edits
from ffgen.generate.plan import FileChange, Plan, Status
from ffgen.verify.catalogue import rule
from ffgen.verify.engine import run_verify
from ffgen.verify.facts import (
    ARGS_INIT_MODULE,
    ARGS_REGISTRY_MODULE,
    Algorithm,
    Facts,
    build_facts,
)
from ffgen.verify.index import CheckoutIndex, ClassInfo
from ffgen.verify.model import Finding, Report, introduced_errors

# The rules --fix can repair, keyed by rule ID, with what the fix does (docs and --explain).
FIXABLE: dict[str, str] = {
    "FF101": "adds the key to the registry that lacks it, when exactly one class of the "
    "conventional name (<Stem>Trainer / <Stem>TrainingArguments) exists and is not registered",
    "FF104": "imports the args class in _registry.py when exactly one "
    "training_args/<module>.py defines it",
    "FF105": "imports the args class in hparams/training_args/__init__.py and lists it in __all__",
    "FF106": "adds the args class to hparams/__init__.py's `from .training_args import (...)` "
    "block and to __all__",
}
HUMAN = "needs a human decision; --fix only repairs " + ", ".join(FIXABLE)
PLAN_KEY = "verify-fix"
ARGS_SUFFIX = "TrainingArguments"
TRAINER_SUFFIX = "Trainer"
# Each fix costs one verify run; a checkout with more mechanical findings than this is a sign
# that something else is wrong, and a second --fix run continues where this one stopped.
MAX_FIXES = 200


@dataclass(frozen=True)
class Fixed:
    finding: Finding
    path: str  # the file the fix edits
    what: str  # one line: what was done

    def as_dict(self) -> dict[str, object]:
        return {**self.finding.as_dict(), "edited": self.path, "what": self.what}


@dataclass(frozen=True)
class Left:
    finding: Finding
    reason: str  # one line: why --fix did not touch it

    def as_dict(self) -> dict[str, object]:
        return {**self.finding.as_dict(), "reason": self.reason}


@dataclass(frozen=True)
class FixResult:
    fixed: tuple[Fixed, ...]
    left: tuple[Left, ...]
    plan: Plan  # UPDATE changes only
    after: Report  # what verify reports once the plan is applied


@dataclass(frozen=True)
class _Edit:
    path: str
    what: str
    transform: Callable[[str], edits.EditResult]


class _NotFixable(Exception):
    """The finding's rule is mechanical, but this instance is not; the message says why."""


def _ident(f: Finding) -> tuple[str, str | None, str, str]:
    # Lines shift when a fix edits a file; the rest of a finding does not.
    return (f.rule_id, f.algorithm, f.path, f.message)


def plan_fixes(view: CheckoutView, *, algorithm: str | None = None) -> FixResult:
    """Work out every mechanical fix for ``view`` (nothing is written)."""
    changes: dict[str, str] = {}
    fixed: list[Fixed] = []
    reasons: dict[tuple, str] = {}
    report = run_verify(view, algorithm=algorithm)
    for _ in range(MAX_FIXES):
        # A fix can make another one possible (an import lets a class resolve), so every pass
        # starts over; the last pass leaves the reasons for what stays.
        reasons = {}
        current = Overlay(base=view, changes=dict(changes))
        step = _fix_one(current, report, reasons, algorithm)
        if step is None:
            break
        finding, edit, text, report = step
        changes[edit.path] = text
        fixed.append(Fixed(finding, edit.path, edit.what))
    left = tuple(Left(f, reasons.get(_ident(f), _default_reason(f))) for f in report.findings)
    plan = Plan(key=PLAN_KEY, changes=tuple(_change(view, p, t) for p, t in changes.items()))
    return FixResult(tuple(fixed), left, plan, report)


def _fix_one(view: CheckoutView, report: Report, reasons: dict, algorithm: str | None):
    """The first finding of ``report`` that a fix clears, applied: (finding, edit, new text, new
    report), or None when no finding can be fixed. Findings that cannot are noted in ``reasons``."""
    facts = None
    for f in report.findings:
        if f.rule_id not in FIXABLE or _ident(f) in reasons:
            continue
        facts = facts or build_facts(CheckoutIndex(view))
        try:
            edit = _edit_for(facts, view, f)
            text = _apply(view, edit)
        except _NotFixable as exc:
            reasons[_ident(f)] = str(exc)
            continue
        after = run_verify(Overlay(base=view, changes={edit.path: text}), algorithm=algorithm)
        problem = _check_after(f, report, after)
        if problem:
            reasons[_ident(f)] = problem
            continue
        return f, edit, text, after
    return None


def _check_after(f: Finding, before: Report, after: Report) -> str:
    # A class that starts to resolve is checked for its re-exports and registrations: those
    # findings were hidden, not caused, and the next passes fix them.
    new_errors = [e for e in introduced_errors(before, after) if e.rule_id not in FIXABLE]
    if new_errors:
        e = new_errors[0]
        return (
            f"the fix would introduce {e.rule_id} ({e.message}); needs a human decision, "
            "nothing changed for it"
        )
    if any(_ident(x) == _ident(f) for x in after.findings):
        return "the edit did not clear the finding; fix it by hand"
    return ""


def _apply(view: CheckoutView, edit: _Edit) -> str:
    code = view.read(edit.path)
    if code is None:
        raise _NotFixable(f"{edit.path} is missing")
    result = edit.transform(code)
    if result.status in ("failed", "skipped"):
        raise _NotFixable(result.reason)
    if result.status == "unchanged":
        raise _NotFixable(f"{edit.path} already has the edit; the finding needs a human look")
    return result.code


def _change(view: CheckoutView, path: str, text: str) -> FileChange:
    return FileChange(path, Status.UPDATE, view.read(path), text)


def _default_reason(f: Finding) -> str:
    if f.rule_id in FIXABLE:
        return "not reached: run ffgen verify --fix again"
    return f"{rule(f.rule_id).title}: {HUMAN}"


# -- one edit per finding ------------------------------------------------------------------------


def _edit_for(facts: Facts, view: CheckoutView, f: Finding) -> _Edit:
    alg = facts.algorithm(f.algorithm or "")
    if alg is None:
        raise _NotFixable("the finding names no registered algorithm")
    if f.rule_id == "FF101":
        return _missing_key(facts, view, alg)
    if f.rule_id == "FF104":
        return _registry_import(facts, view, alg)
    cls = _args_class(alg)
    module = _args_module(cls)
    if f.rule_id == "FF105":
        return _Edit(
            layout.ARGS_INIT,
            f"imported {cls.name} from .{module} and listed it in __all__",
            lambda code: edits.add_args_init_export(code, module=module, class_name=cls.name),
        )
    return _Edit(
        layout.HPARAMS_INIT,
        f"re-exported {cls.name} from .training_args and listed it in __all__",
        lambda code: edits.add_hparams_reexport(code, class_name=cls.name),
    )


def _args_class(alg: Algorithm) -> ClassInfo:
    if alg.args_cls is None:
        raise _NotFixable("its args class does not resolve (see FF104)")
    return alg.args_cls


def _args_module(cls: ClassInfo) -> str:
    """``training_args/<module>.py`` -> ``<module>``; elsewhere the import line is a choice."""
    parent, _, module = cls.module.rpartition(".")
    if parent != ARGS_INIT_MODULE or not module.isidentifier():
        raise _NotFixable(
            f"{cls.name} is defined in {cls.path}, not in a training_args/<module>.py; "
            "write its import by hand"
        )
    return module


def _registry_import(facts: Facts, view: CheckoutView, alg: Algorithm) -> _Edit:
    """FF104: the registry names a class that is not imported; import it when one module has it."""
    value = alg.args_entry.value if alg.args_entry is not None else None
    if not isinstance(value, ast.Name):
        raise _NotFixable("the registry value is not a plain class name")
    info = facts.index.module(ARGS_REGISTRY_MODULE)
    if info is not None and value.id in info.bindings:
        raise _NotFixable(
            f"{value.id} is bound in _registry.py to something that is not the class; "
            "which import is meant needs a human decision"
        )
    cls = _only(_classes(facts, view, layout.TRAINING_ARGS_DIR, value.id), value.id)
    module = _args_module(cls)
    return _Edit(
        layout.ARGS_REGISTRY,
        f"imported {cls.name} from .{module}",
        lambda code: edits.add_args_registry_entry(
            code, key=alg.key, module=module, class_name=cls.name
        ),
    )


def _missing_key(facts: Facts, view: CheckoutView, alg: Algorithm) -> _Edit:
    """FF101: add the key to the registry that lacks it, from the class the other one names."""
    if alg.trainer_entry is None:
        return _add_trainer_entry(facts, view, alg)
    return _add_args_entry(facts, view, alg)


def _add_trainer_entry(facts: Facts, view: CheckoutView, alg: Algorithm) -> _Edit:
    cls = _args_class(alg)
    if len(facts.keys_for_args(cls)) > 1:
        raise _NotFixable(
            f"{cls.name} is shared by keys {', '.join(facts.keys_for_args(cls))}; which trainer "
            "an alias key selects needs a human decision"
        )
    stem = _stem(cls.name, ARGS_SUFFIX)
    wanted = stem + TRAINER_SUFFIX
    found = [
        c for c in _classes(facts, view, layout.TRAINERS_DIR, wanted) if facts.is_trainer_class(c)
    ]
    trainer = _only(_unregistered(facts, found, trainer=True), wanted)
    dotted = f"{trainer.module}.{trainer.name}"
    return _Edit(
        layout.TRAINER_REGISTRY,
        f"registered {alg.key!r} -> {dotted!r}",
        lambda code: edits.add_trainer_registry_entry(code, key=alg.key, dotted_path=dotted),
    )


def _add_args_entry(facts: Facts, view: CheckoutView, alg: Algorithm) -> _Edit:
    if alg.trainer_cls is None:
        raise _NotFixable("its trainer path does not resolve (see FF103)")
    wanted = _stem(alg.trainer_cls.name, TRAINER_SUFFIX) + ARGS_SUFFIX
    found = _classes(facts, view, layout.TRAINING_ARGS_DIR, wanted)
    cls = _only(_unregistered(facts, found, trainer=False), wanted)
    module = _args_module(cls)
    return _Edit(
        layout.ARGS_REGISTRY,
        f"registered {alg.key!r} -> {cls.name} (imported from .{module})",
        lambda code: edits.add_args_registry_entry(
            code, key=alg.key, module=module, class_name=cls.name
        ),
    )


def _stem(name: str, suffix: str) -> str:
    if not name.endswith(suffix) or name == suffix:
        raise _NotFixable(
            f"{name} does not end in {suffix}, so the class the other registry needs cannot be "
            "told from its name"
        )
    return name.removesuffix(suffix)


def _unregistered(facts: Facts, found: list[ClassInfo], *, trainer: bool) -> list[ClassInfo]:
    """Drop classes another key already uses: reusing one makes an alias, a human's call."""
    used = {id(a.trainer_cls if trainer else a.args_cls) for a in facts.algorithms}
    free = [c for c in found if id(c) not in used]
    if found and not free:
        raise _NotFixable(
            f"{found[0].name} is already registered under another key; an alias needs a human "
            "decision"
        )
    return free


def _only(found: list[ClassInfo], name: str) -> ClassInfo:
    if not found:
        raise _NotFixable(f"no class {name} is defined in the checkout")
    if len(found) > 1:
        where = ", ".join(c.path for c in found)
        raise _NotFixable(f"{name} is defined in {len(found)} modules ({where}); pick one by hand")
    return found[0]


def _classes(facts: Facts, view: CheckoutView, folder: str, name: str) -> list[ClassInfo]:
    """Classes called ``name`` defined (not just imported) in modules under ``folder``."""
    out = []
    for path in view.files(f"{folder}/**/*.py"):
        dotted = _dotted(path)
        info = facts.index.module(dotted) if dotted else None
        cls = info.bindings.get(name) if info is not None else None
        if isinstance(cls, ClassInfo) and cls.path == path:
            out.append(cls)
    return out


def _dotted(path: str) -> str | None:
    """``src/flow_factory/a/b.py`` -> ``flow_factory.a.b`` (``__init__.py`` -> the package)."""
    if not path.startswith("src/") or not path.endswith(".py"):
        return None
    parts = path[len("src/") : -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if all(p.isidentifier() for p in parts) else None
