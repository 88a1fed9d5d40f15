"""Rules over multi-role training and checkpoint runtime children (FF601-FF604)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ffgen.verify.catalogue import RESERVED_RUNTIME_CHILDREN, finding
from ffgen.verify.facts import Algorithm, Facts
from ffgen.verify.index import ClassInfo
from ffgen.verify.model import Finding

ROLE_HOOK = "_optimizer_args_for_role"
PLAN = "role_update_plan"
CHILD_HOOK = "_algorithm_runtime_child_names"
REGISTER_CALLS = ("register_runtime_child", "_register_named_parameter_runtime_child")


def check_roles(facts: Facts) -> Iterator[Finding]:
    for alg in facts.algorithms:
        a, t = alg.args_cls, alg.trainer_cls
        if a is None or t is None:
            continue
        roles, line = facts.roles(a)
        signal = facts.own_method(t, ROLE_HOOK) or facts.own_method(a, PLAN)
        if roles is not None and len(roles) > 1:
            yield from _defaults(facts, alg, roles)
            yield from _plan(facts, alg, roles)
            yield from _children_declared(facts, alg)
        elif signal is not None or roles is not None:
            yield finding(
                "FF601", a.path, line or a.line, alg.key,
                f"{alg.key} optimizes per role but {a.name}.required_trainable_roles "
                f"{'is missing' if roles is None else 'is not a literal tuple of two or more'}",
            )


def _defaults(facts: Facts, alg: Algorithm, roles: tuple[str, ...]) -> Iterator[Finding]:
    t = alg.trainer_cls
    owner = facts.own_method(t, ROLE_HOOK)
    if owner is None:
        yield finding(
            "FF602", t.path, t.line, alg.key,
            f"{t.name} trains roles {list(roles)} but does not override {ROLE_HOOK}()",
            f"override {ROLE_HOOK}() falling back to a *_DEFAULT_OPTIMIZERS tuple",
        )
        return
    fn = owner.methods[ROLE_HOOK]
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id.endswith("_DEFAULT_OPTIMIZERS"):
            names = _default_names(facts, owner, node.id)
            if names is not None and sorted(names) != sorted(roles):
                yield finding(
                    "FF602", owner.path, node.lineno, alg.key,
                    f"{node.id} names {names} but {alg.key} trains roles {list(roles)}",
                )
            return


def _default_names(facts: Facts, owner: ClassInfo, name: str) -> list[str] | None:
    sym = facts.index.resolve(owner.module, name)
    if sym is None or sym.assign is None or not isinstance(sym.assign.value, ast.Tuple | ast.List):
        return None
    names = []
    for elt in sym.assign.value.elts:
        kw = next((k for k in getattr(elt, "keywords", []) if k.arg == "name"), None)
        if kw is None or not isinstance(kw.value, ast.Constant):
            return None
        names.append(kw.value.value)
    return names


def _plan(facts: Facts, alg: Algorithm, roles: tuple[str, ...]) -> Iterator[Finding]:
    a = alg.args_cls
    owner = facts.own_method(a, PLAN)
    if owner is None:
        return
    fn = owner.methods[PLAN]
    phases = [
        n.args[0].value
        for n in ast.walk(fn)
        if isinstance(n, ast.Call) and _callee(n) == "RolePhase" and n.args
        and isinstance(n.args[0], ast.Constant)
    ]
    if phases and sorted(set(phases)) != sorted(roles):
        yield finding(
            "FF602", owner.path, fn.lineno, alg.key,
            f"{owner.name}.{PLAN}() phases {phases} do not name exactly roles {list(roles)}",
        )


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")


def _children_declared(facts: Facts, alg: Algorithm) -> Iterator[Finding]:
    t = alg.trainer_cls
    declared = facts.class_value(t, "runtime_child_names")
    own = declared.owner is not None and id(declared.owner) not in facts.framework(t)
    if own and declared.value != ():
        return
    if facts.own_method(t, CHILD_HOOK) is not None:
        return
    yield finding(
        "FF603", t.path, t.line, alg.key,
        f"{t.name} trains several roles but declares no checkpoint runtime children",
    )


def check_children(facts: Facts) -> Iterator[Finding]:
    """FF604: no reserved child names; registered children are declared."""
    for alg in facts.algorithms:
        t = alg.trainer_cls
        if t is None:
            continue
        d = facts.class_value(t, "runtime_child_names")
        names = d.value if isinstance(d.value, tuple | list) else None
        fw = facts.framework(t)
        if names and d.owner is not None and id(d.owner) not in fw:
            for bad in (n for n in names if n in RESERVED_RUNTIME_CHILDREN):
                yield finding(
                    "FF604", d.owner.path, d.line, alg.key,
                    f"runtime child name {bad!r} is reserved by the framework",
                )
        if names is None or facts.own_method(t, CHILD_HOOK) is not None:
            continue
        yield from _undeclared(facts, alg, set(names))


def _undeclared(facts: Facts, alg: Algorithm, names: set[str]) -> Iterator[Finding]:
    for owner, fn in facts.effective_methods(alg.trainer_cls):
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and _callee(node) in REGISTER_CALLS):
                continue
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and arg.value not in names:
                yield finding(
                    "FF604", owner.path, node.lineno, alg.key,
                    f"runtime child {arg.value!r} is registered but not in "
                    f"runtime_child_names {sorted(names)}",
                )


RULES = (check_roles, check_children)
